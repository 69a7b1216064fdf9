"""Files from outside the program, read and parsed within limits: YAML, JSON and TOML.

Config files, cards, policies, rubrics, suite files, HELM results and scan input can hold anything.
Whatever they hold, reading one ends in its data or in a clear error (the error class the caller
names, ConfigError by default) that names the file and, where it is known, the line:

- only a regular file is read (a FIFO can block forever, a device never ends), and at most
  `Limits.max_bytes` of it;
- text must be UTF-8 (a byte-order mark is allowed);
- nesting is checked *before* the parser runs, by a scan that does not recurse: the parsers do
  (libyaml's composer crashes the process at ~100,000 levels; json and tomllib raise RecursionError
  at ~1,000);
- YAML aliases are allowed, but the document as expanded counts against `Limits.max_nodes`, so an
  alias bomb (a few lines that expand to billions of values) is refused before it is built, and an
  alias to the collection it sits in is refused;
- numbers: JSON's NaN and Infinity and any number that overflows a float are refused, and so is an
  integer longer than `MAX_DIGITS` digits (Python refuses to convert those, with a ValueError).
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

import yaml

from medhelm_local.errors import ConfigError, MedhelmError

MAX_DIGITS = 4300  # Python's own limit for converting text to an integer


@dataclass(frozen=True)
class Limits:
    """How much of a file is read, how deep its data may nest, and how many values it may hold."""

    max_bytes: int = 16 << 20
    max_depth: int = 100
    max_nodes: int = 250_000  # YAML: values after expanding aliases


DEFAULT = Limits()

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


def read_bounded(path: Path, what: str, *, limits: Limits = DEFAULT, error: type[MedhelmError] = ConfigError,
                 if_missing: str = "check the path", check: Callable[[os.stat_result], None] | None = None) -> bytes:
    """The bytes of a regular file of at most `limits.max_bytes`; anything else is `error` naming the file
    (`if_missing`: what to do when there is no such file). `check` sees the status of the file opened, before a
    byte is read (so a file swapped in after a check of the path changes nothing), and may raise."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever, before fstat can refuse it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise error(f"the {what} does not exist", where=str(path), fix=if_missing) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # what open() says of a Unix socket
            raise error(f"the {what} is a socket, not a regular file", where=str(path),
                        fix="give the path of a regular file") from None
        raise error(f"cannot read the {what} ({exc.strerror})", where=str(path),
                    fix="check the path and its permissions") from None
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode) or status.st_size > limits.max_bytes:
        os.close(fd)
        if stat.S_ISREG(status.st_mode):
            raise error(f"the {what} is larger than {_size(limits.max_bytes)}, the most this program reads from it",
                        where=str(path), fix="check that this is the right file")
        raise error(f"the {what} is {_kind(status.st_mode)}, not a regular file", where=str(path),
                    fix="give the path of a regular file")
    if check is not None:
        try:
            check(status)
        except BaseException:
            os.close(fd)
            raise
    with os.fdopen(fd, "rb") as fh:
        try:
            data = fh.read(limits.max_bytes + 1)
        except OSError as exc:
            raise error(f"cannot read the {what} ({exc.strerror})", where=str(path),
                        fix="check the file and the disk it is on") from None
    if len(data) > limits.max_bytes:
        raise error(f"the {what} is larger than {_size(limits.max_bytes)}, the most this program reads from it",
                    where=str(path), fix="check that this is the right file")
    return data


def decode(data: bytes, where: str, what: str, error: type[MedhelmError] = ConfigError) -> str:
    """UTF-8 text (a leading byte-order mark dropped), or `error` naming the line of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"the {what} is not UTF-8 text (byte {exc.start + 1} is not)", where=f"{where}, line {line}",
                    fix="save it as UTF-8 text") from None


# ---- nesting and long numbers, checked before a parser sees the text -------------------------------------------

_JSON_STRINGS = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOML_STRINGS = (r'"""[\s\S]*?"""|' r"'''[\s\S]*?'''|" r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|' r"'[^'\n]*'|#[^\n]*")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


@dataclass(frozen=True)
class _Syntax:
    strings: re.Pattern[str]  # what to skip: strings (and comments)
    tokens: re.Pattern[str]   # the slow scan that finds the line


def _syntax(strings: str) -> _Syntax:
    return _Syntax(re.compile(strings), re.compile(rf"{strings}|[\[\]{{}}]|\d{{{MAX_DIGITS + 1},}}|\n"))


_JSON = _syntax(_JSON_STRINGS)
_TOML = _syntax(_TOML_STRINGS)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


def _first_problem(text: str, syntax: _Syntax, max_depth: int) -> tuple[int, str] | None:
    """(line, problem) of the first place nesting or a number goes past the limits (a scan at C speed first;
    the token-by-token scan only where it finds a problem)."""
    bare = syntax.strings.sub(" ", text)
    brackets = _NOT_BRACKETS.sub("", bare)
    deep = max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > max_depth
    if not deep and not _LONG_NUMBER.search(bare):
        return None
    line, depth = 1, 0
    for match in syntax.tokens.finditer(text):
        token = match.group()
        if token in _STEP:
            depth += _STEP[token]
            if depth > max_depth:
                return line, f"nests more than {max_depth} levels deep"
        elif token[0].isdigit() and token.isdigit():
            return line, f"holds a number of {len(token)} digits (at most {MAX_DIGITS} are read)"
        line += token.count("\n")
    return None


def _check_text(text: str, syntax: _Syntax, where: str, what: str, limits: Limits, error: type[MedhelmError],
                first_line: int = 1) -> None:
    found = _first_problem(text, syntax, limits.max_depth)
    if found is not None:
        line, problem = found
        raise error(f"the {what} {problem}", where=f"{where}, line {line + first_line - 1}",
                    fix="check that this is the right file; no real one nests or counts like this")


# ---- JSON ----------------------------------------------------------------------------------------------------------

class _BadNumberError(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumberError(text)
    return value


def _constant(text: str) -> float:
    raise _BadNumberError(text)


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def parse_json(text: str, where: str, what: str, *, limits: Limits = DEFAULT,
               error: type[MedhelmError] = ConfigError, first_line: int = 1) -> Any:
    """JSON text as data, within `limits`; `error` names `where` and the line otherwise (counted from
    `first_line`: a line of a JSON-lines file is its own document)."""
    fix = "check that this is the right file; no real one nests or counts like this"

    def refuse(found: tuple[int, str] | None) -> MedhelmError:
        line, problem = found or (1, f"nests more than {limits.max_depth} levels deep")
        return error(f"the {what} {problem}", where=f"{where}, line {line + first_line - 1}", fix=fix)

    try:
        # json's C parser counts its own depth and stops near Python's recursion limit (RecursionError, never a
        # crash): parsing first and scanning for the line only when something is wrong costs a third of scanning
        # every file first.
        data = json.loads(text, parse_float=_finite, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        line = exc.lineno + first_line - 1
        raise error(f"the {what} is not valid JSON ({exc.msg} at character {exc.colno})",
                    where=f"{where}, line {line}", fix="fix the syntax at that line, or give the file as it was written"
                    ) from None
    except _BadNumberError as exc:
        line = _line_of(text, exc.text) + first_line - 1
        raise error(f"the {what} holds the number {exc.text[:40]}, which is not a finite number",
                    where=f"{where}, line {line}", fix="give finite numbers only") from None
    except (ValueError, RecursionError):  # an integer past Python's 4,300 digits; nesting past ~1,000 levels
        raise refuse(_first_problem(text, _JSON, limits.max_depth)) from None
    if text.count("[") + text.count("{") > limits.max_depth and _deeper_than(data, limits.max_depth):
        raise refuse(_first_problem(text, _JSON, limits.max_depth))
    return data


def load_json(path: Path, what: str, *, limits: Limits = DEFAULT, error: type[MedhelmError] = ConfigError,
              if_missing: str = "check the path") -> Any:
    """A JSON file as data: a regular UTF-8 file within `limits`, else `error` naming the file and line."""
    data = read_bounded(path, what, limits=limits, error=error, if_missing=if_missing)
    return parse_json(decode(data, str(path), what, error), str(path), what, limits=limits, error=error)


# ---- TOML ----------------------------------------------------------------------------------------------------------

def _deeper_than(data: Any, max_depth: int) -> bool:
    """True if `data` nests more than `max_depth` lists and mappings (walked level by level, without recursion;
    parsed data holds plain dicts and lists only)."""
    level = [data] if type(data) is dict or type(data) is list else []
    depth = 1
    while level:
        if depth > max_depth:
            return True
        below: list[Any] = []
        for item in level:
            below += [v for v in (item.values() if type(item) is dict else item) if type(v) is dict or type(v) is list]
        level, depth = below, depth + 1
    return False


def parse_toml(text: str, where: str, what: str, *, limits: Limits = DEFAULT,
               error: type[MedhelmError] = ConfigError) -> dict[str, Any]:
    """TOML text as a table, within `limits`; `error` names `where` (and the line where TOML says it)."""
    _check_text(text, _TOML, where, what, limits, error)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"the {what} is not valid TOML ({exc})", where=where,
                    fix="fix the syntax at the line and column named") from None
    if _deeper_than(data, limits.max_depth):  # dotted keys and table headers nest without brackets
        raise error(f"the {what} nests more than {limits.max_depth} levels deep", where=where,
                    fix="check that this is the right file; no real one nests like this")
    return data


# ---- YAML: the event stream checked before anything is built --------------------------------------------------------

YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser: much faster, and it does not recurse
_COLLECTION_START = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_COLLECTION_END = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _events(text: str) -> Iterator[yaml.Event]:
    loader = YAML_LOADER(text)
    try:
        while loader.check_event():
            yield loader.get_event()
    finally:
        loader.dispose()


def check_yaml(text: str, where: str, what: str, *, limits: Limits = DEFAULT,
               error: type[MedhelmError] = ConfigError) -> None:
    """Refuse YAML that nests too deeply, expands (through aliases) to too many values, or has an alias inside
    the collection it names; syntax errors are left to the parser (yaml.YAMLError). A value the constructor
    cannot build (an overlong number, a date such as 2024-13-45) is found by `first_bad_scalar`."""
    depth = nodes = 0
    sizes: dict[str, int] = {}
    open_anchors: list[tuple[str | None, int]] = []
    for event in _events(text):
        line = f"{where}, line {event.start_mark.line + 1}"
        if isinstance(event, _COLLECTION_START):
            depth, nodes = depth + 1, nodes + 1
            if depth > limits.max_depth:
                raise error(f"the {what} nests more than {limits.max_depth} levels deep", where=line,
                            fix="check that this is the right file; no real one nests like this")
            open_anchors.append((event.anchor, nodes))
        elif isinstance(event, _COLLECTION_END):
            depth -= 1
            anchor, start = open_anchors.pop()
            if anchor is not None:
                sizes[anchor] = nodes - start + 1
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if any(anchor == event.anchor for anchor, _ in open_anchors):
                raise error(f"the {what} has an alias (*{event.anchor}) inside the collection it names, which "
                            "would repeat forever", where=line, fix="remove the alias")
            nodes += sizes.get(event.anchor, 1)
        if nodes > limits.max_nodes:
            raise error(f"the {what} holds more than {limits.max_nodes:,} values once its aliases (*name) are "
                        "expanded", where=line, fix="write the values out, or use fewer aliases")


def first_bad_scalar(node: yaml.Node) -> yaml.Node | None:
    """The first scalar whose value the safe constructor cannot build (a date such as 2024-13-45), if any."""
    constructor = yaml.constructor.SafeConstructor()
    stack, seen = [node], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, yaml.ScalarNode):
            try:
                constructor.construct_object(item)
            except (ValueError, OverflowError, yaml.YAMLError):
                return item
        elif isinstance(item, yaml.SequenceNode):
            stack.extend(reversed(item.value))
        elif isinstance(item, yaml.MappingNode):
            stack.extend(n for pair in reversed(item.value) for n in reversed(pair))
    return None

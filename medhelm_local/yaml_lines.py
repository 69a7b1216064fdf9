"""YAML with line numbers: load a document and find the line of any key path, for error messages.

Pydantic reports *which* field is wrong (`benchmarks.1.args`); users need *where* it is in their file.
Every document is read and checked within `safe_parse`'s limits (a regular file, a size cap, nesting and
alias expansion) before anything is built; `parse_located` takes bytes already read (a trust input read
once) and `load_located` reads the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from medhelm_local.errors import ConfigError, MedhelmError
from medhelm_local.field_errors import typo_first
from medhelm_local.safe_parse import (
    DEFAULT,
    YAML_LOADER,
    Limits,
    check_yaml,
    decode,
    first_bad_scalar,
    read_bounded,
)


@dataclass(frozen=True)
class LocatedYaml:
    """A parsed YAML document and the line (1-based) of each key path."""

    path: Path
    data: Any
    lines: dict[tuple[str | int, ...], int]

    def line_of(self, loc: tuple[str | int, ...]) -> int | None:
        """The line of the deepest part of `loc` that exists in the file."""
        for end in range(len(loc), -1, -1):
            if loc[:end] in self.lines:
                return self.lines[loc[:end]]
        return None


class DuplicateKeyError(Exception):
    """A mapping names the same key twice (YAML would silently keep the last)."""

    def __init__(self, loc: tuple[str | int, ...], first: int, again: int) -> None:
        super().__init__(loc)
        self.loc, self.first, self.again = loc, first, again


def _walk(node: yaml.Node, loc: tuple[str | int, ...], lines: dict[tuple[str | int, ...], int]) -> None:
    lines.setdefault(loc, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, value in node.value:
            name, line = str(key.value), key.start_mark.line + 1
            if name in seen:
                raise DuplicateKeyError((*loc, name), seen[name], line)
            seen[name] = line
            child = (*loc, name)
            lines[child] = line
            _walk(value, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            _walk(value, (*loc, index), lines)


def load_located(path: Path, what: str, *, limits: Limits = DEFAULT, error: type[MedhelmError] = ConfigError,
                 if_missing: str = "check the path") -> LocatedYaml:
    """Read a YAML file within `limits` and parse it safely, or raise `error` naming the file and line."""
    data = read_bounded(path, what, limits=limits, error=error, if_missing=if_missing)
    return parse_located(data, path, what, limits=limits, error=error)


def parse_located(raw: bytes | str, path: Path, what: str, *, limits: Limits = DEFAULT,
                  error: type[MedhelmError] = ConfigError) -> LocatedYaml:
    """Parse YAML read from `path` (bytes or text) safely and within `limits`, or raise `error` naming the
    file and line."""
    text = decode(raw, str(path), what, error) if isinstance(raw, bytes) else raw
    node: yaml.Node | None = None
    data: Any = None
    lines: dict[tuple[str | int, ...], int] = {}
    try:
        check_yaml(text, str(path), what, limits=limits, error=error)
        loader = YAML_LOADER(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                _walk_located(node, lines, path, what, error)  # before constructing: merge keys rewrite the nodes
                data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise error(f"the {what} is not valid YAML ({problem})", where=f"{path}{line}",
                    fix="fix the syntax at that line") from None
    except (ValueError, OverflowError):
        bad = first_bad_scalar(node) if node is not None else None
        line = f", line {bad.start_mark.line + 1}" if bad is not None else ""
        value = f" '{bad.value[:40]}'" if bad is not None else ""
        raise error(f"the {what} holds a value{value} that cannot be read (a date or number out of range)",
                    where=f"{path}{line}", fix="correct the value, or quote it to make it text") from None
    return LocatedYaml(path, data, lines)


def _walk_located(node: yaml.Node, lines: dict[tuple[str | int, ...], int], path: Path, what: str,
                  error: type[MedhelmError]) -> None:
    try:
        _walk(node, (), lines)
    except DuplicateKeyError as dup:
        key = ".".join(str(p) for p in dup.loc)
        raise error(f"the {what} gives '{key}' twice (lines {dup.first} and {dup.again}); only one "
                    "can apply", where=f"{path}, line {dup.again}",
                    fix="keep one of them: YAML would silently use the last") from None


def _without_union_tags(errors: list[Any], lines: dict[tuple[str | int, ...], int]) -> list[Any]:
    """Pydantic's errors as the file's author reads them. A field that takes one of several shapes (a name, or a
    mapping) puts the shape's tag in the path (`benchmarks.1.SuiteBenchmark.arg`): a Python class name the
    author never wrote, so a path part that is not in the file and is not the last is dropped. A shape the value
    is not at all (its tag ends the path: `benchmarks.1.str` for a mapping) is noise beside the shape that got
    further, whose error names the field to fix; when every shape failed that way, that is one problem."""
    cleaned = []
    for error in errors:
        loc = tuple(error["loc"])
        kept: list[str | int] = []
        for index, part in enumerate(loc):
            if isinstance(part, str) and index < len(loc) - 1 and (*kept, part) not in lines:
                continue
            kept.append(part)
        dropped_tag_last = bool(loc) and isinstance(loc[-1], str) and len(kept) == len(loc) \
            and tuple(kept) not in lines and len(loc) > 1 and tuple(loc[:-1]) in lines \
            and error["type"].endswith("_type")
        cleaned.append(({**error, "loc": tuple(kept[:-1]) if dropped_tag_last else tuple(kept)}, dropped_tag_last))
    deeper = [error for error, wholesale in cleaned if not wholesale]
    found, refused = list(deeper), set()
    for error, wholesale in cleaned:
        at = error["loc"]
        if not wholesale or at in refused or any(d["loc"][:len(at)] == at for d in deeper):
            continue
        refused.add(at)  # every shape refused the value outright: one problem, without the shapes' Python names
        found.append({**error, "msg": "the value is none of the forms this field takes"})
    return found


def validate_located(model: type[BaseModel], doc: LocatedYaml, what: str, fix: str) -> Any:
    """Validate a parsed document strictly; the error names the field, its line and the problem."""
    try:
        return model.model_validate(doc.data if doc.data is not None else {})
    except ValidationError as exc:
        errors, meant = typo_first(_without_union_tags(exc.errors(), doc.lines))
        first = errors[0]
        loc = tuple(first["loc"])
        field = ".".join(str(p) for p in loc) or "(top level)"
        line = doc.line_of(loc)
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = "unknown field" + (f" (did you mean '{meant}'?)" if meant else "")
        more = f" ({len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        where = f"{doc.path}, line {line}" if line else str(doc.path)
        raise ConfigError(f"{what} field '{field}': {message}{more}", where=where, fix=fix) from None

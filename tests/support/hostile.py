"""A corpus of hostile files, built where a test needs one: what a careless user or an attacker might hand
to any option that names a file.

Every kind applies to every file (`GENERIC`: bytes that are not text, the wrong encoding, a named pipe with
no writer, a device, a link loop, a link to a device, a folder, a 2 GiB sparse file); the others only where
the program parses that format (an alias bomb is only hostile to a YAML reader). Each is built at the path a
test gives, so it can sit inside an otherwise valid folder (a policy folder, a bundle, a HELM results tree).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

GENERIC = ("binary", "utf16", "fifo", "device", "link_loop", "link_to_device", "folder", "oversized")
YAML = ("yaml_alias_bomb", "yaml_self_alias", "yaml_deep_100k", "yaml_deep_3000", "yaml_bad_date")
JSON = ("json_deep_100k", "json_deep_3000", "json_1e400", "json_nan", "json_long_int")
TOML = ("toml_deep_100k", "toml_deep_3000", "toml_dotted_3000", "toml_long_int")
FORMATS = {"yaml": YAML, "json": JSON, "toml": TOML, "text": ()}

_LAUGHS = ('a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
           + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)))
_TEXT: dict[str, str] = {
    # Nine levels of nine aliases each: ~400 bytes that expand to 9^9 (387 million) strings.
    "yaml_alias_bomb": _LAUGHS,
    "yaml_self_alias": "a: &a [1, *a]\n",
    "yaml_deep_100k": "[" * 100_000 + "]" * 100_000 + "\n",
    "yaml_deep_3000": "- " * 3000 + "x\n",  # block sequences, each inside the last
    "yaml_bad_date": "name: x\nwhen: 2024-13-45\n",  # YAML's implicit timestamp, a month that does not exist
    "json_deep_100k": "[" * 100_000 + "]" * 100_000,
    "json_deep_3000": '{"a": ' * 3000 + "1" + "}" * 3000,
    "json_1e400": '{"id": 1, "text": "x", "count": 1e400, "mean": 1e400}',
    "json_nan": '{"id": 1, "text": "x", "count": NaN, "mean": -Infinity}',
    "json_long_int": '{"id": ' + "9" * 5000 + ', "text": "x", "count": ' + "9" * 5000 + "}",
    "toml_deep_100k": "a = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "toml_deep_3000": "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n",
    "toml_dotted_3000": "a" + ".a" * 3000 + " = 1\n",
    "toml_long_int": "log_file = " + "9" * 5000 + "\n",
}


def can_make_devices() -> bool:
    """True where this process may create device nodes (root with CAP_MKNOD)."""
    return os.geteuid() == 0


def make(path: Path, kind: str) -> Path:
    """Build a hostile file of `kind` at `path` (its folder is created); return `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind in _TEXT:
        path.write_text(_TEXT[kind], encoding="utf-8")
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 16)
    elif kind == "utf16":
        path.write_bytes('{"a": "caf\u00e9"}\nname: caf\u00e9\n'.encode("utf-16"))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # what /dev/zero is: it never ends
    elif kind == "link_loop":
        path.symlink_to(path.name + ".other")
        path.with_name(path.name + ".other").symlink_to(path.name)
    elif kind == "link_to_device":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
        (path / "inside.txt").write_text("a folder where a file belongs\n")
    elif kind == "oversized":
        with path.open("wb") as fh:
            fh.truncate(2 << 30)  # sparse: 2 GiB long, no disk used
    else:
        raise ValueError(f"no hostile kind {kind!r}")
    return path

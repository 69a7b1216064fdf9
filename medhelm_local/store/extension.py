"""DuckDB's httpfs extension, which encrypted stores need: found in the installed wheel, checked, then loaded.

DuckDB 1.4.4 writes encrypted files only with httpfs (OpenSSL) loaded. The file ships in the PyPI wheel
`duckdb-ext-httpfs`, installed from the pinned wheelhouse into site-packages beside DuckDB's own library;
nothing is ever downloaded. DuckDB checks an extension's signature at every load, a software SHA-256 over
the whole file in each process and for each store it opens (`docs/performance.md`). Where the file's bytes
are exactly a release named in `PINNED`, checked here with the standard library's SHA-256 once per
process, it is loaded without DuckDB's second check: a pinned digest admits one file, where a valid
signature admits any file DuckDB has signed. A file whose digest is not pinned (another platform, or a
changed file) is loaded only after DuckDB finds its signature valid, as before.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import duckdb

from medhelm_local.errors import StoreError

# "<DuckDB version>/<platform>" -> the SHA-256 of that release's httpfs.duckdb_extension, as the pinned wheel
# installs it. Upgrading duckdb-ext-httpfs means adding its digest: until then its file is loaded with DuckDB's
# own signature check (slower, as safe), and tests/store/test_extension.py fails to say so.
PINNED = {
    "v1.4.4/linux_amd64": "ff726450b5374caaf9ffd9ef8fd9ec40df19b514117f079de3611326432a6646",
}


@dataclass(frozen=True)
class Extension:
    """The extension file, and whether its bytes are a pinned release's (else DuckDB checks its signature)."""

    path: Path
    pinned: bool

    def describe(self) -> str:
        """One line for `doctor`."""
        check = "its SHA-256 pinned by medhelm-local" if self.pinned else "its signature checked by DuckDB"
        return f"{self.path.name} from site-packages ({check}; no download)"


def httpfs_extension_path() -> Path:
    """The httpfs extension file inside the installed `duckdb-ext-httpfs` wheel."""
    spec = importlib.util.find_spec("duckdb_ext")
    roots = list(spec.submodule_search_locations or []) if spec else []
    version = "v" + duckdb.__version__
    for root in roots:
        found = sorted(Path(root, "extensions", version).glob("*/httpfs.duckdb_extension"))
        if found:
            return found[0]
    raise StoreError(
        f"the DuckDB httpfs extension for DuckDB {duckdb.__version__} is not installed, and it is needed "
        "to write encrypted stores",
        where="python package duckdb-ext-httpfs",
        fix="reinstall medhelm-local (it pins duckdb==1.4.4 and duckdb-ext-httpfs); nothing is downloaded at run time",
    )


def checked(path: Path) -> Extension:
    """`path` with `pinned` set when its SHA-256 is the one pinned for its version and platform folder."""
    expected = PINNED.get(f"{path.parent.parent.name}/{path.parent.name}")
    if expected is None:
        return Extension(path, pinned=False)
    try:
        with path.open("rb") as file:
            digest = hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:
        return Extension(path, pinned=False)  # DuckDB's own load then says what is wrong with the file
    return Extension(path, pinned=digest == expected)


@cache
def httpfs_extension() -> Extension:
    """The installed extension, checked once per process (every store a process opens loads the same file)."""
    return checked(httpfs_extension_path())


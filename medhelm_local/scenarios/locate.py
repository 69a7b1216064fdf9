"""Where a benchmark's files are: the data root (checked against their checksums), or MedHELM's data_path.

MedHELM's gated and private run entries name their data in place with `data_path=` (a folder or,
for single-file datasets, the file itself). Cards that declare the argument accept it unchanged:
the files are read where they are, without checksums (`data import` copies a folder into the data
root and records them). The data root is the default, and the only way a file is verified.
"""

from __future__ import annotations

from pathlib import Path

from medhelm_local.errors import DatasetMissingError
from medhelm_local.scenarios.card import CardData
from medhelm_local.scenarios.datafiles import MANIFEST, DataRoot, published_checksums


def data_root_files(data: DataRoot, spec: CardData, declared: tuple[str, ...], published_at: str) -> dict[str, Path]:
    """The folder's files in the data root, verified; a card that lists none reads every file recorded for it."""
    folder = spec.folder or ""
    names = declared
    if not names and published_checksums(folder) is None:
        recorded = data.recorded(folder)
        if recorded is None:
            raise DatasetMissingError(f"the dataset folder {folder} is not in the data root", where=str(data.root),
                                      fix=f"get it from {published_at}, then import it with `medhelm-local data "
                                          f"import FOLDER` (a folder named {folder}); or pass data_path= to read it "
                                          "where it is")
        names = tuple(sorted(recorded))
    return data.verify(folder, names, published_at)


def data_path_files(data_path: str, spec: CardData, declared: tuple[str, ...], published_at: str) -> dict[str, Path]:
    """The files as MedHELM's data_path= names them: a file, a folder, or a folder above the dataset's own."""
    where = f"data_path={data_path}"
    base = Path(data_path).expanduser()
    if base.is_file():
        if len(declared) != 1:
            raise DatasetMissingError("data_path names a file, and this benchmark reads a folder", where=where,
                                      fix=f"give the folder holding {', '.join(declared[:3]) or 'its files'}")
        return {declared[0]: base}
    if not base.is_dir():
        raise DatasetMissingError("data_path does not exist on this machine", where=where,
                                  fix=f"give the path where the data is here (published at {published_at})")
    below = base / spec.below_data_path if spec.below_data_path else base
    root = below if below.is_dir() else base
    if not declared:
        found = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*"))
                 if p.is_file() and p.name != MANIFEST}
        if not found:
            raise DatasetMissingError("data_path holds no files", where=where, fix=f"give the folder of {published_at}")
        return found
    paths = {name: root / name for name in declared}
    missing = [name for name, path in paths.items() if not path.is_file()]
    if missing:
        raise DatasetMissingError(f"{missing[0]} is not under data_path", where=f"{where} (looked in {root})",
                                  fix=f"give the folder holding {', '.join(declared[:4])} (published at "
                                      f"{published_at})")
    return paths


def own_file(card_file: Path, data_path: str | None) -> Path:
    """A card's own data file (or folder), or the one data_path= names instead."""
    path = Path(data_path).expanduser() if data_path else card_file
    if not path.exists():
        raise DatasetMissingError("the card's data file is missing", where=str(path),
                                  fix="put the file there, or correct data.file in the card (or data_path=)")
    return path

"""The stage packages import downwards only: no circle between two stages, no arrow from a lower stage up.

Every import counts, wherever it is written: at the top of a module, inside a function (a lazy import
still ties the two stages together), or under `if TYPE_CHECKING:`. The order is docs/architecture.md's
"Stages and the import order"; a new package must be placed in it before it can be imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "medhelm_local"

# Lowest first. A package may import the modules at the package root (records, errors, settings, ...) and any
# package listed before it, never one listed after it. Keep in step with docs/architecture.md.
STAGES = (
    "taxonomy",   # MedHELM's taxonomy, as data
    "metrics",    # one answer -> Score; the metric registry
    "store",      # encrypted DuckDB: schema, keys, writer, rows, reads
    "client",     # Prompt -> Completion over HTTP, egress guard
    "redact",     # PHI detection and surrogates
    "policy",     # policy files, allowlist, identity
    "audit",      # the audit log and its checkpoints
    "annotate",   # judges: rubrics, the jury, ratings
    "scenarios",  # cards, readers, formats -> Instance; dataset sources
    "results",    # aggregates, run figures, outcomes, merges, a suite read from Python
    "run",        # entries -> planned runs -> scheduler; judge passes over runs
    "report",     # stores -> leaderboards, HTML, viewer
    "raters",     # clinicians: sign-in, rating campaigns, the viewer's rating pages
    "export",     # redact, sign, record what leaves
    "data",       # staging public data on a connected host
    "cli",        # the command line: parse, call the library, print
)
# The package itself (medhelm_local/__init__.py) is the public API, above every stage.
API = "__init__"


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str) -> Iterator[tuple[str, int]]:
    """Every module or name the file of `module` imports, with its line: top level, in functions, typing-only."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            yield base, node.lineno
            yield from ((f"{base}.{alias.name}", node.lineno) for alias in node.names)


def _stage(module: str) -> str | None:
    """The stage package a module belongs to; None for a module at the package root (shared by every stage)."""
    parts = module.split(".")
    if parts == ["medhelm_local"]:
        return API
    if len(parts) < 2 or not (PACKAGE / parts[1]).is_dir():
        return None
    return parts[1]


def _edges() -> list[tuple[str, str, str, int]]:
    """(from stage, to stage, file, line) for every import that crosses from one stage, or the root, to another."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        source = _stage(module)
        for name, line in _imports(path, module):
            if name != "medhelm_local" and not name.startswith("medhelm_local."):
                continue
            target = _stage(name)
            if target is not None and target != API and target != source:
                found.append((source or "(root)", target, str(path.relative_to(PACKAGE.parent)), line))
    return found


def _rank(stage: str) -> int:
    return len(STAGES) if stage == API else -1 if stage == "(root)" else STAGES.index(stage)


def test_every_stage_package_has_a_place_in_the_order() -> None:
    """A package the order does not list cannot be checked: say where it goes."""
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(STAGES), (
        f"place these packages in STAGES (and docs/architecture.md): {sorted(packages - set(STAGES))}; "
        f"no longer packages: {sorted(set(STAGES) - packages)}")


def test_no_stage_imports_a_higher_one() -> None:
    """An arrow up the order (which also makes every circle between stages) fails, naming file and line."""
    upward = [f"{path}:{line}: {source} imports {target}" for source, target, path, line in _edges()
              if _rank(target) > _rank(source)]
    assert not upward, "imports up the stage order (move the concept down, or the caller up):\n" + "\n".join(upward)


def test_no_circle_between_stages() -> None:
    """Said on its own, with the two directions: a circle means a concept has no single owner."""
    pairs = {(s, t) for s, t, _, _ in _edges()}
    circles = sorted({tuple(sorted((s, t))) for s, t in pairs if (t, s) in pairs})
    assert not circles, f"stage packages that import each other: {circles}"


def test_the_checker_sees_lazy_and_typing_only_imports(tmp_path: Path) -> None:
    """The checker reads imports inside functions and under TYPE_CHECKING, not only at the top."""
    module = tmp_path / "m.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from medhelm_local.run import plan\n"
                      "def f():\n    import medhelm_local.cli.main\n    from ..report import site\n", "utf-8")
    names = {name for name, _ in _imports(module, "medhelm_local.annotate.m")}
    assert {"medhelm_local.run.plan", "medhelm_local.cli.main", "medhelm_local.report.site"} <= names


def _borrowed_private_names() -> list[str]:
    """`from medhelm_local.X import _name` in a module other than X itself (a dunder such as __version__ is public)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if not isinstance(node, ast.ImportFrom) or node.level:
                continue
            if not (node.module or "").startswith("medhelm_local"):
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and node.module != module:
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {alias.name} from {node.module}")
    return found


# Borrowings older than this check, left to their packages' owners (metrics, redact). The list only shrinks: one
# made public is taken off it, and a new borrowing anywhere fails.
KNOWN_BORROWED = {
    "medhelm_local/metrics/calibration.py: _interval from medhelm_local.metrics.aggregate",
    "medhelm_local/metrics/calibration.py: _resamples from medhelm_local.metrics.aggregate",
}


def test_no_module_borrows_another_modules_private_names() -> None:
    """A helper two modules share has one owner that makes it public; an underscored name is that module's alone
    (the viewer's pages share theirs through raters/pages.py and report/server.py's public names)."""
    borrowed = _borrowed_private_names()
    unlined = {b.split(":", 1)[0] + ":" + b.split(":", 2)[2] for b in borrowed}
    new = [b for b in borrowed if b.split(":", 1)[0] + ":" + b.split(":", 2)[2] not in KNOWN_BORROWED]
    assert not new, "private names imported from another module (make them public where they belong):\n" + \
        "\n".join(new)
    assert not KNOWN_BORROWED - unlined, f"no longer borrowed, take them off KNOWN_BORROWED: {KNOWN_BORROWED - unlined}"


def test_a_module_named_after_a_stage_lives_in_that_stage() -> None:
    """`annotate/store.py` beside `store/` was two owners of one concept: a module named after a stage package
    belongs in it."""
    misplaced = [str(path.relative_to(PACKAGE.parent)) for path in sorted(PACKAGE.glob("*/*.py"))
                 if path.stem in STAGES and path.stem != path.parent.name]
    assert not misplaced, f"move these into the stage they are named after: {misplaced}"


def test_the_report_draws_no_samples_and_runs_no_tests() -> None:
    """Bootstrap intervals and tie tests are computations on results (results/ties.py, results/paired.py); the
    report lays out and shows what they give."""
    computing = {"default_rng", "multinomial", "tie_groups", "percentile"}
    found = []
    for path in sorted((PACKAGE / "report").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name in computing:
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {name}")
    assert not found, f"computations on results in report/ (move them to results/): {found}"

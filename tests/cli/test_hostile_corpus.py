"""Every file-reading option of every command, fed every kind of hostile file (tests/support/hostile.py):
no traceback, no crash, no hang; a clear error that names the file, a non-zero exit; and nothing written.

`TARGETS` (tests/support/hostile_targets.py) says, for each command and option that reads a file, where the
hostile file goes and the command line that reads it. `test_every_file_reading_option_has_a_corpus_entry` fails
when a command gains an option (or a setting) that names a file without an entry there, so the corpus grows with
the CLI. The item-by-item cases of issue 15 stay in test_hostile_inputs.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import DEMO_DATASETS, REPO, run_cli
from support import hostile
from support.hostile_targets import (
    ELSEWHERE,
    ENTRY,
    FOLDERS,
    NOT_FILES,
    TARGETS,
    WRITES,
    Case,
    Site,
    Target,
    notes,
)
from support.phi_store import write_ward_store

from medhelm_local.scenarios.datafiles import import_dataset
from medhelm_local.store.keys import write_new_kek

DRIVER = REPO / "tests" / "support" / "cli_cases.py"
HANG_S = float(os.environ.get("HOSTILE_HANG_S", "30"))  # a case still running after this long is hung


def _file_options() -> set[str]:
    """Every command option or argument typed as a path, and every setting that is one, as "command --option"."""
    import click
    import typer.main

    from medhelm_local.cli.main import app, register_commands
    from medhelm_local.settings import Settings

    register_commands()
    root = typer.main.get_command(app)
    ctx = click.Context(root)
    found = {"--config"}

    def walk(command: click.Command, words: list[str]) -> None:
        if isinstance(command, click.Group) or hasattr(command, "list_commands"):
            for name in command.list_commands(ctx):  # type: ignore[attr-defined]
                walk(command.get_command(ctx, name), [*words, name])  # type: ignore[attr-defined]
            return
        hints = typing.get_type_hints(command.callback)
        for param in command.params:
            if "Path" in str(hints.get(param.name or "")) or param.name in ("conf", "jury"):
                label = max(param.opts, key=len) if param.opts[0].startswith("-") else param.name.upper()
                found.add(" ".join([*words, label]))

    walk(root, [])
    return found | {f"setting {n}" for n, f in Settings.model_fields.items() if "Path" in str(f.annotation)}


def test_every_file_reading_option_has_a_corpus_entry() -> None:
    reads = {r for t in TARGETS for r in t.reads}
    options = _file_options()

    missing = sorted(options - reads - WRITES - FOLDERS - set(ELSEWHERE) - NOT_FILES)
    unknown = sorted((reads | WRITES | FOLDERS | set(ELSEWHERE) | NOT_FILES) - options)

    assert not missing, f"options that name a file without a hostile-corpus entry here: {missing}"
    assert not unknown, f"entries here for options no command has (renamed?): {unknown}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The appliance, built once for the module: config (a fake deployment on the allowlist, a jury-scored card),
    a KEK, the 'ward' store, a signing key whose policy approval is recorded, a bundle exported from 'ward'."""
    from conftest import write_config
    from support.jury import write_generation_card

    from medhelm_local.export.signing import write_signing_key

    root = tmp_path_factory.mktemp("site")
    kek_file = root / "kek"
    kek = write_new_kek(kek_file)
    for folder in sorted(p for p in DEMO_DATASETS.iterdir() if p.is_dir()):
        import_dataset(folder, root / "data")
    (root / "results").mkdir()
    store = root / "results" / "ward.duckdb"
    write_ward_store(store, kek, root / "data")
    signing = root / "keys" / "export-signing.key"
    signing.parent.mkdir()
    write_signing_key(signing, kek)
    write_generation_card(root / "cards", 4)
    config = write_config(root / "config.toml", root / "data", root / "results",
                          {"fake": {"base_url": "http://127.0.0.1:9/v1", "model": "local/m"}},
                          extra=f'signing_key_file = "{signing}"\nbenchmark_cards = ["{root / "cards"}"]')
    made = Site(root, config, kek_file, store, root / "bundle", root / "data", signing.with_suffix(".pub"))
    env = made.env
    approved = run_cli("-c", str(config), "policy", "approve", "--role", "compliance_officer", env=env)
    assert approved.returncode == 0, approved.stderr
    # Numbers only (no person's review of free text needed): the bundle is what `verify` is given hostile files beside.
    exported = run_cli("-c", str(config), "export", "ward", "--to", str(made.bundle), "--role",
                       "compliance_officer", "--include", "aggregates,scores", env=env)
    assert exported.returncode == 0, exported.stderr
    for rater in ("a", "b"):  # so that `judge campaign` gets as far as the store
        added = run_cli("-c", str(config), "raters", "add", rater, "--role", "clinician", env=env)
        assert added.returncode == 0, added.stderr
    return made


def _kinds(target: Target) -> list[str]:
    kinds = list(target.only) or [*hostile.GENERIC, *(k for f in target.formats for k in hostile.FORMATS[f])]
    return [k for k in kinds if k != "device" or hostile.can_make_devices()]


def _run_cases(cases: dict[str, Case], tmp_path: Path, env: dict[str, str], fsize: int | None = None,
               jobs: int | None = None) -> dict[str, dict[str, typing.Any]]:
    """Every case through tests/support/cli_cases.py, by id (`fsize`: the file-size limit to run them under;
    `jobs`: how many at once, default one per CPU)."""
    spec = tmp_path / "cases.json"
    spec.write_text(json.dumps([{"id": key, "argv": c.argv, "env": {**env, **c.env}, "timeout": HANG_S,
                                 "fsize": fsize} for key, c in cases.items()]))
    results = tmp_path / "results.json"
    path = f"{REPO}:{os.environ.get('PYTHONPATH', '')}"
    done = subprocess.run([sys.executable, str(DRIVER), str(spec), str(results), str(jobs or os.cpu_count() or 1)],
                          capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200", "PYTHONPATH": path}, timeout=3600)
    assert done.returncode == 0, done.stderr
    return {r["id"]: r for r in json.loads(results.read_text())}


def _problems(case: Case, result: dict[str, typing.Any]) -> list[str]:
    said = result["stdout"] + result["stderr"]
    found = []
    if result["hung"]:
        found.append(f"no answer in {result['seconds']} s (killed)")
    elif result["signal"]:
        found.append(f"killed by {result['signal']}")
    elif result["exit"] == 0:
        found.append("exit 0")
    if "Traceback" in said or "internal error" in said:
        found.append("a traceback or an internal error: " + said[-300:].replace("\n", " | "))
    elif not result["hung"] and str(case.named or case.hostile) not in result["stderr"]:
        found.append("the error does not name the file: " + result["stderr"][-300:].replace("\n", " | "))
    found += [f"{o} was written" for o in case.outputs if o.exists()]
    return found


@dataclass(frozen=True)
class _Outcome:
    """One target's cases and what each did; or the error its build raised (reported by that target's test)."""

    cases: dict[str, Case]
    results: dict[str, dict[str, typing.Any]]
    error: Exception | None = None


@pytest.fixture(scope="module")
def outcomes(site: Site, tmp_path_factory: pytest.TempPathFactory) -> dict[str, _Outcome]:
    """Every target's cases, built in a folder of their own and run through one driver for the module.

    One driver because each of its starts imports the whole program (~1.2 CPU-s, 52 targets), and one queue keeps
    both CPUs busy across targets. Each case still runs in its own process with its own time limit, so what a test
    asserts about its target is what it asserted when each target had a driver of its own."""
    root = tmp_path_factory.mktemp("corpus")
    built: dict[str, dict[str, Case]] = {}
    failed: dict[str, Exception] = {}
    for number, target in enumerate(TARGETS):
        cases: dict[str, Case] = {}
        try:
            for kind in _kinds(target):
                work = root / str(number) / kind
                work.mkdir(parents=True)
                case = target.build(site, work)
                hostile.make(case.hostile, kind)
                if case.then is not None:
                    case.then()
                cases[kind] = case
        except Exception as exc:  # the target's own test fails with it; the others still run
            failed[target.name] = exc
            continue
        built[target.name] = cases

    everything = {f"{name}\n{kind}": case for name, cases in built.items() for kind, case in cases.items()}
    results = _run_cases(everything, root, site.env)
    made = {name: _Outcome(cases, {kind: results[f"{name}\n{kind}"] for kind in cases})
            for name, cases in built.items()}
    return made | {name: _Outcome({}, {}, exc) for name, exc in failed.items()}


@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_hostile_files(outcomes: dict[str, _Outcome], target: Target) -> None:
    outcome = outcomes[target.name]
    if outcome.error is not None:
        raise outcome.error
    cases, results = outcome.cases, outcome.results

    problems = [f"{kind}: {'; '.join(p)}" for kind, case in cases.items() if (p := _problems(case, results[kind]))]
    assert not problems, f"{target.name}: {len(problems)} of {len(cases)} kinds:\n" + "\n".join(problems)
    kind, slowest = max(results.items(), key=lambda r: r[1]["seconds"])
    assert slowest["seconds"] < 20, f"{target.name} <- {kind} took {slowest['seconds']} s"


@pytest.fixture
def full_disk(tmp_path: Path) -> typing.Iterator[tuple[Path, int | None]]:
    """A folder on a full disk, and the file-size limit to run commands under (None: no limit).

    As root where mount works: a 256 KiB tmpfs filled to the last byte, so every write there fails with ENOSPC
    as on a real full disk. Elsewhere: a plain folder, and commands run with RLIMIT_FSIZE 0 (SIGXFSZ ignored),
    so every write to a file fails with EFBIG: the same failure of write(2), though on every file, not only there.
    """
    folder = tmp_path / "full"
    folder.mkdir()
    mounted = os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs",
                                                    str(folder)], capture_output=True).returncode == 0
    if not mounted:
        yield folder, 0
        return
    try:
        with (folder / "filler").open("wb", buffering=0) as fh, pytest.raises(OSError, match="No space left"):
            while True:
                fh.write(b"\0" * 4096)
        yield folder, None
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_under_every_output_is_a_clear_error(site: Site, tmp_path: Path, full_disk: tuple[Path, int | None],
                                                        fake_server: Callable[..., typing.Any]) -> None:
    from conftest import write_config

    full, fsize = full_disk
    given = notes(tmp_path)
    server = fake_server()
    run_config = write_config(tmp_path / "run.toml", site.data_root, full / "results",
                              {"fake": {"base_url": server.base_url}})
    logged = write_config(tmp_path / "logged.toml", site.data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}}, extra=f'log_file = "{full / "medhelm.log"}"')
    c = ["-c", str(site.config)]
    cases = {
        "report --out (html)": [*c, "report", "--store", str(site.store), "--out", str(full / "report")],
        "report --out (json)": [*c, "report", "--store", str(site.store), "-f", "json", "--out",
                                str(full / "report.json")],
        "redact scan --output": [*c, "redact", "scan", "-i", str(given), "-o", str(full / "spans.jsonl")],
        "redact apply --output": [*c, "redact", "apply", "-i", str(given), "-o", str(full / "masked.jsonl")],
        "redact store --out": [*c, "redact", "store", str(site.store), "--out", str(full / "copy.duckdb")],
        "keys init --out": ["keys", "init", "--out", str(full / "kek")],
        "keys signing-init --out": [*c, "keys", "signing-init", "--out", str(full / "signing.key")],
        "policy chart-values --out": [*c, "policy", "chart-values", "--out", str(full / "values.yaml")],
        "export --to": [*c, "export", "ward", "--to", str(full / "bundle"), "--role", "compliance_officer",
                        "--include", "aggregates,scores"],  # numbers: no review, so the write is what fails
        "data import --data-root": [*c, "data", "import", str(DEMO_DATASETS / "pubmedqa"), "--data-root",
                                    str(full / "data")],
        "run --output": ["-c", str(run_config), "run", ENTRY, "-m", "2"],
        "setting log_file": ["-c", str(logged), "run", ENTRY, "-m", "2"],  # a warning: the run goes on
    }
    spec = {key: Case(argv, full) for key, argv in cases.items()}

    results = _run_cases(spec, tmp_path, site.env, fsize=fsize, jobs=1)  # one at a time: they share the site

    problems = []
    for key, result in results.items():
        said = result["stdout"] + result["stderr"]
        logged = key == "setting log_file" and "Warning: the log file cannot be written" in result["stderr"]
        if (result["exit"] in (0, None) and not logged) or "Traceback" in said or "internal error" in said:
            problems.append(f"{key}: exit {result['exit']} {result['signal']}: {said[-400:]}")
        elif fsize is None and (str(full) not in result["stderr"] or "No space left on device" not in said):
            problems.append(f"{key}: does not name the full disk's path and the reason: {result['stderr'][-400:]}")
    assert not problems, "\n".join(problems)
    # Files only (`run` makes its output folder before the store fails; an empty folder holds no half-written
    # data), and not the log, which is opened to append before anything is written to it.
    left = sorted(str(p.relative_to(full)) for p in full.rglob("*") if p.is_file() and p.name != "medhelm.log")
    assert left == (["filler"] if fsize is None else []), f"left on the full disk: {left}"

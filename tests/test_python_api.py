"""The Python API as a data scientist uses it: `import medhelm_local`, evaluate, open a suite, read Arrow tables.

Against the fault-injecting fake server on 127.0.0.1 (speed); every figure is checked against what the CLI
prints for the same store, and every error is one of the project's, saying what to do.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, FakeServer, run_cli, write_config
from support.appliance import Appliance

import medhelm_local as mh
from medhelm_local.errors import (
    ConfigError,
    ExportRefusedError,
    MedhelmError,
    RunEntryError,
    StoreKeyError,
    StoreNotFoundError,
)
from medhelm_local.store.keys import write_new_kek

EXAMPLE = REPO / "docs" / "examples" / "compare_two_models.py"


def _config(tmp_path: Path, data_root: Path, kek_file: Path, **servers: FakeServer) -> Path:
    deployments = {name: {"base_url": s.base_url, "max_concurrency": 8, "timeout_s": 5.0, "max_retries": 1}
                   for name, s in servers.items()}
    return write_config(tmp_path / "config.toml", data_root, tmp_path / "results", deployments,
                        extra=f'kek_file = "{kek_file}"')


def _cli_json(config: Path, *args: str) -> Any:
    done = run_cli("-c", str(config), *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_import_is_cheap_and_exports_the_documented_names() -> None:
    """`import medhelm_local` loads no stage (the CLI imports it on every start); each exported name resolves."""
    code = ("import sys, medhelm_local; print(sorted(m for m in sys.modules if m.startswith('medhelm_local')));"
            "print(medhelm_local.__all__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, exported = (json.loads(line.replace("'", '"')) for line in done.stdout.splitlines())
    assert loaded == ["medhelm_local", "medhelm_local.lazy"]
    assert {"evaluate", "open_suite", "load_settings", "SuiteRun", "SuiteResults", "MedhelmError"} <= set(exported)
    assert all(getattr(mh, name) is not None for name in exported)
    assert mh.__doc__ and "open_suite" in mh.__doc__
    with pytest.raises(AttributeError, match="no attribute 'evaluat'"):
        _ = mh.evaluat  # type: ignore[attr-defined]


def test_every_exported_name_is_documented() -> None:
    """docs/python-api.md lists every name `medhelm_local` exports (a new one cannot be left out of it)."""
    documented = (REPO / "docs" / "python-api.md").read_text()
    assert [name for name in mh.__all__ if f"`{name}" not in documented] == []


def test_evaluate_and_open_suite_agree_with_the_cli(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server()
    config = _config(tmp_path, data_root, kek_file, fake=server)
    settings = mh.load_settings(config)
    run = mh.evaluate("pubmed_qa:model=local/fake,model_deployment=fake", config=settings, suite="api",
                      max_eval_instances=20)
    assert run.store == tmp_path / "results" / "api.duckdb" and run.suite == "api" and run.failed == 0
    (outcome,) = run.outcomes
    assert outcome.summary.n_instances == outcome.summary.n_ok == 20 and outcome.sent == 20

    listed = _cli_json(config, "runs", "list", "--suite", "api")[0]["runs"]
    shown = _cli_json(config, "show", outcome.summary.run_id, "--suite", "api", "--instances", "100")
    with mh.open_suite("api", config) as suite:  # a suite name, and a config path: resolved as the CLI does
        runs, metrics = suite.runs().to_pylist(), suite.metrics().to_pylist()
        scores = suite.scores(metric="exact_match")
        instances = suite.instances(outcome.summary.run_id)
        assert suite.ratings().num_rows == 0  # pubmed_qa has no jury
    assert [(r["run_id"], r["n_ok"], r["main_score"]) for r in runs] == \
           [(r["run_id"], r["n_ok"], r["main_score"]) for r in listed]
    cli_metrics = {a["metric"]: (a["mean"], a["n_scored"], a["n_failed"]) for a in shown["aggregates"]}
    assert {m["metric"]: (m["mean"], m["n_scored"], m["n_failed"]) for m in metrics} == cli_metrics
    assert scores.num_rows == 20 and set(scores.column("model").to_pylist()) == {"local/fake"}
    assert sum(scores.column("value").to_pylist()) / 20 == pytest.approx(cli_metrics["exact_match"][0])
    assert instances.column("instance_id").to_pylist() == [row["instance_id"] for row in shown["instances"]]

    again = mh.evaluate(["pubmed_qa:model=local/fake,model_deployment=fake"], config=config, suite="api",
                        max_eval_instances=20)
    assert again.outcomes[0].sent == 0 and again.outcomes[0].reused == 20  # resumed: nothing asked twice


def test_the_documented_example_compares_two_models(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    """docs/examples/compare_two_models.py, run as a user runs it; its figures are the CLI's."""
    config = _config(tmp_path, data_root, kek_file, hashed=fake_server(), yes=fake_server(answer="A"))
    done = subprocess.run([sys.executable, str(EXAMPLE), "--config", str(config), "--model-a", "local/hashed=hashed",
                           "--model-b", "local/yes=yes", "-n", "30"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["n_paired"] == 30 and found["a_wins"] + found["ties"] + found["b_wins"] == 30
    means = {}
    for model in ("local/hashed", "local/yes"):
        shown = _cli_json(config, "show", found["runs"][model], "--suite", "compare-two-models")
        means[model] = next(a["mean"] for a in shown["aggregates"] if a["metric"] == "exact_match")
    assert found["mean_a"] == pytest.approx(means["local/hashed"])
    assert found["mean_b"] == pytest.approx(means["local/yes"])
    assert found["mean_difference"] == pytest.approx(means["local/yes"] - means["local/hashed"])
    assert found["mean_difference"] != 0  # two different answerers: the pairing has something to show
    low, high = found["ci95"]
    assert low <= found["mean_difference"] <= high


def test_errors_are_the_projects_own(tmp_path: Path, data_root: Path, kek_file: Path,
                                     fake_server: Callable[..., FakeServer]) -> None:
    config = _config(tmp_path, data_root, kek_file, fake=fake_server())
    with pytest.raises(RunEntryError, match="nothing to run"):
        mh.evaluate([], config=config)
    with pytest.raises(StoreNotFoundError) as missing:
        mh.open_suite("never-run", config)
    assert missing.value.where == str(tmp_path / "results" / "never-run.duckdb") and missing.value.fix
    mh.evaluate("pubmed_qa:model=local/fake,model_deployment=fake", config=config, suite="keyed",
                max_eval_instances=2)
    other = tmp_path / "other-kek"
    write_new_kek(other)
    wrong = mh.load_settings(config, kek_file=other)
    with pytest.raises(StoreKeyError) as refused:
        mh.open_suite(tmp_path / "results" / "keyed.duckdb", wrong)
    assert refused.value.fix and "key" in refused.value.message
    with pytest.raises(mh.MedhelmError, match="config must be a Settings object"):
        mh.open_suite("keyed", 42)  # type: ignore[arg-type]


class _Recorded:
    """A Progress that keeps what it was told: the judges' bars and how each rating ended."""

    def __init__(self) -> None:
        self.judges: dict[str, int] = {}
        self.rated: dict[str, int] = {}
        self.finished = False

    def start(self, runs: list[tuple[str, int, int]]) -> None:
        pass

    def advance(self, run: int, ok: bool) -> None:
        pass

    def judging(self, judge: str, more: int) -> None:
        self.judges[judge] = self.judges.get(judge, 0) + more

    def judged(self, judge: str, ok: bool) -> None:
        self.rated[judge] = self.rated.get(judge, 0) + ok

    def finish(self) -> None:
        self.finished = True


def test_judge_rates_stored_answers_as_the_cli_does_and_resumes(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A suite run without a jury, then `mh.judge`: every answer rated by both judges, the aggregates those `show`
    prints, and a second call asks nothing."""
    from support.jury import jury_config, write_generation_card

    monkeypatch.setenv("MEDHELM_KEK_FILE", str(kek_file))
    judges = {"judge-a": fake_server(), "judge-b": fake_server(judge="fenced")}
    cards = tmp_path / "cards"
    write_generation_card(cards, 6)
    config = jury_config(tmp_path, data_root, fake_server().base_url, {k: s.base_url for k, s in judges.items()},
                         cards, jury=False)
    settings = mh.load_settings(config)
    run = mh.evaluate("ward_notes:model=local/m,model_deployment=gen", config=settings, suite="ward")
    assert run.unjudged and all(s.stats()["requests"] == 0 for s in judges.values())
    with pytest.raises(ConfigError, match="no jury is configured"):
        mh.judge("ward", config=settings)

    progress = _Recorded()
    judged = mh.judge("ward", config=settings, jury="local", progress=progress)
    assert judged.store == run.store and judged.failed == 0
    (outcome,) = judged.outcomes
    assert outcome.sent == {"judge-a": {"rated": 6, "failed": 0}, "judge-b": {"rated": 6, "failed": 0}}
    assert progress.judges == progress.rated == {"judge-a": 6, "judge-b": 6} and progress.finished
    shown = _cli_json(config, "show", outcome.run_id, "--suite", "ward")
    cli_jury = next(a for a in shown["aggregates"] if a["metric"] == "jury_score")
    api_jury = next(a for a in outcome.aggregates if a.metric == "jury_score")
    assert (api_jury.mean, api_jury.n_scored, api_jury.n_pending) == (cli_jury["mean"], 6, 0)
    with mh.open_suite("ward", settings) as suite:
        assert suite.ratings().num_rows == 12

    again = mh.judge("ward", config=config, jury="local", runs=[outcome.run_id[:8]])  # a run named by its prefix
    assert again.outcomes[0].sent == {} and sum(s.stats()["requests"] for s in judges.values()) == 12


def test_make_report_writes_what_the_cli_writes(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    config = _config(tmp_path, data_root, kek_file, hashed=fake_server(), yes=fake_server(answer="A"))
    settings = mh.load_settings(config)
    mh.evaluate(["pubmed_qa:model=local/hashed,model_deployment=hashed", "pubmed_qa:model=local/yes,"
                 "model_deployment=yes"], config=settings, suite="cmp", max_eval_instances=10)

    made = mh.make_report("cmp", config=settings, fmt="json")
    assert made.site is None and made.stores == (tmp_path / "results" / "cmp.duckdb",)
    assert sorted(made.report.models) == ["local/hashed", "local/yes"]
    done = run_cli("-c", str(config), "report", "cmp", "--format", "json")
    assert done.returncode == 0, done.stderr
    ours, theirs = json.loads(made.text or ""), json.loads(done.stdout)
    ours.pop("generated_at"), theirs.pop("generated_at")
    assert ours == theirs

    site = mh.make_report(config=config, out=tmp_path / "site").site  # every suite in the output folder
    assert site is not None and site.folder == tmp_path / "site" and (site.folder / "index.html").is_file()
    assert site.pages > 1 and site.data_files > 0
    mh.make_report(["cmp"], config=settings, fmt="md", out=tmp_path / "report.md")
    assert (tmp_path / "report.md").read_text().startswith("# MedHELM-local report")
    with pytest.raises(ConfigError, match="an HTML report is a folder"):
        mh.make_report("cmp", config=settings)
    with pytest.raises(StoreNotFoundError, match="no store for suite 'nope'"):
        mh.make_report("nope", config=settings, fmt="csv")


def test_export_bundle_is_the_gate_and_takes_nothing_that_decides_what_leaves(
        appliance: Appliance, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The policy, the audit log and who exports are the appliance's: none is a parameter, a Settings object
    pointing at rules nobody approved is refused, and a spoofed login name neither passes nor is recorded."""
    import inspect
    import os
    import pwd
    import shutil

    from conftest import SHIPPED_POLICIES

    assert list(inspect.signature(mh.export_bundle).parameters) == [
        "target", "to", "role", "config", "include", "unredacted", "review", "validated_only", "store", "output_dir"]
    me = pwd.getpwuid(os.getuid()).pw_name
    for name, value in {**appliance.env, "LOGNAME": "jdoe", "USER": "jdoe"}.items():
        monkeypatch.setenv(name, value)
    settings = mh.load_settings(appliance.config)

    result = mh.export_bundle("ward", to=appliance.root / "nb", role="compliance_officer", config=settings,
                              include=["scores", "aggregates"])
    assert set(result.files) == {"runs.json", "aggregates.json", "scores.jsonl"} and len(result.runs) == 2
    verified = appliance.cli("verify", str(result.destination), "--public-key", str(appliance.public_key))
    assert verified.returncode == 0, verified.stderr
    assert mh.verify_export(result.destination, appliance.public_key).ok
    [allowed] = appliance.audit_records(outcomes_only=True)
    assert allowed["kind"] == "export.allowed" and allowed["actor"] == me
    assert allowed["details"]["manifest_sha256"] == result.manifest_sha256
    assert json.loads((result.destination / "MANIFEST.json").read_text())["created_by"]["user"] == me

    weak = tmp_path / "weak-policies"
    shutil.copytree(SHIPPED_POLICIES, weak)
    (weak / "export.yaml").write_text((weak / "export.yaml").read_text().replace("style: mask", "style: surrogate"))
    with pytest.raises(ExportRefusedError, match="not the approved one"):
        mh.export_bundle("ward", to=appliance.root / "weak", role="compliance_officer",
                         config=mh.load_settings(appliance.config, policy_dir=weak))
    appliance.edit_policy("roles.yaml", "    # members: [jdoe, asmith]", "    members: [jdoe, asmith]")
    with pytest.raises(ExportRefusedError, match=f"user '{me}' does not hold role 'compliance_officer'"):
        mh.export_bundle("ward", to=appliance.root / "spoof", role="compliance_officer", config=appliance.config,
                         output_dir=appliance.results)
    with pytest.raises(ConfigError, match="'notes' is not an artifact"):
        mh.export_bundle("ward", to=appliance.root / "bad", role="compliance_officer", config=settings,
                         include="scores,notes")
    assert not any((appliance.root / name).exists() for name in ("weak", "spoof", "bad"))
    scores = result.destination / "scores.jsonl"
    scores.chmod(0o600)
    scores.write_text(scores.read_text() + '{"run_id": "forged"}\n')  # a recipient's copy, changed on the way
    changed = mh.verify_export(result.destination, str(appliance.public_key))
    assert not changed.ok and any("scores.jsonl" in p for p in changed.problems)
    records = appliance.audit_records(outcomes_only=True)
    assert [(r["kind"], r["actor"]) for r in records] == [
        ("export.allowed", me), ("export.refused", me), ("export.refused", me)]


def test_a_rating_campaign_and_the_jurys_validation_as_the_cli_makes_them(tmp_path: Path, data_root: Path,
                                                                          kek_file: Path) -> None:
    """`start_campaign` draws what `judge campaign` draws (a run named by its prefix) and is an audit record;
    `validate_jury` gives the figures `judge validate --json` prints, as Arrow tables too; the template is the
    file `judge validate --template` writes."""
    from support.raters import add_rater, jury_ratings, jury_store

    from medhelm_local.annotate.rubric import load_rubric
    from medhelm_local.raters.campaigns import queue, record_rating
    from medhelm_local.store.database import open_store
    from medhelm_local.store.keys import Kek

    config = _config(tmp_path, data_root, kek_file)
    kek = Kek(bytes.fromhex(kek_file.read_text().strip()), str(kek_file))
    store, run_id = jury_store(tmp_path / "results", kek, n=10)
    for name in ("dr_a", "dr_b"):
        add_rater(name, {"MEDHELM_KEK_FILE": str(kek_file)})
    settings = mh.load_settings(config)

    started = mh.start_campaign("ward", run=run_id[:8], raters="dr_a, dr_b", config=settings, instances=6, seed=3)
    assert isinstance(started, mh.Campaign)
    assert (started.campaign_id, started.run_id, started.instances, started.raters) == (
        "campaign-1", run_id, 6, ("dr_a", "dr_b"))
    audit = _cli_json(config, "audit", "show")
    assert [r["details"]["campaign"] for r in audit if r["kind"] == "campaign.created"] == ["campaign-1"]
    rubric = load_rubric("patient_answer")
    handle = open_store(store, kek)
    try:
        for shift, rater in enumerate(started.raters):
            for entry in queue(handle.con, started.campaign_id, rater):
                iid = handle.con.execute("SELECT instance_id FROM rating_assignments WHERE campaign_id = ? AND "
                                         "rater = ? AND position = ?",
                                         [started.campaign_id, rater, entry.position]).fetchone()[0]
                given = jury_ratings(int(iid[1:]))
                given["clarity"] = max(1, given["clarity"] - shift)
                record_rating(handle.con, started, rubric, rater, entry.position, given, "")
    finally:
        handle.close()

    report = mh.validate_jury("ward", campaign="campaign-1", jury="medhelm", config=config)
    assert isinstance(report, mh.ValidationReport)
    assert report.as_json() == _cli_json(config, "judge", "validate", "ward", "--campaign", "campaign-1", "--jury",
                                         "medhelm")
    medhelm, single = report.medhelm_arrow(), report.single_raters_arrow()
    assert medhelm.column("benchmark").to_pylist() == ["medication_qa"] and medhelm["answers"][0].as_py() == 6
    assert medhelm["icc3k_z"][0].as_py() == report.medhelm[0].icc3k_z.value
    assert single.column("comparison").to_pylist()[:2] == ["jury vs clinicians", "clinician vs clinician"]
    assert single.num_rows == len(report.rows) and set(single.column_names) >= {"icc_3_1", "ci_low", "icc_2_1"}

    template = tmp_path / "to-fill.csv"
    written = mh.write_ratings_template("ward", to=template, clinicians=["dr_c"], config=settings)
    lines = template.read_text().splitlines()
    assert written == 10 == len(lines) - 1 and lines[0] == "clinician,run_id,instance_id,accuracy,completeness,clarity"
    assert lines[1].startswith(f"dr_c,{run_id},")


def test_library_errors_name_arguments_not_command_line_options(tmp_path: Path, data_root: Path,
                                                                 kek_file: Path) -> None:
    """An error raised from Python says what to pass in Python: no `--run`, `--format` or `--ratings` in it (a
    `medhelm-local ...` command to run, such as `raters add`, may keep its options); the command line still names
    its own options."""
    import re

    from support.raters import jury_store

    from medhelm_local.store.keys import Kek

    config = _config(tmp_path, data_root, kek_file)
    kek = Kek(bytes.fromhex(kek_file.read_text().strip()), str(kek_file))
    _, run_id = jury_store(tmp_path / "results", kek, n=4)
    calls: list[tuple[Callable[[], Any], str]] = [
        (lambda: mh.judge("ward", config=config, runs=["nosuchrun"]), "runs"),
        (lambda: mh.start_campaign("ward", run=run_id, raters=["nobody"], config=config), "raters"),
        (lambda: mh.start_campaign("ward", run="nosuchrun", raters=[], config=config), "raters"),
        (lambda: mh.validate_jury("ward", config=config), "ratings / campaign"),
        (lambda: mh.validate_jury("ward", ratings=tmp_path / "r.csv", run="nosuchrun", config=config), "run"),
        (lambda: mh.write_ratings_template("ward", to=tmp_path / "t.csv", runs=["nosuchrun"], config=config),
         "runs"),
        (lambda: mh.evaluate([], config=config), "what to run"),
        (lambda: mh.make_report("ward", config=config, fmt="pdf"), "report format"),
        (lambda: mh.make_report("ward", config=config), "report output"),
        (lambda: mh.make_report("nosuch", config=config, fmt="json"), str(tmp_path / "results" / "nosuch.duckdb")),
        (lambda: mh.make_report(config=config, stores=[tmp_path / "results" / "ward.duckdb"], fmt="json",
                                baseline="local/nobody"), "baseline"),
    ]
    for call, where in calls:
        with pytest.raises(MedhelmError) as raised:
            call()
        assert raised.value.where == where and raised.value.fix, str(raised.value)
        assert "--" not in re.sub(r"`medhelm-local [^`]*`", "", str(raised.value)), str(raised.value)
    done = run_cli("-c", str(config), "judge", "ward", "--run", "nosuchrun")
    assert done.returncode != 0 and "option --run" in done.stderr and "Traceback" not in done.stderr


def test_suite_tables_take_a_run_id_beginning_and_name_the_argument_on_a_mistake(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    """Each SuiteResults table takes a run id or a beginning of it that names one run, as the CLI does; a mistake
    (no such run, a beginning of two, a misspelt metric or suite) names the argument, never a command."""
    config = _config(tmp_path, data_root, kek_file, one=fake_server(), two=fake_server(answer="A"))
    run = mh.evaluate(["pubmed_qa:model=local/one,model_deployment=one",
                       "pubmed_qa:model=local/two,model_deployment=two"], config=config, suite="pair",
                      max_eval_instances=4)
    whole = {o.summary.model: o.summary.run_id for o in run.outcomes}
    assert whole["local/two"].startswith("pubmed_qa-local_two-")
    with mh.open_suite("pair", config) as suite:
        assert suite.instances("pubmed_qa-local_tw").num_rows == 4
        assert set(suite.metrics("pubmed_qa-local_tw").column("run_id").to_pylist()) == {whole["local/two"]}
        scored = suite.scores("pubmed_qa-local_tw", metric="exact_match")
        assert scored.num_rows == 4 and set(scored.column("model").to_pylist()) == {"local/two"}
        assert suite.ratings("pubmed_qa-local_tw").num_rows == 0  # resolved, and pubmed_qa has no jury
        with pytest.raises(RunEntryError) as two:
            suite.scores("pubmed_qa-local")
        assert "begins 2 run ids" in two.value.what and whole["local/one"] in two.value.what
        for read in (suite.scores, suite.ratings, suite.metrics, suite.instances, suite.slices):
            with pytest.raises(RunEntryError) as unknown:
                read("zz")
            assert unknown.value.where.startswith("run_id argument") and str(suite.path) in unknown.value.where
            assert "medhelm-local" not in str(unknown.value) and ".runs()" in unknown.value.fix
        with pytest.raises(RunEntryError, match="no run here has a metric called 'exact_mach'") as typo:
            suite.scores(metric="exact_mach")
        assert "exact_match" in typo.value.fix and typo.value.where.startswith("metric argument")
    with pytest.raises(StoreNotFoundError, match=r"no store for suite 'piar' \(suites in the output folder: pair\)"):
        mh.open_suite("piar", config)


def test_progress_true_draws_the_bars_and_anything_else_is_refused_before_anything_is_written(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`progress=True` (a notebook user asking for a bar) draws the command's bars; a string or a class is a
    ConfigError naming the argument before the store is made (it was an AttributeError from inside the scheduler);
    judge() refuses it the same way."""
    server = fake_server()
    config = _config(tmp_path, data_root, kek_file, fake=server)
    for wrong in ("tqdm", object):
        with pytest.raises(ConfigError) as refused:
            mh.evaluate("pubmed_qa:model=local/fake,model_deployment=fake", config=config, suite="bar",
                        max_eval_instances=2, progress=wrong)  # type: ignore[arg-type]
        assert refused.value.where == "progress argument" and "True (progress bars)" in refused.value.fix
    assert not (tmp_path / "results" / "bar.duckdb").exists() and server.stats()["requests"] == 0
    with pytest.raises(ConfigError, match="has no start, advance, judging, judged, finish"):
        mh.judge("bar", config=config, progress="bars")  # type: ignore[arg-type]
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")  # rich's width where the output is not a terminal: the whole bar
    done = mh.evaluate("pubmed_qa:model=local/fake,model_deployment=fake", config=config, suite="bar",
                       max_eval_instances=3, progress=True)
    assert done.outcomes[0].sent == 3
    drawn = capsys.readouterr().err
    assert "pubmed_qa" in drawn and "3/3" in drawn and "0 failed" in drawn
    quiet = mh.evaluate("pubmed_qa:model=local/fake,model_deployment=fake", config=config, suite="bar2",
                        max_eval_instances=2, progress=False)
    assert quiet.outcomes[0].sent == 2 and capsys.readouterr().err == ""


def test_counts_and_the_suite_argument_are_checked_as_a_notebook_passes_them(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    """`max_eval_instances=0` or `"5"` is refused naming the argument (it was an IndexError or a TypeError from the
    sampler), nothing written; `open_suite(run)` opens what `evaluate` returned; anything else is refused."""
    config = _config(tmp_path, data_root, kek_file, fake=fake_server())
    entry = "pubmed_qa:model=local/fake,model_deployment=fake"
    for name, wrong in (("max_eval_instances", 0), ("max_eval_instances", "5"), ("concurrency", True)):
        with pytest.raises(ConfigError) as refused:
            mh.evaluate(entry, config=config, suite="counts", **{name: wrong})
        assert refused.value.where == f"{name} argument" and repr(wrong) in refused.value.what
    assert not (tmp_path / "results" / "counts.duckdb").exists()
    run = mh.evaluate(entry, config=config, suite="counts", max_eval_instances=3)
    with mh.open_suite(run, config) as suite:
        assert suite.path == run.store and suite.runs().num_rows == 1
    with pytest.raises(ConfigError, match="suite must be a suite name") as odd:
        mh.open_suite(3, config)  # type: ignore[arg-type]
    assert odd.value.where == "suite argument"

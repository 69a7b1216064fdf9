"""medhelm-local: evaluate language models on MedHELM's clinical benchmarks inside your own network.

The library the `medhelm-local` command is built on; from a notebook or a script:

    import medhelm_local as mh

    settings = mh.load_settings("config.toml")        # KEK, deployments, output folder, policy
    run = mh.evaluate(["pubmed_qa:model=local/qwen,model_deployment=vllm-local"],
                      config=settings, suite="trial", max_eval_instances=50)
    print(run.store, run.failed)                       # SuiteRun: the store written, each run's outcome

    with mh.open_suite(run.store, settings) as suite:  # read-only, opened with the settings' KEK
        suite.runs()                                   # pyarrow.Table, as `runs list --json`
        suite.metrics()                                # aggregates per (run, metric), as `show --json`
        suite.scores(metric="exact_match")             # per-instance scores: pair models on instances
        suite.instances(run_id)                        # answers, scores and failures of one run
        suite.ratings()                                # judge ratings, failed judges included
        suite.slices(), suite.slice_gaps()             # metrics per slice value (age band, sex, ...), largest gaps

    judged = mh.judge("trial", config=settings)        # a jury rates stored answers (resumable), as `judge`
    made = mh.make_report("trial", config=settings, fmt="json")   # made.text; fmt="html" writes out=FOLDER
    bundle = mh.export_bundle("trial", to="bundle", role="compliance_officer", config=settings)
                                                       # the export gate: policy, audit log and identity are the
                                                       # appliance's, never arguments; a refusal raises
    mh.verify_export("bundle", "export-signing.pub").ok   # what a recipient checks, with the public key only

    started = mh.start_campaign("trial", run=run_id, raters=["dr_a", "dr_b"], config=settings)
                                                       # a sample clinicians rate blind in the viewer (`judge campaign`)
    checked = mh.validate_jury("trial", campaign=started.campaign_id, config=settings)
    checked.medhelm_arrow()                            # MedHELM's table (ICC3k-z, Spearman, kappa), as `judge validate`

Every error is a `MedhelmError` (medhelm_local.errors) saying what is wrong, where, and what to do.
Names load on first use, so `import medhelm_local` stays cheap. See docs/python-api.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from medhelm_local.lazy import lazy_attribute

if TYPE_CHECKING:
    from medhelm_local.annotate.validate import ValidationReport
    from medhelm_local.errors import MedhelmError, MedhelmWarning
    from medhelm_local.export.bundle import Verification
    from medhelm_local.export.make import export_bundle, verify_export
    from medhelm_local.export.service import ExportResult
    from medhelm_local.progress import BarProgress, NoProgress, Progress
    from medhelm_local.raters.campaigns import Campaign
    from medhelm_local.raters.jury_check import start_campaign, validate_jury, write_ratings_template
    from medhelm_local.records import Aggregate
    from medhelm_local.report.make import ReportOutput, make_report
    from medhelm_local.results.outcomes import RunOutcome
    from medhelm_local.results.suite import SuiteResults, open_suite
    from medhelm_local.run.entries import RunEntry, parse_run_entry
    from medhelm_local.run.evaluate import evaluate
    from medhelm_local.run.judge import JudgeResult, judge
    from medhelm_local.run.jury_runs import JudgeOutcome
    from medhelm_local.run.suite import SuiteRun
    from medhelm_local.settings import Settings, load_settings
    from medhelm_local.store.queries import RunSummary

__all__ = [
    "Aggregate",
    "BarProgress",
    "Campaign",
    "ExportResult",
    "JudgeOutcome",
    "JudgeResult",
    "MedhelmError",
    "MedhelmWarning",
    "NoProgress",
    "Progress",
    "ReportOutput",
    "RunEntry",
    "RunOutcome",
    "RunSummary",
    "Settings",
    "SuiteResults",
    "SuiteRun",
    "ValidationReport",
    "Verification",
    "evaluate",
    "export_bundle",
    "judge",
    "load_settings",
    "make_report",
    "open_suite",
    "parse_run_entry",
    "start_campaign",
    "validate_jury",
    "verify_export",
    "write_ratings_template",
]

# Each exported name and the module (under medhelm_local) that defines it.
_HOMES = {
    "evaluate": "run.evaluate", "SuiteRun": "run.suite", "RunEntry": "run.entries", "parse_run_entry": "run.entries",
    "open_suite": "results.suite", "SuiteResults": "results.suite", "RunOutcome": "results.outcomes",
    "RunSummary": "store.queries", "Aggregate": "records", "Settings": "settings", "load_settings": "settings",
    "Progress": "progress", "NoProgress": "progress", "BarProgress": "progress",
    "MedhelmError": "errors", "MedhelmWarning": "errors",
    "judge": "run.judge", "JudgeResult": "run.judge", "JudgeOutcome": "run.jury_runs",
    "make_report": "report.make", "ReportOutput": "report.make",
    "export_bundle": "export.make", "ExportResult": "export.service", "verify_export": "export.make",
    "Verification": "export.bundle",
    "start_campaign": "raters.jury_check", "Campaign": "raters.campaigns", "validate_jury": "raters.jury_check",
    "ValidationReport": "annotate.validate", "write_ratings_template": "raters.jury_check",
}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _HOMES, name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])

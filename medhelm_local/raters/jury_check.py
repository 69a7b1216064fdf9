"""Checking a jury against this hospital's clinicians, from Python: `start_campaign()` (clinicians rate a sample of a
run's answers, blind, in the viewer), `validate_jury()` (MedHELM's validation table and the single-rater ICCs) and
`write_ratings_template()` (the ratings file to fill in by hand). `medhelm-local judge campaign` and `judge validate`
call the `*_with` functions here with the settings they read."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from medhelm_local.annotate.ratings_file import write_template
from medhelm_local.annotate.rubric import Rubric
from medhelm_local.annotate.validate import ValidationReport, template_answers, validate_file, validation_report
from medhelm_local.errors import ConfigError
from medhelm_local.file_modes import owner_only
from medhelm_local.raters.campaigns import Campaign, campaign_report, create_campaign, size_campaign
from medhelm_local.run.jury_runs import jury_scored_runs
from medhelm_local.run.plan import store_path_for
from medhelm_local.settings import Settings
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import load_kek
from medhelm_local.store.run_ids import resolve_run_id

# Bonett's plan by default: MedHELM's jury reached an ICC of 0.47 with clinicians; an interval 0.3 wide.
EXPECTED_ICC = 0.47
TARGET_WIDTH = 0.3


def _settings(config: Settings | str | Path | None, output_dir: str | Path | None) -> Settings:
    from medhelm_local.run.in_force import settings_in_force

    return settings_in_force(config, output_dir=None if output_dir is None else Path(output_dir))[0]


def _path(value: str | Path | None) -> Path | None:
    return None if value is None else Path(value)


def _names(raters: str | Sequence[str]) -> list[str]:
    listed = raters.split(",") if isinstance(raters, str) else list(raters)
    return [n.strip() for n in listed if n.strip()]


def campaign_with(settings: Settings, suite: str | None, *, run: str, raters: Sequence[str],
                  instances: int | None = None, overlap: int = 2, seed: int = 0, target_width: float = TARGET_WIDTH,
                  expected_icc: float = EXPECTED_ICC, store: Path | None = None, run_where: str = "run") -> Campaign:
    """Start a campaign in the suite's store with these settings, and record it in the audit log."""
    from medhelm_local.audit import audit_log_for
    from medhelm_local.policy.identity import current_actor
    from medhelm_local.raters.registry import rater_registry

    active = {r.name for r in rater_registry().raters() if r.active}
    unknown = [n for n in raters if n not in active]
    if unknown or not raters:
        raise ConfigError(f"not active raters: {', '.join(unknown)}" if unknown else "no rater was named",
                          where="raters", fix=f"name raters added with `medhelm-local raters add NAME --role "
                                              f"clinician` (active now: {', '.join(sorted(active)) or 'none'})")
    audit = audit_log_for(settings)
    path = store_path_for(settings, suite or "", store)
    handle = open_store(path, load_kek(settings), create=False, memory_limit=settings.store_memory_limit)
    try:
        run_id = resolve_run_id(handle.con, run, where=run_where)
        planned = size_campaign(handle.con, run_id, overlap, expected_icc, target_width)
        count, sizing = (planned.chosen, planned.reasoning()) if instances is None else \
            (instances, planned.reasoning(instances))
        made = create_campaign(handle.con, run_id, list(raters), count, overlap, seed, sizing, current_actor())
    finally:
        handle.close()
    audit.append("campaign.created", {"store": str(path), "campaign": made.campaign_id, "run": run_id,
                                      "raters": list(raters), "instances": made.instances, "overlap": overlap,
                                      "seed": seed})
    return made


@owner_only
def start_campaign(suite: str | None = None, *, run: str, raters: str | Sequence[str],
                   config: Settings | str | Path | None = None, instances: int | None = None, overlap: int = 2,
                   seed: int = 0, target_width: float = TARGET_WIDTH, expected_icc: float = EXPECTED_ICC,
                   store: str | Path | None = None, output_dir: str | Path | None = None) -> Campaign:
    """Start a rating campaign, as `medhelm-local judge campaign` does: a seeded sample of a jury-scored run's answers
    (`run`: its id or a unique beginning), each assigned to `overlap` of the `raters` (active raters of the appliance),
    rated blind in the viewer. `instances`: how many (default: as many as Bonett's method plans for an ICC interval
    `target_width` wide around `expected_icc`). Recorded in the audit log; returns the stored `Campaign`."""
    if suite is None and store is None:
        raise ConfigError("no suite was named", where="start_campaign()", fix="pass the suite's name, or store=PATH")
    return campaign_with(_settings(config, output_dir), suite, run=run, raters=_names(raters), instances=instances,
                         overlap=overlap, seed=seed, target_width=target_width, expected_icc=expected_icc,
                         store=_path(store))


def validation_with(settings: Settings | None, suite: str | None, *, ratings: Path | None = None,
                    campaign: str | None = None, run: str | None = None, jury: str | None = None,
                    benchmarks: Sequence[str] = (), rubric: str | None = None, store: Path | None = None,
                    spelled: dict[str, str] | None = None) -> ValidationReport:
    """The validation tables, from the suite's store with these settings; with no suite (or no settings), from a
    ratings file that carries the jury's ratings too, reading no store. `spelled`: how the caller names `ratings`,
    `campaign`, `run` and `rubric` in an error (default: so)."""
    name = {"ratings": "ratings", "campaign": "campaign", "run": "run", "rubric": "rubric", **(spelled or {})}
    if (ratings is None) == (campaign is None):
        raise ConfigError(f"give the clinicians' ratings: {name['ratings']} (a file) or {name['campaign']} (a rating "
                          f"campaign's id), one of them", where=f"{name['ratings']} / {name['campaign']}",
                          fix="name a ratings file, or a campaign the raters rated in the viewer (for a file to fill "
                              "in, write a ratings template)")
    if settings is None or (suite is None and store is None):  # the jury's ratings are in the file: no store
        if ratings is None:
            raise ConfigError("a campaign's ratings are in a suite's store, and no suite was named", where="suite",
                              fix="name the suite (or the store file) the campaign belongs to")
        return validate_file(ratings, rubric, run, benchmarks, rubric_where=name["rubric"])
    if rubric is not None:
        raise ConfigError(f"{name['rubric']} is for a ratings file checked without a suite", where=name["rubric"],
                          fix="leave it out: a suite's runs name their rubric")
    path = store_path_for(settings, suite or "", store)
    handle = open_store(path, load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)
    try:
        if ratings is None:
            return campaign_report(handle.con, path, campaign or "", jury, benchmarks)
        whole = resolve_run_id(handle.con, run, where=name["run"]) if run else None
        return validation_report(handle.con, jury_scored_runs(handle.con), ratings, whole, jury, benchmarks,
                                 run_where=name["run"])
    finally:
        handle.close()


@owner_only
def validate_jury(suite: str | None = None, *, ratings: str | Path | None = None, campaign: str | None = None,
                  run: str | None = None, jury: str | None = None, benchmarks: Sequence[str] = (),
                  rubric: str | None = None, config: Settings | str | Path | None = None,
                  store: str | Path | None = None, output_dir: str | Path | None = None) -> ValidationReport:
    """Does the jury agree with the clinicians? As `medhelm-local judge validate`: the clinicians' ratings from a
    ratings file (`ratings`) or a rating campaign in the suite's store (`campaign`), against the jury's ratings in the
    store (`jury`: whose, default the run's), or, with no suite, against the jury's ratings the file carries
    (`rubric`: the file's rubric, default clinical_note). Writes nothing. `benchmarks`: only these."""
    reads_store = suite is not None or store is not None
    return validation_with(_settings(config, output_dir) if reads_store else None, suite, ratings=_path(ratings),
                           campaign=campaign, run=run, jury=jury, benchmarks=tuple(benchmarks), rubric=rubric,
                           store=_path(store))


def template_with(settings: Settings, suite: str | None, to: Path, *, runs: Sequence[str] = (),
                  clinicians: Sequence[str] = (), store: Path | None = None,
                  run_where: str = "runs") -> tuple[int, Rubric]:
    """Write the ratings file to fill in from the suite's stored answers; (rows written, the rubric rated on)."""
    path = store_path_for(settings, suite or "", store)
    handle = open_store(path, load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)
    try:
        named = [resolve_run_id(handle.con, r, where=run_where) for r in runs]
        rubric, answers = template_answers(handle.con, jury_scored_runs(handle.con), named, where=run_where)
    finally:
        handle.close()
    return write_template(to, rubric, answers, list(clinicians)), rubric


@owner_only
def write_ratings_template(suite: str | None = None, *, to: str | Path, runs: Sequence[str] = (),
                           clinicians: Sequence[str] = (), config: Settings | str | Path | None = None,
                           store: str | Path | None = None, output_dir: str | Path | None = None) -> int:
    """Write the ratings file for clinicians to fill in, as `judge validate --template`: a row per stored answer of
    the suite's jury-scored runs (`runs`: only these) and clinician named, a blank cell per rubric criterion, to the
    new CSV file `to`. Returns the rows written; `validate_jury(ratings=to)` reads it back once filled in."""
    if suite is None and store is None:
        raise ConfigError("no suite was named", where="write_ratings_template()",
                          fix="pass the suite's name, or store=PATH")
    return template_with(_settings(config, output_dir), suite, Path(to), runs=runs, clinicians=clinicians,
                         store=_path(store))[0]

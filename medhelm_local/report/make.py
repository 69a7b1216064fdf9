"""`make_report()`: compare models from suite stores, from Python; `medhelm-local report` calls the same
`report_with` with the settings it read. Stores are read, never written; no model is asked anything."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.errors import ConfigError, StoreNotFoundError
from medhelm_local.file_modes import owner_only
from medhelm_local.report.read_model import Report
from medhelm_local.report.site import DEFAULT_INSTANCES, SiteResult
from medhelm_local.settings import Settings


@dataclass(frozen=True)
class ReportOutput:
    """A report made: its read model (leaderboard, columns, comparisons), the stores it read, and what was written:
    the text of a JSON, CSV, Markdown or LaTeX report, or the HTML report's folder."""

    report: Report
    stores: tuple[Path, ...]
    text: str | None = None  # every format but html
    site: SiteResult | None = None  # html: the folder, its pages and instance pages


def report_stores(settings: Settings, suites: Sequence[str] | None, stores: Sequence[Path] | None) -> list[Path]:
    """The store of each named suite and each store file; with neither, every suite store in the output folder."""
    from medhelm_local.audit import audit_path

    paths = list(stores or [])
    for suite in suites or []:
        path = settings.output_dir / f"{suite}.duckdb"
        if not path.exists():
            known = ", ".join(sorted(p.stem for p in settings.output_dir.glob("*.duckdb"))) or "none"
            raise StoreNotFoundError(f"there is no store for suite '{suite}' (suites here: {known})",
                                     where=str(path), fix="check the suite name, or name the store file itself")
        paths.append(path)
    if not paths:
        audit = os.path.realpath(audit_path())
        paths = sorted(p for p in settings.output_dir.glob("*.duckdb") if os.path.realpath(p) != audit)
        if not paths:
            raise StoreNotFoundError("no suite stores in the output folder", where=str(settings.output_dir),
                                     fix="run a benchmark first, or name the suites, the output folder or the store "
                                         "files")
    # Each store once, however it was named; kept as named (links and all), so that errors name what was given.
    unique: dict[str, Path] = {}
    for path in paths:
        unique.setdefault(os.path.realpath(path), Path(os.path.abspath(path)))
    return list(unique.values())


def report_with(settings: Settings, suites: Sequence[str] | None = None, *, stores: Sequence[Path] | None = None,
                fmt: str = "html", out: Path | None = None, helm_runs: Sequence[Path] = (),
                baseline: str | None = None, trend: bool = False, validated_only: bool = False,
                instances: int | None = DEFAULT_INSTANCES) -> ReportOutput:
    """Make the report of these suites' stores with these settings: an HTML folder at `out`, or the text of another
    format (also written to `out` when given). Refused, with nothing written, if `validated_only` (or the policy)
    wants every jury-scored column validated by clinicians and one is not."""
    from medhelm_local.policy.loader import load_policy
    from medhelm_local.report import FORMATS, open_sources, render_text, write_site
    from medhelm_local.report.stores import reading
    from medhelm_local.store.keys import load_kek

    if fmt not in FORMATS:
        raise ConfigError(f"'{fmt}' is not a report format", where="report format",
                          fix=f"use one of: {', '.join(FORMATS)}")
    if fmt == "html" and out is None:
        raise ConfigError("an HTML report is a folder, and none was given", where="report output",
                          fix="name a new folder to write the report to, or choose the json, csv, md or latex "
                              "format")
    paths = report_stores(settings, suites, stores)
    rules = load_policy(settings.policy_dir).export.jury_validation  # read once: what counts as validated
    sources = open_sources(paths, load_kek(settings), settings.store_memory_limit, list(helm_runs), rules)
    site, text = None, None
    try:
        with reading(", ".join(str(p) for p in paths)):
            built = sources.report(baseline, trend)
            _refuse_unvalidated(built, validated_only, rules.refuse_unvalidated)
            if out is not None and fmt == "html":  # (html without `out` was refused above)
                site = write_site(built, sources.by_run(), out, instances)
            else:
                text = render_text(built, fmt)
    finally:
        sources.close()
    if text is not None and out is not None:
        _write_text(out, text)
    return ReportOutput(built, tuple(paths), text, site)


@owner_only
def make_report(suites: str | Sequence[str] | None = None, *, config: Settings | str | Path | None = None,
                stores: Sequence[str | Path] | None = None, output_dir: str | Path | None = None, fmt: str = "html",
                out: str | Path | None = None, helm_runs: Sequence[str | Path] = (), baseline: str | None = None,
                trend: bool = False, validated_only: bool = False,
                instances: int | None = DEFAULT_INSTANCES) -> ReportOutput:
    """Compare models across suites (default: every suite store in the output folder), as `medhelm-local report`
    does: mean win rates, taxonomy macro averages, paired comparisons. `fmt` html writes the static report into the
    folder `out`; json, csv, md and latex return the text (`ReportOutput.text`) and write it to `out` if given."""
    from medhelm_local.run.in_force import settings_in_force

    settings, _ = settings_in_force(config, output_dir=None if output_dir is None else Path(output_dir))
    named = [suites] if isinstance(suites, str) else suites
    return report_with(settings, named, stores=[Path(s) for s in stores or ()], fmt=fmt,
                       out=None if out is None else Path(out), helm_runs=[Path(h) for h in helm_runs],
                       baseline=baseline, trend=trend, validated_only=validated_only, instances=instances)


def _refuse_unvalidated(built: Report, asked: bool, by_policy: bool) -> None:
    """Refuse a report with a jury-scored column not validated, when asked to or when the policy says so."""
    from medhelm_local.report.jury_validation import refuse_unvalidated

    if not (asked or by_policy):
        return
    why = ("the policy refuses such reports (export.yaml: jury_validation.refuse_unvalidated)" if by_policy
           else "only validated reports were asked for (validated_only, `medhelm-local report --validated-only`)")
    refuse_unvalidated(built.jury_marks, {c.key: c.title for c in built.columns}, why)


def _write_text(path: Path, text: str) -> None:
    from medhelm_local.output_paths import atomic_text, refuse_unsafe_output, writing

    refuse_unsafe_output(path, ConfigError, "report output")
    with writing(path, "report file"):
        path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_text(path, "report file") as fh:
        fh.write(text)

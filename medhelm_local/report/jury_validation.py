"""Is a jury-scored column validated? By this hospital's clinicians' latest rating campaign on its benchmark,
against the threshold the policy sets (export.yaml, `jury_validation`).

    agreement   per benchmark of a store, its latest campaign with ratings (by the date of its last
                rating): MedHELM's figure (ICC(3,k) on z-scores, the jury against the clinicians' mean)
                with its 95 % interval, the answers rated by both, the raters, the date; computed by
                `judge validate`'s code (annotate.validate.jury_agreement), never here
    verdict     validated when the figure (or its interval's low end, as the policy says) reaches
                min_icc over at least min_answers answers; otherwise not validated, and why
    refusal     for a report that may carry validated jury columns only: the error naming the others,
                and what to do

A later campaign on a benchmark replaces an earlier one, whatever their figures: the latest evidence is
what a report stands on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb

from medhelm_local.errors import ConfigError
from medhelm_local.policy.file_schemas import JuryValidationRules

STATISTIC = "ICC3k-z"


@dataclass(frozen=True)
class Agreement:
    """The jury against clinicians on one benchmark, from one rating campaign."""

    benchmark: str
    store: str
    campaign: str
    jury: str
    icc: float | None
    ci_low: float | None
    ci_high: float | None
    answers: int  # rated by clinicians and the jury both
    raters: int
    last_rated: str  # ISO timestamp of the campaign's last rating

    @property
    def date(self) -> str:
        """The day of the campaign's last rating (YYYY-MM-DD)."""
        return self.last_rated[:10]


@dataclass(frozen=True)
class Verdict:
    """A jury-scored column validated or not, with the agreement behind it (None: no campaign) and why."""

    validated: bool
    reason: str
    threshold: float
    agreement: Agreement | None = None

    @property
    def summary(self) -> str:
        """One line for tables: `validated: ICC3k-z 0.62 [0.41, 0.78], n 40, r 3, 2026-11-27` or `not validated`."""
        found = self.agreement
        if not self.validated or found is None or found.icc is None:
            return "not validated"
        return (f"validated: {STATISTIC} {found.icc:.2f} [{_figure(found.ci_low)}, {_figure(found.ci_high)}], "
                f"n {found.answers}, r {found.raters}, {found.date}")

    def as_json(self) -> dict[str, object]:
        """Plain data for JSON reports."""
        found = self.agreement
        return {"validated": self.validated, "reason": self.reason, "threshold": self.threshold,
                "statistic": STATISTIC, "value": found.icc if found else None,
                "ci_low": found.ci_low if found else None, "ci_high": found.ci_high if found else None,
                "n_instances": found.answers if found else None, "n_raters": found.raters if found else None,
                "date": found.date if found else None, "campaign": found.campaign if found else None,
                "jury": found.jury if found else None}


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def agreements(con: duckdb.DuckDBPyConnection, store: str) -> dict[str, Agreement]:
    """Per benchmark of a store, the agreement of its latest campaign with ratings."""
    from medhelm_local.annotate.validate import campaign_ratings, jury_agreement
    from medhelm_local.run.jury_runs import jury_scored_runs

    rated = con.execute("SELECT campaign_id, max(rated_at) FROM clinician_ratings WHERE NOT skipped "
                        "GROUP BY campaign_id ORDER BY 2, 1").fetchall()
    if not rated:
        return {}
    judged = jury_scored_runs(con)
    found: dict[str, Agreement] = {}
    for campaign_id, last in rated:  # oldest first: a later campaign on a benchmark replaces an earlier one
        held = con.execute("SELECT run_id FROM rating_campaigns WHERE campaign_id = ?", [campaign_id]).fetchone()
        run_id = None if held is None else str(held[0])
        if run_id is None or run_id not in judged:
            continue
        rubric, recorded, benchmark = judged[run_id]
        jury = recorded or _only_jury(con, run_id)
        ratings = campaign_ratings(con, campaign_id, run_id, rubric, Path(store))
        row = jury_agreement(con, ratings, {run_id: benchmark}, {run_id: jury or ""}, rubric)
        if row is None:
            continue
        found[benchmark] = Agreement(benchmark, store, campaign_id, jury or "", row.icc3k_z.value, row.icc3k_z.low,
                                     row.icc3k_z.high, row.answers, row.clinicians, last.isoformat())
    return found


def _only_jury(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """The jury that rated a run whose row names none (judged before runs recorded it): the one jury, if one."""
    found = [r[0] for r in con.execute("SELECT DISTINCT jury FROM ratings WHERE run_id = ?", [run_id]).fetchall()]
    return found[0] if len(found) == 1 else None


def latest(found: Mapping[str, Agreement], more: Mapping[str, Agreement]) -> dict[str, Agreement]:
    """Two stores' agreements merged: per benchmark, the later campaign's."""
    merged = dict(found)
    for benchmark, agreement in more.items():
        if benchmark not in merged or merged[benchmark].last_rated < agreement.last_rated:
            merged[benchmark] = agreement
    return merged


def verdict(agreement: Agreement | None, rules: JuryValidationRules) -> Verdict:
    """Validated or not, under the policy's rules, and why."""
    threshold = rules.min_icc
    if agreement is None:
        return Verdict(False, "no clinicians' rating campaign of this benchmark's answers has ratings", threshold)
    if agreement.answers < rules.min_answers:
        return Verdict(False, f"{agreement.campaign} has {agreement.answers} answer(s) rated by clinicians and the "
                              f"jury; the policy asks for at least {rules.min_answers}", threshold, agreement)
    judged = agreement.ci_low if rules.judged_on == "lower_bound" else agreement.icc
    what = f"{STATISTIC} {'95 % interval low end' if rules.judged_on == 'lower_bound' else 'estimate'}"
    if judged is None:
        return Verdict(False, f"{agreement.campaign}'s {what} is undefined (a rater's ratings never vary, or too few "
                              "answers)", threshold, agreement)
    if judged < threshold:
        return Verdict(False, f"{agreement.campaign}'s {what} {judged:.2f} is below the policy's {threshold:g}",
                       threshold, agreement)
    return Verdict(True, f"{agreement.campaign}'s {what} {judged:.2f} reaches the policy's {threshold:g}", threshold,
                   agreement)


# What to do about a jury-scored column that is not validated (for `report` and `export` refusals alike).
VALIDATE_FIX = ("start a rating campaign on each (`medhelm-local judge campaign SUITE --run RUN --raters a,b`), have "
                "the raters rate in the viewer (`medhelm-local serve`), check the agreement with `medhelm-local judge "
                "validate SUITE --campaign ID`, then try again")


def unvalidated(marks: Mapping[str, Verdict], titles: Mapping[str, str]) -> list[str]:
    """Each column (by title) that is not validated, with why."""
    return [f"{titles.get(key, key)} ({mark.reason})" for key, mark in marks.items() if not mark.validated]


def refuse_unvalidated(marks: Mapping[str, Verdict], titles: Mapping[str, str], why: str) -> None:
    """Raise ConfigError naming every column (by title) that is not validated; `why`: what asked for the refusal."""
    left = unvalidated(marks, titles)
    if left:
        raise ConfigError(f"{len(left)} jury-scored column(s) are not validated by clinicians, and {why}: "
                          + "; ".join(left), where="report",
                          fix=f"{VALIDATE_FIX}; or leave the stores holding those columns out of this report")

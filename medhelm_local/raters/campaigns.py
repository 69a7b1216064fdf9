"""Rating campaigns: clinicians rate a seeded sample of one jury-scored run's answers, blind, in the viewer.

    create      a seeded sample of the run's answered instances (as many as `sample_size` plans, or as
                asked), each assigned to `overlap` raters in turn, each rater's queue in its own seeded
                order; stored in the suite store (rating_campaigns, rating_assignments)
    queue       what one rater has to rate, by position in their own order: never the run, the model or
                anyone else's rating
    record      one rater's rating of one answer (criterion -> score, or skipped) and their comment,
                insert-or-replace: a rater may change their mind until the campaign is validated
    ratings     every rating of a campaign, shaped as a ratings file for `judge validate`

Campaign ids and positions are what URLs carry; run ids (which name the model) never reach a rater.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from medhelm_local.annotate.ratings_file import RatingsFile
from medhelm_local.annotate.rubric import Rubric
from medhelm_local.errors import ConfigError
from medhelm_local.raters.sample_size import SampleSize, plan
from medhelm_local.store.writer import insert_rows, row_of

if TYPE_CHECKING:
    from medhelm_local.annotate.validate import ValidationReport


@dataclass(frozen=True)
class Campaign:
    """A stored campaign."""

    campaign_id: str
    run_id: str
    rubric: str
    seed: int
    overlap: int
    raters: tuple[str, ...]
    sizing: str
    instances: int


@dataclass(frozen=True)
class QueueEntry:
    """One answer in a rater's queue: its position, and whether they rated or skipped it."""

    position: int
    rated: bool
    skipped: bool


@dataclass(frozen=True)
class RatingItem:
    """What a rater is shown for one answer, and what they gave it before (if anything)."""

    position: int
    total: int
    input: str
    answer: str
    reference: str | None  # only where the rubric compares with one
    scores: dict[str, int]
    skipped: bool
    comment: str
    access: str = "private"  # the run's access level (public, gated, private): what decides how its text is shown


def _judged(con: duckdb.DuckDBPyConnection, run_id: str, where: str = "run") -> tuple[Rubric, str]:
    from medhelm_local.run.jury_runs import jury_scored_runs as judged_runs

    judged = judged_runs(con)
    if run_id not in judged:
        raise ConfigError(f"run '{run_id}' is not a jury-scored run of this store", where=where,
                          fix=f"use one of: {', '.join(sorted(judged)) or 'none (judge a suite first)'}")
    rubric, _, benchmark = judged[run_id]
    return rubric, benchmark


def answered(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The run's instances with an answer to rate (a failed request has none), sorted."""
    return [r[0] for r in con.execute("SELECT instance_id FROM completions WHERE run_id = ? AND ok AND text IS NOT "
                                      "NULL ORDER BY instance_id", [run_id]).fetchall()]


def _next_id(con: duckdb.DuckDBPyConnection) -> str:
    taken = {r[0] for r in con.execute("SELECT campaign_id FROM rating_campaigns").fetchall()}
    return next(f"campaign-{n}" for n in range(1, len(taken) + 2) if f"campaign-{n}" not in taken)


def size_campaign(con: duckdb.DuckDBPyConnection, run_id: str, overlap: int, expected_icc: float,
                  width: float) -> SampleSize:
    """Bonett's plan for this run's answers (see `sample_size`)."""
    _judged(con, run_id)
    return plan(expected_icc, overlap, width, len(answered(con, run_id)))


def create_campaign(con: duckdb.DuckDBPyConnection, run_id: str, raters: Sequence[str], instances: int,
                    overlap: int, seed: int, sizing: str, actor: str) -> Campaign:
    """Draw and store a campaign; each of `instances` answers goes to `overlap` of the raters."""
    rubric, _ = _judged(con, run_id)
    if len(set(raters)) != len(raters) or len(raters) < overlap:
        raise ConfigError(f"{len(set(raters))} distinct rater(s) cannot give each answer {overlap} ratings",
                          where="raters", fix=f"name at least {overlap} distinct raters (the overlap), each once")
    pool = answered(con, run_id)
    if instances < 1 or instances > len(pool):
        raise ConfigError(f"the run has {len(pool)} answered instance(s); {instances} cannot be drawn",
                          where="instances (answers to rate)", fix=f"give a number from 1 to {len(pool)}")
    rng = random.Random(seed)
    sample = rng.sample(pool, instances)
    order = list(raters)
    rng.shuffle(order)
    assigned: dict[str, list[str]] = {r: [] for r in raters}
    for i, instance_id in enumerate(sample):  # round robin: every rater gets about as many, pairs vary
        for j in range(overlap):
            assigned[order[(i * overlap + j) % len(order)]].append(instance_id)
    campaign_id = _next_id(con)
    rows = []
    for rater, ids in assigned.items():
        mine = sorted(ids)
        random.Random(f"{seed}:{campaign_id}:{rater}").shuffle(mine)
        rows += [row_of("rating_assignments", campaign_id=campaign_id, rater=rater, instance_id=iid, position=p)
                 for p, iid in enumerate(mine, start=1)]
    con.execute("BEGIN TRANSACTION")
    try:
        insert_rows(con, "rating_campaigns", [row_of(
            "rating_campaigns", campaign_id=campaign_id, run_id=run_id, rubric=rubric.name, seed=seed,
            overlap=overlap, raters_json=json.dumps(list(raters)), sizing=sizing, created_by=actor)])
        insert_rows(con, "rating_assignments", rows)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return Campaign(campaign_id, run_id, rubric.name, seed, overlap, tuple(raters), sizing, instances)


def campaign(con: duckdb.DuckDBPyConnection, campaign_id: str) -> Campaign | None:
    """A stored campaign by id."""
    row = con.execute("SELECT campaign_id, run_id, rubric, seed, overlap, raters_json, sizing FROM rating_campaigns "
                      "WHERE campaign_id = ?", [campaign_id]).fetchone()
    if row is None:
        return None
    count = (con.execute("SELECT count(DISTINCT instance_id) FROM rating_assignments WHERE campaign_id = ?",
                         [campaign_id]).fetchone() or (0,))[0]
    return Campaign(row[0], row[1], row[2], int(row[3]), int(row[4]), tuple(json.loads(row[5])), row[6], int(count))


def campaigns_of(con: duckdb.DuckDBPyConnection, rater: str) -> list[tuple[str, int, int]]:
    """The campaigns a rater has answers in: (campaign id, answers assigned, answers rated or skipped)."""
    return [(r[0], int(r[1]), int(r[2])) for r in con.execute("""
        SELECT a.campaign_id, count(*), count(r.instance_id) FROM rating_assignments a
        LEFT JOIN clinician_ratings r USING (campaign_id, rater, instance_id)
        WHERE a.rater = ? GROUP BY a.campaign_id ORDER BY a.campaign_id""", [rater]).fetchall()]


def queue(con: duckdb.DuckDBPyConnection, campaign_id: str, rater: str) -> list[QueueEntry]:
    """A rater's answers in their own order, with what they did with each."""
    return [QueueEntry(int(r[0]), r[1] is not None and not r[1], bool(r[1])) for r in con.execute("""
        SELECT a.position, r.skipped FROM rating_assignments a
        LEFT JOIN clinician_ratings r USING (campaign_id, rater, instance_id)
        WHERE a.campaign_id = ? AND a.rater = ? ORDER BY a.position""", [campaign_id, rater]).fetchall()]


def _assigned(con: duckdb.DuckDBPyConnection, campaign_id: str, rater: str, position: int) -> str | None:
    row = con.execute("SELECT instance_id FROM rating_assignments WHERE campaign_id = ? AND rater = ? AND "
                      "position = ?", [campaign_id, rater, position]).fetchone()
    return None if row is None else str(row[0])


def rating_item(con: duckdb.DuckDBPyConnection, found: Campaign, rubric: Rubric, rater: str,
                position: int) -> RatingItem | None:
    """What the rater sees at a position of their queue (None: no such position for them)."""
    instance_id = _assigned(con, found.campaign_id, rater, position)
    if instance_id is None:
        return None
    row = con.execute("""SELECT i.input, i.references_json, c.text FROM instances i
                         JOIN completions c USING (run_id, instance_id) WHERE i.run_id = ? AND i.instance_id = ?""",
                      [found.run_id, instance_id]).fetchone()
    given = con.execute("SELECT ratings_json, skipped, comment FROM clinician_ratings WHERE campaign_id = ? AND "
                        "rater = ? AND instance_id = ?", [found.campaign_id, rater, instance_id]).fetchone()
    total = (con.execute("SELECT count(*) FROM rating_assignments WHERE campaign_id = ? AND rater = ?",
                         [found.campaign_id, rater]).fetchone() or (0,))[0]
    access = con.execute("SELECT access FROM runs WHERE run_id = ?", [found.run_id]).fetchone()
    references = json.loads(row[1] or "[]") if row else []
    reference = next((r.get("text", "") for r in references if r.get("correct")), "")
    return RatingItem(position, int(total), row[0] if row else "", (row[2] or "") if row else "",
                      reference if "{reference}" in rubric.prompt else None,
                      json.loads(given[0]) if given else {}, bool(given[1]) if given else False,
                      (given[2] or "") if given else "", str(access[0]) if access and access[0] else "private")


def record_rating(con: duckdb.DuckDBPyConnection, found: Campaign, rubric: Rubric, rater: str, position: int,
                  scores: dict[str, int] | None, comment: str) -> str:
    """Store a rating (None: skipped); the instance id rated. ConfigError for a score off the rubric."""
    instance_id = _assigned(con, found.campaign_id, rater, position)
    if instance_id is None:
        raise ConfigError(f"position {position} is not in this rater's queue", where=found.campaign_id,
                          fix="rate the answers your queue lists")
    if scores is not None:
        low, high = rubric.scale.min, rubric.scale.max
        missing = [c for c in rubric.criterion_names if c not in scores]
        bad = [c for c, v in scores.items() if c not in rubric.criterion_names or not low <= v <= high]
        if missing or bad:
            raise ConfigError(f"a rating needs every criterion on {low}-{high} (missing: {', '.join(missing) or 'none'}"
                              f"; not valid: {', '.join(bad) or 'none'})", where=found.campaign_id,
                              fix="choose a score for each criterion, or skip the answer")
    insert_rows(con, "clinician_ratings", [row_of(
        "clinician_ratings", campaign_id=found.campaign_id, rater=rater, instance_id=instance_id,
        ratings_json=json.dumps(scores or {}, sort_keys=True), skipped=scores is None, comment=comment or None)])
    return instance_id


def campaign_ratings(con: duckdb.DuckDBPyConnection, found: Campaign, rubric: Rubric, where: Path) -> RatingsFile:
    """Every (not skipped) rating of a campaign, as `judge validate` reads a ratings file."""
    from medhelm_local.annotate.validate import campaign_ratings as stored

    return stored(con, found.campaign_id, found.run_id, rubric, where)


def campaign_report(con: duckdb.DuckDBPyConnection, store: Path, campaign_id: str, jury: str | None,
                    benchmarks: Sequence[str] = ()) -> ValidationReport:
    """`judge validate`'s tables from the ratings a campaign gathered in the store (no ratings file)."""
    from medhelm_local.annotate.validate import ratings_report
    from medhelm_local.run.jury_runs import jury_scored_runs as judged_runs

    found = campaign(con, campaign_id)
    if found is None:
        known = [r[0] for r in con.execute("SELECT campaign_id FROM rating_campaigns ORDER BY 1").fetchall()]
        raise ConfigError(f"the store holds no rating campaign '{campaign_id}'", where=str(store),
                          fix=f"use one of: {', '.join(known) or 'none (start one with `judge campaign`)'}")
    rubric, run_jury, benchmark = judged_runs(con)[found.run_id]
    ratings = campaign_ratings(con, found, rubric, store)
    if not ratings.clinicians:
        raise ConfigError(f"no clinician has rated an answer of {campaign_id} yet", where=str(store),
                          fix="ask the raters to rate in the viewer (`medhelm-local serve`), then validate again")
    return ratings_report(con, ratings, {found.run_id: benchmark}, {found.run_id: jury or run_jury or ""}, rubric,
                          benchmarks)

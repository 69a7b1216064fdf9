"""The stored schema, declared once: every table, every column, its type, how it is redacted, where
it is exported, and the version that introduced it.

From this one declaration come the DDL of a new store, the writer's Arrow types, the migration of
an older store (tables and columns added since its version), the redaction class of every column
(`redact store`, the export gate) and the export artifacts. Adding a column is one edit here:
give it a treatment and `since=` the new SCHEMA_VERSION.

Treatments (how a value leaves the appliance, in a redacted copy or an export):
    keep         copied as is: ids of runs, numbers, times, names defined by code
    instance_id  replaced by a pseudonym keyed per export
    label        benchmark labels: redacted for gated and private runs, kept for public ones
    json_label   a JSON value whose strings are labels
    text         free text: always redacted (prompts, answers, references, error messages)
    json_text    a JSON value whose strings are free text
    drop         never leaves (logprobs: token fragments cannot be redacted reliably)

Two kinds of encrypted store share one format: a suite store (results, one per suite) and the
audit log (one per appliance, kept longer than any result, so never inside a suite store).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

StoreKind = Literal["suite", "audit"]
Kind = Literal["text", "int", "float", "bool", "timestamp"]
Treatment = Literal["keep", "instance_id", "label", "json_label", "text", "json_text", "drop"]

SCHEMA_VERSION = 6
AUDIT_SCHEMA_VERSION = 1

_SQL_TYPES: dict[Kind, str] = {"text": "VARCHAR", "int": "INTEGER", "float": "DOUBLE", "bool": "BOOLEAN",
                               "timestamp": "TIMESTAMP"}
_ARROW_TYPES: dict[Kind, str] = {"text": "string", "int": "int32", "float": "float64", "bool": "bool",
                                 "timestamp": "timestamp[us]"}


@dataclass(frozen=True)
class Column:
    """One stored column."""

    name: str
    kind: Kind
    treatment: Treatment
    required: bool = False  # NOT NULL
    stamp: bool = False  # filled with the commit time by the writer, not given by the caller
    since: int = 1  # the schema version that added it; older stores gain it on migration
    carries: str | None = None  # holds text of another artifact: leaves only where that artifact may

    @property
    def sql_type(self) -> str:
        """The DuckDB type."""
        return _SQL_TYPES[self.kind]

    @property
    def arrow_type(self) -> str:
        """The Arrow type alias the writer builds batches with."""
        return _ARROW_TYPES[self.kind]

    @property
    def is_json(self) -> bool:
        """JSON held as text: exported parsed, under its name without `_json`."""
        return self.name.endswith("_json")

    @property
    def export_name(self) -> str:
        """The field name in an export bundle."""
        if self.name == "instance_id":
            return "instance"
        return self.name.removesuffix("_json") if self.is_json else self.name


@dataclass(frozen=True)
class Table:
    """One stored table: keyed by (run id, instance id, ...) so a killed run resumes where it stopped.

    `indexed` tables enforce their key with a PRIMARY KEY and are written insert-or-replace. The
    per-instance tables are not indexed: DuckDB keeps a key index in memory (about 300 bytes a row
    measured here), which at 100,000 instances would be most of a run's memory. Their keys stay
    unique by how the run stage writes them: an instance's rows are written once, and a failed
    completion is deleted in the same transaction that stores its retry.
    """

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    artifact: str | None = None  # the export artifact its rows belong to
    since: int = 1
    indexed: bool = True

    def column(self, name: str) -> Column:
        """One column by name."""
        return next(c for c in self.columns if c.name == name)

    def columns_at(self, version: int) -> tuple[Column, ...]:
        """The columns a store of `version` has."""
        return tuple(c for c in self.columns if c.since <= version)

    @functools.cached_property
    def given(self) -> tuple[Column, ...]:
        """Columns the caller supplies, in order (stamped ones are filled by the writer)."""
        return tuple(c for c in self.columns if not c.stamp)

    @functools.cached_property
    def given_names(self) -> tuple[str, ...]:
        """Names of the columns the caller supplies, in order."""
        return tuple(c.name for c in self.given)

    @functools.cached_property
    def given_set(self) -> frozenset[str]:
        """The same names as a set (checked for every row written)."""
        return frozenset(self.given_names)

    def ddl(self) -> str:
        """CREATE TABLE for a new store."""
        lines = [f"    {c.name} {c.sql_type}{' NOT NULL' if c.required else ''}" for c in self.columns]
        if self.key and self.indexed:
            lines.append(f"    PRIMARY KEY ({', '.join(self.key)})")
        return f"CREATE TABLE IF NOT EXISTS {self.name} (\n" + ",\n".join(lines) + "\n);"


def _c(name: str, kind: Kind, treatment: Treatment, **options: object) -> Column:
    return Column(name, kind, treatment, **options)  # type: ignore[arg-type]


_RUN_ID = _c("run_id", "text", "keep", required=True)
_INSTANCE_ID = _c("instance_id", "text", "instance_id", required=True)

META = Table("meta", (_c("key", "text", "keep", required=True), _c("value", "text", "keep", required=True)),
             key=("key",))

SUITE_TABLES: tuple[Table, ...] = (
    META,
    Table("runs", (
        _RUN_ID,
        _c("suite", "text", "keep", required=True),
        _c("run_entry", "text", "label", required=True),
        _c("scenario", "text", "keep", required=True),
        _c("scenario_args", "text", "json_label", required=True),
        _c("model", "text", "keep", required=True),
        _c("deployment", "text", "keep", required=True),
        _c("main_metric", "text", "keep", required=True),
        _c("access", "text", "keep", required=True),  # public | gated | private: gated and private are sensitive
        _c("settings", "text", "keep", required=True),
        _c("created_at", "timestamp", "keep", required=True),
        _c("updated_at", "timestamp", "keep", required=True),
        # The benchmark as the run saw it: names, task type, taxonomy place, metrics (main first).
        _c("benchmark_json", "text", "json_label", since=2),
        # What the run read (scenarios/data_read.py): each data file's sha256 as loaded, and whether they are a
        # release this package pins. NULL for runs made before v4, which the export gate never treats as public.
        _c("data_json", "text", "json_label", since=4),
    ), key=("run_id",), artifact="runs"),
    Table("instances", (
        _RUN_ID, _INSTANCE_ID,
        _c("ordinal", "int", "keep", required=True),
        _c("split", "text", "keep", required=True),
        _c("input", "text", "text", required=True),
        _c("references_json", "text", "json_text", required=True),
        _c("extra_json", "text", "json_text", required=True),
        # The card's slice keys and this instance's values ({"sex": "F"}): labels that travel with the slice
        # aggregates, so redacted like every label. NULL when the card names no slices.
        _c("slices_json", "text", "json_label", since=5),
    ), key=("run_id", "instance_id"), artifact="prompts", indexed=False),
    Table("requests", (
        _RUN_ID, _INSTANCE_ID,
        _c("prompt", "text", "text", required=True),
        _c("params_json", "text", "keep", required=True),
    ), key=("run_id", "instance_id"), artifact="prompts", indexed=False),
    Table("completions", (
        _RUN_ID, _INSTANCE_ID,
        _c("ok", "bool", "keep", required=True),
        _c("text", "text", "text"),
        _c("finish_reason", "text", "keep"),
        _c("prompt_tokens", "int", "keep"),
        _c("completion_tokens", "int", "keep"),
        _c("latency_s", "float", "keep"),
        _c("attempts", "int", "keep", required=True),
        _c("error_type", "text", "keep"),
        # A server's error message can echo the prompt back.
        _c("error_message", "text", "text", carries="prompts"),
        _c("logprobs_json", "text", "drop"),
        _c("created_at", "timestamp", "keep", required=True, stamp=True),
        # A multiple-choice answer's probability of the option it chose (metrics/calibration.py), read from
        # its logprobs when it arrives: calibration then reads two numbers an instance, not the logprobs.
        # NULL without logprobs, a letter among them, or (stores before v3) when not yet computed.
        _c("confidence", "float", "keep", since=3),
        # A reasoning model's thinking (<think> or reasoning_content), apart from the answer in `text`: never
        # scored. It can quote the prompt, so it leaves only where both prompts and completions may.
        _c("reasoning", "text", "text", since=4, carries="prompts"),
        # The model build that answered, as the server named it: the reply's `model` field, then in brackets the
        # reply's system_fingerprint or, failing that, the weights /v1/models listed for it (vLLM's `root`) where
        # that differs from the name. Per answer, so a model swapped mid-run or between runs shows up.
        # NULL for failed requests and for answers stored before v5.
        _c("served_model", "text", "keep", since=5),
    ), key=("run_id", "instance_id"), artifact="completions", indexed=False),
    Table("scores", (
        _RUN_ID, _INSTANCE_ID,
        _c("metric", "text", "keep", required=True),
        _c("value", "float", "keep"),  # NULL when the metric could not score the answer (see error)
        # What the metric read from the answer: answer text, so it leaves only where completions may.
        _c("extracted", "text", "text", carries="completions"),
        _c("detail_json", "text", "json_text", since=2, carries="completions"),
        _c("error", "text", "keep", since=2),
    ), key=("run_id", "instance_id", "metric"), artifact="scores", indexed=False),
    # One row per (instance, judge) of a jury: the judge's ratings per criterion with its explanations,
    # or why it gave none. A failed judge is a row too: counted, never a rating.
    Table("ratings", (
        _RUN_ID, _INSTANCE_ID,
        _c("jury", "text", "keep", required=True),
        _c("judge", "text", "keep", required=True),  # the judge's deployment name
        _c("rubric", "text", "keep", required=True),
        _c("ok", "bool", "keep", required=True),
        # {criterion: {"score": 1-5, "explanation": "..."}}: explanations are a judge's free text, which can
        # quote the answer, so they leave only where completions may (and as strictly).
        _c("ratings_json", "text", "json_text", carries="completions"),
        _c("mean", "float", "keep"),  # this judge's mean over its criteria
        # unreachable, timeout, unparseable, out_of_range, missing_criterion, echoed_answer
        _c("error_type", "text", "keep"),
        _c("error_message", "text", "text", carries="prompts"),
        _c("latency_s", "float", "keep"),
        _c("prompt_tokens", "int", "keep"),
        _c("completion_tokens", "int", "keep"),
        _c("attempts", "int", "keep"),
        _c("created_at", "timestamp", "keep", required=True, stamp=True),
    ), key=("run_id", "instance_id", "jury", "judge"), artifact="ratings", indexed=False, since=2),
    Table("run_metrics", (
        _RUN_ID,
        _c("metric", "text", "keep", required=True),
        _c("value", "float", "keep"),
        _c("ci_low", "float", "keep"),
        _c("ci_high", "float", "keep"),
        _c("n", "int", "keep", required=True),
        _c("n_scored", "int", "keep", required=True),
        _c("n_failed", "int", "keep", required=True),
        # Per-label counts and confusion tables name labels.
        _c("detail_json", "text", "json_label"),
        _c("computed_at", "timestamp", "keep", required=True, stamp=True),
    ), key=("run_id", "metric"), artifact="aggregates", since=2),
    # A run's metrics per slice value (store/slices.py), one row per (metric, slice key), written with its
    # aggregates so that `show`, reports and the Python API read them instead of redrawing each bootstrap.
    # No export artifact: an export builds slices.json from these rows, suppressing small slices first
    # (export/slices.py). A run without slice keys has no rows; a run stored before v6 has none until it is
    # summarised again, and is computed from its scores when read.
    Table("run_slices", (
        _RUN_ID,
        _c("metric", "text", "keep", required=True),
        _c("slice_key", "text", "label", required=True),
        _c("ordinal", "int", "keep", required=True),  # the order the slices were computed in
        # [{"value", "n", "n_scored", "n_failed", "mean", "ci_low", "ci_high"}, ...] in order of the values
        _c("values_json", "text", "json_label", required=True),
        # {"high", "low", "gap", "ci_low", "ci_high"}; NULL when fewer than two values were scored
        _c("gap_json", "text", "json_label"),
        _c("computed_at", "timestamp", "keep", required=True, stamp=True),
    ), key=("run_id", "metric", "slice_key"), since=6),
    # Clinicians' rating campaigns (raters/campaigns.py): no export artifact, so nothing here leaves the
    # appliance. A campaign rates one run's answers; each sampled instance is assigned to `overlap` raters.
    Table("rating_campaigns", (
        _c("campaign_id", "text", "keep", required=True),
        _RUN_ID,
        _c("rubric", "text", "keep", required=True),
        _c("seed", "int", "keep", required=True),
        _c("overlap", "int", "keep", required=True),
        _c("raters_json", "text", "keep", required=True),
        _c("sizing", "text", "keep", required=True),  # how the number of instances was chosen, as printed
        _c("created_by", "text", "keep", required=True),
        _c("created_at", "timestamp", "keep", required=True, stamp=True),
    ), key=("campaign_id",), since=5),
    # `position`: the order the rater sees the instance in, drawn per rater so no two share an order.
    Table("rating_assignments", (
        _c("campaign_id", "text", "keep", required=True),
        _c("rater", "text", "keep", required=True),
        _INSTANCE_ID,
        _c("position", "int", "keep", required=True),
    ), key=("campaign_id", "rater", "instance_id"), since=5),
    # A clinician's rating of one answer: {criterion: score} (empty when skipped), and their comment, free
    # text that can quote the answer. Rewritten when the rater changes their mind; the audit log keeps each.
    Table("clinician_ratings", (
        _c("campaign_id", "text", "keep", required=True),
        _c("rater", "text", "keep", required=True),
        _INSTANCE_ID,
        _c("ratings_json", "text", "keep", required=True),
        _c("skipped", "bool", "keep", required=True),
        _c("comment", "text", "text", carries="completions"),
        _c("rated_at", "timestamp", "keep", required=True, stamp=True),
    ), key=("campaign_id", "rater", "instance_id"), since=5),
)

# Changes a migration cannot derive from `since` (a column that stopped being NOT NULL), by the
# version they lead to.
MIGRATION_STEPS: dict[int, tuple[str, ...]] = {
    2: ("ALTER TABLE scores ALTER COLUMN value DROP NOT NULL",),
}

# Append-only by code: nothing in the program updates or deletes a row. Each record's hash covers
# its fields and the previous record's hash, so an edited or removed record breaks the chain.
AUDIT_TABLES: tuple[Table, ...] = (
    META,
    Table("audit", (
        _c("seq", "int", "keep", required=True),
        _c("recorded_at", "text", "keep", required=True),
        _c("kind", "text", "keep", required=True),
        _c("actor", "text", "keep", required=True),
        _c("details_json", "text", "keep", required=True),
        _c("prev_hash", "text", "keep", required=True),
        _c("hash", "text", "keep", required=True),
    ), key=("seq",)),
)

# The one place every consumer reads the declaration from (at call time).
SCHEMAS: dict[StoreKind, tuple[tuple[Table, ...], int]] = {
    "suite": (SUITE_TABLES, SCHEMA_VERSION), "audit": (AUDIT_TABLES, AUDIT_SCHEMA_VERSION)}


def suite_tables() -> tuple[Table, ...]:
    """Every table of a suite store, as declared."""
    return SCHEMAS["suite"][0]


def table(name: str) -> Table:
    """One suite table by name."""
    return _by_name(suite_tables())[name]


# Looked up for every row written, so kept per declaration in force, found by identity: hashing the
# declaration (every table and column) per row was most of a judged run's store CPU (bench/jury.py).
_INDEX: list[tuple[tuple[Table, ...], dict[str, Table]]] = []


def _by_name(tables: tuple[Table, ...]) -> dict[str, Table]:
    for declared, index in _INDEX:
        if declared is tables:
            return index
    _INDEX[:] = [*_INDEX[-3:], (tables, {t.name: t for t in tables})]
    return _INDEX[-1][1]


def ddl(kind: StoreKind) -> str:
    """Every CREATE TABLE of a new store of this kind."""
    return "\n".join(table.ddl() for table in SCHEMAS[kind][0])


def migration(kind: StoreKind, stored: int) -> list[str]:
    """The statements that bring a store of version `stored` to the current one, in order."""
    tables, current = SCHEMAS[kind]
    steps: list[str] = []
    for version in range(stored + 1, current + 1):
        for table in tables:
            if table.since == version:
                steps.append(table.ddl())
            elif table.since < version:
                steps += [f"ALTER TABLE {table.name} ADD COLUMN {c.name} {c.sql_type}"
                          for c in table.columns if c.since == version]
        steps += MIGRATION_STEPS.get(version, ()) if kind == "suite" else ()
    return steps


def artifact_tables(artifact: str) -> tuple[Table, ...]:
    """The suite tables whose rows make up an export artifact."""
    return tuple(t for t in suite_tables() if t.artifact == artifact)

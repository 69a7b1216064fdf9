"""The report as an export artifact: built only from what the policy lets leave, through the gate's shaper.

For each run whose report may leave, the export plan says how each part may leave for this role
(`decisions.report_contents`): aggregates, answers (completions), prompts and references (prompts),
judges' ratings (ratings). A part that may not leave is not in the report at all; one that must be
redacted goes through the same scrubber as every other artifact, so the gate's rescan covers it, and
instance ids become the bundle's pseudonyms. Labels of gated and private runs (benchmark names, run
entries, arguments, per-label breakdowns) are redacted as they are in runs.json. The report is built in
memory and written into the bundle, where the manifest lists and signs every file of it.

Each jury-scored column carries the same mark as in `report`: validated by this hospital's clinicians (the
figure, its interval, n answers, r raters, date) or not, under the policy's `jury_validation` rules. The
agreement is a number computed from the store's rating campaigns; no clinician's rating leaves with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import duckdb

from medhelm_local.errors import ExportRefusedError
from medhelm_local.metrics.slices import SlicedMetric
from medhelm_local.report.inputs import Sources
from medhelm_local.report.read_model import MetricSummary, Report, RunInfo, StoreInfo
from medhelm_local.report.site import DEFAULT_INSTANCES, build_site
from medhelm_local.report.stores import StoreReader
from medhelm_local.store.database import StoreHandle

if TYPE_CHECKING:
    from medhelm_local.policy.file_schemas import JuryValidationRules
    from medhelm_local.report.jury_validation import Verdict


class Shaper(Protocol):
    """The export gate's shaper for one artifact (export.artifacts.Shaper or a subclass)."""

    def instance(self, run_id: str, instance_id: str) -> str: ...
    def text(self, run_id: str, instance_id: str, field: str, value: str | None, force: bool = False) -> str | None: ...
    def json_text(self, run_id: str, instance_id: str, field: str, value: str | None,
                  force: bool = False) -> str | None: ...


# (artifact name, {run id: as_is | redacted}) -> a shaper applying those treatments.
ShaperFor = Callable[[str, Mapping[str, str]], Shaper]


class ShapedReader(StoreReader):
    """A store as an exported report may show it: only the runs and parts that may leave, shaped."""

    def slices(self) -> dict[str, list[SlicedMetric]]:
        """None: slices leave only in the bundle's slices.json, where small ones are suppressed and labels redacted."""
        return {}

    def __init__(self, handle: StoreHandle, contents: Mapping[str, Mapping[str, str]], access: Mapping[str, str],
                 shaper_for: ShaperFor) -> None:
        super().__init__(handle)
        self.contents = contents
        self.access = access

        def shaper(part: str) -> Shaper:
            return shaper_for(f"report.{part}", {r: how[part] for r, how in contents.items() if how[part] != "never"})

        self.shapers = {part: shaper(part) for part in ("aggregates", "completions", "prompts", "ratings")}

    def _how(self, run_id: str, part: str) -> str:
        return self.contents.get(run_id, {}).get(part, "never")

    def _sensitive(self, run_id: str) -> bool:
        return self.access.get(run_id, "private") != "public"

    def _label(self, run_id: str, field: str, value: str) -> str:
        if not self._sensitive(run_id):
            return value
        return self.shapers["aggregates"].text(run_id, "", field, value, force=True) or ""

    def runs(self) -> list[RunInfo]:
        """The runs whose aggregates may leave, their labels redacted for gated and private data."""
        shown = []
        for run in super().runs():
            if self._how(run.run_id, "aggregates") == "never":
                continue
            rid = run.run_id
            shown.append(replace(run, source="store", display_name=self._label(rid, "display_name", run.display_name),
                                 run_entry=self._label(rid, "run_entry", run.run_entry),
                                 args={k: self._label(rid, f"args.{k}", v) for k, v in run.args.items()}))
        return shown

    def metrics(self) -> dict[str, dict[str, MetricSummary]]:
        """The aggregates of runs that may leave; per-label breakdowns of sensitive runs redacted."""
        shaped: dict[str, dict[str, MetricSummary]] = {}
        for run_id, metrics in super().metrics().items():
            if self._how(run_id, "aggregates") == "never":
                continue
            shaped[run_id] = {name: replace(m, detail=self._detail(run_id, m.detail)) for name, m in metrics.items()}
        return shaped

    def _detail(self, run_id: str, detail: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        if detail is None or not self._sensitive(run_id):
            return detail
        text = self.shapers["aggregates"].json_text(run_id, "", "detail", json.dumps(detail), force=True)
        return json.loads(text) if text else None

    def info(self) -> StoreInfo:
        """The store as the report names it: its id, never its path on the appliance."""
        found = super().info()
        return replace(found, path=Path(found.path).name)

    def instances_withheld(self, run_id: str) -> str | None:
        """Why this run's instances are not in the report, if they are not."""
        if self._how(run_id, "completions") == "never":
            return ("Instances are not in this exported report: the export policy does not let this run's answers "
                    "leave for the role that exported it. Its aggregates are above.")
        return None

    def instances_json_runs(self, run_ids: Sequence[str], limit: int | None = None, failed_only: bool = False,
                            offset: int = 0) -> Iterator[tuple[str, str]]:
        """Each instance with only the parts that may leave, shaped."""
        for run_id, text in super().instances_json_runs(run_ids, limit, failed_only, offset):
            yield run_id, json.dumps(self._instance(run_id, json.loads(text)), ensure_ascii=False)

    def _instance(self, run_id: str, item: dict[str, Any]) -> dict[str, Any]:
        raw_id = str(item["id"])
        prompts, answers, ratings = (self._how(run_id, p) for p in ("prompts", "completions", "ratings"))
        out: dict[str, Any] = {"id": self.shapers["completions"].instance(run_id, raw_id), "ordinal": item["ordinal"]}
        for key in ("ok", "finish_reason", "error_type", "attempts"):
            out[key] = item[key]
        answer_shaper, prompt_shaper = self.shapers["completions"], self.shapers["prompts"]
        out["answer"] = answer_shaper.text(run_id, raw_id, "answer", item["answer"])
        if prompts != "never":
            out["prompt"] = prompt_shaper.text(run_id, raw_id, "prompt", item["prompt"])
            out["references"] = json.loads(prompt_shaper.json_text(run_id, raw_id, "references",
                                                                    json.dumps(item["references"])) or "[]")
            # A server's error message can echo the prompt: it leaves only where prompts do, as strictly.
            out["error_message"] = prompt_shaper.text(run_id, raw_id, "error_message", item["error_message"],
                                                      force=answers == "redacted")
        out["scores"] = [{"metric": s["metric"], "value": s["value"], "error": s["error"],
                          "extracted": answer_shaper.text(run_id, raw_id, "extracted", s["extracted"])}
                         for s in item["scores"]]
        out["ratings"] = ([] if ratings == "never" else
                          [self._rating(run_id, raw_id, r, prompts) for r in item["ratings"]])
        return out

    def _rating(self, run_id: str, raw_id: str, rating: dict[str, Any], prompts: str) -> dict[str, Any]:
        shaper = self.shapers["ratings"]
        explained = shaper.json_text(run_id, raw_id, "ratings", json.dumps(rating["ratings"])) if rating["ratings"] \
            else None
        shown = {k: rating[k] for k in ("jury", "judge", "ok", "mean", "error_type")}
        shown["ratings"] = json.loads(explained) if explained else None
        if prompts != "never":
            shown["error_message"] = self.shapers["prompts"].text(run_id, raw_id, "error_message",
                                                                  rating["error_message"])
        return shown


@dataclass(frozen=True)
class ExportedReport:
    """The exported report: every file by path relative to its folder, and each jury-scored column's mark."""

    files: Mapping[str, str]
    jury_marks: Mapping[str, Verdict]  # by column key, as the report shows them
    titles: Mapping[str, str]  # column key -> its title as the report shows it (labels shaped)

    def marks_json(self) -> list[dict[str, object]]:
        """Each jury-scored column's mark as plain data (for the manifest), by title."""
        return [{"column": self.titles.get(key, key), **mark.as_json()} for key, mark in self.jury_marks.items()]


def report_tree(con: duckdb.DuckDBPyConnection, contents: Mapping[str, Mapping[str, str]], access: Mapping[str, str],
                shaper_for: ShaperFor, jury_rules: JuryValidationRules | None = None, validated_only: bool = False,
                instances: int | None = DEFAULT_INSTANCES) -> ExportedReport:
    """The exported report, built in memory (written later); with `jury_rules`, jury-scored columns marked
    validated or not, and ExportRefusedError before any page is built if one is not and the rules'
    `refuse_unvalidated` or `validated_only` refuses such reports."""
    sources = _sources(con, contents, access, shaper_for, jury_rules)
    built = sources.report()
    if jury_rules is not None and (validated_only or jury_rules.refuse_unvalidated):
        _refuse_unvalidated(built, jury_rules.refuse_unvalidated)
    files: dict[str, str] = {}
    build_site(built, sources.by_run(), files.__setitem__, instances)
    return ExportedReport(files, dict(built.jury_marks), {c.key: c.title for c in built.columns})


def _sources(con: duckdb.DuckDBPyConnection, contents: Mapping[str, Mapping[str, str]], access: Mapping[str, str],
             shaper_for: ShaperFor, jury_rules: JuryValidationRules | None) -> Sources:
    row = con.execute("SELECT value FROM meta WHERE key = 'store_id'").fetchone()
    reader = ShapedReader(StoreHandle(Path("store"), row[0] if row else "", con), contents, access, shaper_for)
    return Sources([reader], jury_rules=jury_rules)


def aggregate_jury_marks(con: duckdb.DuckDBPyConnection, treatments: Mapping[str, str], access: Mapping[str, str],
                         shaper_for: ShaperFor, jury_rules: JuryValidationRules) -> list[dict[str, object]]:
    """The marks of the jury-scored columns among runs' aggregates that leave (`treatments`: run id -> as_is |
    redacted), as the report would show them, for a bundle without the report; [] when no run is jury-scored."""
    from medhelm_local.metrics.registry import all_metrics
    from medhelm_local.results.aggregates import run_aggregates

    registry = all_metrics()
    if not any((spec := registry.get(agg.metric)) is not None and "judge" in spec.needs and spec.aggregation == "jury"
               for run_id in treatments for agg in run_aggregates(con, run_id)):
        return []  # nothing jury-scored leaves: no report model to build (and no label to shape)
    never = {"completions": "never", "prompts": "never", "ratings": "never"}
    contents = {run_id: {"aggregates": how, **never} for run_id, how in treatments.items()}
    built = _sources(con, contents, access, shaper_for, jury_rules).report()
    return ExportedReport({}, dict(built.jury_marks), {c.key: c.title for c in built.columns}).marks_json()


def _refuse_unvalidated(built: Report, by_policy: bool) -> None:
    """ExportRefusedError naming each jury-scored column of the report that clinicians have not validated."""
    from medhelm_local.report.jury_validation import VALIDATE_FIX, unvalidated

    left = unvalidated(built.jury_marks, {c.key: c.title for c in built.columns})
    if not left:
        return
    why = ("the policy refuses such reports (export.yaml: jury_validation.refuse_unvalidated)" if by_policy
           else "only validated reports were asked for")
    raise ExportRefusedError(
        f"the report would carry {len(left)} jury-scored column(s) not validated by clinicians, and {why}: "
        + "; ".join(left), where="the export gate (export.yaml jury_validation)",
        fix=f"{VALIDATE_FIX}; or export without the report (leave `report` out of the artifacts). Nothing was "
            "written, and the refusal is in the audit log (`medhelm-local audit show`)")

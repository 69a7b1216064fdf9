"""Public data a card declared public: scanned as it leaves, because its author's word is not proof.

A benchmark this program ships (published data, checked against published checksums) may leave
as it is where the policy says `as_is`. A hospital's own card that says `access: public` is only
a claim: every text of its runs that would leave as it is goes through the detector (and the
shipped rules beneath it), and anything found refuses the export, naming where. If the data is
public and the detector is wrong, export it redacted (export.yaml) or mark the card gated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from medhelm_local.errors import MedhelmError
from medhelm_local.export.artifacts import Shaper
from medhelm_local.store.schema import Column

NOTE = "left as is: the benchmark's card says public, and the text holds what looks like PHI"


def shipped_benchmark(scenario: str) -> bool:
    """True for a benchmark this program ships, not one a card outside the package defines (or an unknown one)."""
    from medhelm_local.scenarios import registry

    try:
        return registry.get(scenario).builtin
    except MedhelmError:
        return False


def declared_public(runs: Mapping[str, tuple[str, str]]) -> set[str]:
    """The run ids (of run id -> (benchmark, access)) whose data is public only because a card says so."""
    return {run_id for run_id, (scenario, access) in runs.items()
            if access == "public" and not shipped_benchmark(scenario)}


@dataclass
class CheckedShaper(Shaper):
    """A Shaper that also scans the as-is text of runs in `checked`, recording residuals in the scrubber."""

    checked: set[str] = field(default_factory=set)

    def _where(self, run_id: str, instance_id: str, field: str) -> tuple[str, str, str, str]:
        # The instance by pseudonym: an id from data that holds PHI may be PHI itself (a record number).
        return (self.artifact, run_id, self.scrubber.pseudonym(run_id, instance_id) if instance_id else "", field)

    def text(self, run_id: str, instance_id: str, field: str, value: str | None, force: bool = False) -> str | None:
        """As Shaper.text; an as-is value of a checked run is scanned first."""
        if run_id in self.checked and not (force or self.redacted(run_id)):
            self.scrubber.check(value, self._where(run_id, instance_id, field), NOTE)
        return super().text(run_id, instance_id, field, value, force)

    def json_text(self, run_id: str, instance_id: str, field: str, value: str | None,
                  force: bool = False) -> str | None:
        """As Shaper.json_text; an as-is value of a checked run is scanned first (the JSON as text)."""
        if run_id in self.checked and not (force or self.redacted(run_id)):
            self.scrubber.check(value, self._where(run_id, instance_id, field), NOTE)
        return super().json_text(run_id, instance_id, field, value, force)

    def column(self, column: Column, run_id: str, instance_id: str, value: Any, stricter: bool = False) -> Any:
        """As Shaper.column; a label of a checked run, which leaves as it is, is scanned first."""
        if run_id in self.checked and column.treatment in ("label", "json_label") and isinstance(value, str) \
                and not self.sensitive(run_id):
            self.scrubber.check(value, self._where(run_id, instance_id, column.name), NOTE)
        return super().column(column, run_id, instance_id, value, stricter)

"""MIMIC-RRS (MIMIC-III radiology reports): the findings in, the impression out.

`test.findings.tok` and `test.impression.tok` hold one report section per line, aligned by line
number; as in MedHELM, lines are stripped and a pair with either side empty is skipped. Files of
different lengths are refused (MedHELM asserts the same).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

FINDINGS = "test.findings.tok"
IMPRESSIONS = "test.impression.tok"


@reader("mimic_rrs")
def read_mimic_rrs(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per aligned line pair, keyed by line number."""
    findings = paths[FINDINGS].read_text("utf-8").splitlines()
    impressions = paths[IMPRESSIONS].read_text("utf-8").splitlines()
    if len(findings) != len(impressions):
        raise ValueError(f"{FINDINGS} has {len(findings)} lines and {IMPRESSIONS} {len(impressions)}; they must align")
    for number, (finding, impression) in enumerate(zip(findings, impressions, strict=True), start=1):
        if finding.strip() and impression.strip():
            yield Instance(f"line-{number:06d}", finding.strip(), (Reference(impression.strip()),))

"""MTSamples reports (mtsamples.com, as MedHELM stages them): a treatment plan from a transcribed report.

The reader hook of `mtsamples_replicate`; `mtsamples_procedures` (its own folder) reads its reports with the
same rules, from here.

The reference is the rest of the line after the first `PLAN:`, else `SUMMARY:`, else `FINDINGS:`
(a heading with nothing after it on its line does not count); reports with none of the three are
skipped, as in MedHELM. `mtsamples_replicate` cuts the input before its first `PLAN:` and also
before the reference's own heading, so a SUMMARY or FINDINGS reference is not left in the input
(MedHELM leaves it there for 201 reports); `mtsamples_procedures` cuts it before the first of the
three headings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

# Section headings that can hold the reference, in MedHELM's order of preference.
HEADINGS = ("PLAN:", "SUMMARY:", "FINDINGS:")
# MedHELM lists the files through GitHub's contents API, which returns at most 1,000 entries (in name order).
GITHUB_LISTING_LIMIT = 1000


def reference_section(report: str) -> tuple[str, str] | None:
    """(heading, reference) as MedHELM picks it, or None when the report has none (headings in capitals)."""
    for heading in HEADINGS:
        if heading in report:
            line = report.split(heading, 1)[1].split("\n", 1)[0].strip()
            if line:
                return heading, line
    return None


def _reports(paths: Mapping[str, Path]) -> Iterator[tuple[str, str]]:
    """(instance id, report text stripped) for every report file, in file-name order."""
    for name in sorted(paths):
        yield Path(name).name.removesuffix(".txt"), paths[name].read_text("utf-8").strip()


def read_reports(paths: Mapping[str, Path], cut_headings: tuple[str, ...] | None) -> Iterator[Instance]:
    """Reports with a reference, the input cut before the first of `cut_headings` found (None: before `PLAN:`
    and before the reference's own heading)."""
    for report_id, report in _reports(paths):
        found = reference_section(report)
        if found is None:
            continue
        heading, reference = found
        cuts = cut_headings if cut_headings is not None else ("PLAN:", heading)
        cut = min(report.find(h) for h in cuts if h in report)
        yield Instance(report_id, report[:cut].strip(), (Reference(reference),),
                       extra=MappingProxyType({"section": heading.rstrip(":")}))


def _read_as_medhelm(paths: Mapping[str, Path]) -> Iterator[Instance]:
    """MedHELM's instances, its two faults included: only the first 1,000 files (the most GitHub's contents API
    lists), the input cut before `PLAN:` only (a SUMMARY or FINDINGS reference stays in it), and a report whose
    heading is not in capitals dropped (MedHELM's loader fails on it and skips the file)."""
    for report_id, report in _reports(dict(sorted(paths.items())[:GITHUB_LISTING_LIMIT])):
        upper = report.upper()
        if any(h in upper and h not in report for h in HEADINGS):
            continue
        found = reference_section(report)
        if found is None:
            continue
        heading, reference = found
        yield Instance(report_id, report.split("PLAN:", 1)[0].strip(), (Reference(reference),),
                       extra=MappingProxyType({"section": heading.rstrip(":")}))


@reader("mtsamples_replicate")
def read_mtsamples_replicate(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """Reports with a reference, cut before `PLAN:` and before the reference's own heading (`helm_compat=true`:
    MedHELM's instances exactly, faults included)."""
    return _read_as_medhelm(paths) if args.get("helm_compat") == "true" else read_reports(paths, None)


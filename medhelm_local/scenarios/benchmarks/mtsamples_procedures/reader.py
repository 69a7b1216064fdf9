"""MTSamples procedure reports: the reference and the cut as for `mtsamples_replicate` (whose reader holds the
rules), the input cut before the first of the three headings."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance
from medhelm_local.scenarios.benchmarks.mtsamples_replicate.reader import HEADINGS, read_reports
from medhelm_local.scenarios.readers import reader


@reader("mtsamples_procedures")
def read_mtsamples_procedures(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """Procedure reports with a reference, cut before the first of the three headings."""
    return read_reports(paths, HEADINGS)

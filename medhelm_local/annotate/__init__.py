"""The annotate stage: an LLM jury rates stored answers by a rubric; every (instance, judge) is a stored row.

    rubric.py     rubric files (criteria, scale, prompt) and the JSON schema judges answer with
    rubric_items.py  graders of each instance's own rubric items (HealthBench): one met/not-met per item
    quoting.py    the answer under review as data: quoted in every judge prompt, never read back as a verdict
    jury.py       juries from settings or MedHELM's jury files, resolved to checked local judges
    parse.py      a judge's reply read defensively into ratings, or a failure with its reason
    judging.py    the judges' queues and workers (shared with `run`, which judges as answers arrive)
    validate.py   `judge validate`: ICC of the jury, clinicians and ROUGE-L against clinicians

Ratings are read and written by store/ratings.py; which runs a jury rates, and the resumable `judge` pass, are
run/jury_runs.py's (the run stage drives the judges).

Names load on first use: a benchmark card that names a rubric needs rubric.py only, not the judges'
HTTP client (`benchmarks list` and `report` never load it).
"""

from __future__ import annotations

from typing import Any

from medhelm_local.lazy import lazy_attribute

_HOMES = {
    "ResolvedJury": "jury", "resolve_jury": "jury", "Rubric": "rubric", "load_rubric": "rubric",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _HOMES, name)

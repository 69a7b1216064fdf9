"""The annotate stage: an LLM jury rates stored answers by a rubric; every (instance, judge) is a stored row.

    rubric.py     rubric files (criteria, scale, prompt) and the JSON schema judges answer with
    jury.py       juries from settings or MedHELM's jury files, resolved to checked local judges
    parse.py      a judge's reply read defensively into ratings, or a failure with its reason
    judging.py    the judges' queues and workers (shared with `run`, which judges as answers arrive)
    store.py      pending judgings, the texts a judge sees, jury scores derived from ratings
    runs.py       which runs a jury rates; the resumable `judge` pass
    validate.py   `judge validate`: ICC of the jury, clinicians and ROUGE-L against clinicians
"""

from medhelm_local.annotate.jury import ResolvedJury, resolve_jury
from medhelm_local.annotate.rubric import Rubric, load_rubric
from medhelm_local.annotate.runs import JudgeOutcome, judge_runs, plan_judging, stored_judging

__all__ = ["JudgeOutcome", "ResolvedJury", "Rubric", "judge_runs", "load_rubric", "plan_judging", "resolve_jury",
           "stored_judging"]

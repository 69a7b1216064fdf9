"""MedHELM's judge prompt files (the `prompt_file` of a configurable benchmark's `jury_score`) read as rubrics.

Such a file is the whole judge prompt: `{QUESTION}` (the prompt the model was given), `{RESPONSE}` (its
answer) and optionally `{GOLD_RESPONSE}` (the reference) are filled in, and a
`<rubric_criteria>{...}</rubric_criteria>` block gives the JSON each judge answers with: one key per
criterion, each `{"score": N, "explanation": "..."}`. MedHELM's documentation fixes the scale at 0-5.

The rubric made from it sends the file as written (`prompt_complete`), with the same three fields
filled in; every other brace is kept as it is. Its criteria are the block's keys and its scale 0-5, so
the judges' replies are checked, and the server's structured output constrains them, exactly as for
any rubric. A file without the block, or whose block is not that JSON, is an error naming the file.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from medhelm_local.annotate.rubric import Criterion, Rubric, Scale
from medhelm_local.errors import ConfigError

# MedHELM's three fields, and the placeholders a rubric uses for them.
FIELDS = {"QUESTION": "input", "RESPONSE": "response", "GOLD_RESPONSE": "reference"}
# MedHELM's scale for configurable benchmarks' judges ("Score scales must start at 0", 0-5).
SCALE = Scale(min=0, max=5)
# MedHELM asks its judges for up to 4,096 tokens.
JUDGE_TOKENS = 4096
_BLOCK = re.compile(r"<rubric_criteria>\s*(\{.*?\})\s*</rubric_criteria>", re.DOTALL)
_KEYS = frozenset({"score", "explanation"})
_FIX = ("write the criteria as MedHELM's documentation shows: <rubric_criteria>{\"accuracy\": {\"score\": 0, "
        "\"explanation\": \"...\"}, ...}</rubric_criteria>")


def _criteria(text: str, where: str) -> list[str]:
    """The criterion names of the file's <rubric_criteria> block, checked."""
    match = _BLOCK.search(text)
    if match is None:
        raise ConfigError("the judge prompt has no <rubric_criteria>{...}</rubric_criteria> block (MedHELM reads the "
                          "criteria from it)", where=where, fix=_FIX)
    try:
        block = json.loads(match.group(1))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"the judge prompt's <rubric_criteria> block is not JSON ({exc.msg}, character {exc.pos})",
                          where=where, fix=_FIX) from None
    if not isinstance(block, dict) or not block:
        raise ConfigError("the judge prompt's <rubric_criteria> block names no criteria", where=where, fix=_FIX)
    for name, value in block.items():
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise ConfigError(f"the judge prompt's criterion '{name}' is not a name this program can check (lower "
                              "case letters, digits and _)", where=where, fix="rename the criterion, e.g. accuracy")
        if not isinstance(value, dict) or set(value) != _KEYS:
            got = ", ".join(sorted(value)) if isinstance(value, dict) else type(value).__name__
            raise ConfigError(f"the judge prompt's criterion '{name}' asks for {got}; MedHELM's judges answer with "
                              "score and explanation", where=where, fix=_FIX)
    return list(block)


def _template(text: str) -> str:
    """The file as a rubric template: literal braces doubled, MedHELM's fields as the rubric's placeholders."""
    escaped = text.replace("{", "{{").replace("}", "}}")
    for field, placeholder in FIELDS.items():
        escaped = escaped.replace("{{" + field + "}}", "{" + placeholder + "}")
    return escaped


@lru_cache(maxsize=32)
def rubric_from_judge_prompt(path: Path) -> Rubric:
    """The rubric a MedHELM judge prompt file stands for, or an error naming the file."""
    where = str(path)
    try:
        text = path.read_text("utf-8")
    except OSError:
        raise ConfigError("the judge prompt file cannot be read", where=where,
                          fix="check the metric's prompt_file (relative to the benchmark config)") from None
    except UnicodeDecodeError:
        raise ConfigError("the judge prompt file is not UTF-8 text", where=where, fix="save it as UTF-8") from None
    if "{RESPONSE}" not in text:
        raise ConfigError("the judge prompt never shows the judges the answer: it has no {RESPONSE}", where=where,
                          fix="place {RESPONSE} where the answer goes (and {QUESTION}, {GOLD_RESPONSE} if wanted)")
    criteria = _criteria(text, where)
    name = re.sub(r"[^a-z0-9_]+", "_", path.stem.lower()).strip("_")
    name = name if re.match(r"[a-z]", name) else f"judge_prompt_{name}"
    try:
        return Rubric(name=name, description=f"MedHELM judge prompt {path.name}", prompt=_template(text),
                      prompt_complete=True, criteria=[Criterion(name=c) for c in criteria], scale=SCALE,
                      max_tokens=JUDGE_TOKENS)
    except ValueError as exc:
        raise ConfigError(f"the judge prompt cannot be used ({str(exc).splitlines()[0]})", where=where,
                          fix=_FIX) from None

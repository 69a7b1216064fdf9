"""What every answer reader shares: a reading or the reason there is none, and answers cleaned of their dress.

Chat models dress answers in markdown (`**C**`), LaTeX (`\\boxed{C}`), JSON (`{"answer": "B"}`), full-width
characters (`Ｂ`), and sometimes run on into a question of their own. `clean` takes that off; the
readers (extract.py for options, numbers.py for values, classification.py for labels) then look for the
answer a reply commits to. A reader that cannot tell says why (`Unreadable`), so an unreadable answer is
counted with its reason (tests/data/answers/README.md names the reasons), never read as a guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

EMPTY, REFUSAL, NO_ANSWER, HEDGE = "empty", "refusal", "no_answer", "hedge"
TWO_OPTIONS, TWO_LABELS, TWO_VALUES, RANGE = "two_options", "two_labels", "two_values", "range"
NOT_AN_OPTION, NOT_A_LABEL, MISMATCH, NEGATION = "not_an_option", "not_a_label", "letter_text_mismatch", "negation_only"


@dataclass(frozen=True)
class Unreadable:
    """No reading: why (one of the reasons above)."""

    reason: str


_FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}
_BOXED = re.compile(r"\\boxed\{\s*(?:\\text\{\s*)?([^{}]*?)\s*\}?\s*\}")
_LATEX_DELIMITERS = re.compile(r"\\[()\[\]]|\$")
_EMPHASIS = re.compile(r"\*\*|__|`")
# A base model that answers, then writes the next exam question itself.
_RUN_ON = re.compile(r"\n\s*(?:Question|Q)\s*\d*\s*[:.]", re.IGNORECASE)
_REFUSAL = re.compile(r"\b(?:I\s*(?:am|'m)\s*(?:not\s+able|unable)|I\s+(?:cannot|can't|can\s*not|won't)|"
                      r"unable\s+to|not\s+able\s+to|(?:consult|ask)\s+(?:a|your|the)\s+\w*\s*"
                      r"(?:doctor|physician|clinician|pharmacist))", re.IGNORECASE)
_ANSWER_KEYS = ("answer", "final_answer", "label", "result", "value")


def clean(text: str) -> str:
    """The answer without its dress: full-width characters, LaTeX boxes, emphasis, a JSON wrapper, a run-on."""
    text = text.translate(_FULL_WIDTH).replace("\u3000", " ")
    text = _RUN_ON.split(text, maxsplit=1)[0]
    text = _BOXED.sub(r"\1", text)
    text = _LATEX_DELIMITERS.sub("", text)
    text = _EMPHASIS.sub("", text)
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        try:
            data = json.loads(stripped)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for key in _ANSWER_KEYS:
                if isinstance(data.get(key), (str, int, float)) and not isinstance(data.get(key), bool):
                    return str(data[key]).strip()
    return stripped


def nothing_read(text: str) -> Unreadable:
    """Why a reply with no reading has none: empty, a refusal, or no answer in it."""
    if not text.strip():
        return Unreadable(EMPTY)
    if _REFUSAL.search(text):
        return Unreadable(REFUSAL)
    return Unreadable(NO_ANSWER)

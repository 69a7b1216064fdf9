"""Read the option a reply chooses, and the published limits of a calculation (numbers, dates, (weeks, days)).

Models answer "B", "(B)", "**C**", "Answer: B", "The correct option is C, not D", "La respuesta es la C",
"I'm fairly sure: B.", or the option's words ("Metformin", "Hashimoto"). `read_choice` returns the letter
the reply commits to (the last commitment, when a model corrects itself), or why there is none: two
options ("A or C"), a letter whose words are another option's ("C) Insulin glargine" where B is insulin
glargine), a letter that is no option, a refusal, nothing. It never guesses. The readers of an answer's
value are in numbers.py; the `extract_*` helpers here read the limits a dataset publishes.
"""

from __future__ import annotations

import re
from datetime import date

from medhelm_local.metrics.reading import (
    EMPTY,
    MISMATCH,
    NEGATION,
    NOT_AN_OPTION,
    TWO_OPTIONS,
    Unreadable,
    clean,
    nothing_read,
)

# After a lower-case letter: punctuation or the end make it a letter ("answer: b."), a word an article.
_ENDS_LETTER = re.compile(r"\s*(?:[.):,;]|$)")
# "A or B", "yes/no", "either 0 or 1": two answers joined, which is no answer.
_ALTERNATIVE = re.compile(r"\s*,?\s*(?:[Oo][Rr]|and/or|/)\s*(?:\([A-Za-z]\)|[A-Z](?![A-Za-z]))")
_NEGATED = re.compile(r"\b(?:not|never|isn't|rather\s+than|instead\s+of)\s+(?:the\s+|option\s+)?$", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+")
_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_WEEKS_DAYS = re.compile(r"(\d+)\s*'?\s*weeks?'?\s*,?\s*'?\s*(\d+)\s*'?\s*days?", re.IGNORECASE)


_OPTION_WORDS = re.compile(r"[^\w]+")
# A letter however dressed, alone on its line: "c", "(B)", "b.", "[C]", "D)".
_BARE = re.compile(r"^[(\[]?([A-Za-z])[)\]]?[.:!]?$")
# A letter that opens the answer: "C) Metformin", "B - epinephrine", "B: no", "B\n\nbecause ...".
_LEADING = re.compile(r"^[(\[]?([A-Z])[)\]]?(?:\s*[.):\-–—]\s*|\s*\n|\s*$)")
# The answer a reply commits to, in English or another language; the last commitment wins (a model that
# corrects itself). A lower-case letter counts only in brackets or before punctuation (else an article).
_CUES = (
    re.compile(r"(?:\b(?:correct\s+|final\s+|best\s+|right\s+)?(?:answer|option|choice|respuesta(?:\s+correcta)?"
               r"|antwort|réponse|resposta|risposta)|正确答案|答案)\s*(?:is|would\s+be|will\s+be|es|est|ist|é|è|是"
               r"|[:：=-])?\s*(?:la\s+|el\s+|le\s+|die\s+|option\s+)?(\(?[A-Za-z]\)?)(?![A-Za-z])", re.IGNORECASE),
    re.compile(r"\b(?:is|be)\s+(?:option\s+)?(\(?[A-Z]\)?)(?=\s*(?:[.!]?\s*$|,\s*not\b))"),
    re.compile(r"[:→=]\s*(\(?[A-Z]\)?)[.!]?\s*$"),
    re.compile(r"(\([A-Z]\))[.!]?\s*$"),
    re.compile(r"\b(?:[Ss]o|[Tt]hus|[Tt]herefore|[Hh]ence|leaves|[Cc]hoose|[Pp]ick|[Ss]elect|[Gg]o\s+with|[Ss]tart\s+with)"
               r",?\s+(?:option\s+)?(\(?[A-Z]\)?)(?![A-Za-z])(?!\s+(?:is|are)\s+(?:un|in|not|wrong|less))"),
    re.compile(r"^(\(?[A-Z]\)?)\s+is\s+(?:the\s+)?(?:correct|right|best|answer)"),
)
_ALTERNATIVE_BEFORE = re.compile(r"(?<![A-Za-z])\(?[A-Z]\)?\s*(?:,?\s*or|/|and/or)\s*$")
# Two letters offered as alternatives: "A or C", "C/D", "either A or D", "A and C".
_LETTER_ALTERNATIVES = re.compile(r"(?<![A-Za-z])\(?[A-Z]\)?\s*(?:,?\s*or|/|and/or|and|,)\s*\(?[A-Z]\)?(?![A-Za-z])")


def _norm(text: str) -> str:
    """Lower case, possessives and punctuation dropped, single-spaced: how answers and options compare."""
    return _OPTION_WORDS.sub(" ", text.lower().replace("'s ", " ").replace("’s ", " ")).strip()


def _named_options(text: str, options: list[str]) -> list[tuple[int, int, int]]:
    """(start, end, option index) of every whole-word mention of an option that is not negated; where one
    option's text is part of another's ("Aspirin" in "Aspirin and clopidogrel"), the longer mention wins."""
    lowered = text.lower()
    named: list[tuple[int, int, int]] = []
    for index in sorted(range(len(options)), key=lambda i: -len(options[i])):
        words = options[index].strip().lower()
        if not words:
            continue
        for found in re.finditer(rf"(?<!\w){re.escape(words)}(?!\w)", lowered):
            inside = any(start <= found.start() and found.end() <= end for start, end, _ in named)
            if not inside and not _NEGATED.search(lowered[:found.start()]):
                named.append((found.start(), found.end(), index))
    return sorted(named)


def _commitments(text: str) -> list[tuple[int, str, int]]:
    """(position, letter, end) of every committed letter, in order of position."""
    found = []
    for cue in _CUES:
        for match in cue.finditer(text):
            raw = match.group(1)
            letter = raw.strip("()")
            if letter.islower() and raw == letter and not _ENDS_LETTER.match(text[match.end():]):
                continue  # "The answer is a no.": an article
            found.append((match.start(1), letter.upper(), match.end()))
    return sorted(set(found))


def read_choice(text: str, options: list[str]) -> str | Unreadable:
    """The letter of the option a reply commits to, or why none can be read (two options, a letter whose
    text is another option's, an option that is not there, nothing)."""
    letters = [chr(ord("A") + i) for i in range(len(options))]
    body = clean(text)
    if not body:
        return Unreadable(EMPTY)
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    bare = {found.group(1).upper() for line in lines if (found := _BARE.match(line))}
    if len(bare) == 1 and all(_BARE.match(line) for line in lines):  # "c", "(B)", "C\nC\nC"
        return _among(bare.pop(), letters)
    norm = _norm(body)
    for index, option in enumerate(options):
        if norm == _norm(option):  # the option's own text, without its letter
            return letters[index]
    commitments = _commitments(body)
    leading = _LEADING.match(body)
    if leading:
        commitments.insert(0, (0, leading.group(1), leading.end()))
    outside = [c for c in commitments if c[1] not in letters]
    commitments = [c for c in commitments if c[1] in letters]  # "The answer is E, which is no." (3 options)
    if commitments:
        start, letter, end = commitments[-1]
        if _ALTERNATIVE.match(body[end:]) or _ALTERNATIVE_BEFORE.search(body[:start]):
            return Unreadable(TWO_OPTIONS)
        if leading and len(commitments) == 1 and _names_another(body[end:], letter, letters, options):
            return Unreadable(MISMATCH)  # "C) Insulin glargine" where B is insulin glargine
        return _among(letter, letters)
    if _LETTER_ALTERNATIVES.search(body):
        return Unreadable(TWO_OPTIONS)
    named = {index for _, _, index in _named_options(body, options)}
    if len(named) == 1:
        return letters[named.pop()]
    if len(named) > 1:
        return Unreadable(TWO_OPTIONS)
    prefixed = [i for i, option in enumerate(options) if len(norm) >= 4 and _norm(option).startswith(norm + " ")]
    if len(prefixed) == 1:  # a unique first word or words of one option: "Hashimoto", "Axillary"
        return letters[prefixed[0]]
    if _NEGATED.search(body.lower()) and _named_any(body, options):
        return Unreadable(NEGATION)
    return Unreadable(NOT_AN_OPTION) if outside else nothing_read(body)


def _among(letter: str, letters: list[str]) -> str | Unreadable:
    return letter if letter in letters else Unreadable(NOT_AN_OPTION)


def _named_any(text: str, options: list[str]) -> bool:
    lowered = text.lower()
    return any(re.search(rf"(?<!\w){re.escape(o.strip().lower())}(?!\w)", lowered) for o in options if o.strip())


def _names_another(rest: str, letter: str, letters: list[str], options: list[str]) -> bool:
    """Whether the words after a leading letter are another option's text and not its own."""
    named = {letters[index] for _, _, index in _named_options(rest, options)}
    return bool(named) and letter not in named


def extract_choice(text: str, options: list[str]) -> str | None:
    """The letter of the option a model chose, or None (`read_choice` says why)."""
    found = read_choice(text, options)
    return None if isinstance(found, Unreadable) else found


def extract_number(text: str) -> float | None:
    """The first number in the text ("1,234.5", "-3", "2.1e3"), or None."""
    match = _NUMBER.search(text)
    if not match:
        return None
    try:
        return float(match.group(0).replace(",", ""))
    except ValueError:
        return None


def extract_date(text: str) -> date | None:
    """The first MM/DD/YYYY date in the text, or None (also for impossible dates)."""
    match = _DATE.search(text)
    if not match:
        return None
    month, day, year = (int(g) for g in match.groups())
    try:
        return date(year, month, day)
    except ValueError:
        return None


def extract_weeks_days(text: str) -> int | None:
    """A gestational age written as weeks and days, e.g. "('3 weeks', '4 days')", in days; or None."""
    match = _WEEKS_DAYS.search(text)
    if not match:
        return None
    return int(match.group(1)) * 7 + int(match.group(2))

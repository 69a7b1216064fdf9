"""A rule's twin finds on the lower-case copy of an ASCII note exactly what the rule finds on the note, and the
detector gives the same spans whether the twins are searched or not."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest
from support.regex_cases import shipped, texts

from medhelm_local.redact import detector as detector_module
from medhelm_local.redact.detector import Detector
from medhelm_local.redact.patterns import Rules
from medhelm_local.redact.regex_lowered import COPY_ALPHABET, lowered_twin
from medhelm_local.redact.regex_speed import compile_fast
from medhelm_local.settings import default_redaction_dir

# Every ASCII character a note can hold, capitals and all, for random strings the rules' shapes rarely meet.
_ASCII_NOTE = "".join(chr(i) for i in range(32, 127)) + "\t\n\r"
TEXTS = [t for t in texts() if t.isascii()]
_rng = random.Random(48)
TEXTS += ["".join(_rng.choice(_ASCII_NOTE) for _ in range(_rng.randint(1, 80))) for _ in range(600)]


def _same_on_the_copy(regex: str, flags: int = re.IGNORECASE) -> None:
    twin = lowered_twin(regex, flags)
    assert twin is not None
    assert twin.pattern == regex and twin.groupindex == compile_fast(regex, flags).groupindex
    assert _spans(twin, [t.lower() for t in TEXTS]) == _spans(compile_fast(regex, flags), TEXTS)


def _spans(pattern: re.Pattern[str], texts: list[str]) -> list[list[tuple[tuple[int, int], ...]]]:
    """Every match's span and its groups' spans (the groups' text is in lower case on the copy)."""
    return [[m.regs for m in pattern.finditer(t)] for t in texts]


TWINNED = [(what, regex) for what, regex in shipped() if lowered_twin(regex) is not None]


@pytest.mark.parametrize(("what", "regex"), TWINNED, ids=[w for w, _ in TWINNED])
def test_every_shipped_twin_finds_on_the_copy_what_its_rule_finds_on_the_note(what: str, regex: str) -> None:
    _same_on_the_copy(regex)


def test_nearly_every_shipped_rule_has_a_twin() -> None:
    """The speed comes from the twins: a rule without one (a case-sensitive part: "(?-i:TAY-SACHS)") is searched
    as written, slower, not wrong, so count them."""
    assert len(TWINNED) >= len(shipped()) - 3


@pytest.mark.parametrize("regex", [
    r"(?<![\w])(?:jan|feb)\.?[ ]{0,3}\d{1,2}",     # letters, under IGNORECASE
    r"[A-Z]{2}\d",                                  # a class of capitals accepts lower case too
    r"[^a-z ]+",                                    # a negated class
    r"[^\W\d_]+ [^K]",                              # categories, and a negated letter
    r"(?<![\w])p\.?[ ]{0,2}o\.?[ ]{1,3}box",        # a letter that compile_fast spells out in its cases
    r"(?<![\w])(?:is|in|i)[ ]\d",                   # dotted and dotless i stand in no ASCII note
    r"(?P<a>[a-z])(?P=a)",                          # a back-reference under IGNORECASE
    r"(?-i:[pP])x(?i:Y)",                           # local flags that keep a letter's cases alike
    r"(?:a|ab|b)c",                                 # order kept
])
def test_written_shapes_find_the_same_on_the_copy(regex: str) -> None:
    _same_on_the_copy(regex)


@pytest.mark.parametrize("regex", [
    r"(?<![\w])(?-i:TAY[ -]SACHS)",                 # a case-sensitive part: the copy has lost its capitals
    r"(?-i:[a-z]+)",                                # lower case only
    r"(?-i:(?P<a>[a-zA-Z])(?P=a))",                 # a case-sensitive back-reference ("aA" is no pair)
    r"(?<=ab)c|(a)?(?(1)x|y)",                     # a conditional group under no IGNORECASE: "x" is not "X"
])
def test_a_rule_that_tells_cases_apart_gets_no_twin(regex: str) -> None:
    assert lowered_twin(regex, re.IGNORECASE if "(?-i" in regex else 0) is None


def test_the_copy_alphabet_is_ascii_without_capitals() -> None:
    assert len(COPY_ALPHABET) == 128 - 26 and not any(ch.isupper() for ch in COPY_ALPHABET)


def _without_twins(detector: Detector) -> Detector:
    rules = detector.rules
    plain = replace(rules, patterns=tuple(replace(p, twin=None) for p in rules.patterns),
                    negatives=tuple(replace(n, twin=None) for n in rules.negatives))
    assert isinstance(plain, Rules)
    return Detector(plain, detector.words)


def test_the_detector_finds_the_same_spans_with_and_without_the_twins() -> None:
    """Checks that read the matched text's case ("may" in a line with case is a verb) see the note itself."""
    with_twins = detector_module.detector_for(default_redaction_dir().resolve())
    without = _without_twins(with_twins)
    notes = [t for t in texts()[:1200] if t.isascii()]
    notes += ["Seen on 3/4. She may call in May 2021; MAY 3 was quiet.", "dc'd 4/10/21 per Dr. Tay-Sachs clinic",
              "Lambert-Eaton myasthenic syndrome, LAMBERT-EATON", "pt is 97 yo, wife (91) at bedside"]
    for note in notes:
        assert with_twins.detect(note) == without.detect(note)

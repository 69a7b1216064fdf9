"""A word found to be no identifier where it stands takes the text's other one-word mentions of it along, except where
a title vouches for a person; spans of other types and spans of more than one word stay."""

from __future__ import annotations

from medhelm_local.redact.mentions import drop_with_mentions
from medhelm_local.redact.tokens import Token, one_word, tokenize
from medhelm_local.redact.types import PhiType, Span

TEXT = "DOG RUSTY AT HOME. RUSTY FED. RUSTY LEE VISITED. DR RUSTY AWARE. RUSTY ST"


def _span(text: str, word: str, nth: int, kind: PhiType = PhiType.NAME, words: int = 1) -> Span:
    start = -1
    for _ in range(nth + 1):
        start = text.index(word, start + 1)
    end = start + len(word) if words == 1 else text.index(" ", text.index(" ", start) + 1)
    return Span(start, end, kind)


def _after_dog(tokens: list[Token], k: int) -> bool:
    return k > 0 and tokens[k - 1].key == "dog"


def _after_dr(tokens: list[Token], k: int) -> bool:
    return k > 0 and tokens[k - 1].key == "dr"


def test_a_marked_word_takes_its_other_one_word_mentions_along() -> None:
    tokens = tokenize(TEXT)
    spans = [_span(TEXT, "RUSTY", 0), _span(TEXT, "RUSTY", 1), _span(TEXT, "RUSTY LEE", 0, words=2),
             _span(TEXT, "RUSTY", 3), _span(TEXT, "RUSTY", 4, PhiType.STREET)]
    kept = drop_with_mentions(tokens, spans, (PhiType.NAME,), _after_dog, _after_dr)
    assert [TEXT[s.start:s.end] for s in kept] == ["RUSTY LEE", "RUSTY", "RUSTY"]
    assert [s.type for s in kept] == [PhiType.NAME, PhiType.NAME, PhiType.STREET]


def test_nothing_marked_leaves_the_spans_as_they_were() -> None:
    tokens = tokenize("RUSTY FED.")
    spans = [Span(0, 5, PhiType.NAME)]
    assert drop_with_mentions(tokens, spans, (PhiType.NAME,), _after_dog) is spans


def test_one_word_needs_the_whole_token() -> None:
    tokens = tokenize("SEEN BY JOHNSON TODAY")
    starts = [t.start for t in tokens]
    assert one_word(tokens, starts, 8, 15) == 2
    assert one_word(tokens, starts, 8, 12) is None
    assert one_word(tokens, starts, 9, 15) is None
    assert one_word(tokens, starts, 8, 21) is None
    assert one_word(tokens, starts, 40, 45) is None

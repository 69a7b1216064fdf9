"""Tokens for the PHI token rules: words, digit runs and punctuation, each marked with its line's case mode."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Collection
from itertools import chain
from typing import NamedTuple


def _fold_table() -> dict[int, str]:
    """Accented Latin letters to their base letter, one character for one, so offsets survive folding."""
    table = {}
    for code in [*range(0xC0, 0x250), 0xAA, 0xBA]:
        base = unicodedata.normalize("NFKD", chr(code))[:1]
        if base.isascii() and base.isalpha() and base != chr(code):
            table[code] = base
    return table


_FOLD = _fold_table()
# Every Unicode space separator but the plain space: the no-break space that copying from a web page or a word
# processor leaves ("Dr.\u00a0Smith"), the thin and figure spaces of typeset numbers.
_SPACES = {code: " " for code in range(0x80, 0x3001) if unicodedata.category(chr(code)) == "Zs"}


def fold(text: str) -> str:
    """`text` with accents removed ("Pérez" -> "Perez", "Nº" -> "No"); same length, same offsets."""
    return text.translate(_FOLD)


def plain_spaces(text: str) -> str:
    """`text` with every space separator read as a plain space ("617\u00a0555\u00a00124"); same length, same
    offsets. Tabs and line breaks are not space separators and stay."""
    return text.translate(_SPACES)


_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]")
_CONTRACTIONS = frozenset({"s", "t", "ll", "re", "ve", "d", "m"})
SENTENCE_END = frozenset({".", "!", "?", ":", ";", "[", "]", "-", "*", "•", ">", "(", '"'})
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having
he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor
not now of off on once only or other our ours out over own same she should so some such than that the their
theirs them then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself um uh okay ok yes yeah yep no nope hmm alright
right well oh so sure mm mhm please thanks let lets let's gonna wanna got get go going went see saw seen still
gon na wan gotta dunno bye hey hi hello guys folks everybody everyone there glad dragon re frm
del su sus una uno unos unas este esta estos estas ese esa con por para sin sobre entre desde hasta que
como pero muy mas se lo les al es son fue
""".split())


class Token(NamedTuple):
    """A word, a digit run or one punctuation mark; `key` is the lower-case dictionary form."""

    start: int
    end: int
    text: str
    key: str
    kind: str  # "w" word, "d" digits, "p" punctuation
    cased: bool  # on a mixed-case line, so capitals carry information
    first: bool  # the first token of its line


class TokenList(list[Token]):
    """A note's tokens, with where each key stands in them (read on the first ask). Most rules look only at the
    few tokens whose key is in a small set ("to", "from", a relation, a ward's name): one index of the note's keys
    finds those for every rule, where a loop over every token for each costs more than the rules' own work.
    Holders never change a TokenList after its first `where` (a change makes a new one: `_read_slips`)."""

    __slots__ = ("_at",)
    _at: dict[str, list[int]]

    def where(self, keys: Collection[str]) -> list[int]:
        """Indexes of the tokens whose key is in `keys`, in order."""
        try:
            at = self._at
        except AttributeError:
            at = self._at = {}
            for i, tok in enumerate(self):
                found = at.get(tok.key)
                if found is None:
                    at[tok.key] = [i]
                else:
                    found.append(i)
        if len(keys) < len(at):
            hits = [at[k] for k in keys if k in at]
        else:
            hits = [found for k, found in at.items() if k in keys]
        if len(hits) <= 1:
            return list(hits[0]) if hits else []
        return sorted(chain.from_iterable(hits))


def where(tokens: list[Token], keys: Collection[str]) -> list[int]:
    """Indexes of the tokens whose key is in `keys`, in order (from the index of a TokenList)."""
    if isinstance(tokens, TokenList):
        return tokens.where(keys)
    return [i for i, tok in enumerate(tokens) if tok.key in keys]


def one_word(tokens: list[Token], starts: list[int], start: int, end: int) -> int | None:
    """The index of the token that spans exactly `start`..`end`, or None when the span is not one whole token;
    `starts` is the tokens' start offsets, in order."""
    a = bisect_left(starts, start)
    return a if a < len(tokens) and tokens[a].start == start and tokens[a].end == end else None


def tokenize(text: str, case_text: str | None = None) -> TokenList:
    """Tokens of `text`, line by line, each marked with its line's case mode (read from `case_text`, a
    same-length copy, when given: masks blanked for the rules still count as capitalised words there)."""
    tokens = TokenList()
    case_lines = (case_text or text).splitlines(keepends=True)
    doc_cased = _is_cased(case_text or text)
    lower_written = _lower_written(case_text or text) if doc_cased else _NOT_LOWER
    pos = 0
    for number, line in enumerate(text.splitlines(keepends=True)):
        cased = _line_cased(case_lines[number], doc_cased, lower_written)
        # An ASCII line lower-cases letter by letter and holds nothing to fold: its keys are slices of it,
        # and without an apostrophe no two tokens join (most lines of most notes).
        lower = line.lower() if line.isascii() else None
        if lower is not None and "'" not in line:
            first = True
            for m in _TOKEN_KINDS.finditer(line):
                start, end = m.span()
                kind = _KINDS[m.lastindex or 0]
                tokens.append(_new(Token, (start + pos, end + pos, m.group(), lower[start:end], kind, cased, first)))
                first = False
            pos += len(line)
            continue
        raw = [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(line)]
        i = 0
        while i < len(raw):
            start, end, word = raw[i]
            if (i + 2 < len(raw) and word.isalpha() and raw[i + 1][2] in "'’" and raw[i + 1][0] == end
                    and raw[i + 2][0] == raw[i + 1][1] and raw[i + 2][2].isalpha()
                    and raw[i + 2][2].lower() not in _CONTRACTIONS):
                end, word = raw[i + 2][1], line[start:raw[i + 2][1]]  # O'Brien, D'Angelo
                i += 2
            kind = "w" if word[0].isalpha() else "d" if word.isdecimal() else "p"  # "10³": "³" is no number
            if lower is None:
                key = fold(word.lower()).replace("'", "").replace("’", "")
            else:
                key = lower[start:end].replace("'", "")
            tokens.append(_new(Token, (start + pos, end + pos, word, key, kind, cased, i == 0)))
            i += 1
        pos += len(line)
    return tokens


# _TOKEN with a group for each kind; on an ASCII line a letter run, a digit run and a mark are "w", "d" and "p".
_TOKEN_KINDS = re.compile(r"([^\W\d_]+)|(\d+)|([^\w\s])")
_KINDS = ("", "w", "d", "p")
_new = tuple.__new__  # a Token without NamedTuple's Python-level __new__ (one per token of every note)


def line_cased(text: str, at: int) -> bool:
    """Whether the line of `text` around offset `at` is read with case, as `tokenize` marks its tokens (for rules
    that read the text, not its tokens: a lower-case month or a four-digit time)."""
    line = text[text.rfind("\n", 0, at) + 1:text.find("\n", at) % (len(text) + 1)]
    note = _NOTE_CASE[0]  # one tuple, read and replaced whole, so that threads sharing it never mix two notes
    if note[0] is not text:  # the rules ask about many lines of one note in a row: read the note once
        doc_cased = _is_cased(text)
        note = _NOTE_CASE[0] = (text, doc_cased, _lower_written(text) if doc_cased else _NOT_LOWER)
    return _line_cased(line, note[1], note[2])


# The last note line_cased read: the text, whether it has case, how it is written.
_NOTE_CASE: list[tuple[str | None, bool, int]] = [(None, False, 0)]


def _line_cased(line: str, doc_cased: bool, lower_written: int) -> bool:
    """A line's case mode: its own letters' when it has a dozen, else the note's; never with case in a note written
    in lower case with its shorthand (or its sentences' first words) in capitals, unless the line holds a word
    written with a capital first (inside a sentence, in a note whose sentences start so)."""
    letters, upper = _letters(line) if len(line) >= 12 else (0, 0)
    cased = _cased(letters, upper) if letters >= 12 else doc_cased
    if cased and lower_written != _NOT_LOWER and not _titled(line, inner=lower_written == _SENTENCE_STARTS):
        return False  # "son john called, K 3.2, MD aware", "Son john called. Wife at bedside.": no name capitalised
    return cased


def _is_cased(chunk: str) -> bool:
    return _cased(*_letters(chunk))


# A word written with a capital and then small letters ("Son", "Dr", "John"): what a writer who uses case puts at
# sentence starts and names. Shorthand a lower-case writer capitalises is written in capitals ("MD", "K", "CXR") or
# is a chemical symbol or lab name ("Na 140", "Mg 2.0", "Hct 30"), so neither counts.
_TITLED = re.compile(r"(?<![^\W\d_])[A-Z][a-z]+")
_SYMBOLS = frozenset({"Na", "Mg", "Ca", "Cl", "Cr", "Fe", "Li", "Zn", "Hgb", "Hb", "Hct", "Plt", "Bun", "Glu", "Alb",
                      "Phos", "Lac", "Trop", "Ck", "Tbili", "Dbili", "Inr", "Ptt", "Pt", "Wbc", "Rbc"})


def _titled(chunk: str, inner: bool = False) -> bool:
    """Whether `chunk` holds a word written with a capital and then small letters, other than a symbol or lab (with
    `inner`, one inside a sentence)."""
    if not inner:
        return any(word not in _SYMBOLS for word in _TITLED.findall(chunk))
    return _title_places(chunk)[0] > 0


def _title_places(chunk: str) -> tuple[int, int]:
    """How many words written with a capital and then small letters `chunk` holds inside its sentences, and how many
    right after a sentence's stop ("... at bedside. Son john called"; not after an initial, "T. Horiguchi"). One at
    a line's start, or after a colon, a bullet or a dash, is neither."""
    inner = after_stop = 0
    for m in _TITLED.finditer(chunk):
        if m.group() in _SYMBOLS:
            continue
        k = m.start() - 1
        while k >= 0 and chunk[k] in " \t\r\n\"'(":
            k -= 1
        if k >= 0 and chunk[k] in ".!?":
            after_stop += k >= 2 and chunk[k - 1].isalnum() and chunk[k - 2].isalnum()
        elif k >= 0 and "\n" not in chunk[k:m.start()] and chunk[k] not in ":;-*":
            inner += 1
    return inner, after_stop


# How a note with capitals and small letters is written: with case, or in lower case with its shorthand in capitals
# ("pt c/o CP overnight, MD aware"), or in lower case but for its sentences' first words ("Son john called.").
_NOT_LOWER, _SHORTHAND_ONLY, _SENTENCE_STARTS = 0, 1, 2


def _lower_written(text: str) -> int:
    """How a note whose letters mix capitals and small ones is written. In lower case with its shorthand in capitals,
    it holds at most one word with a capital and small letters after it (a name: "son John called"), or under one in
    fifty of its words are so, where a writer who uses case starts every sentence so. In lower case but for its
    sentences' first words, the same holds of the words inside its sentences, and three sentences or more start after
    a stop (a form's "Name: Chise T. Horiguchi" and an address block do not)."""
    words = len(_WORDS.findall(text))
    titled = sum(word not in _SYMBOLS for word in _TITLED.findall(text))
    if titled <= 1 or titled * 50 < words:
        return _SHORTHAND_ONLY
    inner, after_stop = _title_places(text)
    return _SENTENCE_STARTS if after_stop >= 3 and (inner <= 1 or inner * 50 < words) else _NOT_LOWER


_WORDS = re.compile(r"[^\W\d_]{2,}")


def _cased(letters: int, upper: int) -> bool:
    return letters > 0 and 0.005 <= upper / letters <= 0.6


_CAPITALS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ASCII_LETTERS = _CAPITALS + b"abcdefghijklmnopqrstuvwxyz"


def _letters(chunk: str) -> tuple[int, int]:
    """How many letters `chunk` holds, and how many of them are capitals."""
    if chunk.isascii():  # counted in bytes: for ASCII, isalpha and isupper are these letters
        raw = chunk.encode("ascii")
        return len(raw) - len(raw.translate(None, _ASCII_LETTERS)), len(raw) - len(raw.translate(None, _CAPITALS))
    return sum(map(str.isalpha, chunk)), sum(map(str.isupper, chunk))

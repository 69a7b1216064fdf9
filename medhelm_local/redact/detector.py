"""PHI detection: regex rules for shaped identifiers, token rules with dictionaries for names and places.

Capital letters are evidence only on lines written in mixed case; on ALL-CAPS or all-lower lines
(nursing notes, transcripts) a word counts as a name only through a dictionary and its ambiguity
tier, or a cue (a title, a relation, a credential). A name found once marks its other mentions.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from functools import cached_property, lru_cache
from pathlib import Path

from medhelm_local.redact.countries import Regions, drop_countries
from medhelm_local.redact.defined_abbreviations import drop_defined_abbreviations
from medhelm_local.redact.dictionaries import load_dictionaries
from medhelm_local.redact.line_wraps import unflatten, unwrap
from medhelm_local.redact.nursing import NursingRules
from medhelm_local.redact.organisms import drop_organisms
from medhelm_local.redact.pack import RulePack, read_rule_pack
from medhelm_local.redact.patterns import drop_negatives, find_pattern_spans, parse_rules
from medhelm_local.redact.pets import drop_pet_names
from medhelm_local.redact.regex_starts import Starts
from medhelm_local.redact.slips import facility_word_slip, month_slip, place_word_slip, slip_keys
from medhelm_local.redact.surrogates import Policy, parse_policy
from medhelm_local.redact.tokens import STOPWORDS, Token, TokenList, fold, plain_spaces, tokenize, where
from medhelm_local.redact.types import PhiType, Span, merge_spans

DEFAULT_MASK = "[{type}]"
# Words before a town's or a facility's name that a slip of the keyboard in the name is read after ("for spaulidng").
_PLACE_SLIP_CUES = frozenset({"in", "from", "frm", "fr", "near", "at", "to", "for", "vs"})


def mask_regex(*mask_formats: str) -> re.Pattern[str]:
    """A regex for the masks that `mask()` writes with these formats ("[NAME]", "<DATE>")."""
    kinds = "|".join(sorted((t.value for t in PhiType), key=len, reverse=True))
    forms = []
    for form in dict.fromkeys(mask_formats):
        before, _, after = form.partition("{type}")
        forms.append(f"{re.escape(before)}(?:{kinds}){re.escape(after)}")
    return re.compile("|".join(forms))


class Detector(NursingRules):
    """Finds PHI spans in text with one rule pack (rules.yaml plus dictionaries).

    Masks already in the text ("[NAME]", and the pack's own mask_format) are blanked before the rules
    run and never lie inside a span, so `detect(mask(text, detect(text)))` finds nothing new around them.
    """

    masks: re.Pattern[str] = mask_regex(DEFAULT_MASK)

    @property
    def _states(self) -> frozenset[str]:
        return self.rules.words("states")

    @cached_property
    def _regions(self) -> Regions:
        """The states and provinces that Safe Harbor leaves, by their names written out."""
        return Regions(self._states | self.rules.words("regions"), self.rules.words("street_suffixes"))

    @cached_property
    def _person_cues(self) -> frozenset[str]:
        """Single words that announce a person: relations and titles ("son", "partner", "dr", "mrs")."""
        return self._relations | self._titles

    @classmethod
    def from_dir(cls, folder: Path) -> Detector:
        """A detector for the rule pack in `folder` (rules.yaml, dictionaries/, vocabulary/, and surrogates.yaml
        if there)."""
        return cls.from_pack(read_rule_pack(folder))

    @classmethod
    def from_pack(cls, pack: RulePack) -> Detector:
        """A detector built from the bytes of a rule pack already read (the same bytes its digest covers)."""
        def read(path: Path) -> str:
            return pack.text(path.relative_to(pack.folder).as_posix(), "redaction dictionary")

        detector = cls(parse_rules(pack.text("rules.yaml", "redaction rule file"), pack.path("rules.yaml")),
                       load_dictionaries(pack.folder / "dictionaries", pack.folder / "vocabulary", read))
        if pack.has("surrogates.yaml"):
            detector.masks = mask_regex(DEFAULT_MASK, surrogate_policy(pack).mask_format)
        return detector

    def detect(self, text: str) -> list[Span]:
        """Typed PHI spans in `text`: sorted, merged, non-overlapping, end-exclusive code-point offsets."""
        # Same length: no-break spaces and a wrap's line breaks read as spaces, a signature a flattened note ran into
        # its last sentence as a line of its own.
        text = unflatten(unwrap(plain_spaces(text)))
        masks = [m.span() for m in self.masks.finditer(text)]
        if not masks:
            return self._detect(text, tokenize(text))
        # Same length, so offsets hold: the rules see "[____]" ("_" is neither a word, a digit nor
        # punctuation to them), the case test sees "Xxxxxx" (a mask stands for a capitalised word).
        blank = self.masks.sub(lambda m: m.group()[0] + "_" * (len(m.group()) - 2) + m.group()[-1], text)
        as_word = self.masks.sub(lambda m: "X" + "x" * (len(m.group()) - 1), text)
        return _outside(self._detect(blank, tokenize(blank, as_word)), masks)

    def _detect(self, text: str, tokens: list[Token]) -> list[Span]:
        folded = fold(text)  # accents off, offsets kept
        starts = Starts(folded)  # where the regex rules can start, found once for them and the negatives
        spans = find_pattern_spans(folded, self.rules, starts)
        tokens, months = self._read_slips(tokens)
        spans += months + self._names(tokens)
        spans += self._streets(tokens) + self._facilities(tokens) + self._cities(tokens) + self._landmarks(tokens)
        spans += self._inhouse(text, tokens) + self._nursing_names(text, tokens)
        spans = self._second_pass(text, tokens, merge_spans(spans))
        spans = self._stretch_places(tokens, merge_spans(spans))
        spans = merge_spans(drop_negatives(folded, spans, self.rules, starts))
        spans = drop_countries(self.words, self._states, self._regions, self._person_cues, text, tokens, spans)
        return drop_defined_abbreviations(tokens, drop_pet_names(tokens, drop_organisms(tokens, spans)))

    def _read_slips(self, tokens: list[Token]) -> tuple[list[Token], list[Span]]:
        """The tokens, a word no list holds on a line without case read as the facility word it is one slip from
        ("BEVERLY HOSPTIAL", "MASS GENRAL", "LAHEY CLNIC") so that the rules read the name whole; and as dates, such
        words one slip from a month ("QUIT NOVMBER", "thinks its janaury", "SINCE AUGUT 2005")."""
        out, months = tokens, []
        for n in where(tokens, slip_keys()):
            t = tokens[n]
            if t.kind != "w" or t.cased or len(t.key) < 5:
                continue
            word = facility_word_slip(t.key)
            if word is not None and self._unlisted(t.key):
                if out is tokens:
                    out = TokenList(tokens)
                out[n] = t._replace(key=word)
            elif word is None and month_slip(t.key) and self._unlisted(t.key):
                months.append(Span(t.start, t.end, PhiType.DATE))
        everyday, clinical = self.words.everyday, self.words.clinical
        for n, t in enumerate(tokens):
            if t.kind != "w" or t.cased or len(t.key) < 5 or t.key in everyday or t.key in clinical \
                    or not self._place_context(tokens, n) or not self._unlisted(t.key) or self._listed_place(t.key):
                continue
            place = self._place_slip(t.key)
            if place is not None:
                if out is tokens:
                    out = TokenList(tokens)
                out[n] = t._replace(key=place)
        return out, months

    def _place_context(self, tokens: list[Token], n: int) -> bool:
        """Whether the word at n stands where a town's or a facility's name does: after a place cue, "at", "for" or
        "vs" (a quote or a bracket between), joined by a hyphen to a town ("MELROSE-WAKEFEILD"), or after a town that is
        no surname or a facility's first word ("NEWTON WELLSLEY", "DAVITA DORCHESTR")."""
        if n == 0 or tokens[n].first:
            return False
        before = tokens[n - 1]
        if before.text in "\"(" and n > 1 and not before.first:
            before = tokens[n - 2]  # 'oriented to self and "bostn"'
        if before.key in _PLACE_SLIP_CUES:
            return True
        if before.text == "-" and n > 1 and before.start == tokens[n - 2].end and before.end == tokens[n].start:
            before = tokens[n - 2]
        key = before.key
        return before.kind == "w" and key not in STOPWORDS and (
            key in self.words.facility_firsts or key in self.words.facility_names_one
            or (key in self.words.cities and not self.words.is_name(key)))  # not "GARCIA-COMPEON ET AL"

    def _listed_place(self, key: str) -> bool:
        """Whether a word is a town, a ward, a facility's name, a state or a country as it stands ("LUNDER", "fenway",
        "alaska")."""
        return key in self.words.cities or key in self.words.ward_names or key in self.words.facility_names_one \
            or key in self._facility_name_words or key in self.words.local_places or key in self._states \
            or key in self.rules.words("regions") or key in self.words.country_words

    def _place_slip(self, key: str) -> str | None:
        """place_word_slip, remembered (a few hundred lookups a word)."""
        memo: dict[str, str | None] = self.__dict__.setdefault("_place_slip_memo", {})
        if key not in memo:
            if len(memo) >= 1 << 14:
                memo.clear()
            memo[key] = place_word_slip(self.words, key, self._facility_name_words)
        return memo[key]

    @cached_property
    def _facility_name_words(self) -> frozenset[str]:
        """The words of six letters or more in the names of facilities.txt ("spaulding", "wellesley")."""
        return frozenset(w for f in self.words.facilities for w in f.split() if len(w) >= 6)

    def _unlisted(self, key: str) -> bool:
        """Whether no list holds a word: no name, English or clinical word, short form or medical form."""
        return not (key in self.words.everyday or key in self.words.clinical or self.words.is_name(key)
                    or self.words.is_shorthand(key) or self.words.medical_form(key))


def _outside(spans: list[Span], masks: list[tuple[int, int]]) -> list[Span]:
    """The parts of `spans` that lie outside every mask."""
    out = []
    for span in spans:
        start = span.start
        for a, b in masks:
            if b <= start or a >= span.end:
                continue
            if a > start:
                out.append(Span(start, a, span.type))
            start = max(start, b)
        if start < span.end:
            out.append(Span(start, span.end, span.type))
    return [s for s in out if s.end > s.start]


def detector_for(folder: Path) -> Detector:
    """A detector for the rule pack in `folder` as it is now (read again; built once per distinct pack)."""
    return detector_for_pack(read_rule_pack(folder))


_BUILT: OrderedDict[str, Detector] = OrderedDict()  # rule pack digest -> its detector, newest last


def detector_for_pack(pack: RulePack) -> Detector:
    """A detector for a rule pack already read; packs with the same digest share one (building takes ~0.2 s)."""
    digest = pack.digest
    if digest not in _BUILT:
        _BUILT[digest] = Detector.from_pack(pack)
        while len(_BUILT) > 4:
            _BUILT.popitem(last=False)
    _BUILT.move_to_end(digest)
    return _BUILT[digest]


def surrogate_policy(pack: RulePack) -> Policy:
    """The pack's surrogates.yaml (how masks and surrogates are written), from the bytes read."""
    return parse_policy(pack.text("surrogates.yaml", "redaction policy"), pack.path("surrogates.yaml"))


def detect(text: str, folder: Path | None = None) -> list[Span]:
    """PHI spans in `text` using the rule pack in `folder` (default: the `redaction_dir` default), read on first
    use (a convenience for notebooks and tests; the export gate reads its pack once per export)."""
    from medhelm_local.settings import default_redaction_dir

    return _kept((folder or default_redaction_dir()).resolve()).detect(text)


@lru_cache(maxsize=4)
def _kept(folder: Path) -> Detector:
    return detector_for(folder)

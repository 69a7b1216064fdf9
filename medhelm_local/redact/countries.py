"""Countries and continents are no identifiers under Safe Harbor, nor are US states and the provinces and nations
it treats as states: a span that holds nothing but one, standing apart from any address ("IMMIGRATED FROM UKRAINE",
"trip to south africa", "Southeast Asia", "EL SALVADOR", "lives in new hampshire", "FROM THUNDER BAY, ONTARIO"), is
dropped. A state's or province's name counts only where it is written whole ("hampshire" of "new hampshire"), since
its words alone name towns and people ("york", "brunswick", "carolina").

The token rules read such words as names ("India", "Asia" and "America" are first names too) or as an unknown
place after "from"; masking them saves nothing and costs precision. A country inside or next to an address
("Pärnu, Estonia 62488", "Arnsdorf, Germany") is left to the address rules, except after a town and a comma on a
line without case ("from kingston, jamaica", "MONTREAL (CANADA)", "kingston jamaica": where a family lives), a town
named after one ("lebanon, nh") stays a town, and a country word that is also a common name stays a name unless a
place word stands before it ("son Chad", "dr jordan" are people; "from Jordan" is a place).
"""

from __future__ import annotations

from bisect import bisect_left

from medhelm_local.redact.dictionaries import Dictionaries
from medhelm_local.redact.tokens import Token
from medhelm_local.redact.types import PhiType, Span

_TYPES = frozenset({PhiType.NAME, PhiType.HOSPITAL, PhiType.CITY})
_PLACES = _TYPES | {PhiType.STREET, PhiType.ZIP}
_CITIES_TOO = frozenset({"new york", "washington"})
_OF_A_STREET = frozenset({"de", "du", "des", "del", "of", "la"})  # "avenue de Provence"
# Words that go with a country's or continent's name without naming anything particular: "SOUTH INDIA", "el salvador".
_QUALIFIERS = frozenset("""north south east west northern southern eastern western central southeast southwest
northeast northwest sub saharan latin el the""".split())
# Words before a country word that make it a place rather than a person: "from", "to", "in", and the qualifiers.
_PLACE_BEFORE = _QUALIFIERS | frozenset({"from", "to", "in", "into", "across", "throughout", "visiting", "visit",
                                          "via", "of", "back"})


def drop_countries(words: Dictionaries, states: frozenset[str], regions: Regions, person_cues: frozenset[str],
                   text: str, tokens: list[Token], spans: list[Span]) -> list[Span]:
    """`spans` less those that are a bare country, continent, state or province (sorted, merged spans in; the same
    out); a span after a word that announces a person (`person_cues`: "partner", "dr") is kept whatever it holds.
    `states` are the state names and abbreviations, `regions` the names of states and provinces written out."""
    if not words.country_words or not spans:
        return spans
    starts = [t.start for t in tokens]
    ranges = [(bisect_left(starts, s.start), bisect_left(starts, s.end)) for s in spans]
    region = [_region_start(regions, tokens, a, b) if s.type in _TYPES else None
              for s, (a, b) in zip(spans, ranges, strict=True)]
    if any(x is not None for x in region):
        spans, ranges, region = _join_regions(spans, ranges, region)
    country = [s.type in _TYPES and (_country_only(words, tokens[a:b]) or region[n] is not None)
               for n, (s, (a, b)) in enumerate(zip(spans, ranges, strict=True))]
    for n in range(len(spans) - 1):  # "EL" of "EL SALVADOR" read apart, as a hospital's initials
        a, b = ranges[n]
        if not country[n] and country[n + 1] and spans[n].type in _TYPES and _touching(text, spans[n].end,
                                                                                       spans[n + 1].start):
            country[n] = all(t.kind == "w" and t.key in _QUALIFIERS for t in tokens[a:b])
    out = []
    for n, span in enumerate(spans):
        if not country[n]:
            out.append(span)
            continue
        start = region[n]
        if start is not None and (_on_an_address_line(text, spans, n)
                                  or _by_a_street_word(regions, tokens, start, ranges[n][1])):
            out.append(span)  # "33 avenue de Provence", "fourth avenue suite 112 calgary alberta": an address's part
            continue
        a, b = ranges[n]
        if _after_a_town_in_a_note(text, tokens, spans, n, a, b):
            continue  # "DAUGHTER IN GALWAY, IRELAND": the town is masked, the country is no identifier
        # "EL SALVADOR" may come as two spans; a country beside any other span is part of an address.
        if (n and not country[n - 1] and _touching(text, spans[n - 1].end, span.start)) \
                or (n + 1 < len(spans) and not country[n + 1] and _touching(text, span.end, spans[n + 1].start)):
            out.append(span)  # "Arnsdorf, Germany", "Soloi Cyprus"
            continue
        after = tokens[b:b + 2]
        if after and ((after[0].kind == "d" and len(after[0].text) >= 4)
                      or (after[0].text == "," and len(after) > 1 and after[1].key in states)):
            out.append(span)  # "Hungary 06554", "lebanon, nh"
            continue
        inside = tokens[a:b]
        a = a if start is None else start  # "lives in new hampshire": what stands before the whole name
        before = tokens[a - 1] if a and not tokens[a].first else None
        cue = tokens[a - 2] if before is not None and before.text in ".,:" and a >= 2 and not before.first else before
        if cue is not None and cue.key in person_cues:
            out.append(span)  # "WIFE CUBA", "Dr. Malta": a person whatever the word
            continue
        if any(t.key in words.common_names for t in inside) and (before is None or (
                before.key not in _PLACE_BEFORE and before.key not in words.country_words)) \
                and not any(t.key in _QUALIFIERS for t in inside):
            out.append(span)  # "son Chad", "dr jordan": a person; "FROM JORDAN", "south india", "PUERTO RICO": a place
    return out


def _after_a_town_in_a_note(text: str, tokens: list[Token], spans: list[Span], n: int, a: int, b: int) -> bool:
    """Whether span n, a country, follows a town and a comma on a line without case with no postcode or other
    span after it ("from kingston, jamaica", "LIVES IN CORK, IRELAND"): nursing notes name where a family lives so,
    not an address (with case, "Arnsdorf, Germany" may be one, and stays with it). After a town read as a town,
    the country may stand in brackets or with nothing between ("MONTREAL (CANADA)", "kingston jamaica")."""
    if not n or tokens[a].cased or spans[n - 1].type not in (PhiType.CITY, PhiType.NAME, PhiType.HOSPITAL):
        return False
    gap = text[spans[n - 1].end:spans[n].start].strip()
    if gap != "," and not (spans[n - 1].type is PhiType.CITY and gap in ("", "(")):
        return False
    if b < len(tokens) and tokens[b].kind == "d":
        return False  # "CYPRUS 25572": a postcode after it
    return n + 1 >= len(spans) or spans[n + 1].type not in _PLACES \
        or not _touching(text, spans[n].end, spans[n + 1].start)  # "MONTREAL (CANADA) 11/25": a date is no address


class Regions:
    """The names of states and provinces written out, each as its words ("new hampshire" -> ("new", "hampshire"))."""

    def __init__(self, names: frozenset[str], street_words: frozenset[str] = frozenset()) -> None:
        self.street_words = street_words  # "avenue", "st": a region's name beside one names a street
        self.by_last: dict[str, list[tuple[str, ...]]] = {}
        for name in names:
            # "nh", "mass" and "calif" are abbreviations, read with the address rules; "new york" and "washington"
            # name a city as often as a state, and a city is an identifier
            if len(name) > 3 and name not in _CITIES_TOO:
                words = tuple(name.split())
                self.by_last.setdefault(words[-1], []).append(words)


def _region_start(regions: Regions, tokens: list[Token], a: int, b: int) -> int | None:
    """Where the state's or province's name that tokens a..b are words of begins, if it is written whole around them
    ("hampshire" or "new hampshire" of "lives in new hampshire", "rhode" of "RHODE ISLAND"); else None."""
    if b <= a:
        return None
    if b < len(tokens) and tokens[b].key == "city":
        return None  # "QUEBEC CITY": a city
    for end in range(b, min(b + 3, len(tokens)) + 1):
        for words in regions.by_last.get(tokens[end - 1].key, ()):
            first = end - len(words)
            if 0 <= first <= a and all(t.key == w for t, w in zip(tokens[first:end], words, strict=True)):
                return first
    return None


def _join_regions(spans: list[Span], ranges: list[tuple[int, int]], region: list[int | None]) \
        -> tuple[list[Span], list[tuple[int, int]], list[int | None]]:
    """The spans with those read apart from one state's or province's name made one ("PUERTO" and "RICO")."""
    out_spans, out_ranges, out_region = [spans[0]], [ranges[0]], [region[0]]
    for span, rng, start in zip(spans[1:], ranges[1:], region[1:], strict=True):
        if start is not None and start == out_region[-1]:
            out_spans[-1] = Span(out_spans[-1].start, span.end, out_spans[-1].type)
            out_ranges[-1] = (out_ranges[-1][0], rng[1])
            continue
        out_spans.append(span)
        out_ranges.append(rng)
        out_region.append(start)
    return out_spans, out_ranges, out_region


def _by_a_street_word(regions: Regions, tokens: list[Token], a: int, b: int) -> bool:
    """Whether a street's word stands just after the region's name or just before it ("33 avenue de Provence",
    "ONTARIO ST"): the name is a street's."""
    before = a - 1 - (a >= 2 and tokens[a - 1].key in _OF_A_STREET)
    if before >= 0 and len(tokens[before].key) >= 4 and tokens[before].key in regions.street_words:
        return True  # "avenue de Provence", "BOULEVARD QUEBEC"; not "PT LIVES IN ONTARIO" ("pt" is a point too)
    return b < len(tokens) and tokens[b].key in regions.street_words


def _on_an_address_line(text: str, spans: list[Span], n: int) -> bool:
    """Whether a street or a postcode was found on span n's line: the state or province there is the address's."""
    line_start = text.rfind("\n", 0, spans[n].start) + 1
    line_end = text.find("\n", spans[n].end) % (len(text) + 1)
    return any(s.type in (PhiType.STREET, PhiType.ZIP) and line_start <= s.start < line_end for s in spans)


def _country_only(words: Dictionaries, tokens: list[Token]) -> bool:
    """Whether tokens are words of a country's name and its qualifiers only, with at least one of the former."""
    named = False
    for t in tokens:
        if t.kind == "w":
            if t.key in words.country_words:
                named = True
            elif t.key not in _QUALIFIERS:
                return False
        elif t.kind == "d":
            return False
    return named


def _touching(text: str, end: int, start: int) -> bool:
    """Whether two spans stand together, with only spaces and marks (at most four characters) between them."""
    gap = text[end:start]
    return len(gap) <= 4 and not any(c.isalnum() for c in gap)

"""Line breaks a text was hard-wrapped with, read as the spaces they stand for.

Many record systems export a note broken at a fixed width (60 to 132 columns), so a facility's name, a cue and the name
after it, or a date and its year can sit on two lines ("TRANSFER BACK TO SAINT AGNES / GENERAL WHEN STABLE", "SPOKE
WITH SON / TOM"). The rules read a line start as a boundary (a heading, a new item), which is right for a line the
writer ended and wrong for one the exporter did. `unwrap` finds the breaks a greedy wrap at the text's width would have
made (the line is near that width and the next line's first word would not have fitted on it) and turns them into
spaces, keeping the text's length, so every offset found in the unwrapped text holds in the text as written.
A text with fewer than three lines, or whose longest line is shorter or longer than a wrap width, is returned as it
is; in one whose lines do not keep close to that width (lines its writer ended), only a break that cuts a phrase is
read as a space ("PCP DR / LOPES", "CELL 617 / 555 0124"). A heading, an entry that opens with a clock time or a
bullet, and a signature alone on the last line keep their breaks.
"""

from __future__ import annotations

import re

_MIN_WIDTH, _MAX_WIDTH = 40, 132
# A wrapped paragraph's lines end within a long word of its width; lines ending further in were ended by the writer.
_SLACK = 16
_FIRST_WORD = re.compile(r"\S+")
# A line that opens with a note's section heading was begun by its writer: "NEURO: A+OX3", "addendum 1630: floor rn
# called". Only these words: a name or a place before a colon ("DR / PATEL: IF NO RESOLUTION") is a wrap's.
_HEADINGS = frozenset({"neuro", "cv", "resp", "pulm", "gi", "gu", "renal", "id", "skin", "integ", "social", "soc",
                       "plan", "labs", "lines", "access", "dispo", "endo", "heme", "pain", "psych", "assessment",
                       "action", "response", "addendum", "events", "allergies", "hx", "pmh", "meds", "code",
                       "activity", "family", "misc", "comfort", "fen", "safety", "a", "p", "a/p", "s", "o", "note",
                       "npn", "cardiac", "musc", "ms", "lytes", "nutrition", "wound", "vent", "ivf", "drips",
                       "psychosocial", "d/c"})
_HEADING = re.compile(r"([^\W\d_][\w/&+-]*)(?:[ \t]+\d[\d:-]*)?[ \t]*:(?:\s|$)")
# A line that opens an entry of its own: a clock time before what happened ("0645 FINGERSTICK 182", "2000: REPORT
# GIVEN"), a bullet or a list number.
_ENTRY = re.compile(r"(?:(?:[01]\d|2[0-3]):?[0-5]\d(?::|[ \t]+[^\W\d_])|[-*•#>][ \t]|\d{1,2}[.)][ \t])")
# Words a writer does not end a line with: what they open is on the next line ("PCP DR / LOPES", "LIVES / W/ HUSBAND").
_OPEN_ENDS = frozenset({"a", "an", "the", "to", "of", "in", "at", "on", "for", "from", "with", "w/", "and", "or", "by",
                        "dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "is", "are", "was", "be", "will", "his",
                        "her", "their", "lives", "per", "via", "into", "than", "that", "called", "cell", "wife",
                        "husband", "son", "daughter", "pcp"})
_CREDENTIALS = frozenset({"rn", "md", "np", "pa", "pa-c", "lpn", "rrt", "sn", "cna", "do", "msw", "pt", "ot"})
# The last word of a line that ends in an initial ("... IN SR. P." before "KWIATKOWSKI RN") or a saint's "ST."
_INITIALS = re.compile(r"(?:[^\W\d_]\.)+|st\.", re.IGNORECASE)
# Words of an address whose abbreviation's stop ends no sentence ("APT. 405").
_ADDRESS_WORDS = frozenset({"apt.", "ste.", "no.", "rd.", "ave.", "blvd.", "ln.", "ct.", "hwy.", "rte.", "fl."})
# A note run into one line is at least a sentence or two long; its signature is in its last 60 characters.
_MIN_FLAT, _MAX_SIGNATURE = 80, 60
# A sentence's closing mark and the spaces after it, before what comes next; not a question mark set before what is
# in doubt ("ECHO, ? TEE/DCCV.").
_STOP_THEN_SPACE = re.compile(r"(?<=\S)[.!?][ \t]+(?=\S)")


def unwrap(text: str) -> str:
    """`text` with each line break that a hard wrap made replaced by a space (a CR LF pair by two spaces)."""
    if text.count("\n") < 2:
        return text
    lines = text.split("\n")
    lengths = [len(line.rstrip()) for line in lines]
    width = max((n for line, n in zip(lines, lengths, strict=True) if " " in line.strip()), default=0)
    if not _MIN_WIDTH <= width <= _MAX_WIDTH:
        return text
    near = sum(n >= width - _SLACK for n in lengths)
    # Lines of every length were ended by their writer; there, only a break that cuts a phrase is the wrap's.
    wrapped = near >= 3 and near >= 0.3 * sum(n > 0 for n in lengths)
    out = list(text)
    pos = 0
    for i, line in enumerate(lines[:-1]):
        end = pos + len(line)  # the "\n" after this line
        pos = end + 1
        following = lines[i + 1]
        nxt = _FIRST_WORD.match(following)
        if nxt is None or lengths[i] < width - _SLACK or lengths[i] + 1 + len(nxt.group()) <= width:
            continue  # the next word would have fitted: the writer ended the line (or an indent opens the next)
        if _heading(following) or _entry(line, following) or _signed(lines, i + 1):
            continue
        if wrapped or _cut(line, nxt.group()):
            out[end] = " "
            if line.endswith("\r"):
                out[end - 1] = " "
    return "".join(out)


def unflatten(text: str) -> str:
    """`text`, when it holds no line break, with the space before a signature that closes it read as the line break
    it stood for: an export that takes a note's breaks out runs the signature into the last sentence ("... WEAN VENT
    AS TOL. JTB", "... neuro checks q1h. marybeth k rn"), where the rules look for it on a line of its own. The
    signature has the shape `_signed` reads on a last line, after a sentence closed with a word, not an initial
    ("... AMBULATION. L. ST. PIERRE RN")."""
    if "\n" in text or "\r" in text or len(text) < _MIN_FLAT:
        return text
    for stop in reversed(list(_STOP_THEN_SPACE.finditer(text, len(text) - _MAX_SIGNATURE))):
        before = text[:stop.start() + 1].split()
        last = before[-1].lstrip("-–—~") if before else ""
        if _INITIALS.fullmatch(last) or last.lower() in _OPEN_ENDS:
            continue  # "ST. PIERRE RN", "-K. LUND, RN", "DR. SMITH": an initial, a saint or a title
        tail = text[stop.end():].split()
        if last.lower() in _ADDRESS_WORDS or not (tail[0][0].isalpha() or tail[0][0] in "-–—~"):
            return text  # "... 7878 RAHU 37 APT. 405 SINDI PR": an address runs on, no one signs
        if _signature(tail):
            return text[:stop.end() - 1] + "\n" + text[stop.end():]
        return text
    return text


def _signature(words: list[str]) -> bool:
    """Whether a last line's words are a signature's: three at most, or five ending in a credential."""
    return 0 < len(words) <= 3 or (len(words) <= 5 and words[-1].lower().strip(".,") in _CREDENTIALS)


def _cut(line: str, word: str) -> bool:
    """Whether a break between `line` and `word` cuts a phrase: the line ends in a word that something must follow
    ("LIVES / W/ HUSBAND", "PCP DR / LOPES", "WILL BE / 100 IN MARCH") or a number runs on ("CELL 617 / 555 0124",
    "CABG X2 / 95'")."""
    last = line.split()[-1].lower()
    return last in _OPEN_ENDS or (last[-1].isdigit() and word[0].isdigit())


def _entry(line: str, following: str) -> bool:
    """Whether `following` opens an entry of its own after `line` closed one: "... 473 1752. / 0645 FINGERSTICK", not
    "... IN / 2004 AFTER" nor "... RAMSAY / 4. DAILY WAKE UP"."""
    return line.rstrip().endswith((".", ":", ";", "!", "?", ")")) and _ENTRY.match(following) is not None


def _heading(line: str) -> bool:
    """Whether `line` opens with a section heading ("GI:", "Resp: ", "addendum 1630:")."""
    m = _HEADING.match(line)
    return m is not None and (m.group(1).lower() in _HEADINGS or m.group(1).lower().split("/")[0] in _HEADINGS)


def _signed(lines: list[str], i: int) -> bool:
    """Whether line i, the text's last, is a signature its writer put on a line of its own ("MBG", "H. ST. PIERRE RN"):
    three words at most, or five ending in a credential, after a line that closed a sentence with a word, not with an
    initial ("... RETURN THERE. / MBG"; "... IN SR. P. / KWIATKOWSKI RN" is a name the wrap cut)."""
    if any(line.strip() for line in lines[i + 1:]) or not _signature(lines[i].split()):
        return False
    before = lines[i - 1].rstrip()
    last = before.split()[-1] if before.split() else ""
    return before.endswith((".", "!", "?", ":")) and not _INITIALS.fullmatch(last)

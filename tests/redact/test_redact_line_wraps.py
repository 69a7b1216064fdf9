"""A note hard-wrapped at a fixed width, or copied with no-break spaces, reads as the note as written: a cue and its
name, a facility's name and a phone number cut by a line break are found whole, at the offsets of the text as written;
breaks the writer made (headings, a signature on its own line, short list lines) stay breaks."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from medhelm_local.redact import detect
from medhelm_local.redact.line_wraps import unflatten, unwrap

PARAGRAPH = ("PT IS A 78 YO M ADMITTED FROM HOME WITH UROSEPSIS, NOW ON ZOSYN, FOLLOWS COMMANDS, MAE, LUNGS CLEAR, "
             "FOLEY DRAINING CLEAR YELLOW URINE. SPOKE WITH SON TOM ABOUT PLAN OF CARE, WILL TRANSFER BACK TO SAINT "
             "AGNES GENERAL WHEN STABLE. SON'S CELL 617 555 0124. SEEN BY DR PIKE TODAY, PLAN TO CONTINUE "
             "ANTIBIOTICS AND WEAN OXYGEN AS TOLERATED OVERNIGHT, FAMILY UPDATED AT BEDSIDE THIS EVENING.")


def _wrapped(text: str, width: int) -> str:
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    joined = "\n".join(lines)
    assert joined.replace("\n", " ") == text  # same length: only spaces became breaks
    return joined


def _found(text: str) -> list[str]:
    return [text[s.start:s.end].replace("\n", " ") for s in detect(text)]


@pytest.mark.parametrize("width", range(40, 101))
@pytest.mark.parametrize("case", [str.upper, str.lower])
def test_a_wrapped_note_finds_what_the_note_as_written_does(width: int, case: Callable[[str], str]) -> None:
    text = case(PARAGRAPH)
    wrapped = _wrapped(text, width)
    assert "\n" in wrapped
    assert _found(wrapped) == _found(text)
    assert {t.lower() for t in _found(text)} >= {"tom", "saint agnes general", "617 555 0124", "pike"}


def test_unwrap_keeps_the_length_and_turns_only_wrap_breaks_into_spaces() -> None:
    wrapped = _wrapped(PARAGRAPH, 60)
    assert unwrap(wrapped) == PARAGRAPH
    crlf = wrapped.replace("\n", "\r\n")
    assert unwrap(crlf) == wrapped.replace("\n", "  ")  # a CR LF pair: two spaces, so the length holds


def test_a_wrapped_span_keeps_the_offsets_of_the_text_as_written() -> None:
    wrapped = _wrapped(PARAGRAPH, 60)
    for span in detect(wrapped):
        assert wrapped[span.start:span.end].replace("\n", " ") == PARAGRAPH[span.start:span.end]


def test_lines_the_writer_ended_are_left_alone() -> None:
    note = ("NEURO: A+OX3, MAE, FOLLOWS COMMANDS, PERRL, NO NEW DEFICITS NOTED\n"
            "CV: HR 80S SR, NO ECTOPY, BP 110-130/60S, PULSES PALPABLE X4 TODAY\n"
            "RESP: LS CLEAR, 2L NC, SATS 96-98%, STRONG NONPRODUCTIVE COUGH\n"
            "PLAN: CONT TO MONITOR, WEAN O2 AS TOL, OOB TO CHAIR IN AM.\n"
            "MBG")
    assert unwrap(note) == note
    short = "HR 80S\nBP 120/70\nSON TOM CALLED\nPLAN: CONT"
    assert unwrap(short) == short


def test_a_signature_the_wrap_cut_is_joined_but_one_on_its_own_line_is_not() -> None:
    body = ("PLAN CONT AMIO GTT THEN PO, TRANSFER TO THE CARDIAC FLOOR IF SHE STAYS IN SINUS RHYTHM OVERNIGHT AND "
            "THE TEAM AGREES WITH THE PLAN IN THE MORNING. FAMILY UPDATED BY PHONE.")
    cut = _wrapped(body + " P. KWIATKOWSKI RN", 60)
    assert cut.endswith("P.\nKWIATKOWSKI RN")
    assert unwrap(cut).endswith("P. KWIATKOWSKI RN")
    own = _wrapped(body, 60) + "\nMBG"
    assert unwrap(own).endswith("\nMBG")


def test_a_heading_opens_its_line_even_after_a_long_one() -> None:
    note = ("daughter. all meds, orders and flowsheets sent with pt. - mb rn\n"
            "addendum 1630: floor rn called back to confirm home o2 eval order\n"
            "and that pt's daughter has the med list. no further questions\n"
            "room cleaned and ready for next admission, bed board updated.")
    assert "rn\naddendum 1630:" in unwrap(note)


def test_a_note_of_short_lines_joins_only_a_cut_phrase() -> None:
    note = ("sicu npn\npt s/p l bka 9/5. stump c/d/i, ace wrap.\nvac to r heel wound, -125.\n"
            "pt lives at brookdale in quincy, staff contact marisol 617\n555 0124.\npt's daughter pam is hcp.\n"
            "t. nguyen rn")
    assert "617 555 0124" in unwrap(note)
    assert "617 555 0124" in _found(note)
    assert unwrap(note).count("\n") == note.count("\n") - 1


@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u2009", "\u3000"])
def test_a_note_copied_with_no_break_spaces_finds_what_it_does_with_plain_ones(space: str) -> None:
    copied = PARAGRAPH.replace(" ", space)
    assert _found(copied) == [t.replace(" ", space) for t in _found(PARAGRAPH)]
    assert len(_found(copied)) >= 4


BODY = ("PT RESTING IN BED, FAMILY AT BEDSIDE, NO ACUTE EVENTS OVERNIGHT. LUNGS CLEAR, FOLEY PATENT. "
        "PLAN: WEAN VENT AS TOL, SERIAL HCTS Q4, KEEP TYPED.")


@pytest.mark.parametrize("signature", ["MJD", "J.T.", "JRH/RN", "MARYBETH K", "L. ST. PIERRE RN", "-SUE B RN",
                                       "W. ADEYEMI RN"])
@pytest.mark.parametrize("case", [str.upper, str.lower])
def test_a_flattened_note_finds_its_signature_as_the_note_as_written_does(signature: str,
                                                                          case: Callable[[str], str]) -> None:
    written = case(BODY + "\n" + signature)
    flat = written.replace("\n", " ")
    assert unflatten(flat) == written
    assert _found(flat) == _found(written)
    assert _found(written)[-1].lower().lstrip("-") in signature.lower()


@pytest.mark.parametrize("ending", ["WILL CONT TO MONITOR AND UPDATE THE FAMILY.", "SPOKE WITH DR. SMITH",
                                    "SEEN BY MRS. JONES", "PER NP."])
def test_a_flattened_note_without_a_signature_is_left_as_it_is(ending: str) -> None:
    flat = BODY + " " + ending
    kept = unflatten(flat)
    assert kept == flat or kept.endswith("\n" + ending.split(". ")[-1])
    assert _found(kept) == _found(flat)


def test_only_a_note_without_line_breaks_is_unflattened() -> None:
    assert unflatten(BODY + "\nRN AWARE. MJD") == BODY + "\nRN AWARE. MJD"
    assert unflatten("SHORT NOTE. MJD") == "SHORT NOTE. MJD"


def test_an_address_run_into_one_line_is_no_signature() -> None:
    text = "I need to add my addresses, here they are: 81 Thornton St Suite 451, and 7878 Rahu 37 Apt. 405 Sindi PR"
    assert unflatten(text) == text

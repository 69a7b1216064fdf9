"""The detector remembers what it worked out about a word (by its text and its line's case): what it finds in a
note must not depend on which notes it read before."""

from __future__ import annotations

from support import phi_notes

from medhelm_local.redact.detector import Detector
from medhelm_local.settings import default_redaction_dir

# The same words on a line with case and on lines without it: what "lacey" is on one must not carry to the other.
SAME_WORDS = [
    "Pt: lacey morgan, seen today by Dr. Pike for follow up of her knee.",
    "PT: LACEY MORGAN SEEN TODAY BY DR PIKE FOR F/U OF KNEE",
    "pt: lacey morgan seen today by dr pike for f/u of knee. son tom called, aware.",
    "Son Tom called; Lacey Morgan to Springfield tomorrow. LIMA to LAD patent.",
    "LIMA TO LAD PATENT. SON TOM CALLED. TRANSFERRED TO WHITE 9 WHEN BED AVAILABLE",
    # words typed with slips, each read once as the word it slips from (the slip memo)
    "pt tearufl, famliy verry religious. per reenal, ok perr team. wehn awake syas she is fine, cougihng thick. neruo "
    "checks. visiteed by chaplain. stabel. drainage at inferoor pole. insulin per protoxol. aunt at bedsside. quilt "
    "from hoem. dc per nuece. dr lee awrae. fanily request. wife callde, mom askde. ptt verry knowledgable.",
]


def _spans(detector: Detector, notes: list[str]) -> list[list[tuple[int, int, str]]]:
    return [[(s.start, s.end, s.type.value) for s in detector.detect(note)] for note in notes]


def test_what_a_note_gives_does_not_depend_on_the_notes_read_before() -> None:
    notes = SAME_WORDS + [n.text for name in ("dev2", "heldout2") for n in phi_notes.load(name)][:120]
    forwards = Detector.from_dir(default_redaction_dir())
    backwards = Detector.from_dir(default_redaction_dir())
    assert _spans(forwards, notes) == _spans(backwards, notes[::-1])[::-1]


def test_the_memos_stay_bounded(monkeypatch: object) -> None:
    detector = Detector.from_dir(default_redaction_dir())
    from medhelm_local.redact import names, slips, streets

    for module in (names, streets, slips):  # where each memo is kept: name_like, _place_word, a slip's reading
        monkeypatch.setattr(module, "MEMO_LIMIT", 16)  # type: ignore[attr-defined]
    first = _spans(detector, SAME_WORDS)
    assert len(detector._name_like_memo) <= 16 and len(detector._place_word_memo) <= 16
    assert len(detector._slip_memo) <= 16
    assert _spans(detector, SAME_WORDS) == first  # answers worked out again after a clear are the same

"""JSONL scan/apply: the exact output format, atomic writes, and errors that name the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medhelm_local.redact import RedactionInputError, apply_file, load_policy, scan_file
from medhelm_local.redact.detector import detector_for
from medhelm_local.settings import default_redaction_dir

PACK = default_redaction_dir().resolve()


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_scan_writes_exactly_id_and_spans(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [
        json.dumps({"id": 1, "text": "Pt John Kowalski seen 7/22, call 617-555-1234.", "extra": "x"}).encode(),
        b"",
        json.dumps({"id": "b", "text": "O2 SAT 96% ON 2L NC."}).encode(),
    ])
    result = scan_file(source, tmp_path / "out.jsonl", detector_for(PACK))
    assert (result.documents, result.spans) == (2, 3)
    lines = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[0] == ('{"id": 1, "spans": [{"start": 3, "end": 16, "type": "NAME"}, '
                        '{"start": 22, "end": 26, "type": "DATE"}, {"start": 33, "end": 45, "type": "PHONE"}]}')
    assert json.loads(lines[1]) == {"id": "b", "spans": []}


def test_offsets_are_code_points(tmp_path: Path) -> None:
    text = "Café 😀 crème — Dr. Müller saw him 7/22."  # an astral character before the spans
    source = write_lines(tmp_path / "in.jsonl", [json.dumps({"id": 1, "text": text}, ensure_ascii=False).encode()])
    scan_file(source, tmp_path / "out.jsonl", detector_for(PACK))
    spans = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8"))["spans"]
    assert [text[s["start"]:s["end"]] for s in spans] == ["Müller", "7/22"]


def test_apply_writes_only_id_and_redacted_text(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [
        json.dumps({"id": 7, "text": "Dr. Nguyen called 617-555-1234 on March 3rd.", "note": "Dr. Nguyen"}).encode()])
    policy = load_policy(PACK / "surrogates.yaml")
    apply_file(source, tmp_path / "mask.jsonl", detector_for(PACK), policy, "mask")
    assert json.loads((tmp_path / "mask.jsonl").read_text()) == {
        "id": 7, "text": "Dr. [NAME] called [PHONE] on [DATE]."}
    apply_file(source, tmp_path / "sur.jsonl", detector_for(PACK), policy, "surrogate", key=b"k" * 32)
    out = json.loads((tmp_path / "sur.jsonl").read_text())
    assert set(out) == {"id", "text"} and "Nguyen" not in out["text"] and "617-555-1234" not in out["text"]


@pytest.mark.parametrize(("bad", "message"), [
    (b'{"id": 2, "text": ', r"line 2 is not valid JSON \(Expecting value at character \d+\)"),
    (b'{"id": 2, "text": "caf\xe9"}', r"line 2 is not valid UTF-8 \(byte 23 of the line\)"),
    (b'["id", "text"]', "line 2 is a JSON list, not an object"),
    (b'{"id": 2}', 'line 2 has no "text" string'),
    (b'{"id": true, "text": "x"}', 'line 2 has no "id" string or integer'),
    (b'{"id": 2, "text": "\\ud800"}', "line 2 has a lone surrogate"),
])
def test_bad_lines_stop_the_run_and_leave_the_output_alone(tmp_path: Path, bad: bytes, message: str) -> None:
    source = write_lines(tmp_path / "in.jsonl", [b'{"id": 1, "text": "Dr. Lee"}', bad, b'{"id": 3, "text": "x"}'])
    out = tmp_path / "out.jsonl"
    out.write_text("previous results\n")
    with pytest.raises(RedactionInputError, match=message) as caught:
        scan_file(source, out, detector_for(PACK))
    assert f"{source}, line 2" in str(caught.value) and "caf" not in str(caught.value)
    assert caught.value.exit_code != 0
    assert out.read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


def test_missing_input_and_unwritable_output(tmp_path: Path) -> None:
    with pytest.raises(RedactionInputError, match="cannot read the input file"):
        scan_file(tmp_path / "nope.jsonl", tmp_path / "out.jsonl", detector_for(PACK))
    source = write_lines(tmp_path / "in.jsonl", [b'{"id": 1, "text": "x"}'])
    with pytest.raises(RedactionInputError, match="cannot write the output file"):
        scan_file(source, tmp_path / "no-such-folder" / "out.jsonl", detector_for(PACK))

"""The rule pack loads, every regex is linear-time by construction, and detection time scales linearly."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from support.pathological import ADVERSARIAL, PATHOLOGICAL

from medhelm_local.redact import Detector, RedactionRuleError
from medhelm_local.redact.detector import detector_for
from medhelm_local.redact.patterns import load_rules, unsafe_reason
from medhelm_local.settings import default_redaction_dir

PACK = default_redaction_dir()


def test_shipped_rules_load_and_every_pattern_is_safe() -> None:
    rules = load_rules(PACK / "rules.yaml")
    assert len(rules.patterns) > 20
    for compiled in rules.patterns:
        assert unsafe_reason(compiled.regex.pattern) is None, compiled.rule.name
    assert unsafe_reason(rules.label_regex.pattern) is None


@pytest.mark.parametrize("regex", [r"(a+)+b", r"(\w+\s?)*$", r"\d+", r"(?:ab){2,5}", r"[a-z]*@", r"x{1,5000}"])
def test_backtracking_shapes_are_refused(regex: str) -> None:
    assert unsafe_reason(regex) is not None


@pytest.mark.parametrize("regex", [r"(?<![\w.])\d{1,3}\.\d{1,3}", r"(?:jan|feb)\.?[ ]{0,3}\d{1,2}",
                                   r"(?:,?[ ]{0,3}\d{4})?"])
def test_bounded_single_character_repeats_are_allowed(regex: str) -> None:
    assert unsafe_reason(regex) is None


def test_a_rule_pack_with_a_nested_quantifier_fails_closed(tmp_path: Path) -> None:
    text = (PACK / "rules.yaml").read_text(encoding="utf-8")
    bad = text.replace("patterns:\n", "patterns:\n  - {name: greedy_mrn, type: MRN, regex: '(?:\\d+-)+\\d+'}\n", 1)
    (tmp_path / "rules.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(RedactionRuleError, match="pattern 'greedy_mrn' is refused: it has an unbounded repeat"):
        load_rules(tmp_path / "rules.yaml")


def test_unknown_fields_and_missing_files_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "rules.yaml").write_text("version: 1\nmacros: {}\npatterns: []\nlabels: {}\ncontext: {}\nextra: 1\n")
    with pytest.raises(RedactionRuleError, match=r"redaction rule '(context\.titles_abbrev|extra)' is invalid"):
        load_rules(tmp_path / "rules.yaml")
    with pytest.raises(RedactionRuleError, match="the redaction rule file does not exist"):
        load_rules(tmp_path / "missing.yaml")


def _best_ms(detector: Detector, text: str, runs: int = 5) -> float:
    """The least CPU time of this process over `runs` detections, in ms. CPU time, not wall time: on a machine
    that other work loads, wall time grows with the waiting for a core, while the seconds that catastrophic
    backtracking costs are CPU seconds all the same."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        detector.detect(text)
        best = min(best, time.process_time() - start)
    return best * 1000


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_one_kilobyte_inputs_take_milliseconds(name: str) -> None:
    detector = detector_for(PACK.resolve())
    note = (PATHOLOGICAL[name] * 20)[:1024]
    assert len(note) == 1024
    assert _best_ms(detector, note) < 50.0  # loose on purpose: catastrophic backtracking takes seconds


def test_a_rule_pack_repeating_a_group_fails_closed(tmp_path: Path) -> None:
    text = (PACK / "rules.yaml").read_text(encoding="utf-8")
    rule = "  - {name: dashed, type: ID, regex: '(?:\\d{1,3}-){1,9}\\d{1,4}'}\n"  # bounded, but a repeated group
    bad = text.replace("patterns:\n", "patterns:\n" + rule, 1)
    (tmp_path / "rules.yaml").write_text(bad, encoding="utf-8")
    with pytest.raises(RedactionRuleError, match="pattern 'dashed' is refused: it repeats a group"):
        load_rules(tmp_path / "rules.yaml")


def test_time_grows_linearly_with_note_length() -> None:
    detector = detector_for(PACK.resolve())
    small = (ADVERSARIAL[:1000] + "\n") * 10
    large = small * 10
    ratio = _best_ms(detector, large, 3) / _best_ms(detector, small, 3)
    assert ratio < 20, f"10x longer note took {ratio:.1f}x longer"

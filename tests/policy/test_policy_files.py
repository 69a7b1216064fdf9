"""Policy files: strict validation with file, line and key; the rules in code; explain; the allowlist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SHIPPED_POLICIES, write_policy_dir

from medhelm_local.errors import ConfigError, EgressRefusedError
from medhelm_local.policy import (
    ceiling,
    explain,
    export_treatment,
    level_treatment,
    load_policy,
    may_leave_unredacted,
    render_text,
)
from medhelm_local.policy.egress_allowlist import PolicyAllowlist, allowlist_for
from medhelm_local.policy.file_schemas import SensitiveRules
from medhelm_local.settings import Deployment, Settings


def _edit(tmp_path: Path, name: str, old: str, new: str) -> Path:
    folder = write_policy_dir(tmp_path / "policies", [("127.0.0.1", 8000), ("vllm.internal", 8000)])
    path = folder / name
    text = path.read_text()
    assert old in text, f"{old!r} not in {name}"
    path.write_text(text.replace(old, new, 1))
    return folder


def _line_of(folder: Path, name: str, needle: str) -> int:
    return next(n for n, line in enumerate((folder / name).read_text().splitlines(), 1) if needle in line)


def _error(folder: Path) -> str:
    with pytest.raises(ConfigError) as err:
        load_policy(folder)
    return err.value.message


def test_the_shipped_policy_loads_and_has_a_stable_fingerprint() -> None:
    policy = load_policy(SHIPPED_POLICIES)
    assert policy.egress.default == "deny"
    assert {(e.host, e.port) for e in policy.egress.allow} == {("127.0.0.1", 8000), ("127.0.0.1", 11434)}
    assert policy.export.redaction.style == "mask"
    assert re.fullmatch(r"[0-9a-f]{64}", policy.digest) and policy.digest == load_policy(SHIPPED_POLICIES).digest


def test_a_persons_review_is_on_in_the_shipped_policy_and_in_a_file_that_says_nothing(tmp_path: Path) -> None:
    shipped = load_policy(SHIPPED_POLICIES).export.review
    assert shipped.required is True and shipped.different_person is True
    block = "review:\n  required: true\n  different_person: true\n"
    older = load_policy(_edit(tmp_path / "older", "export.yaml", block, "")).export  # written before reviews existed
    assert "review" not in older.model_fields_set and older.review.required and older.review.different_person
    chosen = load_policy(_edit(tmp_path / "off", "export.yaml", "  required: true", "  required: false")).export
    assert chosen.review.required is False  # only a file that says so lets redacted text leave unread


@pytest.mark.parametrize("name, old, new, key, hint", [
    ("egress.yaml", "    port: 8000", "    prot: 8000", "allow.0.prot", "did you mean 'port'?"),
    ("export.yaml", "redaction:", "redactoin:", "redactoin", "did you mean 'redaction'?"),
    ("export.yaml", "    completions: redacted", "    completion: redacted", "access_levels.gated.completion",
     "unknown field"),
    ("retention.yaml", "  keep_days: 90", "  keep_days: 90\n  purge: true", "exports.purge", "unknown field"),
    ("roles.yaml", "    description: Installs", "    descripton: Installs", "roles.it_admin.descripton",
     "did you mean 'description'?"),
])
def test_a_typo_names_the_file_line_and_key(tmp_path: Path, name: str, old: str, new: str, key: str,
                                            hint: str) -> None:
    folder = _edit(tmp_path, name, old, new)
    message = _error(folder)
    line = _line_of(folder, name, new.strip().split("\n")[-1].split(":")[0] + ":")
    assert f"field '{key}'" in message and hint in message
    assert f"{folder / name}, line {line}" in message


@pytest.mark.parametrize("name, old, new, key, words", [
    ("egress.yaml", "default: deny", "default: allow", "default", "deny-by-default in the program"),
    ("egress.yaml", "host: vllm.internal", "host: '*.internal'", "allow.1.host", "without scheme, port, path or "
                                                                                 "wildcard"),
    ("egress.yaml", "host: vllm.internal", "host: http://vllm.internal", "allow.1.host", "wildcard"),
    ("egress.yaml", "host: vllm.internal", "host: 0.0.0.0", "allow.1.host", "not one host"),
    ("egress.yaml", "port: 8000", "port: 70000", "allow.0.port", "less than or equal to 65535"),
    ("egress.yaml", "host: vllm.internal", "host: 127.0.0.1", "allow.1.host", "listed twice"),
    ("export.yaml", "    prompts: never", "    prompts: as_is", "access_levels.gated.prompts",
     "nothing derived from it leaves unredacted (a rule in the program"),
    ("export.yaml", "  style: mask", "  style: blackout", "redaction.style", "'mask' or 'surrogate'"),
    ("export.yaml", "  data_scientist:", "  statistician:", "who_may_export.statistician", "no role 'statistician'"),
    ("export.yaml", "[aggregates, scores, ratings]", "[aggregates, scores, ratings, notes]",
     "who_may_export.data_scientist.3", "'aggregates', 'scores', 'completions', 'prompts', 'ratings' or 'report'"),
    ("retention.yaml", "  keep_days: 2190", "  keep_days: 30", "audit", "must outlive what it describes"),
    ("export.yaml", "  min_icc: 0.5", "  min_icc: 1.5", "jury_validation.min_icc", "less than or equal to 1"),
    ("export.yaml", "  judged_on: estimate", "  judged_on: upper_bound", "jury_validation.judged_on",
     "'estimate' or 'lower_bound'"),
    ("export.yaml", "  min_answers: 10", "  min_answers: 2", "jury_validation.min_answers", "greater than or equal"),
    ("roles.yaml", "    sensitive_text: redacted", "    sensitive_text: everything", "roles.clinician.sensitive_text",
     "'redacted' or 'full'"),
])
def test_a_forbidden_value_names_the_file_line_and_reason(tmp_path: Path, name: str, old: str, new: str, key: str,
                                                          words: str) -> None:
    folder = _edit(tmp_path, name, old, new)
    message = _error(folder)
    assert f"field '{key}'" in message and words in message
    assert re.search(rf"{re.escape(str(folder / name))}, line \d+", message)


def test_missing_empty_and_stray_files_stop_loading(tmp_path: Path) -> None:
    folder = write_policy_dir(tmp_path / "policies", [])
    (folder / "retention.yaml").unlink()
    assert "the retention policy does not exist" in _error(folder)
    write_policy_dir(folder, [])
    (folder / "roles.yaml").write_text("# nothing here\n")
    assert "the roles policy is empty" in _error(folder)
    write_policy_dir(folder, [])
    (folder / "egress.yml").write_text("default: deny\n")
    assert "does not read: egress.yml" in _error(folder)
    assert "the policy folder does not exist" in _error(tmp_path / "nowhere")


def test_only_public_data_may_leave_unredacted_whatever_the_file_says() -> None:
    assert may_leave_unredacted("public")
    for access in ("gated", "private", "PUBLIC", "", "internal"):
        assert not may_leave_unredacted(access)
        assert ceiling(access) == "redacted"
    policy = load_policy(SHIPPED_POLICIES)
    # A policy object built around validation (as a bug or a future loader might) is still capped.
    loose = SensitiveRules.model_construct(aggregates="as_is", scores="as_is", completions="as_is", prompts="as_is")
    levels = policy.export.access_levels.model_copy(update={"gated": loose})
    forced = type(policy)(policy.directory, policy.egress,
                          policy.export.model_copy(update={"access_levels": levels}),
                          policy.retention, policy.roles, policy.file_sha256)
    decision = export_treatment(forced, "compliance_officer", "gated", "prompts")
    assert decision.treatment == "redacted" and "rule in the program" in decision.reason


def test_export_decisions_combine_role_access_level_and_code() -> None:
    policy = load_policy(SHIPPED_POLICIES)
    assert export_treatment(policy, "compliance_officer", "public", "prompts").treatment == "as_is"
    assert export_treatment(policy, "compliance_officer", "private", "completions").treatment == "redacted"
    assert export_treatment(policy, "compliance_officer", "gated", "prompts").treatment == "never"
    refused = export_treatment(policy, "data_scientist", "public", "prompts")
    assert not refused.allowed and "may not export prompts" in refused.reason
    assert export_treatment(policy, "it_admin", "public", "aggregates").treatment == "never"
    assert level_treatment(policy, "secret", "aggregates").treatment == "never"
    assert level_treatment(policy, "public", "raw_records").treatment == "never"


def test_the_allowlist_is_the_policy_and_settings_cannot_widen_it(tmp_path: Path) -> None:
    folder = write_policy_dir(tmp_path / "policies", [("127.0.0.1", 8000), ("vllm.internal", 8000)])
    settings = Settings(policy_dir=folder, deployments={
        "listed": Deployment(base_url="http://vllm.internal:8000/v1"),
        "unlisted": Deployment(base_url="https://gpu.elsewhere/v1")})
    allowlist = allowlist_for(settings)
    assert allowlist.permits("VLLM.internal", 8000) and allowlist.permits("::ffff:127.0.0.1", 8000)
    assert not allowlist.permits("gpu.elsewhere", 443) and not allowlist.permits("10.0.0.9", 80)
    assert {(u.source, u.host, u.port) for u in allowlist.unlisted} == {("deployment unlisted", "gpu.elsewhere", 443)}
    allowlist.require("listed", settings.deployments["listed"])
    with pytest.raises(EgressRefusedError) as err:
        allowlist.require("unlisted", settings.deployments["unlisted"])
    assert "'unlisted' (gpu.elsewhere:443) is not on the egress allowlist" in err.value.message
    assert str(folder / "egress.yaml") in err.value.message
    assert list(PolicyAllowlist.deny_all()) == []


def test_explain_says_where_each_rule_comes_from(tmp_path: Path) -> None:
    folder = write_policy_dir(tmp_path / "policies", [("127.0.0.1", 8000)])
    settings = Settings(deployments={"far": Deployment(base_url="http://10.1.1.1:8000/v1")})
    rows = explain(load_policy(folder), settings)
    text = render_text(rows)
    assert "[egress] everything not listed: deny" in text and "(the program (not configurable))" in text
    assert "[egress] 127.0.0.1:8000: allowed (inference): test model server  (egress.yaml)" in text
    assert "[egress] deployment far: 10.1.1.1:8000 NOT permitted" in text
    assert "[export] gated data: aggregates redacted; scores redacted; completions redacted; prompts never" in text
    assert "[retention] audit log: kept 2190 days" in text
    assert "[export] PHI detection: measured recall 0." in text
    assert {r.section for r in rows} == {"policy", "egress", "export", "retention", "roles"}

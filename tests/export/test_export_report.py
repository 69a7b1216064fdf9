"""`export --include report`: the HTML report built from what the policy lets leave, signed with the bundle."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support.appliance import Appliance
from support.phi_store import PLANTED, PRIVATE_IDS, PRIVATE_RUN, PUBLIC_IDS, PUBLIC_RUN, PUBLIC_WORDS
from support.review import approved_review

from medhelm_local.store.keys import Kek


def _pages(folder: Path, run_id: str) -> list[dict[str, object]]:
    """The instances of a run's browser pages in an exported report."""
    found = []
    for page in sorted((folder / "report" / "data" / run_id).glob("page-*.js")):
        body = re.fullmatch(r"medhelmInstances\((.*)\);\n", page.read_text(), re.S)
        assert body is not None, page
        found += json.loads(body.group(1))["instances"]
    return found


def test_the_report_leaves_signed_with_only_what_the_policy_allows(appliance: Appliance, kek: Kek) -> None:
    out = appliance.root / "with-report"
    # The private answers (in completions.jsonl and on the report's pages) leave after a person's review.
    review_id = approved_review(appliance, kek, "--include", "aggregates,completions,report")
    done = appliance.cli("export", "ward", "--to", str(out), "--role", "compliance_officer", "--include",
                         "aggregates,completions,report", "--review", review_id)
    assert done.returncode == 0, done.stderr
    report = out / "report"
    assert {"index.html", "taxonomy.html", "compare.html", "methods.html", "report.json"} <= {
        p.name for p in report.iterdir()}
    assert (report / "runs" / f"{PRIVATE_RUN}.html").exists() and (report / "runs" / f"{PUBLIC_RUN}.html").exists()
    blob = b"\n".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    for value in [*PLANTED, *PRIVATE_IDS]:
        assert value.encode() not in blob, f"{value!r} left in the bundle"
    # The private run: answers redacted under the bundle's pseudonyms; its prompts never leave (policy: never).
    private = _pages(out, PRIVATE_RUN)
    assert all(str(i["id"]).startswith("i-") for i in private) and "prompt" not in private[0]
    assert "[NAME]" in str(private[0]["answer"]) and "meets criteria" in str(private[0]["answer"])
    assert private[1]["ok"] is False and "error_message" not in private[1]
    completions = [json.loads(line) for line in (out / "completions.jsonl").read_text().splitlines()]
    assert {c["instance"] for c in completions if c["run_id"] == PRIVATE_RUN} == {i["id"] for i in private}
    # The public run: shown as it is, prompt and reference included.
    public = _pages(out, PUBLIC_RUN)
    assert public[0]["id"] == PUBLIC_IDS[0] and PUBLIC_WORDS in str(public[0]["prompt"])
    assert [r["text"] for r in public[0]["references"]] == ["yes", "no", "maybe"]  # PubMedQA's options
    # Signed: verify covers every file of the report, and notices one changed after signing.
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert "report/index.html" in manifest["files"] and f"report/data/{PRIVATE_RUN}/page-00001.js" in manifest["files"]
    assert manifest["runs"][0]["artifacts"]["report"]["treatment"] in ("as_is", "redacted")
    verified = appliance.cli("verify", str(out), "--public-key", str(appliance.public_key))
    assert verified.returncode == 0, verified.stderr
    index = report / "index.html"
    index.write_text(index.read_text().replace("Leaderboard", "Leaderb0ard"))
    tampered = appliance.cli("verify", str(out), "--public-key", str(appliance.public_key))
    assert tampered.returncode == 4 and "report/index.html differs from the signed manifest" in tampered.stderr


def test_without_answers_for_the_role_the_report_holds_aggregates_only(appliance: Appliance) -> None:
    # A policy where a data scientist may take the report, but not answers or prompts.
    appliance.edit_policy("export.yaml", "  data_scientist: [aggregates, scores, ratings]",
                          "  data_scientist: [aggregates, scores, ratings, report]")
    out = appliance.root / "ds"
    done = appliance.cli("export", "ward", "--to", str(out), "--role", "data_scientist", "--include", "report")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["MANIFEST.json", "MANIFEST.json.sig", "report", "runs.json"]
    assert not (out / "report" / "data").exists() or not any((out / "report" / "data").iterdir())
    page = (out / "report" / "runs" / f"{PRIVATE_RUN}.html").read_text()
    assert "Instances are not in this exported report" in page and "exact_match" in page
    leaderboard = json.loads((out / "report" / "report.json").read_text())["leaderboard"]
    assert [row["model"] for row in leaderboard["rows"]] == ["local/m"]


def test_a_role_the_policy_does_not_grant_the_report_is_refused(appliance: Appliance) -> None:
    refused = appliance.cli("export", "ward", "--to", str(appliance.root / "no"), "--role", "data_scientist",
                            "--include", "report")
    assert refused.returncode == 5 and "may not export report" in refused.stderr
    assert not (appliance.root / "no").exists()


def test_the_report_is_left_out_unless_asked_for(appliance: Appliance, kek: Kek) -> None:
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "plain"), "--role", "compliance_officer",
                         "--review", approved_review(appliance, kek))
    assert done.returncode == 0, done.stderr
    assert not (appliance.root / "plain" / "report").exists()
    manifest = json.loads((appliance.root / "plain" / "MANIFEST.json").read_text())
    assert manifest["runs"][0]["artifacts"]["report"] == {"treatment": "never", "reason": "not asked for (--include)"}

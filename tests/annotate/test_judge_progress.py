"""Judging shows its progress: a bar per judge, failures counted, open until the last rating is stored, both
when `run` judges as answers arrive and when `judge` rates a suite later. Real CLI, fake servers."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from conftest import FakeServer, run_cli
from support.jury import jury_config, write_generation_card

N = 6
ENTRY = "ward_notes:model=local/m,model_deployment=gen"


def _bar(stderr: str, judge: str) -> tuple[int, int, int]:
    """(done, total, failed) on the judge's last bar line."""
    lines = [line for line in stderr.splitlines() if f"judge {judge}" in line]
    assert lines, f"no bar for judge {judge} in:\n{stderr}"
    found = re.search(r"(\d+)/(\d+).*?(\d+) failed", lines[-1])
    assert found, lines[-1]
    return int(found[1]), int(found[2]), int(found[3])


def _setup(tmp_path: Path, data_root: Path, fake_server: Callable[..., FakeServer], jury: bool) -> Path:
    judges = {"judge-a": fake_server(delay=0.05), "judge-b": fake_server(judge="malformed")}
    cards = tmp_path / "cards"
    write_generation_card(cards, N)
    return jury_config(tmp_path, data_root, fake_server().base_url, {k: s.base_url for k, s in judges.items()},
                       cards, jury=jury)


def test_judge_shows_a_bar_per_judge_with_its_failures_and_ends_with_every_rating_stored(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    config = _setup(tmp_path, data_root, fake_server, jury=False)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    ran = run_cli("-c", str(config), "run", ENTRY, "--suite", "ward", "--json", env=env)
    assert ran.returncode == 0, ran.stderr
    run_id = json.loads(ran.stdout)["runs"][0]["run"]["run_id"]
    judged = run_cli("-c", str(config), "judge", "ward", "--jury", "local", env=env)
    assert judged.returncode == 0, judged.stderr
    assert _bar(judged.stderr, "judge-a") == (N, N, 0)
    assert _bar(judged.stderr, "judge-b") == (N, N, N), "a judge whose answers cannot be read fails, counted"
    # --run takes a unique beginning of the id, as `show` and `export` do.
    again = run_cli("-c", str(config), "judge", "ward", "--jury", "local", "--run", run_id[:12], "--json", env=env)
    assert again.returncode == 0, again.stderr
    assert [r["run_id"] for r in json.loads(again.stdout)["runs"]] == [run_id]


def test_a_run_judging_as_it_goes_keeps_a_judge_bar_until_the_judges_are_done(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    config = _setup(tmp_path, data_root, fake_server, jury=True)
    ran = run_cli("-c", str(config), "run", ENTRY, "--suite", "ward", env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert ran.returncode == 0, ran.stderr
    assert _bar(ran.stderr, "judge-a") == (N, N, 0) and _bar(ran.stderr, "judge-b") == (N, N, N)

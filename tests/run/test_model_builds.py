"""A run records the model build it met: a model swapped behind the same name, between runs or within a resumed
run, shows up in `show`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import FakeServer, run_cli, write_config

from medhelm_local.client.completions import served_model
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek


def _run(tmp_path: Path, data_root: Path, kek_file: Path, server: FakeServer, benchmark: str, n: int) -> str:
    config = write_config(tmp_path / f"config-{server.port}.toml", data_root, tmp_path / "results",
                          {"clinic": {"base_url": server.base_url}})
    done = run_cli("-c", str(config), "run", f"{benchmark}:model=local/m,model_deployment=clinic", "--suite", "s",
                   "-m", str(n), "--json", env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    return str(run["run"]["run_id"])


def _show(tmp_path: Path, data_root: Path, kek_file: Path, run_id: str) -> tuple[str, dict[str, object]]:
    config = tmp_path / next(p.name for p in tmp_path.glob("config-*.toml"))
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    text = run_cli("-c", str(config), "show", run_id, "--suite", "s", env=env)
    shown = run_cli("-c", str(config), "show", run_id, "--suite", "s", "--json", env=env)
    assert text.returncode == 0 and shown.returncode == 0, text.stderr + shown.stderr
    return " ".join(text.stdout.split()), json.loads(shown.stdout)["model_builds"]


def test_a_model_swapped_between_two_runs_shows_up(tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek,
                                                  fake_server: Callable[..., FakeServer]) -> None:
    before = fake_server(build="rev-a")
    first = _run(tmp_path, data_root, kek_file, before, "pubmed_qa", 5)
    before.process.terminate()
    before.process.wait(timeout=10)
    second = _run(tmp_path, data_root, kek_file, fake_server(build="rev-b"), "med_qa", 4)

    text, builds = _show(tmp_path, data_root, kek_file, second)
    assert "model build met: local/m [rev-b] (4 answers)" in text
    assert f"run {first} of the same model and deployment met local/m [rev-a]" in text
    assert builds == {"builds": [{"build": "local/m [rev-b]", "answers": 4}], "changed_within": False,
                      "other_runs": [{"run_id": first, "builds": ["local/m [rev-a]"]}]}
    handle = open_store(tmp_path / "results" / "s.duckdb", kek, read_only=True)
    try:
        stored = handle.con.execute("SELECT DISTINCT served_model FROM completions WHERE run_id = ?",
                                    [first]).fetchall()
    finally:
        handle.close()
    assert stored == [("local/m [rev-a]",)]


def test_a_run_resumed_on_another_build_is_flagged(tmp_path: Path, data_root: Path, kek_file: Path,
                                                   fake_server: Callable[..., FakeServer]) -> None:
    before = fake_server(build="rev-a")
    run_id = _run(tmp_path, data_root, kek_file, before, "pubmed_qa", 3)
    before.process.terminate()
    before.process.wait(timeout=10)
    assert _run(tmp_path, data_root, kek_file, fake_server(build="rev-b"), "pubmed_qa", 5) == run_id

    text, builds = _show(tmp_path, data_root, kek_file, run_id)
    assert "model builds met: local/m [rev-a] (3 answers), local/m [rev-b] (2 answers)" in text
    assert "the server changed the model build during this run" in text
    assert builds["changed_within"] is True


def test_the_build_comes_from_the_fingerprint_else_the_listed_weights() -> None:
    assert served_model({"model": "qwen", "system_fingerprint": "b4351"}, {"root": "/w/qwen"}) == "qwen [b4351]"
    listed = {"id": "qwen", "root": "/models/qwen-2025-06"}
    assert served_model({"model": "qwen"}, listed) == "qwen [/models/qwen-2025-06]"
    assert served_model({"model": "qwen"}, {"id": "qwen", "root": "qwen"}) == "qwen"
    assert served_model({"choices": []}, {}) is None


def test_the_report_run_page_shows_the_build_and_a_swap(tmp_path: Path, data_root: Path, kek_file: Path,
                                                        fake_server: Callable[..., FakeServer]) -> None:
    before = fake_server(build="rev-a")
    first = _run(tmp_path, data_root, kek_file, before, "pubmed_qa", 3)
    before.process.terminate()
    before.process.wait(timeout=10)
    second = _run(tmp_path, data_root, kek_file, fake_server(build="rev-b"), "med_qa", 3)
    config = tmp_path / next(p.name for p in tmp_path.glob("config-*.toml"))
    done = run_cli("-c", str(config), "report", "s", "--out", str(tmp_path / "site"),
                   env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    [page] = [p for p in (tmp_path / "site").rglob("*.html") if second in p.name]
    text = " ".join(page.read_text(encoding="utf-8").split())
    assert "<code>local/m [rev-b]</code> (3 answers)" in text
    assert f"Run <code>{first}</code> (s) of the same model and deployment met <code>local/m [rev-a]</code>" in text

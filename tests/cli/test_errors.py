"""Every user mistake: one clear message (what, where, what to do), a non-zero exit, no traceback, no damage."""

from __future__ import annotations

import hashlib
import socket
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from conftest import FakeServer, run_cli, write_config

from medhelm_local.store.keys import write_new_kek

ENTRY = "pubmed_qa:model=local/fake,model_deployment=fake"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _assert_clear_error(result: subprocess.CompletedProcess[str], *fragments: str, code: int = 2) -> None:  # noqa: F821
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "Error:" in result.stderr and "What to do:" in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr.replace("\n", " "), result.stderr


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def setup(tmp_path: Path, data_root: Path, kek_file: Path,
          fake_server: Callable[..., FakeServer]) -> tuple[Path, dict[str, str]]:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}})
    return config, {"MEDHELM_KEK_FILE": str(kek_file)}


@pytest.mark.parametrize("entry, fragment", [
    ("nosuch:model=a,model_deployment=fake", "no benchmark is called 'nosuch'"),
    ("pubmed_qa:model=a,model_deployment=nope", "no model deployment is called 'nope'"),
    ("pubmed_qa:model=a,model_deployment", "is not of the form key=value"),
    ("pubmed_qa:model_deployment=fake", "no model is named"),
    ("pubmed_qa:model=a,model_deployment=fake,shots=5", "does not take the argument(s) shots"),
    ("pub med:model=a,model_deployment=fake", "is not a benchmark name"),
])
def test_bad_run_entries(setup: tuple[Path, dict[str, str]], entry: str, fragment: str) -> None:
    config, env = setup
    _assert_clear_error(run_cli("-c", str(config), "run", entry, env=env), fragment)


def test_missing_dataset_file_names_file_and_publisher(setup: tuple[Path, dict[str, str]], data_root: Path) -> None:
    config, env = setup
    (data_root / "pubmedqa" / "ori_pqal.json").unlink()
    _assert_clear_error(run_cli("-c", str(config), "run", ENTRY, env=env),
                        "pubmedqa/ori_pqal.json is missing", "github.com/pubmedqa/pubmedqa")


def test_changed_dataset_file_fails_its_checksum(setup: tuple[Path, dict[str, str]], data_root: Path) -> None:
    config, env = setup
    path = data_root / "pubmedqa" / "ori_pqal.json"
    path.write_bytes(path.read_bytes()[:-100])
    _assert_clear_error(run_cli("-c", str(config), "run", ENTRY, env=env), "sha256 differs")


def test_unreachable_endpoint(tmp_path: Path, data_root: Path, kek_file: Path) -> None:
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": f"http://127.0.0.1:{_closed_port()}/v1"}})
    result = run_cli("-c", str(config), "run", ENTRY, env={"MEDHELM_KEK_FILE": str(kek_file)})
    _assert_clear_error(result, "nothing answered", code=3)


def test_missing_and_wrong_key_leave_the_store_untouched(setup: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    config, env = setup
    assert run_cli("-c", str(config), "run", ENTRY, "-m", "3", "-q", env=env).returncode == 0
    store = tmp_path / "results" / "default.duckdb"
    before = (_digest(store), _digest(store.with_name(store.name + ".key")))
    _assert_clear_error(run_cli("-c", str(config), "runs", "list"), "no key-encryption key")
    other = tmp_path / "other-kek"
    write_new_kek(other)
    _assert_clear_error(run_cli("-c", str(config), "run", ENTRY, "-m", "3", env={"MEDHELM_KEK_FILE": str(other)}),
                        "sealed with another key-encryption key")
    assert (_digest(store), _digest(store.with_name(store.name + ".key"))) == before


def test_malformed_key_file(setup: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    config, _ = setup
    bad = tmp_path / "bad-kek"
    bad.write_text("not a key\n")
    bad.chmod(0o600)
    _assert_clear_error(run_cli("-c", str(config), "run", ENTRY, env={"MEDHELM_KEK_FILE": str(bad)}),
                        "not 32 bytes")


def test_unencrypted_or_foreign_store_files_are_refused_and_kept(
        setup: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    config, env = setup
    plain = tmp_path / "plain.duckdb"
    duckdb.connect(str(plain)).execute("CREATE TABLE t AS SELECT 42 AS x").close()
    notes = tmp_path / "notes.duckdb"
    notes.write_text("clinic notes, not a database\n")
    for path, fragment in [(notes, "not a DuckDB database"), (plain, "key envelope is missing")]:
        before = _digest(path)
        _assert_clear_error(run_cli("-c", str(config), "run", ENTRY, "--store", str(path), env=env), fragment)
        assert _digest(path) == before


@pytest.mark.parametrize("text, fragment", [
    ("data_rot = '/x'\n", "setting 'data_rot' is invalid: unknown setting"),
    ("[deployments.x]\nbase_url = 'ftp://host'\n", "deployments.x.base_url"),
    ("[deployments.x\n", "not valid TOML"),
    ("[deployments.x]\nbase_url = 'http://h:1/v1'\nmax_concurrency = 0\n", "max_concurrency"),
])
def test_config_that_does_not_validate(tmp_path: Path, kek_file: Path, text: str, fragment: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text)
    result = run_cli("-c", str(config), "run", ENTRY, env={"MEDHELM_KEK_FILE": str(kek_file)})
    _assert_clear_error(result, fragment, str(config))


def test_missing_config_file(tmp_path: Path) -> None:
    _assert_clear_error(run_cli("-c", str(tmp_path / "absent.toml"), "runs", "list"), "does not exist")


def test_every_command_has_useful_help() -> None:
    for command in (["--help"], ["run", "--help"], ["runs", "list", "--help"], ["show", "--help"],
                    ["doctor", "--help"], ["keys", "init", "--help"], ["keys", "rotate", "--help"],
                    ["data", "import", "--help"]):
        result = run_cli(*command)
        assert result.returncode == 0 and "Usage:" in result.stdout
        assert len(result.stdout.split()) > 25, f"{command} help is too thin"

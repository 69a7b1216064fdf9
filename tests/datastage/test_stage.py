"""`data stage` against a real HTTP server on 127.0.0.1 that serves the published files at their paths."""

from __future__ import annotations

import json
import socket
import ssl
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.mirror_server import Mirror, serve_mirror
from support.staging import mirror_folders, served_plan
from support.tls import self_signed

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.data import download
from medhelm_local.data.stage import DATA_BUNDLE_FORMAT, stage, work_folder
from medhelm_local.errors import ConfigError, DataStageError, EgressRefusedError, IntegrityError
from medhelm_local.export.bundle import verify_unsigned

# Small and large files, one folder with many: enough to show each behaviour without staging 30 MB each time.
FOLDERS = ["ehrsql_eicu", "medcalc_bench", "pubmedqa"]


@pytest.fixture
def mirror() -> Iterator[Mirror]:
    with serve_mirror(mirror_folders()) as running:
        yield running


def allow(mirror: Mirror) -> Allowlist:
    return Allowlist([("127.0.0.1", mirror.port)])


def test_staging_writes_one_bundle_of_published_folders_with_sources_and_licences(
        mirror: Mirror, tmp_path: Path) -> None:
    plan = served_plan(mirror.url, FOLDERS)

    result = stage(plan, tmp_path / "bundle", allow(mirror))

    bundle = tmp_path / "bundle"
    assert result.files == plan.file_count and result.signing_key_id is None
    for source in plan.sources:
        for f in source.files:
            staged = bundle / "datasets" / source.folder / f.name
            assert staged.read_bytes() == (mirror.folders[source.folder] / f.name).read_bytes()
    manifest = json.loads((bundle / "MANIFEST.json").read_text())
    assert manifest["format"] == DATA_BUNDLE_FORMAT
    assert sorted(manifest["datasets"]) == FOLDERS
    medcalc = manifest["datasets"]["medcalc_bench"]
    assert medcalc["licence"] == "CC BY-SA 4.0"
    assert medcalc["repository"] == "https://github.com/adittyashrivastava/MedCalc-Bench"
    assert medcalc["files"]["test_data.csv"]["path"] == "dataset/test_data.csv"
    assert {g["benchmark"] for g in manifest["gated"]} == set()
    assert verify_unsigned(bundle).ok
    assert not work_folder(bundle).exists()
    modes = {stat.S_IMODE(p.stat().st_mode) for p in bundle.rglob("*")}
    assert modes <= {0o600, 0o700}, "a staged file or folder is readable by others"


def test_a_file_corrupted_in_transit_stops_the_staging_naming_it_and_leaves_nothing(
        mirror: Mirror, tmp_path: Path) -> None:
    plan = served_plan(mirror.url, FOLDERS)
    mirror.faults.corrupt.add("medcalc_bench/test_data.csv")

    with pytest.raises(IntegrityError) as caught:
        stage(plan, tmp_path / "bundle", allow(mirror))

    assert "medcalc_bench/test_data.csv does not match the checksum shipped with medhelm-local" in caught.value.what
    assert caught.value.exit_code == 4
    assert list(tmp_path.iterdir()) == []  # no bundle, no partial folder


def test_a_dropped_connection_resumes_from_the_bytes_already_received(mirror: Mirror, tmp_path: Path) -> None:
    plan = served_plan(mirror.url, ["medcalc_bench"])
    mirror.faults.drop_after["medcalc_bench/test_data.csv"] = 40_000

    stage(plan, tmp_path / "bundle", allow(mirror))

    asked = [rng for path, rng in mirror.faults.requests if path == "medcalc_bench/test_data.csv"]
    assert asked == [None, "bytes=40000-"]
    staged = tmp_path / "bundle" / "datasets" / "medcalc_bench" / "test_data.csv"
    assert staged.read_bytes() == (mirror.folders["medcalc_bench"] / "test_data.csv").read_bytes()


def test_a_missing_file_is_a_clear_error_and_a_rerun_fetches_only_what_is_left(
        mirror: Mirror, tmp_path: Path) -> None:
    plan = served_plan(mirror.url, FOLDERS)
    last = f"{plan.sources[-1].folder}/{plan.sources[-1].files[-1].name}"  # fetched last with one at a time
    mirror.faults.missing.add(last)

    with pytest.raises(DataStageError) as caught:
        stage(plan, tmp_path / "bundle", allow(mirror), concurrency=1)

    assert f"{last} is not at its published location (HTTP 404)" in caught.value.what
    assert caught.value.where == f"{mirror.url}/{last}"
    assert not (tmp_path / "bundle").exists()
    mirror.faults.missing.clear()
    mirror.faults.requests.clear()

    stage(plan, tmp_path / "bundle", allow(mirror), concurrency=1)

    fetched_again = {path for path, _ in mirror.faults.requests}
    assert fetched_again == {last}
    assert verify_unsigned(tmp_path / "bundle").ok


def test_a_host_off_the_allowlist_is_refused_before_a_socket_opens(mirror: Mirror, tmp_path: Path) -> None:
    plan = served_plan(mirror.url, ["pubmedqa"])

    with pytest.raises(EgressRefusedError):
        stage(plan, tmp_path / "bundle", Allowlist([("127.0.0.1", mirror.port + 1)]))

    assert mirror.faults.requests == []
    assert not (tmp_path / "bundle").exists()


def test_an_existing_bundle_is_never_overwritten(mirror: Mirror, tmp_path: Path) -> None:
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / "keep.txt").write_text("mine")

    with pytest.raises(ConfigError, match="exists and is not empty"):
        stage(served_plan(mirror.url, ["pubmedqa"]), tmp_path / "bundle", allow(mirror))

    assert (tmp_path / "bundle" / "keep.txt").read_text() == "mine"
    assert mirror.faults.requests == []


def test_a_host_whose_certificate_is_not_trusted_is_named_as_such(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A staging host behind a TLS-intercepting proxy sees a certificate nobody it trusts signed: the error
    says so, not that nothing answered."""
    monkeypatch.setattr(download, "RETRIES", 0)
    context = self_signed(tmp_path)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]

    def handshake() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            try:
                context.wrap_socket(conn, server_side=True).close()
            except (ssl.SSLError, OSError):
                conn.close()

    threading.Thread(target=handshake, daemon=True).start()
    try:
        with pytest.raises(DataStageError) as caught:
            stage(served_plan(f"https://127.0.0.1:{port}", ["pubmedqa"]), tmp_path / "bundle",
                  Allowlist([("127.0.0.1", port)]))
    finally:
        listener.close()
    assert "TLS handshake with 127.0.0.1" in caught.value.what
    assert "intercepts TLS" in caught.value.what and "nothing answered" not in caught.value.what


def test_a_host_that_does_not_answer_is_a_clear_error_and_keeps_what_arrived(
        mirror: Mirror, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(download, "RETRIES", 1)
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]  # closed again before the staging runs: nothing listens there
    plan = served_plan(f"http://127.0.0.1:{port}", ["pubmedqa"])

    with pytest.raises(DataStageError) as caught:
        stage(plan, tmp_path / "bundle", Allowlist([("127.0.0.1", port)]))

    assert "could not be fetched after 2 tries (nothing answered at the host)" in caught.value.what
    assert "run the same command again" in str(caught.value.fix)
    assert work_folder(tmp_path / "bundle").is_dir() and not (tmp_path / "bundle").exists()

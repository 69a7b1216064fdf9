"""`redact scan|apply` through Typer (exit codes and messages) and through the installed CLI."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import typer
from conftest import run_cli
from typer.testing import CliRunner

from medhelm_local.cli import redact_cmd
from medhelm_local.redact import RedactionInputError
from medhelm_local.settings import Settings, load_settings


def app() -> typer.Typer:
    """A Typer app carrying only the redact group, registered as cli/main.py does."""
    root = typer.Typer()

    @root.callback()
    def _root() -> None:
        pass

    def settings_from(ctx: typer.Context, **overrides: Any) -> Settings:
        return load_settings(None, **overrides)

    redact_cmd.register(root, settings_from)
    return root


def test_scan_and_apply_through_typer(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 1, "text": "WIFE MARY KOWALSKI AT 617-555-1234."}) + "\n")
    runner = CliRunner()
    result = runner.invoke(app(), ["redact", "scan", "--input", str(source), "--output", str(tmp_path / "s.jsonl")])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "s.jsonl").read_text())["spans"][0] == {"start": 5, "end": 18, "type": "NAME"}
    result = runner.invoke(app(), ["redact", "apply", "-i", str(source), "-o", str(tmp_path / "a.jsonl"),
                                   "--style", "mask"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "a.jsonl").read_text())["text"] == "WIFE [NAME] AT [PHONE]."
    result = runner.invoke(app(), ["redact", "apply", "-i", str(source), "-o", str(tmp_path / "b.jsonl"),
                                   "--style", "blur"])
    assert result.exit_code == 2 and "not a style" in result.output


def test_malformed_input_raises_the_library_error(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"id": 1, "text": "ok"}\nnot json\n')
    result = CliRunner().invoke(app(), ["redact", "scan", "-i", str(source), "-o", str(tmp_path / "o.jsonl")])
    assert isinstance(result.exception, RedactionInputError)
    assert "line 2 is not valid JSON" in str(result.exception)
    assert not (tmp_path / "o.jsonl").exists()


def test_installed_cli_exit_codes_and_messages(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"id": "a", "text": "Seen by Dr. Nguyen on 7/22."}) + "\n")
    done = run_cli("redact", "scan", "--input", str(good), "--output", str(tmp_path / "out.jsonl"))
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out.jsonl").read_text())["spans"] == [
        {"start": 12, "end": 18, "type": "NAME"}, {"start": 22, "end": 26, "type": "DATE"}]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"id": 1, "text": "ok"}\n{"id": 2, "text": "\xff"}\n')
    failed = run_cli("redact", "apply", "--input", str(bad), "--output", str(tmp_path / "red.jsonl"))
    assert failed.returncode == 2
    assert "line 2 is not valid UTF-8" in failed.stderr and "Traceback" not in failed.stderr
    assert not (tmp_path / "red.jsonl").exists()


def _special(kind: str, path: Path, target: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":  # a private copy of /dev/null's device, so the old behaviour could not harm /dev
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    else:
        path.symlink_to(target)


@pytest.mark.parametrize("kind", ["fifo", "device", "symlink", "dangling symlink"])
def test_apply_onto_a_fifo_device_or_symlink_is_refused_and_leaves_it_as_it_was(tmp_path: Path, kind: str) -> None:
    """Issue 29, finding 8: `redact apply --output` onto a FIFO, device or symlink replaced it with a regular
    file and said success."""
    if kind == "device" and os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 1, "text": "Call Mr. Przybylski at (617) 555-0143."}) + "\n")
    target = tmp_path / "elsewhere.jsonl"
    if kind == "symlink":
        target.write_text("keep me\n")
    output = tmp_path / "out.jsonl"
    _special(kind.split()[-1], output, target)
    before = os.lstat(output)
    for command in ("apply", "scan"):
        done = run_cli("redact", command, "-i", str(source), "-o", str(output))
        said = " ".join(done.stderr.split())
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert "not a regular file, so nothing is written there" in said and f"--output {output}" in said
    after = os.lstat(output)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)  # the same FIFO, device or link
    assert not target.exists() or target.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.jsonl", "out.jsonl"] + (
        ["elsewhere.jsonl"] if kind == "symlink" else []))  # no temporary file left
    regular = tmp_path / "regular.jsonl"  # an existing regular file is still replaced, as before
    regular.write_text("old\n")
    done = run_cli("redact", "apply", "-i", str(source), "-o", str(regular))
    assert done.returncode == 0 and "Przybylski" not in regular.read_text()

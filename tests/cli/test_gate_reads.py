"""What decides what may leave is read in one place: a command that needs the KEK, the policy and the audit log
(export, review, `policy approve`, `redact store`) takes them from export/inputs.py's `gate_inputs`, never reads
them itself (so it cannot read a second policy, or open the log under another one)."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "medhelm_local" / "cli"
GATE_READS = {"load_kek", "load_policy", "audit_log_for"}


def _called(function: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            names.add(node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", ""))
    return names


def _imported_as(tree: ast.AST) -> dict[str, str]:
    """Local name -> the function it is (`load_policy as load_export_policy` is still load_policy)."""
    return {alias.asname or alias.name: alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            for alias in node.names}


def test_no_command_reads_the_gates_inputs_itself() -> None:
    offenders = []
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        names = _imported_as(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and not any(
                    isinstance(inner, ast.FunctionDef) for inner in ast.walk(node) if inner is not node):
                reads = {names.get(n, n) for n in _called(node)} & GATE_READS
                if reads == GATE_READS:
                    offenders.append(f"{path.name}:{node.lineno} {node.name}")
    assert not offenders, f"read the KEK, policy and audit log with export.inputs.gate_inputs: {offenders}"


def test_the_commands_of_the_gate_use_gate_inputs() -> None:
    for name, command in (("policy_cmd.py", "approve"), ("redact_cmd.py", "store"), ("review_cmd.py", None)):
        tree = ast.parse((CLI / name).read_text("utf-8"))
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == (command or n.name)]
        assert any("gate_inputs" in _called(f) for f in functions), f"{name} {command or ''}"

"""Installation checks behind `medhelm-local doctor`: is this appliance ready to run? Each check says
what is wrong and what to do. Endpoints are probed through the same client runs use."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from medhelm_local.client.completions import ModelClient
from medhelm_local.client.engines import model_offered, offers_tokenize
from medhelm_local.client.loop import run as run_loop
from medhelm_local.errors import MedhelmError
from medhelm_local.policy.egress_allowlist import allowlist_for
from medhelm_local.scenarios import DataRoot
from medhelm_local.scenarios.catalog import benchmark_status
from medhelm_local.settings import Settings
from medhelm_local.store.database import open_store
from medhelm_local.store.extension import httpfs_extension
from medhelm_local.store.keys import Kek, load_kek


@dataclass(frozen=True)
class Check:
    """One check's outcome."""

    name: str
    ok: bool
    detail: str
    note: bool = False  # informational: not a failure (e.g. a benchmark whose data is not imported)


def _try(name: str, fn: Callable[[], str]) -> Check:
    try:
        return Check(name, True, fn())
    except MedhelmError as exc:
        return Check(name, False, exc.message)


def _store_roundtrip(kek: Kek) -> str:
    with tempfile.TemporaryDirectory(prefix="medhelm-doctor-") as tmp:
        path = Path(tmp) / "check.duckdb"
        handle = open_store(path, kek, create=True)
        handle.close()
        handle = open_store(path, kek, read_only=True)
        handle.close()
    return "created, closed and reopened an AES-GCM encrypted store; spill files encrypted"


def _deployment(settings: Settings, name: str) -> str:
    dep = settings.deployments[name]
    allowlist = allowlist_for(settings)
    allowlist.require(name, dep)

    async def probe() -> list[str]:
        client = ModelClient(dep.model_copy(update={"timeout_s": min(dep.timeout_s, 10.0)}), dep.model or name,
                             allowlist, concurrency=1)
        try:
            return await client.check_reachable()
        finally:
            await client.aclose()

    models = run_loop(probe())
    offered = dep.model is None or model_offered(dep.model, models, dep.engine)
    note = "" if offered else f"; configured model {dep.model!r} is NOT offered"
    tokens = "" if offers_tokenize(dep.engine) else "; no /tokenize on this engine: long prompts are sent whole"
    reasoning = f"; reasoning model (+{dep.reasoning_budget} tokens a request)" if dep.reasoning else ""
    return (f"{dep.base_url} answers ({dep.engine}, {dep.api} API), models: {', '.join(models) or 'none'}"
            f"{note}{tokens}{reasoning}")


def _jury(settings: Settings, name: str) -> str:
    from medhelm_local.annotate.jury import resolve_jury

    jury = resolve_jury(settings, allowlist_for(settings), name)
    judges = ", ".join(f"{j.name} ({j.model}, {j.concurrency} in flight)" for j in jury.judges) if jury else "none"
    return f"judges {judges}" + ("; the default jury" if settings.jury == name else "")


def _installation_check() -> Check:
    """Where the audit log is and which policy IT installed; a development set-up is a note, not a fault."""
    from medhelm_local.installation import installation

    try:
        found = installation()
    except MedhelmError as exc:
        return Check("installation", False, exc.message)
    return Check("installation", True, found.describe(), note=found.file is None)


def run_checks(get_settings: Callable[[], Settings]) -> tuple[list[Check], Settings | None]:
    """Every check, in order; settings are None when they do not load."""
    checks = [Check("python", sys.version_info >= (3, 11), sys.version.split()[0]),
              _try("duckdb + httpfs",
                   lambda: f"duckdb {duckdb.__version__}, extension {httpfs_extension().describe()}")]
    try:
        settings = get_settings()
    except MedhelmError as exc:
        return [*checks, Check("settings", False, exc.message)], None
    checks.append(Check("settings", True, f"{len(settings.deployments)} deployment(s), data root {settings.data_root}"))
    checks.append(_installation_check())
    kek_check = _try("key-encryption key",
                     lambda: f"{load_kek(settings).source}, fingerprint {load_kek(settings).fingerprint}")
    checks.append(kek_check)
    if kek_check.ok:
        checks.append(_try("encrypted store", lambda: _store_roundtrip(load_kek(settings))))
    absent = []
    for row in benchmark_status(DataRoot(settings.data_root)):
        if row.data == "present":
            checks.append(Check(f"data: {row.name}", True, f"{row.instances} instances, checksums ok"))
        elif row.data == "missing":
            absent.append(row.name)
        else:  # present but changed or unreadable: that is a fault, not a choice
            checks.append(Check(f"data: {row.name}", False, row.problem or "invalid"))
    if absent:
        checks.append(Check("data: not imported", True, f"{', '.join(absent)} (import with `medhelm-local data "
                            "import FOLDER`; `benchmarks show NAME` says which files)", note=True))
    for name in sorted(settings.deployments):
        checks.append(_try(f"deployment: {name}", lambda n=name: _deployment(settings, n)))  # type: ignore[misc]
    for name in sorted(settings.juries):  # judges configured and listed for judging (their servers: above)
        checks.append(_try(f"jury: {name}", lambda n=name: _jury(settings, n)))  # type: ignore[misc]
    if settings.jury is not None and settings.jury not in settings.juries:
        checks.append(Check("jury", False, f"the jury setting names '{settings.jury}', which is not declared "
                                           "under [juries]"))
    return checks, settings

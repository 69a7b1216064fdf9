"""A hostile EHRSQL answer is a wrong answer, never a crash: memory, value size and result size are bounded.

Each answer is scored in a child process whose address space is capped (as a small scoring host
would be), so a query that tried to pull gigabytes into memory shows up as a failure here instead
of exhausting the test machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import REPO

ADDRESS_SPACE = 2 << 30
PEAK_MB = 450  # SQLite's heap limit (256 MB) plus the interpreter and the result cap
CHILD = textwrap.dedent("""
    import json, resource, sqlite3, sys
    from types import MappingProxyType
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
    from medhelm_local.metrics.registry import ScoringContext, get
    from medhelm_local.metrics.scoring import score_answer
    from medhelm_local.records import Instance, Reference
    db, answer = sys.argv[1], sys.argv[2]
    conn = sqlite3.connect(db)
    conn.executescript(open({schema!r}).read())
    conn.execute("insert into patient (uniquepid, patienthealthsystemstayid, patientunitstayid, gender, age, "
                 "hospitalid, wardid, hospitaladmittime, hospitaladmitsource, unitadmittime) values "
                 "('002-1', 1, 1, 'female', '70', 1, 1, '2105-01-01', 'er', '2105-01-01')")
    conn.commit(); conn.close()
    extra = MappingProxyType({{"is_impossible": "false", "template": "", "value": "{{}}"}})
    item = Instance("q1", "", (Reference("select count(*) from patient"),), extra=extra)
    names = ["ehr_sql_execution_accuracy", "ehr_sql_query_validity", "helm_ehr_sql_execution_accuracy",
             "helm_ehr_sql_query_validity"]
    scores = score_answer(item, answer, [get(n) for n in names], ScoringContext(args={{"db": db}}))
    # This process's own peak (VmHWM): ru_maxrss would also count the pytest process it was forked from.
    peak_mb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM")) // 1024
    print(json.dumps({{"peak_mb": peak_mb, "scores": {{s.metric: [s.value, s.error] for s in scores}}}}))
""").format(limit=ADDRESS_SPACE, schema=str(REPO / "tests" / "data" / "datasets" / "ehrsql_eicu" / "eicu.sql"))

HOSTILE = {
    # 5,000 rows of 1 MB each: 5 GB if fetched whole.
    "blob_rows": "with recursive r(n, b) as (select 1, randomblob(1000000) union all "
                 "select n + 1, randomblob(1000000) from r where n < 5000) select b from r",
    # UNION keeps every row seen in memory inside SQLite: it grows until something stops it.
    "growing_union": "with recursive r(n, b) as (select 1, randomblob(20000) union "
                     "select n + 1, randomblob(20000) from r) select count(*) from r",
    # One value far past any real one.
    "one_huge_value": "select randomblob(300000000)",
    "huge_string": "select group_concat(b) from (with recursive r(n, b) as (select 1, hex(randomblob(500000)) "
                   "union all select n + 1, hex(randomblob(500000)) from r where n < 300) select b from r)",
}


@pytest.mark.parametrize("answer", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_query_scores_zero_in_bounded_memory_and_time(tmp_path: Path, answer: str) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "eicu.sqlite"), answer],
                          capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    scores = found["scores"]
    assert scores == {name: [0.0, None] for name in scores}, scores  # wrong answers, not failures
    assert len(scores) == 4
    assert found["peak_mb"] < PEAK_MB
    assert time.monotonic() - started < 60

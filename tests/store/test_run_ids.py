"""Run ids as users type them: a whole id, or a beginning that names one run; an ambiguous one lists them."""

from __future__ import annotations

import duckdb
import pytest

from medhelm_local.errors import RunEntryError
from medhelm_local.store.run_ids import (
    matching_run_ids,
    resolve_run_id,
    resolve_run_ids,
    shortest_unique_prefixes,
)

IDS = ["med_qa-local_m-aaaa11112222", "med_qa-local_m-aaab33334444", "pubmed_qa-local_m-0123456789ab",
       "pubmed_qa-local_m-0123456789ab-x"]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute("CREATE TABLE runs (run_id VARCHAR)")
    connection.executemany("INSERT INTO runs VALUES (?)", [[i] for i in IDS])
    return connection


def test_a_unique_beginning_names_its_run_and_a_whole_id_wins_over_longer_ones(
        con: duckdb.DuckDBPyConnection) -> None:
    assert resolve_run_id(con, "med_qa-local_m-aaab") == IDS[1]
    assert resolve_run_id(con, IDS[2]) == IDS[2], "a whole id is never ambiguous, even as another's prefix"
    assert resolve_run_ids(con, ["med_qa-local_m-aaaa", IDS[0], "pubmed_qa-local_m-0123456789ab-"]) == [IDS[0], IDS[3]]
    assert matching_run_ids("", IDS) == [], "an empty id names nothing"


def test_an_ambiguous_or_unknown_beginning_is_an_error_listing_the_runs(con: duckdb.DuckDBPyConnection) -> None:
    with pytest.raises(RunEntryError) as raised:
        resolve_run_id(con, "med_qa", where="--run")
    assert "begins 2 run ids" in raised.value.message and IDS[0] in raised.value.message
    assert IDS[1] in raised.value.message and raised.value.where == "--run" and "type more" in (raised.value.fix or "")
    with pytest.raises(RunEntryError, match="no run id in this store"):
        resolve_run_id(con, "ehr_sql")


def test_the_shortest_unique_prefix_is_enough_to_name_each_run(con: duckdb.DuckDBPyConnection) -> None:
    prefixes = shortest_unique_prefixes(IDS[:3])
    assert prefixes == {IDS[0]: "med_qa-local_m-aaaa", IDS[1]: "med_qa-local_m-aaab", IDS[2]: "pubm"}
    for run_id, prefix in prefixes.items():
        assert matching_run_ids(prefix, IDS[:3]) == [run_id]

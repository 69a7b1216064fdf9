"""Run ids as a user types them: the whole id, or any prefix of it that names one run.

Every command that takes a run id (`show`, `export`, `judge --run`, `judge validate --run`) resolves it here,
so a prefix means the same thing everywhere and an ambiguous one always lists the runs it could be.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import duckdb

from medhelm_local.errors import RunEntryError

SHOWN = 8  # candidates listed in an ambiguity error; the rest are counted
FIND_IDS = "list run ids with `medhelm-local runs list`"
# Where a caller sees the ids whole: the CLI's table by default; a library caller passes its own (`.runs()`).
WHOLE_IDS = "`medhelm-local runs list` shows them whole"


def matching_run_ids(typed: str, known: Iterable[str]) -> list[str]:
    """The ids `typed` may mean: itself when it is a whole id, else every id it begins (sorted)."""
    ids = set(known)
    if typed in ids:
        return [typed]  # a whole id wins even when it is also the prefix of a longer one
    return sorted(i for i in ids if typed and i.startswith(typed))


def ambiguous(typed: str, candidates: Sequence[str], where: str, whole: str = WHOLE_IDS) -> RunEntryError:
    """The error for a prefix that names more than one run, listing them (`whole`: where to see the ids whole)."""
    listed = ", ".join(candidates[:SHOWN]) + (f" and {len(candidates) - SHOWN} more" if len(candidates) > SHOWN else "")
    return RunEntryError(f"'{typed}' begins {len(candidates)} run ids: {listed}", where=where,
                         fix=f"type more of the id, up to where it differs ({whole})")


def one_run_id(typed: str, candidates: Sequence[str], where: str, whole: str = WHOLE_IDS) -> str | None:
    """The single id among `candidates`, None when there is none, or an error naming them all."""
    if len(candidates) > 1:
        raise ambiguous(typed, candidates, where, whole)
    return candidates[0] if candidates else None


def stored_run_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every run id in a store."""
    return [row[0] for row in con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]


def resolve_run_id(con: duckdb.DuckDBPyConnection, typed: str, where: str = "store", find_ids: str = FIND_IDS,
                   whole: str = WHOLE_IDS) -> str:
    """The whole id of the run `typed` names in this store, or an error saying what to type (`find_ids`, `whole`:
    how the caller lists the ids, for a library caller that has no command line)."""
    found = one_run_id(typed, matching_run_ids(typed, stored_run_ids(con)), where, whole)
    if found is None:
        raise RunEntryError(f"no run id in this store is or begins with '{typed}'", where=where, fix=find_ids)
    return found


def resolve_run_ids(con: duckdb.DuckDBPyConnection, typed: Sequence[str], where: str = "store") -> list[str]:
    """Each typed id or prefix resolved in one store (in the order given, duplicates dropped)."""
    known = stored_run_ids(con)
    resolved = []
    for text in typed:
        found = one_run_id(text, matching_run_ids(text, known), where)
        if found is None:
            raise RunEntryError(f"no run id in this store is or begins with '{text}'", where=where, fix=FIND_IDS)
        resolved.append(found)
    return list(dict.fromkeys(resolved))


def shortest_unique_prefixes(ids: Sequence[str], floor: int = 4) -> dict[str, str]:
    """For each id, the shortest prefix (at least `floor` characters) that begins no other id."""
    ordered = sorted(set(ids))
    found = {}
    for index, run_id in enumerate(ordered):
        shared = 0
        for neighbour in ordered[max(index - 1, 0):index] + ordered[index + 1:index + 2]:
            common = next((n for n, (a, b) in enumerate(zip(run_id, neighbour, strict=False)) if a != b),
                          min(len(run_id), len(neighbour)))
            shared = max(shared, common)
        found[run_id] = run_id[:max(floor, shared + 1)]
    return found

"""Run entries resolved against settings, the egress allowlist and the data, before anything is sent.

Planning checks every entry (benchmark and arguments, deployment on the egress allowlist, data
files against their checksums) and reads every instance once without keeping it: a malformed row
or a repeated id stops the command here, naming the row, before a store is written. What it keeps
is small: the instance count, the length of the longest record (which sizes the store's memory,
`store_memory_for`) and, with `--max-eval-instances N`, the N instances of the seeded sample (by a
keyed hash of each id, so a larger N later extends the same sample).
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from medhelm_local.errors import ConfigError, DeploymentError
from medhelm_local.policy.egress_allowlist import PolicyAllowlist, allowlist_for
from medhelm_local.run.entries import RunEntry
from medhelm_local.scenarios import Benchmark, DataRoot, create
from medhelm_local.scenarios.data_read import DataRead
from medhelm_local.scenarios.registry import CONFIGURABLE
from medhelm_local.settings import Deployment, Settings
from medhelm_local.store.memory import text_memory_mb
from medhelm_local.store.suites import check_suite_name

SELECTION_SEED = "medhelm-local/sample/v2"


def sample_rank(instance_id: str) -> bytes:
    """An instance's place in the seeded sample order (smaller comes first)."""
    return hashlib.sha256(f"{SELECTION_SEED}\0{instance_id}".encode()).digest()[:8]


@dataclass(frozen=True)
class Shard:
    """One of N disjoint parts of every run: instance ids are split by a hash, so any N covers each once."""

    index: int
    count: int

    def holds(self, instance_id: str) -> bool:
        """True when this shard evaluates the instance."""
        digest = hashlib.sha256(f"shard\0{instance_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`I/N`, with 0 <= I < N."""
        index, sep, count = text.partition("/")
        if not sep or not index.isdigit() or not count.isdigit() or not 0 <= int(index) < int(count):
            raise ConfigError(f"--shard {text!r} is not I/N with 0 <= I < N", where="--shard",
                              fix="write e.g. --shard 0/3 for the first of three shards")
        return cls(int(index), int(count))

    @property
    def label(self) -> str:
        """How stores and logs name the shard."""
        return f"shard-{self.index}-of-{self.count}"


@dataclass
class PlannedRun:
    """A run entry resolved against settings and data, ready to execute."""

    entry: RunEntry
    run_id: str
    benchmark: Benchmark
    deployment: Deployment
    data: DataRoot
    total: int  # instances this invocation evaluates (after sampling and sharding)
    sample: list[str] | None  # with --max-eval-instances: the sample's ids in sample order (a prefix is used)
    limit: int | None
    shard: Shard | None = None
    longest: int = 0  # bytes of the longest text (input, reference, card field) among the benchmark's instances
    data_read: DataRead | None = None  # the files planning read (sha256 of each) and whether they are published

    @property
    def model_name(self) -> str:
        """The model name the server knows."""
        return self.deployment.model or self.entry.model


def deployment_for(settings: Settings, entry: RunEntry) -> Deployment:
    """The configured deployment a run entry names."""
    try:
        return settings.deployments[entry.deployment]
    except KeyError:
        known = ", ".join(sorted(settings.deployments)) or "none configured"
        raise DeploymentError(
            f"no model deployment is called '{entry.deployment}'", where=f"run entry {entry.canonical!r}",
            fix=f"use one of: {known}; or add [deployments.{entry.deployment}] with base_url to your config file",
        ) from None


Survey = tuple[int, list[str] | None, int, DataRead]


def _survey(benchmark: Benchmark, data: DataRoot, limit: int | None, shard: Shard | None) -> Survey:
    """Read every instance once (checking the data), keeping only the count, the longest record's
    length in bytes, the sample's ids and what was read (each file's sha256).

    The sample is drawn over all instances, then a shard keeps its part of it: the shards of one
    suite together evaluate exactly the sample an unsharded run would.
    """
    held = longest = 0
    heap: list[tuple[bytes, str]] = []  # the `limit` smallest ranks, as a max-heap by negated rank
    read, instances = benchmark.reading(data)
    for instance in instances:
        held += shard is None or shard.holds(instance.id)
        for text in (instance.input, *(r.text for r in instance.references),
                     *(v for v in instance.extra.values() if isinstance(v, str))):  # a card's fields
            if len(text) * 4 > longest:  # only a text that could be the longest is encoded (UTF-8: <= 4 bytes)
                longest = max(longest, len(text.encode()))
        if limit is not None:
            rank = bytes(255 - b for b in sample_rank(instance.id))
            if len(heap) < limit:
                heapq.heappush(heap, (rank, instance.id))
            elif rank > heap[0][0]:
                heapq.heapreplace(heap, (rank, instance.id))
    if limit is None:
        return held, None, longest, read
    ordered = [instance_id for _, instance_id in sorted(heap, reverse=True)]
    mine = [i for i in ordered if shard is None or shard.holds(i)]
    return len(mine), ordered, longest, read


# A store holds a vector of VECTOR_ROWS of its longest text at once (store/memory.py), and a run's checkpoints
# need room for two, so a store of long texts is opened with a limit that grows with its longest text; the
# floor (store/memory.py STREAMING) covers typical notes. Stores of short texts (most multiple-choice runs)
# take less, which lowers a long run's peak memory. tests/store/test_writer.py holds each bound at the edge it
# was set; docs/performance.md has the sizes that failed and passed.
_RUN_MEMORY_MB = 64
SHORT_TEXTS: tuple[tuple[int, str], ...] = ((9 << 10, "32MB"), (12 << 10, "40MB"))  # (longest text, memory)
_PROMPT_MARGIN = 8 << 10  # a prompt is its record plus the template and any few-shot examples
_BYTES_PER_TOKEN = 4  # an answer of max_tokens tokens, as text


def longest_text(planned: Sequence[PlannedRun]) -> int:
    """Bytes of the longest text the runs will store: a record with its prompt, or an answer of max_tokens."""
    return max((max(p.longest + _PROMPT_MARGIN, p.benchmark.answer_tokens * _BYTES_PER_TOKEN) for p in planned),
               default=0)


def store_memory_for(planned: Sequence[PlannedRun]) -> str | None:
    """The DuckDB memory limit the runs' store needs when it is not a run's floor (None): less for short texts,
    else room for two vectors of 2,048 of the longest text it will hold."""
    longest = longest_text(planned)
    for bound, memory in SHORT_TEXTS:
        if longest <= bound:
            return memory
    needed = 2 * text_memory_mb(longest)
    return None if needed <= _RUN_MEMORY_MB else f"{needed}MB"


def plan(settings: Settings, entries: Sequence[RunEntry], suite: str, max_eval_instances: int | None,
         shard: Shard | None = None, allowlist: PolicyAllowlist | None = None) -> list[PlannedRun]:
    """Check every entry before anything is written or sent; see the module docstring."""
    data = DataRoot(settings.data_root)
    allowlist = allowlist or allowlist_for(settings)
    planned = []
    surveyed: dict[tuple[str, tuple[tuple[str, str], ...]], Survey] = {}
    for entry in entries:
        benchmark = create(entry.scenario, entry.args)
        if entry.scenario == CONFIGURABLE:
            # MedHELM's configurable benchmarks are told apart by their config's name: the run (its id, its
            # results) is named for it, and the stored entry `NAME:config_path=...` reads the same config.
            entry = replace(entry, scenario=benchmark.name)
        deployment = deployment_for(settings, entry)
        allowlist.require(entry.deployment, deployment)
        # One reading per benchmark: a suite's models share its instances and sample.
        key = (entry.scenario, tuple(sorted(entry.args.items())))
        if key not in surveyed:
            surveyed[key] = _survey(benchmark, data, max_eval_instances, shard)
        total, sample, longest, read = surveyed[key]
        planned.append(PlannedRun(entry, entry.run_id(suite), benchmark, deployment, data, total, sample,
                                  max_eval_instances, shard, longest, read))
    return planned


def store_path_for(settings: Settings, suite: str, store: Path | None, shard: Shard | None = None) -> Path:
    """The store file of a suite: `--store` if given, else `<output_dir>/<suite>.duckdb`
    (`<suite>.shard-I-of-N.duckdb` for one shard)."""
    if store is not None:
        return store
    suffix = f".{shard.label}" if shard is not None else ""
    return settings.output_dir / f"{check_suite_name(suite)}{suffix}.duckdb"

"""EHRSHOT (MEDS format): will this patient be readmitted, newly diagnosed, or have an abnormal lab?

For the task named by `subject=`, one instance per label of `labels/<task>/labels.parquet`
(subject_id, prediction_time, boolean_value): the patient's codes from `data/data.parquet` up to the
prediction time, in MedHELM's prompt (persona, definitions and question of its EHRSHOT config, the
codes one per line). As in MedHELM, every label of the file is used, and for lab tasks 10,000 drawn
with seed 1 (the draw pandas' `sample(random_state=1)` makes). The timeline is the record that may
be cut to fit a model (its end, the most recent codes, is kept).

`data.parquet` is read in batches, one patient at a time, so memory holds one timeline: MEDS data
is sorted by subject_id (a file that is not is refused).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import MappingProxyType

from medhelm_local.errors import DatasetMissingError, RunEntryError
from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.benchmarks.ehrshot.tasks import TASKS, instructions
from medhelm_local.scenarios.long_inputs import compose
from medhelm_local.scenarios.readers import reader

DATA = "data/data.parquet"
LAB_SAMPLE = 10_000
BATCH = 65_536


@dataclass(frozen=True)
class Label:
    """One row of a task's labels file."""

    index: int
    subject: int
    time: datetime
    value: bool


def check_subject(args: Mapping[str, str]) -> None:
    """subject= must name a task MedHELM evaluates."""
    if args.get("subject", next(iter(TASKS))) not in TASKS:
        raise RunEntryError(f"ehrshot has no subject '{args['subject']}'", where="run entry for ehrshot",
                            fix=f"use one of: {', '.join(TASKS)}")


def read_labels(path: Path, task: str) -> list[Label]:
    """The task's labels; for lab tasks the 10,000 MedHELM draws (numpy's legacy generator, seed 1)."""
    import numpy as np
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=["subject_id", "prediction_time", "boolean_value"])
    rows = table.to_pylist()
    labels = [Label(i, int(r["subject_id"]), r["prediction_time"], bool(r["boolean_value"]))
              for i, r in enumerate(rows)]
    if task.startswith("lab_") and len(labels) > LAB_SAMPLE:
        # pandas' sample(n, random_state=1) is RandomState(1).choice(n, size, replace=False): a permutation's head.
        labels = [labels[i] for i in np.random.RandomState(1).permutation(len(labels))[:LAB_SAMPLE]]
    return sorted(labels, key=lambda label: (label.subject, label.time))


def _timelines(path: Path, wanted: set[int]) -> Iterator[tuple[int, list[tuple[datetime, str]]]]:
    """(subject_id, its timed events in time order) for each wanted patient, streamed from data.parquet."""
    import pyarrow.parquet as pq

    current: int | None = None
    events: list[tuple[datetime, str]] = []
    done: set[int] = set()
    for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH, columns=["subject_id", "time", "code"]):
        for subject, time, code in zip(*(batch.column(n).to_pylist() for n in ("subject_id", "time", "code")),
                                       strict=True):
            if subject != current:
                if current is not None and current in wanted:
                    yield current, sorted(events, key=lambda e: e[0])
                if subject in done:
                    raise ValueError("data/data.parquet is not sorted by subject_id, as MEDS data must be")
                if current is not None:
                    done.add(current)
                current, events = subject, []
            if subject in wanted and time is not None:  # static events (no time) are never before a prediction
                events.append((time, str(code)))
    if current is not None and current in wanted:
        yield current, sorted(events, key=lambda e: e[0])


def _instance(task: str, label: Label, events: list[tuple[datetime, str]]) -> Instance:
    codes = "\n".join(f"- {code}" for time, code in events if time <= label.time)
    before = f"\n# Instructions\n{instructions(task)}\n\n# Your Task\nPatient EHR:\n"
    text, extra = compose(before, codes, "\n\n")
    refs = (Reference("yes", label.value), Reference("no", not label.value))
    return Instance(f"label-{label.index:06d}", text, refs,
                    extra=MappingProxyType({**extra, "prediction_time": label.time.isoformat()}))


@reader("ehrshot", check_args=check_subject)
def read_ehrshot(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """The task's labels, patient by patient in data-file order, each with the codes before its time."""
    task = args.get("subject", next(iter(TASKS)))
    labels_file = f"labels/{task}/labels.parquet"
    for name in (DATA, labels_file):
        if name not in paths:
            raise DatasetMissingError(f"the EHRSHOT file {name} is missing", where="the ehrshot dataset folder",
                                      fix="import the whole MEDS folder of EHRSHOT (data/, metadata/, labels/)")
    by_subject: dict[int, list[Label]] = defaultdict(list)
    for label in read_labels(paths[labels_file], task):
        by_subject[label.subject].append(label)
    for subject, events in _timelines(paths[DATA], set(by_subject)):
        for label in by_subject.pop(subject):
            yield _instance(task, label, events)
    for labels in by_subject.values():  # patients without events: an empty timeline, as in MedHELM
        for label in labels:
            yield _instance(task, label, [])

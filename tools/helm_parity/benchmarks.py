"""Which HELM run spec each public benchmark is, where its files are, and how HELM's instances get the
ids this project gives the same items (so a digest file can be checked instance by instance).

Ids are derived from the published files and from what HELM's own instances carry; nothing here
imports this project. `checks` names the project run entries whose prompts the digests must match:
`all` (the same instances, every one identical) or `part` (every instance the project builds is
one of HELM's, identical; e.g. the default split when HELM pools two).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from local_sources import LocalSources, Placeholder, arrow_rows, csv_rows_as_hugging_face, head_qa_rows, mediqa_rows

Keys = Callable[[Sequence[Any], LocalSources], list[str]]
HfLoader = Callable[[LocalSources], Callable[..., Any]]
PUBLISHED, FIXTURE = "published", "fixture"
# GitHub's contents API lists a folder's entries in name order, at most 1,000 of them.
GITHUB_LISTING_LIMIT = 1000


@dataclass(frozen=True)
class Check:
    """A project run entry (its arguments) and how its instances relate to HELM's."""

    args: dict[str, str]
    covers: str  # "all" or "part"


@dataclass(frozen=True)
class Parity:
    """One public benchmark as HELM runs it, on the local copy of its published files."""

    name: str  # this project's benchmark name
    run_spec: str  # HELM's run-spec function name
    folder: str  # the dataset folder (same name in the published datasets and the data root)
    keys: Keys
    downloads: dict[str, str | Placeholder] = field(default_factory=dict)
    hugging_face: HfLoader | None = None
    listing: tuple[str, int | None] | None = None  # the GitHub folder HELM lists, and the listing's limit
    checks: tuple[Check, ...] = (Check({}, "all"),)
    run_spec_args: dict[str, Any] = field(default_factory=dict)
    digest: str = ""  # the digest file's name (default: the benchmark's), for a second run spec of one benchmark
    root: str = PUBLISHED  # whose files: the published datasets, or the project's synthetic fixture (FIXTURE)

    @property
    def file_name(self) -> str:
        """The digest file's stem."""
        return self.digest or self.name


def _eval(instances: Sequence[Any]) -> list[Any]:
    return [i for i in instances if i.split in ("valid", "test")]


def _by_position(ids: Callable[[LocalSources], list[str]]) -> Keys:
    """Keys for a scenario that yields one instance per item of the file, in file order."""

    def keys(instances: Sequence[Any], sources: LocalSources) -> list[str]:
        wanted = ids(sources)
        evaluated = _eval(instances)
        if len(wanted) != len(evaluated):
            raise RuntimeError(f"HELM made {len(evaluated)} instances of {len(wanted)} items: key them otherwise")
        return wanted

    return keys


def _from_extra(make: Callable[[Any], str]) -> Keys:
    return lambda instances, sources: [make(i) for i in _eval(instances)]


def _pubmed_ids(sources: LocalSources) -> list[str]:
    return list(json.loads(sources.local("ori_pqal.json").read_text("utf-8")))


def _med_qa_keys(instances: Sequence[Any], sources: LocalSources) -> list[str]:
    counts: dict[str, int] = {}
    keys = []
    for instance in _eval(instances):
        name = "dev" if instance.split == "valid" else instance.split
        counts[name] = counts.get(name, 0) + 1
        keys.append(f"{name}-{counts[name]:05d}")
    return keys


MEDEC_TEST = "MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"


def _medec_ids(sources: LocalSources) -> list[str]:
    with sources.local(MEDEC_TEST).open(encoding="utf-8") as fh:
        return [row["Text ID"].strip() for row in csv.DictReader(fh) if row.get("Sentences")]


def _ehr_sql_ids(sources: LocalSources) -> list[str]:
    return [str(entry["id"]) for split in ("valid", "test")
            for entry in json.loads(sources.local(f"{split}.json").read_text("utf-8"))]


ACI_TEST = ("clinicalnlp_taskB_test1", "clef_taskC_test3", "clinicalnlp_taskC_test2")


def _aci_ids(sources: LocalSources) -> list[str]:
    return [entry["file"] for name in ACI_TEST
            for entry in json.loads(sources.local(f"challenge_data_json/{name}_full.json").read_text("utf-8"))["data"]]


def _medication_ids(sources: LocalSources) -> list[str]:
    # The sheet row of each row HELM keeps (pandas' index + 2: the header is row 1).
    import pandas as pd

    frame = pd.read_excel(sources.local("MedInfo2019-QA-Medications.xlsx"))
    return [f"row-{index + 2:04d}" for index in frame.index[~frame.Answer.isna()]]


def _source_tagged(instances: Sequence[Any], sources: LocalSources) -> list[str]:
    return [i.extra_data["parity_source"].removesuffix(".txt") for i in _eval(instances)]


def _hf(rows: Callable[[LocalSources], Any]) -> HfLoader:
    return lambda sources: (lambda *args, **kwargs: rows(sources))


PARITY: tuple[Parity, ...] = (
    Parity("pubmed_qa", "pubmed_qa", "pubmedqa", _by_position(_pubmed_ids), {"ori_pqal.json": "ori_pqal.json"}),
    Parity("medcalc_bench", "medcalc_bench", "medcalc_bench", _from_extra(lambda i: f"row-{int(i.id):04d}"),
           hugging_face=_hf(lambda s: {"test": csv_rows_as_hugging_face(s.local("test_data.csv"))})),
    Parity("med_qa", "medhelm_med_qa", "medqa_usmle_4opt", _med_qa_keys, {
        "uc": json.dumps({f"data_clean/questions/US/4_options/phrases_no_exclude_{s}.jsonl":
                          f"phrases_no_exclude_{s}.jsonl" for s in ("train", "dev", "test")})},
        # MedHELM pools dev and test (split=dev+test); the dev file has no published copy here, so HELM read it
        # as empty and only the test questions are compared.
        checks=(Check({}, "all"), Check({"split": "test"}, "all"))),
    Parity("head_qa", "head_qa", "head_qa", _from_extra(lambda i: f"{i.extra_data['name']}-{i.extra_data['id']:03d}"),
           hugging_face=_hf(lambda s: {"test": head_qa_rows(s.local("HEAD_EN.json"), frozenset({"2016", "2017"}))})),
    Parity("medbullets", "medbullets", "medbullets",
           _by_position(lambda s: [f"test-{n:03d}" for n in range(1, 1 + sum(
               1 for _ in csv.DictReader(s.local("medbullets_op5.csv").open(encoding="utf-8"))))]),
           {"medbullets_op5.csv": "medbullets_op5.csv"}),
    Parity("medhallu", "medhallu", "medhallu",
           lambda instances, s: [f"row-{n // 2:04d}-{'hallucinated' if n % 2 else 'grounded'}"
                                 for n in range(len(_eval(instances)))],
           hugging_face=_hf(lambda s: arrow_rows(
               s.local("Detection/MedHallu_pqa_labeled/train/data-00000-of-00001.arrow")))),
    Parity("race_based_med", "race_based_med", "race_based_med",
           lambda instances, s: [f"item-{n:03d}" for n in range(1, 1 + len(_eval(instances)))],
           {"41746_2023_939_MOESM1_ESM.docx": "41746_2023_939_MOESM1_ESM.docx"}),
    Parity("medec", "medec", "medec", _by_position(_medec_ids), {MEDEC_TEST: MEDEC_TEST}),
    Parity("ehr_sql", "ehr_sql", "ehrsql_eicu", _by_position(_ehr_sql_ids), {
        "eicu.sql": "eicu.sql", "valid.json": "valid.json", "test.json": "test.json",
        "train.json": Placeholder("train split: never evaluated, no few-shot examples (not published here)", "[]"),
        "eicu.sqlite": Placeholder("the database: scores answers, never in a prompt (credentialed data)")},
        checks=(Check({}, "all"), Check({"split": "valid+test"}, "all"), Check({"split": "test"}, "part"),
                Check({"split": "valid"}, "part"))),
    Parity("aci_bench", "aci_bench", "aci_bench", _by_position(_aci_ids),
           {f"{name}_full.json": f"challenge_data_json/{name}_full.json" for name in ("train", *ACI_TEST)}),
    Parity("mtsamples_replicate", "mtsamples_replicate", "mtsamples_replicate", _source_tagged,
           listing=("mtsamples_processed", GITHUB_LISTING_LIMIT),
           checks=(Check({"helm_compat": "true"}, "all"),)),
    Parity("mtsamples_procedures", "mtsamples_procedures", "mtsamples_procedures", _source_tagged,
           listing=("mtsample_procedure", GITHUB_LISTING_LIMIT)),
    Parity("medication_qa", "medication_qa", "medication_qa", _by_position(_medication_ids),
           {"MedInfo2019-QA-Medications.xlsx": "MedInfo2019-QA-Medications.xlsx"}),
    Parity("medi_qa", "medi_qa", "mediqa2019", _from_extra(lambda i: str(i.id)),
           hugging_face=_hf(lambda s: {"test": mediqa_rows(
               s.local("MEDIQA_Task3_QA/MEDIQA2019-Task3-QA-TestSet-wLabels.xml"))})),
    # No copy of the published files here: checked on the project's synthetic fixtures in the same layout.
    *(Parity("med_dialog", "med_dialog", "med_dialog",
             lambda instances, s, subset=subset: [f"{subset}-{n:05d}" for n in range(1, 1 + len(_eval(instances)))],
             {"test.json": f"{subset}/test.json"}, checks=(Check({"subset": subset}, "all"),),
             run_spec_args={"subset": subset}, digest=f"med_dialog-{subset}", root=FIXTURE)
      for subset in ("healthcaremagic", "icliniq")),
    Parity("med_mcqa", "medhelm_med_mcqa", "medmcqa",
           lambda instances, s: [f"dev-{n:05d}" for n in range(1, 1 + len(_eval(instances)))],
           {"uc": json.dumps({"train.json": None, "dev.json": "dev.json"})}, root=FIXTURE),
)
# MedHELM's other public benchmarks with nothing to compare.
NOT_HERE: dict[str, str] = {}



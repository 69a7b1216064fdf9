"""EHRSQL (eICU): MedHELM's pool of the valid and test splits by default (either alone selectable), schema + question
in, gold SQL as reference."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATASETS

from medhelm_local.errors import DatasetMissingError, RunEntryError
from medhelm_local.metrics.ehr_sql import EHR_SQL_EXACT_MATCH, EHR_SQL_EXECUTION_ACCURACY, EHR_SQL_QUERY_VALIDITY
from medhelm_local.records import TaskType
from medhelm_local.scenarios import DataRoot, create, get, import_dataset

FIXTURE = REPO / "tests" / "data" / "datasets" / "ehrsql_eicu"
PUBLISHED = SHARED_DATASETS / "ehrsql_eicu"
needs_published = pytest.mark.skipif(not PUBLISHED.is_dir(),
                                     reason=f"published EHRSQL not on this machine ({PUBLISHED})")
GAP = " " * 20
INSTRUCTIONS_END = "If the question is unanswerable, return an empty string without additional text or comments."
TABLES = ("patient", "diagnosis", "treatment", "lab", "medication", "cost", "allergy", "intakeoutput", "microlab",
          "vitalperiodic")


@pytest.fixture
def fixture_root(tmp_path: Path) -> Path:
    """A data root holding the committed cut (3 test, 2 valid questions, the schema), imported as a user would."""
    import_dataset(FIXTURE, tmp_path / "data")
    return tmp_path / "data"


@needs_published
@pytest.mark.parametrize(("split", "count", "impossible"),
                         [("valid+test", 2909, 950), ("test", 1792, 588), ("valid", 1117, 362)])
def test_the_published_splits_load_with_their_counts(split: str, count: int, impossible: int) -> None:
    args = {} if split == "valid+test" else {"split": split}
    instances = create("ehr_sql", args).load(DataRoot(SHARED_DATASETS))

    assert len(instances) == count
    assert len({i.id for i in instances}) == count
    assert {i.split for i in instances} == set(split.split("+"))
    assert Counter(i.extra["is_impossible"] for i in instances) == {"true": impossible, "false": count - impossible}
    for instance in instances:
        assert len(instance.references) == 1
        assert (instance.references[0].text == "null") == (instance.extra["is_impossible"] == "true")
        assert instance.input.startswith("-- Database Schema:\nCREATE TABLE patient\n(\nuniquepid VARCHAR(10) NOT NULL")


@needs_published
def test_the_published_prompt_follows_medhelms_layout() -> None:
    bench = create("ehr_sql", {"split": "test"})
    assert bench.task_type is TaskType.GENERATION
    instance = bench.load(DataRoot(SHARED_DATASETS))[0]

    prompt = bench.render(instance)

    assert prompt.text.startswith("You are a highly skilled AI specializing in medical SQL queries.")
    assert f"{INSTRUCTIONS_END}\n\nMedical Question + Schema: -- Database Schema:\nCREATE TABLE" in prompt.text
    assert prompt.text.endswith(f"\n) ;\n\n--{GAP} Question:\ntell me the method of dextrose 5% in water (d5w) iv : "
                                "1000 ml bag intake?\n\n\nSQL Query:")
    assert (prompt.max_tokens, prompt.stop, prompt.temperature) == (1024, (), 0.0)


def test_the_fixture_loads_the_valid_then_the_test_split_by_default(fixture_root: Path) -> None:
    pooled = create("ehr_sql").load(DataRoot(fixture_root))
    instances = create("ehr_sql", {"split": "test"}).load(DataRoot(fixture_root))

    assert [i.id for i in pooled] == ["e99739f1cdf689b4761876f3", "e8bfc4b844beaef18f41fb7d",
                                      *(i.id for i in instances)]
    assert [i.split for i in pooled] == ["valid"] * 2 + ["test"] * 3

    assert [i.id for i in instances] == ["ba95373f025351f7de88a95a", "3247dbf0101727c6e704085b",
                                         "9b851f4b098a47d3e3b71fbc"]
    assert [i.extra["is_impossible"] for i in instances] == ["false", "false", "true"]
    assert instances[1].references[0].text == ("select distinct medication.routeadmin from medication where "
                                               "medication.drugname = 'clonidine'")
    schema = instances[0].input.removeprefix("-- Database Schema:\n").partition(f"\n\n--{GAP} Question:\n")[0]
    assert [block.split("\n", 1)[0] for block in schema.split("\n\n")] == [f"CREATE TABLE {t}" for t in TABLES]
    assert all(block.endswith(") ;") for block in schema.split("\n\n"))
    assert "DROP TABLE" not in instances[0].input


def test_the_valid_split_can_be_chosen(fixture_root: Path) -> None:
    instances = create("ehr_sql", {"split": "valid"}).load(DataRoot(fixture_root))

    assert [i.id for i in instances] == ["e99739f1cdf689b4761876f3", "e8bfc4b844beaef18f41fb7d"]
    assert {i.split for i in instances} == {"valid"}


def test_without_a_database_the_main_metric_is_sql_exact_match(fixture_root: Path) -> None:
    bench = create("ehr_sql", {"split": "test"})
    instances = bench.load(DataRoot(fixture_root))

    assert bench.main_metric == get("ehr_sql").main_metric == EHR_SQL_EXACT_MATCH
    right = bench.score(instances[1], "SELECT DISTINCT medication.routeadmin FROM medication "
                                      "WHERE medication.drugname = 'clonidine';")
    assert {s.metric: s.value for s in right} == {EHR_SQL_EXACT_MATCH: 1.0}
    assert {s.metric: s.value for s in bench.score(instances[2], "")} == {EHR_SQL_EXACT_MATCH: 1.0}
    assert {s.metric: s.value for s in bench.score(instances[2], "select 1")} == {EHR_SQL_EXACT_MATCH: 0.0}


def test_with_a_database_queries_are_executed(fixture_root: Path, tmp_path: Path) -> None:
    db = tmp_path / "eicu.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript((FIXTURE / "eicu.sql").read_text("utf-8"))
    conn.execute("insert into medication values (1, 10, 'clonidine', '0.1 mg', 'po', '2105-01-01 08:00:00', null)")
    conn.commit()
    conn.close()
    bench = create("ehr_sql", {"db": str(db), "split": "test"})
    instances = bench.load(DataRoot(fixture_root))

    scores = {s.metric: s.value for s in bench.score(instances[1], "select 'po'")}

    assert bench.main_metric == EHR_SQL_EXECUTION_ACCURACY
    assert scores == {EHR_SQL_EXACT_MATCH: 0.0, EHR_SQL_EXECUTION_ACCURACY: 1.0, EHR_SQL_QUERY_VALIDITY: 1.0,
                      "helm_ehr_sql_execution_accuracy": 1.0, "helm_ehr_sql_query_validity": 1.0}


def test_a_database_path_that_is_not_sqlite_is_refused_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a database")

    with pytest.raises(RunEntryError, match="not a SQLite database"):
        create("ehr_sql", {"db": str(tmp_path / "notes.txt")})
    with pytest.raises(RunEntryError, match="cannot be read"):
        create("ehr_sql", {"db": str(tmp_path / "absent.sqlite")})


def test_an_unknown_split_is_refused() -> None:
    with pytest.raises(RunEntryError, match="no split 'train'"):
        create("ehr_sql", {"split": "train"})


def test_a_missing_file_says_where_it_is_published(tmp_path: Path) -> None:
    with pytest.raises(DatasetMissingError) as caught:
        create("ehr_sql").load(DataRoot(tmp_path / "empty"))

    assert "ehrsql_eicu/test.json is missing" in str(caught.value) or "ehrsql_eicu/valid.json is missing" in str(
        caught.value)
    assert "glee4810/EHRSQL" in str(caught.value)

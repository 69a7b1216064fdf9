"""Documentation cannot drift from the code: every setting is in the README's tables."""

from __future__ import annotations

import re

import yaml
from conftest import REPO

from medhelm_local.metrics.registry import all_metrics
from medhelm_local.settings import Deployment, Settings

BENCHMARKS = REPO / "medhelm_local" / "scenarios" / "benchmarks"


def test_every_setting_and_deployment_field_is_documented() -> None:
    readme = (REPO / "README.md").read_text()
    for name in Settings.model_fields:
        assert f"| `{name}` | `MEDHELM_{name.upper()}" in readme, f"setting {name} is not in the README table"
    for name in Deployment.model_fields:
        assert f"| `{name}` |" in readme, f"deployment field {name} is not in the README table"


def test_every_setting_has_a_help_line() -> None:
    for model in (Settings, Deployment):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"


def _readme_metric_table() -> list[str]:
    readme = (REPO / "README.md").read_text()
    table = readme[readme.index("| metric | follows | benchmarks |"):].split("\n\n", 1)[0]
    return re.findall(r"^\| `([a-z0-9_]+)` \|", table, re.MULTILINE)


def test_every_metric_the_readme_lists_is_registered() -> None:
    listed = _readme_metric_table()
    registered = all_metrics()

    assert len(listed) >= 15
    assert [name for name in listed if name not in registered] == []


def test_every_metric_a_built_in_card_names_is_in_the_readme() -> None:
    listed = set(_readme_metric_table())
    named = set()
    for path in BENCHMARKS.glob("*/card.yaml"):
        metrics = yaml.safe_load(path.read_text())["metrics"]
        main = metrics["main"]
        named |= {*([main] if isinstance(main, str) else main), *metrics.get("also", [])}

    assert sorted(named - listed) == []


def test_the_readme_benchmark_table_says_which_benchmarks_do_not_compare_with_medhelm() -> None:
    from medhelm_local.scenarios import get, names

    readme = (REPO / "README.md").read_text()
    table = readme[readme.index("| name | task | MedHELM subcategory |"):].split("\n\n", 1)[0]
    rows = {line.split("`")[1]: line for line in table.splitlines()[2:]}
    for name in names():
        spec = get(name)
        if spec.builtin and spec.access == "public":
            marked = "not comparable" in rows[name]
            assert marked == (spec.card.not_comparable is not None), f"README row of {name}: its card says " \
                f"not_comparable={spec.card.not_comparable is not None}"
            assert "identical" in rows[name] or marked, f"README row of {name} gives no parity with HELM"

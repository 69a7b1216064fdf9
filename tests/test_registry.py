"""The one registry mechanism behind metrics, data readers and private-benchmark formats."""

from __future__ import annotations

import subprocess
import sys

import pytest

from medhelm_local.registry import Registry


def test_an_entry_registered_twice_differently_is_refused_and_the_same_one_again_is_not() -> None:
    registry = Registry[str]("hook", "medhelm_local.scenarios.formats", same=lambda a, b: a == b)
    assert registry.add("a", "one") == "one" and registry.add("a", "one") == "one"
    with pytest.raises(ValueError, match="hook 'a' registered twice"):
        registry.add("a", "two")
    assert registry.registered("a") == "one" and list(registry) == ["a"]


def test_a_name_loads_only_its_own_module_and_a_listing_loads_them_all() -> None:
    script = """
import sys
from medhelm_local.scenarios.readers import get_reader
from medhelm_local.scenarios.formats import all_formats
from medhelm_local.metrics.registry import all_metrics
get_reader("pubmed_qa", "test")
readers = sorted(m for m in sys.modules if m.startswith("medhelm_local.") and m.endswith(".reader"))
print(readers == ["medhelm_local.scenarios.benchmarks.pubmed_qa.reader"], "shc_med" in all_formats(),
      "exact_match" in all_metrics() and "rouge_l" in all_metrics())
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "True"], done.stdout + done.stderr


def test_a_registry_without_a_package_imports_nothing_and_lists_in_the_order_registered() -> None:
    registry = Registry[int]("kind", None)
    registry.add("b", 2)
    registry.add("a", 1)
    assert registry.find("mean") is None and registry.all() == {"a": 1, "b": 2}
    assert registry.in_order() == [2, 1]

"""Benchmarks: cards (data) and reader hooks; checksummed local files in, instances, prompts and scores out."""

from medhelm_local.scenarios.benchmark import Benchmark
from medhelm_local.scenarios.datafiles import DataRoot, import_dataset
from medhelm_local.scenarios.registry import create, get, load_spec, names, register_cards
from medhelm_local.scenarios.spec import BenchmarkSpec

__all__ = ["Benchmark", "BenchmarkSpec", "DataRoot", "create", "get", "import_dataset", "load_spec", "names",
           "register_cards"]

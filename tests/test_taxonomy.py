"""The taxonomy ships with the package, and every benchmark sits where MedHELM places it."""

from __future__ import annotations

from medhelm_local.scenarios import get, names
from medhelm_local.taxonomy import load_taxonomy


def test_taxonomy_has_medhelms_shape() -> None:
    taxonomy = load_taxonomy()
    assert len(taxonomy.categories) == 5
    assert len(taxonomy.subcategories) == 22
    assert sum(len(s.benchmarks) for s in taxonomy.subcategories.values()) == 41
    # MedHELM's paper has 37; its maintained fork (PyPI medhelm) added four.
    fork = {b.name for s in taxonomy.subcategories.values() for b in s.benchmarks if b.fork}
    assert fork == {"sct_bench", "medxpert_qa_text", "health_bench", "health_bench_professional"}


def test_every_registered_benchmark_declares_a_real_subcategory_matching_medhelm() -> None:
    taxonomy = load_taxonomy()
    for name in names():
        cls = get(name)
        assert cls.subcategory in taxonomy.subcategories, f"{name}: unknown subcategory {cls.subcategory!r}"
        placed = next((p for p in (taxonomy.placement(n) for n in (name, *cls.aliases)) if p), None)
        if placed is not None:
            assert placed.name == cls.subcategory, f"{name} is in {placed.name!r} in MedHELM"
            medhelm = next(b for b in placed.benchmarks if b.name in (name, *cls.aliases))
            assert medhelm.access == cls.access


def test_medhelm_run_entry_aliases_resolve() -> None:
    assert get("medhelm_med_qa") is get("med_qa")
    assert "medhelm_med_qa" not in names()


def test_every_benchmark_medhelm_scores_by_jury_is_jury_scored_here_with_a_rubric() -> None:
    """MedHELM's 13 jury-scored benchmarks (main metric `<name>_accuracy` on a generation task): each built-in
    card, and each documented example card of a private one, has the jury as main metric and names a rubric."""
    from pathlib import Path

    from medhelm_local.metrics.jury import JURY_SCORE
    from medhelm_local.metrics.rouge import ROUGE_L
    from medhelm_local.scenarios import load_spec

    examples = Path(__file__).parent.parent / "docs" / "private-benchmarks"
    specs = {name: get(name) for name in names()}
    specs |= {path.stem: load_spec(path) for path in examples.glob("*.yaml")}
    jury_scored = {b.name for s in load_taxonomy().subcategories.values() for b in s.benchmarks
                   if b.main_metric == f"{b.name}_accuracy" and b.name in specs
                   and specs[b.name].card.task.type == "generation"}

    assert len(jury_scored) == 13
    for name in sorted(jury_scored):
        metrics = specs[name].card.metrics
        assert (metrics.main, ROUGE_L in metrics.also) == (JURY_SCORE, True), name
        assert specs[name].rubric is not None, name

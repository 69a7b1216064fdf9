"""Robustness: the main score under the worst perturbation of the input, and its drop from the clean run.

A perturbed run is a run entry with `perturbation=NAME` (scenarios/perturbation.py) whose other
arguments, model and deployment equal a clean run's in the same suite. On the instances both runs
scored, each run's main metric is put on 0-1 by the metric's declared range (so a jury score and an
accuracy compare); the worst perturbation is the one with the lowest mean. `robustness` is that
mean; `robustness_drop` is the clean mean minus it on the same instances, with a paired bootstrap
interval (the per-instance differences resampled). Both are stored on the clean run; the detail
holds every perturbation's figures.
"""

from __future__ import annotations

from medhelm_local.metrics.registry import ALL_TASKS, Metric, add

ROBUSTNESS, ROBUSTNESS_DROP = "robustness", "robustness_drop"
PERTURBATION_ARGS = frozenset({"perturbation", "perturbation_seed"})

add(Metric(ROBUSTNESS, "Robustness (worst perturbation)", "higher", 0.0, 1.0, ALL_TASKS, frozenset(), "robustness",
           "HELM's robustness (worst case over perturbations), on the paired instances, main metric normalised to 0-1",
           "The main score (0-1) under the worst input perturbation, on the instances the clean run also scored",
           None, group="robustness"))
add(Metric(ROBUSTNESS_DROP, "Drop under the worst perturbation", "lower", -1.0, 1.0, ALL_TASKS, frozenset(),
           "robustness", "medhelm-local: clean minus worst perturbed, paired bootstrap interval",
           "How much the main score (0-1) falls under the worst perturbation, paired by instance", None,
           group="robustness"))

"""What a run entry may ask of a benchmark, checked before anything is read: its arguments against the card's (and
those every benchmark takes), and the card's metrics those arguments leave computable, the main one first."""

from __future__ import annotations

from collections.abc import Mapping

from medhelm_local.errors import ConfigError, RunEntryError
from medhelm_local.metrics.registry import Metric, Need, check_metrics
from medhelm_local.scenarios.card import CardArg
from medhelm_local.scenarios.perturbation import PERTURBATIONS, check_perturbation
from medhelm_local.scenarios.readers import get_reader
from medhelm_local.scenarios.spec import BenchmarkSpec

# Run-entry arguments every benchmark takes, as in MedHELM's confs (e.g. num_output_tokens=4000
# for reasoning models).
COMMON_ARGS = {
    "num_output_tokens": CardArg(help="Answer length limit in tokens, replacing the card's max_tokens"),
    "perturbation": CardArg(help="Perturb each input (robustness): " + ", ".join(PERTURBATIONS),
                            choices=list(PERTURBATIONS)),
    "perturbation_seed": CardArg(help="Seed of the perturbation (a whole number; default 0)"),
    "jury_config_path": CardArg(help="MedHELM's jury file: its judges, mapped to local judge deployments "
                                     "(setting judge_map), rate this run"),
}


def checked_args(bench: BenchmarkSpec, args: dict[str, str]) -> dict[str, str]:
    """The run entry's arguments checked against the card's and COMMON_ARGS, the card's defaults filled in (in
    place); RunEntryError naming the argument that is wrong."""
    declared = {**bench.card.args, **COMMON_ARGS}
    unknown = sorted(set(args) - set(declared))
    where = f"run entry for {bench.name}"
    if unknown:
        raise RunEntryError(f"{bench.name} does not take the argument(s) {', '.join(unknown)}", where=where,
                            fix=f"remove them (it accepts: {', '.join(sorted(declared))})")
    for key, arg in bench.card.args.items():
        if key not in args and arg.default is not None:
            args[key] = arg.default
        if key in args and arg.choices is not None and args[key] not in arg.choices:
            raise RunEntryError(f"{bench.name} has no {key} '{args[key]}'", where=where,
                                fix=f"use one of: {', '.join(arg.choices)}")
    check_perturbation(args, bench.task_type, bench.name, where)
    for key in ("num_output_tokens", "max_length"):
        value = args.get(key)
        if value is not None and (not value.isdigit() or not 0 < int(value) <= 100_000_000):
            raise RunEntryError(f"{key}={value} is not a positive whole number", where=where,
                                fix=f"write e.g. {key}=4000")
    if bench.reader_name:
        check = get_reader(bench.reader_name, str(bench.path)).check_args
        if check is not None:
            check(args)
    return args


def _satisfied(needs: frozenset[Need], args: Mapping[str, str], available: frozenset[Need]) -> bool:
    # A judge is always satisfiable: without a jury the jury metric stays unjudged (pending), never dropped.
    have = {"reference", "options", "labels", "tolerance", "judge", *available}
    if "db" in args:
        have.add("database")
    return needs <= have


def resolved_metrics(bench: BenchmarkSpec, args: Mapping[str, str], available: frozenset[Need]) -> list[Metric]:
    """The card's metrics these arguments (and what the run has, `available`) leave computable, the main one first:
    the first of the card's main preferences that is, else its last; ConfigError for a metric the card cannot feed."""
    preferences, also = bench.card.metric_names
    where = f"benchmark card {bench.path}"
    mains = check_metrics(preferences, bench.task_type, where=where, reader=bench.reader_name)
    others = check_metrics(also, bench.task_type, where=where, reader=bench.reader_name)
    task = bench.card.task
    for metric in [*mains, *others]:
        if "tolerance" in metric.needs and task.tolerance is None:
            raise ConfigError(f"metric '{metric.name}' needs task.tolerance (absolute and/or relative)", where=where,
                              fix="add task.tolerance, e.g. tolerance: {relative: 0.05}")
        if "labels" in metric.needs and not task.labels:
            raise ConfigError(f"metric '{metric.name}' needs task.labels", where=where, fix="list the label set")
        if "judge" in metric.needs:
            _check_rubric(bench, metric, where)
    main = next((m for m in mains if _satisfied(m.needs, args, available)), mains[-1])
    rest = [m for m in [*mains, *others] if m is not main and _satisfied(m.needs, args, available)]
    return [main, *dict.fromkeys(rest)]


def _check_rubric(bench: BenchmarkSpec, metric: Metric, where: str) -> None:
    """A jury score needs a rubric on the metric's scale; another judged metric (HealthBench's), a grader of
    each instance's rubric items."""
    from medhelm_local.annotate.rubric_items import ItemGrader, shipped_graders
    from medhelm_local.metrics.jury import is_jury_metric, jury_metric_name

    if bench.card.rubric is None:
        from medhelm_local.annotate.rubric import shipped

        raise ConfigError(f"metric '{metric.name}' is rated by a jury, which needs a rubric", where=where,
                          fix=f"add rubric: NAME (one of: {', '.join(shipped())}) or rubric: FILE.yaml")
    per_item = isinstance(bench.grader, ItemGrader)
    if per_item == is_jury_metric(metric.name):
        wanted = "a rubric (criteria on a scale)" if is_jury_metric(metric.name) else \
            f"a grader of each instance's rubric items ({', '.join(shipped_graders())})"
        raise ConfigError(f"metric '{metric.name}' is judged by {wanted}, and the card's rubric "
                          f"'{bench.card.rubric}' is not one", where=where,
                          fix="name a rubric the metric can be judged by, or the metric that fits the rubric")
    rubric = bench.rubric
    if rubric is not None and (rubric.scale.min, rubric.scale.max) != (metric.lower, metric.upper):
        low, high = rubric.scale.min, rubric.scale.max
        raise ConfigError(f"the rubric's scale is {low}-{high}, and {metric.name} is on "
                          f"{metric.lower:g}-{metric.upper:g}", where=where,
                          fix=f"name the jury score on the rubric's scale, {jury_metric_name(low, high)}, or give "
                              f"the rubric scale: {{min: {metric.lower:g}, max: {metric.upper:g}}}")

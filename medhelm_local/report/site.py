"""The static HTML report: a folder that opens from file:// with no network.

    index.html taxonomy.html compare.html methods.html [published.html] [trend.html]
    benchmarks/<benchmark>.html      runs/<run>.html
    data/<run>/page-00001.js ...     the per-instance browser's pages (JSON inside a function call,
                                     so a page opened from file:// can load them with a script tag)
    data/<run>/failed-00001.js ...   the same for the instances with a failure
    plots/heatmap.svg [cost.svg] [trend.svg] [slices-<benchmark>.svg]   the heat map and slice plots drawn by
                                     hand, the rest by matplotlib
    assets/style.css instances.js    ours; no font, script or image comes from anywhere else
    report.json report.csv           the read model, for scripts

The folder is written beside its destination and renamed into place when complete; an existing
folder is replaced only if it is an earlier report (it holds the marker file), never anything else.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import groupby, islice
from operator import itemgetter
from pathlib import Path

from medhelm_local.errors import ConfigError
from medhelm_local.metrics.registry import GROUPS
from medhelm_local.output_paths import output_error
from medhelm_local.report.formats import cells_csv, to_json
from medhelm_local.report.heatmap import heatmap_svg
from medhelm_local.report.inputs import RunReader
from medhelm_local.report.pages import (
    ASSETS,
    PAGE_SIZE,
    TOP_PAGES,
    Links,
    asset_text,
    context,
    instance_page,
    render,
    script_data,
)
from medhelm_local.report.plots import cost_svg, trend_svg
from medhelm_local.report.read_model import Report, RunInfo, slug
from medhelm_local.report.slices_plot import slices_svg
from medhelm_local.report.trend_tables import trend_csv

MARKER = ".medhelm-local-report"
Sink = Callable[[str, str], None]  # (path relative to the report's folder, text): where each file goes
# Instances of each run in a static report's browser, unless asked otherwise: a report to hand to a
# committee stays small (the viewer and `report --instances all` show every one). The same default is
# written out in cli/report_cmd.py, which must not import this module when the program starts.
DEFAULT_INSTANCES = 1000
_BATCH_ROWS = 50_000
SLICES_PLOT = "slices-"  # a benchmark's slice plot: plots/slices-<benchmark>.svg


@dataclass(frozen=True)
class SiteResult:
    """What was written."""

    folder: Path
    pages: int
    data_files: int


def _chunks(items: Iterator[str], size: int) -> Iterator[list[str]]:
    while chunk := list(islice(items, size)):
        yield chunk


def _pages(count: int) -> int:
    return (count + PAGE_SIZE - 1) // PAGE_SIZE


def _batches(runs: list[RunInfo], reader: RunReader, cap: int | None, failed: bool) -> Iterator[list[RunInfo]]:
    """Runs grouped so that one query returns at most _BATCH_ROWS instances (its sort stays in memory)."""
    batch: list[RunInfo] = []
    rows = 0
    for run in runs:
        count = reader.instance_count(run.run_id, failed_only=failed)
        count = count if cap is None else min(count, cap)
        if batch and rows + count > _BATCH_ROWS:
            yield batch
            batch, rows = [], 0
        batch.append(run)
        rows += count
    if batch:
        yield batch


def _write_instances(sink: Sink, reader: RunReader, runs: list[RunInfo], cap: int | None, failed: bool) -> int:
    """The instance pages of `runs` (all, or those with a failure), at most `cap` instances a run; returns
    how many files were written."""
    written = 0
    prefix = "failed" if failed else "page"
    for batch in _batches(runs, reader, cap, failed):
        by_id = {r.run_id: r for r in batch}
        for run_id, rows in groupby(reader.instances_json_runs(list(by_id), cap, failed), key=itemgetter(0)):
            total = reader.instance_count(run_id, failed)
            pages = _pages(total if cap is None else min(total, cap))
            for number, page in enumerate(_chunks((text for _, text in rows), PAGE_SIZE), start=1):
                body = instance_page(page, number, pages, total)
                sink(f"data/{by_id[run_id].slug}/{prefix}-{number:05d}.js", f"medhelmInstances({body});\n")
                written += 1
    return written


def run_page(report: Report, run: RunInfo, reader: RunReader, links: Links, cap: int | None = None,
             first_page: bool = False) -> str:
    """One run's page (static or served); a static report holds at most `cap` instances of each kind.
    `first_page`: the first page of instances goes inside the page as data (the viewer: one request)."""
    metrics = list(report.metrics.get(run.key, {}).values())
    order = {g: i for i, g in enumerate(GROUPS)}
    specs = report.specs
    metrics.sort(key=lambda m: (m.metric != run.main_metric, order.get(specs[m.metric].group if m.metric in specs
                                                                      else "quality", 9), m.metric))
    withheld = reader.instances_withheld(run.run_id)
    total = reader.instance_count(run.run_id)
    failed_total = reader.instance_count(run.run_id, failed_only=True)
    shown, failed_shown = (total, failed_total) if cap is None else (min(total, cap), min(failed_total, cap))
    embedded = None
    if first_page and withheld is None and total:
        rows = list(reader.instances_json(run.run_id, 0, PAGE_SIZE))
        embedded = script_data(instance_page(rows, 1, _pages(shown), total))
    return render("run.html", context(report, links), run=run, metrics=metrics, failures=reader.failures(run.run_id),
                  judges=reader.judges(run.run_id), instances_shown=withheld is None, withheld_reason=withheld or "",
                  total=total, pages=_pages(shown), shown=shown, failed_total=failed_total,
                  failed_pages=_pages(failed_shown), failed_shown=failed_shown, first_page=embedded)


def benchmark_page(report: Report, benchmark: str, links: Links) -> str:
    """One benchmark's page: every metric of every model, grouped by the registry's groups."""
    columns = report.benchmark_columns(benchmark)
    grouped = [(g, [c for c in columns if c.group == g]) for g in dict.fromkeys(c.group for c in columns)]
    runs = report.runs_of(benchmark)
    models = list(dict.fromkeys([*(m for m in report.models if any(r.model == m for r in runs)),
                                 *(r.model for r in runs if r.external)]))
    return render("benchmark.html", context(report, links), benchmark=benchmark, columns=columns, grouped=grouped,
                  runs=runs, models=models, external={r.model for r in runs if r.external},
                  slices_plot=slices_plot_name(report, benchmark))


def top_page(report: Report, name: str, links: Links, choices: list[str] | None = None) -> str:
    """index, taxonomy, compare, published or methods."""
    return render(f"{name}.html", context(report, links), choices=choices or [])


def plot_svg(report: Report, name: str) -> str | None:
    """A plot of the report by name (None when this report has no such plot)."""
    if name == "heatmap":
        return heatmap_svg(report.taxonomy, report.models)
    if name.startswith(SLICES_PLOT):
        return _slices_plot(report, name.removeprefix(SLICES_PLOT))
    if name == "trend" and report.trend is not None and report.trend.lines:
        return trend_svg(report.trend)
    if name == "cost" and report.cost:
        spec = report.specs.get(report.cost[0].metric)
        return cost_svg(report.cost, spec.title if spec else report.cost[0].metric, spec.unit if spec else "")
    return None


def slices_plot_name(report: Report, benchmark: str) -> str | None:
    """The name of a benchmark's slice plot (None when none of its runs is sliced)."""
    sliced = any(r.key in report.slices for r in report.runs if r.benchmark == benchmark)
    return f"{SLICES_PLOT}{slug(benchmark)}" if sliced else None


def _slices_plot(report: Report, benchmark_slug: str) -> str | None:
    """The slice plot of the benchmark whose slug this is: its local models' main metric per slice value."""
    runs = [r for r in report.runs if slug(r.benchmark) == benchmark_slug and r.key in report.slices]
    if not runs:
        return None
    order = {m: i for i, m in enumerate(report.models)}
    runs.sort(key=lambda r: (order.get(r.model, len(order)), r.key))
    several = len({r.model for r in runs}) < len(runs)  # a model with several subsets: each run named
    sliced = [(f"{r.model} ({r.run_id})" if several else r.model, s) for r in runs for s in report.slices[r.key]]
    column = next((c for c in report.benchmark_columns(runs[0].benchmark) if c.main), None)
    metric = column.metric_title if column else runs[0].main_metric
    title = f"{runs[0].display_name}: {metric} per slice value (95 % interval)"
    return slices_svg(title, sliced)


def _plots(report: Report) -> dict[str, str]:
    names = ["heatmap", "cost", "trend", *filter(None, (slices_plot_name(report, b)
                                                       for b in dict.fromkeys(r.benchmark for r in report.runs)))]
    drawn = {name: plot_svg(report, name) for name in names}
    return {f"plots/{name}.svg": svg for name, svg in drawn.items() if svg is not None}


def _staging(destination: Path) -> Path:
    if destination.exists() and (not destination.is_dir() or (any(destination.iterdir())
                                                               and not (destination / MARKER).exists())):
        raise ConfigError("the report folder exists and is not an earlier report", where=str(destination),
                          fix="give a new folder for the report (an earlier report there is replaced; nothing else is)")
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{destination.name}.", suffix=".partial", dir=destination.parent))
    except OSError as exc:
        raise ConfigError(f"cannot write the report there ({exc.strerror})", where=str(destination.parent),
                          fix="check that the folder is writable") from None


def folder_sink(folder: Path) -> Sink:
    """A sink writing each file under `folder` (its folders made as needed)."""
    made: set[Path] = set()

    def write(name: str, text: str) -> None:
        path = folder / name
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)
        path.write_text(text, encoding="utf-8")
    return write


def write_site(report: Report, readers: Mapping[str, RunReader], destination: Path,
               instances: int | None = DEFAULT_INSTANCES) -> SiteResult:
    """Write the static report into `destination` (replaced atomically if it holds an earlier report), with at
    most `instances` instances of each run (None: all) in its per-instance browser."""
    staging = _staging(destination)
    try:
        pages, data_files = build_site(report, readers, folder_sink(staging), instances)
        (staging / MARKER).write_text("A report written by `medhelm-local report`; `report --out` may replace it.\n",
                                      encoding="utf-8")
        if destination.exists():
            shutil.rmtree(destination)
        os.replace(staging, destination)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):  # a full disk, a folder that became read-only
            raise output_error(exc, destination, "report folder") from None
        raise
    return SiteResult(destination, pages, data_files)


def build_site(report: Report, readers: Mapping[str, RunReader], sink: Sink,
               instances: int | None = DEFAULT_INSTANCES) -> tuple[int, int]:
    """Every file of the report, handed to `sink` by relative path; returns (pages, instance pages)."""
    for name in ASSETS:
        sink(f"assets/{name}", asset_text(name))
    # matplotlib (Python) draws while DuckDB (native code, without the GIL) builds the instance pages.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="medhelm-plots") as pool:
        drawn = pool.submit(_plots, report)
        pages = 0
        for name, wanted in TOP_PAGES.items():
            if wanted(report):
                sink(f"{name}.html", top_page(report, name, Links("static")))
                pages += 1
        for benchmark in dict.fromkeys(r.benchmark for r in report.runs):
            sink(f"benchmarks/{slug(benchmark)}.html", benchmark_page(report, benchmark, Links("static", 1)))
            pages += 1
        local = [r for r in report.runs if not r.external and r.key in readers]
        for run in local:
            sink(f"runs/{run.slug}.html", run_page(report, run, readers[run.key], Links("static", 1), instances))
            pages += 1
        data_files = 0
        by_reader: dict[int, tuple[RunReader, list[RunInfo]]] = {}
        for run in local:
            if readers[run.key].instances_withheld(run.run_id) is None:
                by_reader.setdefault(id(readers[run.key]), (readers[run.key], []))[1].append(run)
        for reader, runs in by_reader.values():
            for failed in (False, True):
                data_files += _write_instances(sink, reader, runs, instances, failed)
        for name, svg in drawn.result().items():
            sink(name, svg)
    sink("report.json", to_json(report))
    sink("report.csv", cells_csv(report))
    if report.trend is not None:
        sink("trend.csv", trend_csv(report.trend))
    return pages, data_files

"""The static HTML report: a folder that opens from file:// with no network.

    index.html taxonomy.html compare.html methods.html [published.html]
    benchmarks/<benchmark>.html      runs/<run>.html
    data/<run>/page-00001.js ...     the per-instance browser's pages (JSON inside a function call,
                                     so a page opened from file:// can load them with a script tag)
    data/<run>/failed-00001.js ...   the same for the instances with a failure
    plots/heatmap.svg [cost.svg]     drawn by matplotlib
    assets/style.css instances.js    ours; no font, script or image comes from anywhere else
    report.json report.csv           the read model, for scripts

The folder is written beside its destination and renamed into place when complete; an existing
folder is replaced only if it is an earlier report (it holds the marker file), never anything else.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import groupby, islice
from operator import itemgetter
from pathlib import Path

from medhelm_local.errors import ConfigError
from medhelm_local.metrics.registry import GROUPS
from medhelm_local.report.formats import to_csv, to_json
from medhelm_local.report.model import Report, RunInfo, slug
from medhelm_local.report.pages import ASSETS, PAGE_SIZE, TOP_PAGES, Links, asset_text, context, instance_page, render
from medhelm_local.report.plots import cost_svg, heatmap_svg
from medhelm_local.report.sources import RunReader

MARKER = ".medhelm-local-report"
# Instances of each run in a static report's browser, unless asked otherwise: a report to hand to a
# committee stays small (the viewer and `report --instances all` show every one).
DEFAULT_INSTANCES = 1000
_BATCH_ROWS = 100_000


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


def _write_instances(folder: Path, reader: RunReader, runs: list[RunInfo], cap: int | None, failed: bool) -> int:
    """The instance pages of `runs` (all, or those with a failure), at most `cap` instances a run; returns
    how many files were written."""
    written = 0
    prefix = "failed" if failed else "page"
    for batch in _batches(runs, reader, cap, failed):
        by_id = {r.run_id: r for r in batch}
        for run_id, rows in groupby(reader.instances_json_runs(list(by_id), cap, failed), key=itemgetter(0)):
            total = reader.instance_count(run_id, failed)
            pages = _pages(total if cap is None else min(total, cap))
            target = folder / by_id[run_id].slug
            target.mkdir(exist_ok=True)
            for number, page in enumerate(_chunks((text for _, text in rows), PAGE_SIZE), start=1):
                body = instance_page(page, number, pages, total)
                (target / f"{prefix}-{number:05d}.js").write_text(f"medhelmInstances({body});\n", encoding="utf-8")
                written += 1
    return written


def run_page(report: Report, run: RunInfo, reader: RunReader, links: Links, cap: int | None = None) -> str:
    """One run's page (static or served); a static report holds at most `cap` instances of each kind."""
    metrics = list(report.metrics.get(run.key, {}).values())
    order = {g: i for i, g in enumerate(GROUPS)}
    specs = report.specs
    metrics.sort(key=lambda m: (m.metric != run.main_metric, order.get(specs[m.metric].group if m.metric in specs
                                                                      else "quality", 9), m.metric))
    withheld = reader.instances_withheld(run.run_id)
    total = reader.instance_count(run.run_id)
    failed_total = reader.instance_count(run.run_id, failed_only=True)
    shown, failed_shown = (total, failed_total) if cap is None else (min(total, cap), min(failed_total, cap))
    return render("run.html", context(report, links), run=run, metrics=metrics, failures=reader.failures(run.run_id),
                  judges=reader.judges(run.run_id), instances_shown=withheld is None, withheld_reason=withheld or "",
                  total=total, pages=_pages(shown), shown=shown, failed_total=failed_total,
                  failed_pages=_pages(failed_shown), failed_shown=failed_shown)


def benchmark_page(report: Report, benchmark: str, links: Links) -> str:
    """One benchmark's page: every metric of every model, grouped by the registry's groups."""
    columns = report.benchmark_columns(benchmark)
    grouped = [(g, [c for c in columns if c.group == g]) for g in dict.fromkeys(c.group for c in columns)]
    runs = report.runs_of(benchmark)
    models = list(dict.fromkeys([*(m for m in report.models if any(r.model == m for r in runs)),
                                 *(r.model for r in runs if r.external)]))
    return render("benchmark.html", context(report, links), benchmark=benchmark, columns=columns, grouped=grouped,
                  runs=runs, models=models, external={r.model for r in runs if r.external})


def top_page(report: Report, name: str, links: Links, choices: list[str] | None = None) -> str:
    """index, taxonomy, compare, published or methods."""
    return render(f"{name}.html", context(report, links), choices=choices or [])


def plot_svg(report: Report, name: str) -> str | None:
    """A plot of the report by name (None when this report has no such plot)."""
    if name == "heatmap":
        return heatmap_svg(report.taxonomy, report.models)
    if name == "cost" and report.cost:
        spec = report.specs.get(report.cost[0].metric)
        return cost_svg(report.cost, spec.title if spec else report.cost[0].metric, spec.unit if spec else "")
    return None


def _write_plots(report: Report, folder: Path) -> None:
    for name in ("heatmap", "cost"):
        svg = plot_svg(report, name)
        if svg is not None:
            (folder / f"{name}.svg").write_text(svg, encoding="utf-8")


def _staging(destination: Path) -> Path:
    if destination.exists() and (not destination.is_dir() or (any(destination.iterdir())
                                                               and not (destination / MARKER).exists())):
        raise ConfigError("the report folder exists and is not an earlier report", where=str(destination),
                          fix="give a new folder for --out (an earlier report there is replaced; nothing else is)")
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{destination.name}.", suffix=".partial", dir=destination.parent))
    except OSError as exc:
        raise ConfigError(f"cannot write the report there ({exc.strerror})", where=str(destination.parent),
                          fix="check that the folder is writable") from None


def write_site(report: Report, readers: Mapping[str, RunReader], destination: Path,
               instances: int | None = DEFAULT_INSTANCES) -> SiteResult:
    """Write the static report into `destination` (replaced atomically if it holds an earlier report), with at
    most `instances` instances of each run (None: all) in its per-instance browser."""
    staging = _staging(destination)
    try:
        result = build_site(report, readers, staging, instances)
        if destination.exists():
            shutil.rmtree(destination)
        os.replace(staging, destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return SiteResult(destination, result.pages, result.data_files)


def build_site(report: Report, readers: Mapping[str, RunReader], folder: Path,
               instances: int | None = DEFAULT_INSTANCES) -> SiteResult:
    """Write every file of the report into `folder` (which exists)."""
    for sub in ("assets", "plots", "benchmarks", "runs", "data"):
        (folder / sub).mkdir(exist_ok=True)
    for name in ASSETS:
        (folder / "assets" / name).write_text(asset_text(name), encoding="utf-8")
    # matplotlib (Python) draws while DuckDB (native code, without the GIL) builds the instance pages.
    plots = ThreadPoolExecutor(max_workers=1, thread_name_prefix="medhelm-plots")
    drawn = plots.submit(_write_plots, report, folder / "plots")
    pages = 0
    for name, wanted in TOP_PAGES.items():
        if wanted(report):
            (folder / f"{name}.html").write_text(top_page(report, name, Links("static")), encoding="utf-8")
            pages += 1
    for benchmark in dict.fromkeys(r.benchmark for r in report.runs):
        (folder / "benchmarks" / f"{slug(benchmark)}.html").write_text(
            benchmark_page(report, benchmark, Links("static", 1)), encoding="utf-8")
        pages += 1
    local = [r for r in report.runs if not r.external and r.key in readers]
    for run in local:
        (folder / "runs" / f"{run.slug}.html").write_text(run_page(report, run, readers[run.key], Links("static", 1),
                                                                   instances), encoding="utf-8")
        pages += 1
    data_files = 0
    by_reader: dict[int, tuple[RunReader, list[RunInfo]]] = {}
    for run in local:
        if readers[run.key].instances_withheld(run.run_id) is None:
            by_reader.setdefault(id(readers[run.key]), (readers[run.key], []))[1].append(run)
    for reader, runs in by_reader.values():
        for failed in (False, True):
            data_files += _write_instances(folder / "data", reader, runs, instances, failed)
    drawn.result()
    plots.shutdown()
    (folder / "report.json").write_text(to_json(report), encoding="utf-8")
    (folder / "report.csv").write_text(to_csv(report), encoding="utf-8")
    (folder / MARKER).write_text("A report written by `medhelm-local report`; `report --out` may replace it.\n",
                                 encoding="utf-8")
    return SiteResult(folder, pages, data_files)

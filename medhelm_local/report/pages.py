"""The report's pages, rendered by Jinja2 from the read model: the same templates for the static report
(files with relative links) and the viewer (URLs on the server). Every stored value is escaped.

    index        leaderboard (mean win rates, macro averages, every main metric with its interval and
                 counts), the cost plot when a cost metric exists
    taxonomy     heat map of the macro averages by category and subcategory
    compare      paired comparisons against the baseline
    published    local and published (HELM-format) results side by side, when given
    trend        each model's trend per benchmark across suites (report --trend), changes and build swaps flagged
    methods      how every number is computed, the metrics' declarations, the sources read
    benchmark    one benchmark: every metric of every model, grouped as the registry groups them
    run          one run: its metrics, failures by reason, judges, and the per-instance browser
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import jinja2
from markupsafe import Markup

from medhelm_local.report.formats import interval, number
from medhelm_local.report.read_model import Report, RunInfo, slug

PAGE_SIZE = 100  # instances per page of the per-instance browser
ASSETS = ("style.css", "instances.js", "favicon.svg")
Mode = Literal["static", "server"]


@dataclass(frozen=True)
class Links:
    """Where a page's links point: relative files (static, `depth` folders below the root) or server URLs.

    A page has the same path in both (`runs/<run>.html`), so a link copied from the viewer names the same page
    in a static report, and the other way round.
    """

    mode: Mode
    depth: int = 0

    @property
    def _root(self) -> str:
        return "../" * self.depth if self.mode == "static" else "/"

    def page(self, name: str) -> str:
        """A top-level page: index, taxonomy, compare, published, methods, or a download (report.json)."""
        return self._root + (name if "." in name else f"{name}.html")

    def benchmark(self, name: str) -> str:
        """One benchmark's page."""
        return f"{self._root}benchmarks/{slug(name)}.html"

    def run(self, run: RunInfo) -> str:
        """One run's page."""
        return f"{self._root}runs/{run.slug}.html"

    def asset(self, name: str) -> str:
        """A stylesheet or script of our own."""
        return f"{self._root}assets/{name}"

    def plot(self, name: str) -> str:
        """A plot (an SVG file)."""
        return f"{self._root}plots/{name}.svg"

    def instances(self, run: RunInfo) -> str:
        """Where the per-instance browser reads pages: a data folder, or the viewer's JSON endpoint."""
        return f"{self._root}data/{run.slug}/" if self.mode == "static" else f"/runs/{run.slug}/instances"


_OPTIONS = {"autoescape": True, "trim_blocks": True, "lstrip_blocks": True}


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept beside them, as Python keeps .pyc files: read when their source is unchanged
    (Jinja checks a checksum of it), written where the package folder is writable and skipped silently where it
    is not. Compiling the report's templates is a measurable share of a report's time (docs/performance.md).
    The file names carry Jinja's version and the environment's options, which shape the compiled code."""

    def __init__(self, folder: Path, write: bool) -> None:
        self.write = write
        digest = hashlib.sha256(repr((jinja2.__version__, sorted(_OPTIONS.items()))).encode()).hexdigest()[:12]
        super().__init__(str(folder), f"{digest}-%s.jinja")

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:  # a cache folder that cannot be read: compile, as without one
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if not self.write:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:  # a read-only install: compile each time, as before
            pass


def _environment(write: bool | None = None) -> jinja2.Environment:
    """The template environment; compiled templates written to the cache per `write` (default: unless
    PYTHONDONTWRITEBYTECODE is set, as Python does with .pyc files)."""
    templates = resources.files(__package__).joinpath("templates")
    loader = jinja2.FunctionLoader(lambda name: templates.joinpath(name).read_text("utf-8"))
    cache = None
    if Path(str(templates)).is_dir():  # not where the package is read from a zip
        cache = _CompiledTemplates(Path(str(templates)) / "__pycache__",
                                   not sys.dont_write_bytecode if write is None else write)
    env = jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, bytecode_cache=cache,
                             autoescape=_OPTIONS["autoescape"], trim_blocks=_OPTIONS["trim_blocks"],
                             lstrip_blocks=_OPTIONS["lstrip_blocks"])
    env.filters["num"] = number
    env.filters["pct"] = lambda v: "–" if v is None else f"{100 * v:.1f}%"
    env.filters["heat"] = lambda v: "h-none" if v is None else f"h{min(9, int(v * 10))}"
    env.globals["interval"] = interval
    return env


_ENV: list[jinja2.Environment] = []


def environment() -> jinja2.Environment:
    """The shared template environment (built once)."""
    if not _ENV:
        _ENV.append(_environment())
    return _ENV[0]


def compile_templates() -> int:
    """Compile every template into the package's cache (`make bytecode`, the container build); returns how many."""
    templates = resources.files(__package__).joinpath("templates")
    names = sorted(p.name for p in templates.iterdir() if p.name.endswith(".html"))
    compiling = _environment(write=True)
    for name in names:
        compiling.get_template(name)
    return len(names)


def asset_text(name: str) -> str:
    """One of our own assets, by name (nothing else can be read)."""
    if name not in ASSETS:
        raise KeyError(name)
    return resources.files(__package__).joinpath("assets").joinpath(name).read_text("utf-8")


@dataclass
class PageContext:
    """What every page needs beside its own data."""

    report: Report
    links: Links
    has_plots: dict[str, bool]
    metric_specs: dict[str, Any]


def render(template: str, ctx: PageContext, **values: Any) -> str:
    """One page as HTML."""
    return environment().get_template(template).render(report=ctx.report, links=ctx.links, plots=ctx.has_plots,
                                                       specs=ctx.metric_specs, page_size=PAGE_SIZE, **values)


def context(report: Report, links: Links) -> PageContext:
    """The context for pages of this report."""
    plots = {"heatmap": True, "cost": bool(report.cost), "trend": report.trend is not None and bool(report.trend.lines)}
    return PageContext(report, links, plots, dict(report.specs))


# Which page of a static report is where: the top-level pages, by name.
TOP_PAGES: dict[str, Callable[[Report], bool]] = {
    "index": lambda r: True, "taxonomy": lambda r: True, "compare": lambda r: True,
    "published": lambda r: r.published is not None, "trend": lambda r: r.trend is not None,
    "methods": lambda r: True}


def script_data(json_text: str) -> Markup:
    """JSON text safe inside <script type="application/json">: no character can close the element (the
    escapes are JSON's own, so the text parses to the same value)."""
    return Markup(json_text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def instance_page(rows: list[str], page: int, pages: int, total: int) -> str:
    """One page of the per-instance browser as JSON text (rows are JSON objects already)."""
    return f'{{"page":{page},"pages":{pages},"total":{total},"instances":[{",".join(rows)}]}}'

"""Reports: compare models from stores, never a model. Win rates, taxonomy macro averages, paired
comparisons, published results side by side; a static HTML report, JSON/CSV/Markdown/LaTeX, and a
read-only local viewer.

    open_sources(store paths, kek, helm_runs=...) -> Sources      stores read-only, schemas checked
    Sources.report(baseline=None) -> Report                      the read model (report.read_model)
    write_site(report, sources.by_run(), folder)                 the static HTML report
    render_text(report, "json" | "csv" | "md" | "latex")          for scripts and papers
    create_app(...)  (report.server)                             the viewer, behind a token
"""

from medhelm_local.report.formats import FORMATS, render_text
from medhelm_local.report.inputs import Sources, open_sources
from medhelm_local.report.read_model import Report
from medhelm_local.report.site import write_site

__all__ = ["FORMATS", "Report", "Sources", "open_sources", "render_text", "write_site"]

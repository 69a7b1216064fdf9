"""`medhelm-local benchmarks list` and `medhelm-local taxonomy`: what can be evaluated here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.scenarios import DataRoot
from medhelm_local.scenarios.catalog import (
    FORMAT_SHIPPED,
    NOT_INSTALLED,
    RUNNABLE,
    WHEN_PRESENT,
    BenchmarkStatus,
    benchmark_status,
    medhelm_status,
)
from medhelm_local.settings import Settings
from medhelm_local.taxonomy import Subcategory, Taxonomy, load_taxonomy

_DATA = {"present": "[green]present[/]", "missing": "[yellow]missing[/]", "invalid": "[red]invalid[/]"}


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `benchmarks list` and `taxonomy` to the app."""
    benchmarks = typer.Typer(help="The benchmarks installed here.", no_args_is_help=True)
    app.add_typer(benchmarks, name="benchmarks")

    @benchmarks.command("list")
    def list_(
        ctx: typer.Context,
        data_root: Path | None = typer.Option(None, "--data-root", help="Folder of benchmark datasets."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """Every benchmark: task type, access level, taxonomy place, instance count, whether its data is here."""
        from rich.table import Table

        settings = settings_from(ctx, data_root=data_root)
        rows = benchmark_status(DataRoot(settings.data_root))
        if as_json:
            print_json([asdict(r) | {"runnable": r.runnable} for r in rows])
            return
        table = Table(title=f"Benchmarks (data root {settings.data_root})")
        for col in ("benchmark", "task", "access", "category / subcategory", "main metric", "instances", "data"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(r.name, r.task_type, r.access, f"{r.category} / {r.subcategory}", r.main_metric,
                          "-" if r.instances is None else str(r.instances), _DATA[r.data])
        out.print(table)
        out.print(medhelm_summary(load_taxonomy(), rows), soft_wrap=True)
        absent = [r for r in rows if not r.runnable]
        if absent:
            out.print(f"{len(absent)} benchmark(s) cannot run until their files are imported: public data with "
                      "`medhelm-local data import BUNDLE` (a bundle made by `data stage` on a connected host), a "
                      "folder with `data import FOLDER`; `medhelm-local doctor` says which file is missing.")

    @benchmarks.command("show")
    def show(
        ctx: typer.Context,
        name: str = typer.Argument(..., help="Benchmark name, as in `benchmarks list`."),
        data_root: Path | None = typer.Option(None, "--data-root", help="Folder of benchmark datasets."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """A benchmark's card: what it measures, provenance, licence, citation, taxonomy place, metric, data."""
        from medhelm_local.scenarios import get

        settings = settings_from(ctx, data_root=data_root)
        canonical = get(name).name
        row = next(r for r in benchmark_status(DataRoot(settings.data_root)) if r.name == canonical)
        if as_json:
            print_json(asdict(row) | {"runnable": row.runnable})
            return
        from medhelm_local.metrics.registry import get as metric

        main = metric(row.main_metric)
        metrics = [f"{m} (main; {'higher' if main.higher_is_better else 'lower'} is better, {main.follows})"
                   if m == row.main_metric else f"{m} ({metric(m).follows})" for m in row.metrics]
        fields = [("benchmark", f"{row.name} ({row.display_name})"), ("measures", row.description),
                  ("task", row.task_type), ("access", row.access),
                  ("taxonomy", f"{row.category} / {row.subcategory}"), ("metrics", "; ".join(metrics)),
                  ("provenance", row.provenance), ("licence", row.licence), ("citation", row.citation or "-")]
        fields += [(f"arg {name}", text) for name, text in row.args.items()]
        fields.append(("inputs", row.inputs))
        fields.append(("MedHELM", row.comparable))
        if row.notes:
            fields.append(("notes", row.notes))
        fields.append(("data", f"{row.data}, {row.instances} instances" if row.runnable else f"{row.data}: "
                       f"{row.problem}"))
        for label, value in fields:
            out.print(f"[bold]{label:>12}[/]  {value}", highlight=False)

    @benchmarks.command("validate")
    def validate(
        ctx: typer.Context,
        card: Path = typer.Argument(..., dir_okay=False, help="A benchmark card (or MedHELM benchmark config) YAML."),
        show: int = typer.Option(3, "--show", min=0, help="How many rendered prompts to print."),
    ) -> None:
        """Check a card and its data without a model: fields, columns, every row; print prompts to review."""
        from medhelm_local.scenarios.datafiles import sha256_file
        from medhelm_local.scenarios.registry import load_spec
        from medhelm_local.scenarios.validation import length_warning

        settings = settings_from(ctx)
        spec = load_spec(card)
        bench = spec.create()
        instances = bench.load(DataRoot(settings.data_root))
        sub = load_taxonomy().subcategories.get(spec.subcategory)
        category = spec.card.taxonomy.category or (sub.category if sub else "")
        # soft_wrap: these lines are read by scripts too; a long path must not split a phrase across lines.
        out.print(f"[green]Card {card} is valid[/]: benchmark [bold]{spec.name}[/] ({spec.task_type.value}, access "
                  f"{spec.access}), {len(instances)} instances, main metric {bench.main_metric}, taxonomy "
                  f"{category} / {spec.subcategory}.", soft_wrap=True)
        data_file = (card.parent / spec.card.data.file).resolve() if spec.card.data.file is not None else None
        if data_file is not None and data_file.is_file():  # a format may read a folder: nothing to pin
            out.print(f"Data {data_file} sha256 {sha256_file(data_file)} (pin it as data.sha256 to detect changes).",
                      soft_wrap=True)
        if spec.card.provenance:
            out.print(f"Provenance: {spec.card.provenance}", soft_wrap=True, highlight=False)
        warning = length_warning(bench, instances)
        if warning:
            out.print(f"[yellow]Warning: {warning}[/]", soft_wrap=True)
        if spec.access != "public":
            out.print(f"[yellow]{spec.access} data: its prompts and answers are treated as sensitive on export.[/]")
        for inst in instances[:show]:
            prompt = bench.prompt(inst)
            out.rule(f"prompt for {inst.id} (max_tokens {prompt.max_tokens})")
            out.print(prompt.text, markup=False, highlight=False)
            out.print(f"[dim]reference: {', '.join(r.text for r in inst.correct_references)}[/]")

    @app.command()
    def taxonomy(
        ctx: typer.Context,
        data_root: Path | None = typer.Option(None, "--data-root", help="Folder of benchmark datasets."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """MedHELM's taxonomy (5 categories, 22 subcategories) with what is installed and runnable here."""
        from rich.tree import Tree

        settings = settings_from(ctx, data_root=data_root)
        tax = load_taxonomy()
        installed: dict[str, list[BenchmarkStatus]] = {}
        for r in benchmark_status(DataRoot(settings.data_root), tax):
            installed.setdefault(r.subcategory, []).append(r)
        rows = [r for rs in installed.values() for r in rs]
        status = medhelm_status(tax, rows)
        tax = with_local_places(tax, rows)
        if as_json:
            print_json([{"category": cat, "subcategories": [
                {"name": sub.name,
                 "medhelm_benchmarks": [asdict(b) | {"status": status[b.name]} for b in sub.benchmarks],
                 "installed": [{"name": r.name, "access": r.access, "runnable": r.runnable}
                               for r in installed.get(sub.name, [])]}
                for sub in subs]} for cat, subs in tax.categories])
            return
        tree = Tree(f"[bold]MedHELM taxonomy[/] (data root {settings.data_root})")
        for cat, subs in tax.categories:
            branch = tree.add(f"[bold]{cat}[/]")
            for sub in subs:
                here = installed.get(sub.name, [])
                placed = {name for r in here for name in (r.name, *_aliases(r.name))}
                shown = [f"[{_COLOUR[_state(r)]}]{r.name} ({r.access}, {_state(r)})[/]" for r in here]
                shown += [f"[{_COLOUR.get(status[b.name], 'dim')}]{b.name} ({b.access}, {status[b.name]})[/]"
                          for b in sub.benchmarks if b.name not in placed]
                branch.add(f"{sub.name}: " + (", ".join(shown) or "[dim]none[/]"))
        out.print(tree)
        out.print(f"{RUNNABLE}: installed with verified data. {WHEN_PRESENT}: installed; import its data with "
                  "`medhelm-local data import` (gated data: obtain it first, `medhelm-local data stage` says where), "
                  "or give MedHELM's data_path=. format shipped: one of Stanford's private benchmarks; a card naming "
                  "the hospital's file in that format runs it (docs/private-benchmarks.md). not installed: in "
                  "MedHELM, not here.", soft_wrap=True)


def _state(row: BenchmarkStatus) -> str:
    return RUNNABLE if row.runnable else WHEN_PRESENT if row.data == "missing" else f"data {row.data}"


_COLOUR = {RUNNABLE: "green", WHEN_PRESENT: "yellow", FORMAT_SHIPPED: "cyan", "data invalid": "red"}


def _aliases(name: str) -> tuple[str, ...]:
    from medhelm_local.scenarios import get

    return get(name).aliases


def medhelm_summary(tax: Taxonomy, installed: list[BenchmarkStatus]) -> str:
    """One line: MedHELM's benchmarks (its paper's and its maintained fork's) and where each stands here."""
    status = medhelm_status(tax, installed)
    shipped = sum(1 for s in status.values() if s == FORMAT_SHIPPED)
    absent = sum(1 for s in status.values() if s == NOT_INSTALLED)
    runnable = sum(1 for s in status.values() if s == RUNNABLE)
    fork = sum(1 for sub in tax.subcategories.values() for b in sub.benchmarks if b.fork)
    return (f"MedHELM's {len(status)} benchmarks ({len(status) - fork} in its paper, {fork} added by its maintained "
            f"fork; `medhelm-local taxonomy` places each): {len(status) - shipped - absent} installed here "
            f"({runnable} runnable now), {shipped} private ones whose formats ship (a card points at the hospital's "
            "file)" + (f", {absent} not installed." if absent else "."))


def with_local_places(tax: Taxonomy, installed: list[BenchmarkStatus]) -> Taxonomy:
    """The taxonomy plus the categories and subcategories that hospital cards add."""
    known = tax.subcategories
    categories = {cat: list(subs) for cat, subs in tax.categories}
    for r in installed:
        if r.subcategory not in known and not any(s.name == r.subcategory for s in categories.get(r.category, [])):
            categories.setdefault(r.category, []).append(Subcategory(r.subcategory, r.category, ()))
    return Taxonomy(tuple((cat, tuple(subs)) for cat, subs in categories.items()))

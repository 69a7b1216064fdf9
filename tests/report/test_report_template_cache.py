"""Compiled templates kept beside them: read back while their source is unchanged, never a stale page after a
template changes, and nothing written (and no error) where writing is off or the folder is read-only."""

from __future__ import annotations

from pathlib import Path

import jinja2

from medhelm_local.report.pages import _CompiledTemplates, compile_templates


def _render(folder: Path, source: str, write: bool = True) -> str:
    env = jinja2.Environment(loader=jinja2.DictLoader({"page.html": source}),
                             bytecode_cache=_CompiledTemplates(folder, write))
    return env.get_template("page.html").render(name="ward 3")


def test_a_changed_template_is_compiled_again_not_read_stale(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert _render(cache, "Hello {{ name }}") == "Hello ward 3"
    assert len(list(cache.iterdir())) == 1
    assert _render(cache, "Hello {{ name }}") == "Hello ward 3"  # read back
    assert _render(cache, "Goodbye {{ name }}") == "Goodbye ward 3"  # same name, new source: compiled again


def test_nothing_is_written_when_writing_is_off_or_impossible(tmp_path: Path) -> None:
    off = tmp_path / "off"
    assert _render(off, "{{ name }}", write=False) == "ward 3" and not off.exists()
    blocked = tmp_path / "a-file"  # a folder that cannot be made, even by root
    blocked.write_text("")
    assert _render(blocked / "cache", "{{ name }}") == "ward 3"


def test_make_bytecode_compiles_every_report_template() -> None:
    folder = Path(__file__).resolve().parents[2] / "medhelm_local" / "report" / "templates"
    names = sorted(p.name for p in folder.glob("*.html"))
    assert compile_templates() == len(names) >= 9
    cache = _CompiledTemplates(folder / "__pycache__", write=False)
    written = {p.name for p in (folder / "__pycache__").iterdir()}
    for name in names:
        assert cache.pattern % cache.get_cache_key(name) in written

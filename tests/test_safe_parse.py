"""Files from outside read and parsed within limits (medhelm_local/safe_parse.py, and yaml_lines built on it):
each limit a clear error naming the file and line, fast, without the memory a hostile file asks for."""

from __future__ import annotations

import json
import os
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml
from support import hostile

from medhelm_local.errors import ConfigError
from medhelm_local.safe_parse import Limits, load_json, parse_json, parse_toml, read_bounded
from medhelm_local.yaml_lines import load_located, parse_located


def _refused(call: object, *words: str) -> str:
    with pytest.raises(ConfigError) as caught:
        call()  # type: ignore[operator]
    for word in words:
        assert word in caught.value.message, caught.value.message
    return caught.value.message


def test_an_alias_bomb_is_refused_at_once_without_building_it(tmp_path: Path) -> None:
    path = hostile.make(tmp_path / "card.yaml", "yaml_alias_bomb")
    tracemalloc.start()
    started = time.perf_counter()

    message = _refused(lambda: load_located(path, "benchmark card"), "more than 250,000 values", "aliases")

    seconds, (_, peak) = time.perf_counter() - started, tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert f"{path}, line " in message
    assert seconds < 1.0 and peak < 20 << 20, (seconds, peak)


def test_a_few_aliases_are_fine() -> None:
    text = "base: &base {timeout: 30, retries: 2}\na: *base\nb:\n  <<: *base\n  retries: 5\n"

    doc = parse_located(text, Path("x.yaml"), "config")

    assert doc.data == yaml.safe_load(text)


def test_an_alias_inside_the_collection_it_names_is_refused(tmp_path: Path) -> None:
    path = hostile.make(tmp_path / "p.yaml", "yaml_self_alias")

    _refused(lambda: load_located(path, "policy"), "alias (*a) inside the collection it names", f"{path}, line 1")


@pytest.mark.parametrize("depth", [101, 1000, 3000, 100_000])
@pytest.mark.parametrize("style", ["flow", "block"])
def test_deep_yaml_is_refused_with_its_line_before_parsing(depth: int, style: str) -> None:
    text = "[" * depth + "]" * depth if style == "flow" else "- " * depth + "x\n"  # each sequence in the last

    _refused(lambda: parse_located(text, Path("deep.yaml"), "suite file"), "nests more than 100 levels",
             "deep.yaml, line 1")


def test_deep_yaml_by_indentation_names_the_line() -> None:
    text = "".join(" " * i + "- \n" for i in range(300))

    _refused(lambda: parse_located(text, Path("deep.yaml"), "suite file"), "deep.yaml, line 101")


def test_yaml_at_the_depth_limit_loads() -> None:
    assert parse_located("[" * 100 + "]" * 100, Path("x.yaml"), "card").data is not None


def test_a_yaml_value_that_cannot_be_built_names_its_line() -> None:
    _refused(lambda: parse_located("a: 1\nb: 2024-13-45\n", Path("c.yaml"), "card"), "'2024-13-45'", "c.yaml, line 2")
    _refused(lambda: parse_located("a: " + "9" * 5000 + "\n", Path("c.yaml"), "card"), "c.yaml, line 1")


@pytest.mark.parametrize("depth", [101, 1000, 3000, 100_000])
def test_deep_json_is_refused_with_its_line(depth: int) -> None:
    text = '{"a":\n' + "[" * depth + "]" * depth + "}"

    _refused(lambda: parse_json(text, "stats.json", "stats file"), "nests more than 100 levels", "stats.json, line 2")


def test_brackets_inside_json_strings_do_not_count() -> None:
    text = json.dumps({"note": "[" * 5000, "list": [[1, 2], {"b": "}}}}"}]})

    assert parse_json(text, "x.json", "x") == json.loads(text)


@pytest.mark.parametrize(("text", "words"), [
    ('{"count": 1e400}', "the number 1e400, which is not a finite number"),
    ('{"mean":\n NaN}', "the number NaN"),
    ('[-Infinity]', "the number -Infinity"),
    ('{"count": ' + "7" * 5000 + "}", "a number of 5000 digits"),
    ('[1, 2,]', "is not valid JSON"),
])
def test_json_numbers_that_are_not_finite_or_too_long_are_refused(text: str, words: str) -> None:
    message = _refused(lambda: parse_json(text, "f.json", "stats file"), words)

    assert "f.json, line " + ("2" if "\n" in text else "1") in message


def test_a_json_lines_document_names_its_line_in_the_file() -> None:
    _refused(lambda: parse_json('{"id": 1, "n": 1e999}', "in.jsonl", "input line 7", first_line=7),
             "in.jsonl, line 7")


@pytest.mark.parametrize("kind", ["toml_deep_100k", "toml_deep_3000", "toml_dotted_3000", "toml_long_int"])
def test_hostile_toml_is_refused(tmp_path: Path, kind: str) -> None:
    text = hostile.make(tmp_path / "c.toml", kind).read_text()

    _refused(lambda: parse_toml(text, "c.toml", "config file"), "c.toml")


def test_comments_and_strings_in_toml_do_not_count_as_nesting() -> None:
    text = 'a = "' + "[" * 300 + '"  # ' + "{" * 300 + "\nb = '''\n" + "[" * 300 + "\n'''\nc = [[1], [2]]\n"

    assert parse_toml(text, "c.toml", "config file")["c"] == [[1], [2]]


@pytest.mark.parametrize("kind", [k for k in hostile.GENERIC if k != "device" or hostile.can_make_devices()])
def test_what_is_not_a_small_regular_utf8_file_is_refused_naming_it(tmp_path: Path, kind: str) -> None:
    path = hostile.make(tmp_path / "policy.yaml", kind)
    started = time.perf_counter()

    _refused(lambda: load_located(path, "policy file"), str(path))

    assert time.perf_counter() - started < 2.0  # a FIFO is not waited on, a device or sparse file not read through


def test_a_fifo_with_a_writer_is_refused_too(tmp_path: Path) -> None:
    path = hostile.make(tmp_path / "config.json", "fifo")
    writer = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # someone holds it open, ready to write
    try:
        _refused(lambda: load_json(path, "config file"), "is a FIFO (named pipe), not a regular file")
    finally:
        os.close(writer)


def test_the_size_limit_is_the_callers(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    path.write_text("[" + ",".join(["1"] * 600) + "]")

    assert len(load_json(path, "stats file")) == 600
    _refused(lambda: read_bounded(path, "stats file", limits=Limits(max_bytes=1000)), "larger than 1000 bytes")


def test_a_byte_order_mark_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "card.yaml"
    path.write_bytes(b"\xef\xbb\xbfname: x\n")

    assert load_located(path, "card").data == {"name": "x"}

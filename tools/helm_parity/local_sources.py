"""HELM's download steps, replaced by loaders of the same files on this machine.

HELM's scenarios fetch their data at load time in three ways: `ensure_file_downloaded(url, path)`,
Hugging Face's `load_dataset(name)`, and `requests.get` on GitHub (the MTSamples listings and files).
Each is replaced here, and only those: the scenario code that turns the files into instances runs
unchanged. A URL or dataset name this module does not know is an error, never a silent empty file.

Where HELM reads a Hugging Face dataset, the loader builds the rows Hugging Face's own loading script
builds from the published files (HEAD-QA's `head_qa.py`, BigBio's `mediqa_qa.py`, a CSV read by
pandas for MedCalc-Bench, the saved Arrow table for MedHallu); each says so where it does it.
Files HELM downloads but never turns into evaluated prompts (a train split with no few-shot
examples, the EHRSQL database) are given as empty placeholders, and listed in the output.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The stand-in for the `datasets` package must exist before any HELM scenario module is imported.
_datasets = types.ModuleType("datasets")
_datasets.DatasetDict = dict  # type: ignore[attr-defined]


def _unreplaced(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(f"load_dataset{args} has no local loader: add one to tools/helm_parity/local_sources.py")


_datasets.load_dataset = _unreplaced  # type: ignore[attr-defined]
sys.modules.setdefault("datasets", _datasets)
# Run-spec functions import torch only to name the judges' device (metrics, not prompts).
_gpu = types.ModuleType("helm.common.gpu_utils")
_gpu.get_torch_device_name = lambda: "cpu"  # type: ignore[attr-defined]
sys.modules.setdefault("helm.common.gpu_utils", _gpu)


class Placeholder:
    """Marks a download HELM makes whose content never reaches an evaluated prompt."""

    def __init__(self, why: str, content: str = "") -> None:
        self.why = why
        self.content = content


class LocalSources:
    """Resolves HELM's downloads of one benchmark to files under `root/<folder>`."""

    def __init__(self, root: Path, folder: str, downloads: dict[str, str | Placeholder]) -> None:
        self.root = root / folder
        self.downloads = downloads  # the URL's last path part -> a file below root/folder, or a placeholder
        self.placeholders: dict[str, str] = {}
        self.read: list[str] = []  # local files handed to HELM, in order

    def local(self, relative: str) -> Path:
        """A file of the dataset folder, which must exist."""
        path = self.root / relative
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: HELM reads it")
        self.read.append(relative)
        return path

    def _resolve(self, url: str) -> str | Placeholder:
        name = url.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
        if name not in self.downloads:
            raise RuntimeError(f"HELM downloads {url}, which has no local file: add it to the benchmark's downloads")
        return self.downloads[name]

    def ensure_file_downloaded(self, source_url: str, target_path: str, unpack: bool = False,
                               downloader_executable: str | None = None, unpack_type: str | None = None) -> None:
        """HELM's `ensure_file_downloaded`, copying the local file (or unpacking a folder map) instead."""
        if os.path.exists(target_path):
            return
        found = self._resolve(source_url)
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(found, Placeholder):
            self.placeholders[source_url] = found.why
            Path(target_path).write_text(found.content, "utf-8")
            return
        if unpack:
            # An archive: `found` names a JSON map {path inside the archive: local file or null (absent)}.
            layout = json.loads(found)
            for inside, local in layout.items():
                target = Path(target_path) / inside
                target.parent.mkdir(parents=True, exist_ok=True)
                if local is None or not (self.root / local).is_file():
                    self.placeholders[f"{source_url} :: {inside}"] = "not published in a copy here: read as empty"
                    target.write_text("", "utf-8")
                else:
                    shutil.copyfile(self.local(local), target)
            return
        shutil.copyfile(self.local(found), target_path)

    def requests_stub(self, listing: Callable[[], list[str]], subfolder: str) -> types.SimpleNamespace:
        """A `requests` module whose `get` answers GitHub's contents API with `listing()` and raw file URLs
        with the local file of that name (MTSamples)."""
        sources = self

        class Response:
            def __init__(self, status_code: int, text: str = "", payload: Any = None) -> None:
                self.status_code = status_code
                self.text = text
                self._payload = payload

            def json(self) -> Any:
                return self._payload

        def get(url: str, headers: dict[str, str] | None = None, **kwargs: Any) -> Response:
            if "api.github.com" in url:
                return Response(200, payload=[{"name": name} for name in listing()])
            from urllib.parse import unquote

            name = unquote(url.rsplit("/", 1)[-1])
            path = sources.local(f"{subfolder}/{name}")
            # requests decodes raw.githubusercontent's text/plain; charset=utf-8 bodies as UTF-8, bytes unchanged.
            return Response(200, text=path.read_bytes().decode("utf-8"))

        return types.SimpleNamespace(get=get)


def csv_rows_as_hugging_face(path: Path) -> list[dict[str, Any]]:
    """Rows of a CSV as Hugging Face's CSV builder gives them: pandas' reading, missing cells as None."""
    import pandas as pd

    frame = pd.read_csv(path)
    return [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


def head_qa_rows(path: Path, years: frozenset[str]) -> list[dict[str, Any]]:
    """HEAD-QA rows as Hugging Face's `head_qa.py` builds them (fields stripped, qid/ra/aid as int, image None
    when blank), for the exams of the test years (the official split: 2016 and 2017)."""
    data = json.loads(path.read_text("utf-8"))
    rows = []
    for exam in data["exams"].values():
        if exam["year"].strip() not in years:
            continue
        for question in exam["data"]:
            image = str(question.get("image") or "").strip()
            rows.append({
                "name": exam["name"].strip(), "year": exam["year"].strip(), "category": exam["category"].strip(),
                "qid": int(str(question["qid"]).strip()), "qtext": question["qtext"].strip(),
                "ra": int(str(question["ra"]).strip()), "image": image or None,
                "answers": [{"aid": int(a["aid"]), "atext": a["atext"].strip()} for a in question["answers"]],
            })
    return rows


def mediqa_rows(path: Path) -> list[dict[str, Any]]:
    """MEDIQA 2019 QA rows as BigBio's `mediqa_qa.py` (source schema) builds them from the XML."""
    from xml.etree import ElementTree

    rows = []
    for question in ElementTree.parse(path).getroot().iterfind("Question"):
        answers = []
        for answer in question.find("AnswerList").findall("Answer"):  # type: ignore[union-attr]
            answers.append({"Answer": {
                "AID": answer.attrib["AID"], "SystemRank": int(answer.attrib["SystemRank"]),
                "ReferenceRank": int(answer.attrib["ReferenceRank"]),
                "ReferenceScore": int(answer.attrib["ReferenceScore"]),
                "AnswerURL": answer.find("AnswerURL").text,  # type: ignore[union-attr]
                "AnswerText": answer.find("AnswerText").text,  # type: ignore[union-attr]
            }})
        rows.append({"QUESTION": {"QID": question.attrib["QID"],
                                  "QuestionText": question.find("QuestionText").text,  # type: ignore[union-attr]
                                  "AnswerList": answers}})
    return rows


def arrow_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a Hugging Face `save_to_disk` Arrow stream, as `load_dataset` of that revision gives them."""
    import pyarrow as pa
    import pyarrow.ipc

    with pa.memory_map(str(path)) as source:
        return list(pyarrow.ipc.open_stream(source).read_all().to_pylist())

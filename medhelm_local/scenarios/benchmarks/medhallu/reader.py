"""MedHallu (pqa_labeled): each row gives two instances, its ground-truth answer (label "0") and its
hallucinated answer (label "1").

The knowledge passage is shown as MedHELM shows it: the Python rendering of the list of context
strings ("['...', '...']"), since MedHELM formats the list field straight into the prompt.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

GROUNDED, HALLUCINATED = "0", "1"
FILE = "Detection/MedHallu_pqa_labeled/train/data-00000-of-00001.arrow"
COLUMNS = ("Question", "Knowledge", "Ground Truth", "Hallucinated Answer")


@reader("medhallu")
def read_medhallu(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """Two instances per row, grounded first; the row's difficulty and category kept as extras."""
    import pyarrow as pa  # imported here: only this reader needs pyarrow's IPC
    import pyarrow.ipc

    try:
        with pa.memory_map(str(paths[FILE])) as source:
            table = pyarrow.ipc.open_stream(source).read_all()
    except pa.ArrowException as exc:
        raise ValueError(f"not an Arrow stream ({exc})") from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise ValueError(f"the Arrow table lacks column(s) {', '.join(missing)}")
    for number, row in enumerate(table.to_pylist()):
        extra = MappingProxyType({"difficulty": str(row.get("Difficulty Level") or ""),
                                  "hallucination_category": str(row.get("Category of Hallucination") or "")})
        for kind, answer, label in (("grounded", row["Ground Truth"], GROUNDED),
                                    ("hallucinated", row["Hallucinated Answer"], HALLUCINATED)):
            text = f"World Knowledge: {row['Knowledge']}\n\nQuestion: {row['Question']}\n\nAnswer: {answer}\n"
            yield Instance(f"row-{number:04d}-{kind}", text, (Reference(label),), extra=extra)

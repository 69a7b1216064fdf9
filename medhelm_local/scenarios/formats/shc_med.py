"""The shc_*_med family (Stanford Health Care classifiers): a CSV with `prompt`, `context` and `label`.

Each row is a question about a note (`prompt`; one variant, ClinicReferral, names the column
`question`), the note or its excerpt (`context`) and the answer letter (`label`: A, B, or for
ENT-Referral A, B or C). Rows are numbered: MedHELM keys its instances by prompt text, so rows with
the same question and context collapse into one there; here each row is its own instance. Fields
may be longer than csv's default limit (MedHELM lifts it as well).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.scenarios.formats import row_format
from medhelm_local.scenarios.tabular import delimited_rows, require_columns


@row_format("shc_med", ("shc_bmt_med", "shc_cdi_med", "shc_conf_med", "shc_ent_med", "shc_gip_med",
                        "shc_privacy_med", "shc_proxy_med", "shc_ptbm_med", "shc_sei_med", "shc_sequoia_med"))
def shc_med_rows(path: Path, args: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """Rows with prompt (and its alias question), context, label (stripped) and row (the row number)."""
    for number, row in enumerate(delimited_rows(path), start=1):
        if number == 1:
            require_columns(path.name, row, ("context", "label"))
            if "prompt" not in row and "question" not in row:
                raise ValueError(f"{path.name} lacks column(s) prompt (or question)")
        question = row.get("prompt", row.get("question", ""))
        label = row.get("label", "").strip()
        if not label:
            raise ValueError(f"row {number} has no label")
        yield {**row, "prompt": question, "question": question, "label": label, "row": str(number)}

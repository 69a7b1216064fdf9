"""Print, per public benchmark and run entry, how many of this project's prompts are identical to HELM 0.5.16's.

Runs with the project's environment (HELM is not needed: it reads the committed digests):

    .venv/bin/python tools/helm_parity/report.py [--datasets ../shared/datasets] [--markdown]

Each run entry the digests name is checked (tests/scenarios/test_helm_parity.py asserts the same);
a benchmark marked not comparable is also shown as it runs by default, with what differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from support.helm_parity import (  # noqa: E402
    FIXTURE,
    FIXTURES,
    PUBLISHED,
    SUBSET,
    WITHOUT_DIGESTS,
    Outcome,
    compare,
    goldens,
)

from medhelm_local.errors import MedhelmError  # noqa: E402
from medhelm_local.scenarios import DataRoot, get, import_dataset  # noqa: E402

DEMO = REPO / "deploy" / "demo" / "datasets"


def _row(outcome: Outcome, markdown: bool, fixture: bool) -> str:
    where = "id by id" if outcome.mode == PUBLISHED else "by content"
    if fixture:
        where += ", synthetic file"
    of = f"{outcome.identical} / {outcome.here}" + (f" (HELM {outcome.helm})" if outcome.here != outcome.helm else "")
    notes = []
    if outcome.differing:
        notes.append(f"{len(outcome.differing)} differ" if outcome.mode == PUBLISHED else
                     f"{len(outcome.differing)} have no identical HELM prompt")
    if outcome.missing and outcome.covers == "all":
        notes.append(f"{len(outcome.missing)} of HELM's not built")
    if outcome.extra:
        notes.append(f"{len(outcome.extra)} not in HELM")
    notes += outcome.request
    cells = [f"`{outcome.entry}`", of, where, "; ".join(notes) or "identical"]
    return "| " + " | ".join(cells) + " |" if markdown else "  ".join(f"{c:44}" if i == 0 else c
                                                                   for i, c in enumerate(cells))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    failing = 0
    if args.markdown:
        print("| run entry | identical / instances | compared | notes |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for number, golden in enumerate(goldens()):
            if golden.root == FIXTURE:
                import_dataset(FIXTURES / golden.folder, Path(scratch) / str(number))
                data, mode = DataRoot(Path(scratch) / str(number)), PUBLISHED
            elif golden.same_files(args.datasets):
                data, mode = DataRoot(args.datasets), PUBLISHED
            elif (DEMO / golden.folder).is_dir():
                import_dataset(DEMO / golden.folder, Path(scratch) / "data")
                data, mode = DataRoot(Path(scratch) / "data"), SUBSET
            else:
                print(f"{golden.benchmark}: no copy of {golden.folder} here")
                continue
            entries = [(check["args"], check["covers"]) for check in golden.checks]
            found = get(golden.benchmark).card.not_comparable
            if found is not None:
                # Shown, not asserted: the run entry whose scores do not compare (the default, or the other value).
                default = get(golden.benchmark).create().args
                other = {k: next(c for c in get(golden.benchmark).card.args[k].choices or () if c != v)
                         for k, v in found.unless.items()} if all(default.get(k) == v for k, v in
                                                                  found.unless.items()) else {}
                entries.append((other, "part"))
            for entry_args, covers in entries:
                asserted = (entry_args, covers) in [(c["args"], c["covers"]) for c in golden.checks]
                try:
                    # A run entry shown only is compared by content: its ids need not be HELM's.
                    outcome = compare(golden, entry_args, covers, data, mode if asserted else SUBSET)
                except MedhelmError as exc:
                    failing += 1
                    print(f"{golden.benchmark} {entry_args}: not checked, {exc.what}")
                    continue
                failing += asserted and not outcome.ok
                print(_row(outcome, args.markdown, golden.root == FIXTURE))
    for name, why in WITHOUT_DIGESTS.items():
        print(f"| `{name}` | - | - | not compared: {why} |" if args.markdown else f"{name}: not compared, {why}")
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())

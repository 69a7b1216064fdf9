"""This project's prompts for the fork's benchmarks against the fork's own (fork_prompts.py's output)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from medhelm_local.scenarios import DataRoot, create


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--prompts", type=Path, required=True)
    args = parser.parse_args()
    fork = json.loads(args.prompts.read_text())
    sample = args.datasets / "medxpert_qa_text" / "medxpertqa_sampled_text_input.jsonl"
    checks = {"sct_bench": create("sct_bench"), "medxpert_qa_text": create("medxpert_qa_text",
                                                                           {"data_path": str(sample)})}
    failing = 0
    for name, bench in checks.items():
        # The fork's ids: sct_bench's question_id; medxpert_qa_text's id0, id1, ... in file order.
        prompts = [bench.prompt(i) for i in bench.load(DataRoot(args.datasets))]
        theirs = fork[name]
        ours = {p.instance_id: p for p in prompts} if name == "sct_bench" else \
            {f"id{n}": p for n, p in enumerate(prompts)}
        same = sum(1 for row in theirs if row["helm_id"] in ours and ours[row["helm_id"]].text == row["prompt"]
                   and (ours[row["helm_id"]].max_tokens, list(ours[row["helm_id"]].stop)) ==
                   (row["max_tokens"], row["stop"]))
        failing += same != len(theirs) or len(ours) != len(theirs)
        print(f"{name}: {same} / {len(theirs)} prompts and request parameters identical ({len(ours)} here)")
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""MedHELM's validation statistics by its reference method, on made-up ratings: writes the test vectors.

Run in the pingouin environment (`make pingouin`: pingouin, pandas, scipy, scikit-learn), never by the
program itself:

    .cache/pingouin-venv/bin/python tests/support/medhelm_validation_reference.py \
        > tests/metrics/data/medhelm_validation.json

It makes ratings in MedHELM's published layout (`username, specialty, team, entry_id, instance_id,
dataset_name, model_key, user_label, accuracy, completeness, clarity, llm_accuracy, ...`; every name and
number made up, seeded), then computes MedHELM's four statistics the way its analysis code does
(som-shahlab/medhelm, `src/medhelm/open-ended-evals/4_calculate_icc.py`), with the libraries it uses:
per row the composite (pandas mean of the three criteria), per answer the clinicians' mean and the
jury's; pingouin's ICC3k (ICC(C,k) in pingouin 0.7) on within-rater z-scores (pandas std, ddof 1), its
95 % interval unrounded; scipy's Spearman with the Fisher-z interval; scikit-learn's quadratic-weighted
Cohen's kappa on composites rounded by pandas, with the 2.5th and 97.5th percentiles of 1,000 bootstrap
resamples; the pingouin ICC3k-z of the clinician pair with the most answers in common. Per dataset, for
aci_bench + medi_qa (MedHELM's headline subset) and for all. Three choices make the numbers comparable
with this project's: an answer is keyed by (dataset_name, instance_id, model_key), where MedHELM's code
groups by instance_id alone (the same on its data, where no id repeats); composites are taken to 12
decimals (DECIMALS); the bootstrap draws come from numpy's seeded default_rng(0), in the answers' key
order, where MedHELM's come from the unseeded global generator.
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np
import pandas as pd
import pingouin as pg
import scipy
import sklearn
from scipy.stats import f, spearmanr
from sklearn.metrics import cohen_kappa_score

CRITERIA = ["accuracy", "completeness", "clarity"]
KEY = ["dataset_name", "instance_id", "model_key"]
SAMPLES = 1000
MODELS = ["model_a", "model_b", "model_c"]
# Composites to 12 decimals: equal composites then tie whatever order pandas summed their parts in (the last
# bit of a float sum otherwise breaks Spearman's ties and kappa's halves at random); nothing else moves.
DECIMALS = 12
F_CASES = [(1, 1), (1, 2), (2, 1), (5, 5), (16, 16), (30, 30), (61, 61), (3, 200), (200, 3), (0.5, 7.3)]


def _clip(value: int) -> int:
    return min(5, max(1, value))


def make_ratings(seed: int = 7) -> list[dict[str, object]]:
    """Teams of two clinicians rating the same answers (one clinician in two datasets, some answers rated by a
    third clinician alone), the jury's criteria as means of three judges' whole points."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    teams = {"aci_bench": [("Dr Ash", "Dr Birch", 9), ("Dr Cedar", "Dr Dogwood", 8)],
             "medi_qa": [("Dr Elm", "Dr Fir", 10), ("Dr Cedar", "Dr Gum", 6)],
             "mtsamples_replicate": [("Dr Hazel", "Dr Ivy", 7), ("Dr Juniper", "Dr Kapok", 5)]}
    entry = 0
    for dataset, groups in teams.items():
        number = 0
        for first, second, answers in groups:
            for _ in range(answers):
                number += 1
                instance = f"id{100 + number}" if dataset != "medi_qa" else str(10 + number)
                quality = rng.randint(2, 5)
                judges = [[_clip(quality + rng.choice((-2, -1, 0, 0, 1, 1))) for _ in CRITERIA] for _ in range(3)]
                jury = [sum(j[i] for j in judges) / 3 for i in range(len(CRITERIA))]
                entry += 1
                for name in (first, second):
                    scores = [_clip(quality + rng.choice((-3, -2, -1, 0, 0, 1, 2))) for _ in CRITERIA]
                    rows.append(_row(name, dataset, instance, MODELS[number % 3], entry, scores, jury))
        for _ in range(2):  # answers one clinician rates alone
            number += 1
            entry += 1
            scores = [rng.randint(1, 5) for _ in CRITERIA]
            jury = [rng.randint(3, 15) / 3 for _ in CRITERIA]
            rows.append(_row("Dr Larch", dataset, f"id{100 + number}" if dataset != "medi_qa" else str(10 + number),
                             MODELS[0], entry, scores, jury))
    return rows


def _row(name: str, dataset: str, instance: str, model: str, entry: int, scores: list[int],
         jury: list[float]) -> dict[str, object]:
    return {"username": name, "specialty": "Made up", "team": "Team 0", "entry_id": entry, "instance_id": instance,
            "dataset_name": dataset, "model_key": model, "user_label": "Model A",
            **dict(zip(CRITERIA, scores, strict=True)),
            **{f"llm_{c}": v for c, v in zip(CRITERIA, jury, strict=True)}}


def _z(long: pd.DataFrame) -> pd.DataFrame:
    by = long.groupby("rater")["score"]
    return long.assign(score=(long["score"] - by.transform("mean")) / by.transform("std"))


def _icc3k(long: pd.DataFrame) -> list[float]:
    table = pg.intraclass_corr(long, targets="answer", raters="rater", ratings="score").set_index("Type")
    low, high = table.loc["ICC(C,k)", "CI95"]
    return [float(table.loc["ICC(C,k)", "ICC"]), float(low), float(high)]


def statistics(frame: pd.DataFrame) -> dict[str, list[float | None]]:
    """MedHELM's four statistics on one set of rows."""
    frame = frame.assign(overall=frame[CRITERIA].mean(axis=1),
                         llm_overall=frame[[f"llm_{c}" for c in CRITERIA]].mean(axis=1).round(DECIMALS),
                         answer=frame[KEY].astype(str).agg("|".join, axis=1))
    human = frame.groupby(KEY, sort=True)["overall"].mean().round(DECIMALS)
    jury = frame.groupby(KEY, sort=True)["llm_overall"].first()
    merged = pd.DataFrame({"human": human.values, "jury": jury.values})
    merged["answer"] = range(len(merged))
    long = merged.melt(id_vars="answer", var_name="rater", value_name="score").pipe(_z)
    icc = _icc3k(long)
    rho = float(spearmanr(merged["human"], merged["jury"]).statistic)
    half = 1.96 / np.sqrt(len(merged) - 3)
    z = np.arctanh(rho)
    human_points, jury_points = merged["human"].round().astype(int), merged["jury"].round().astype(int)
    kappa = float(cohen_kappa_score(human_points, jury_points, weights="quadratic", labels=[1, 2, 3, 4, 5]))
    draws = np.random.default_rng(0).integers(0, len(merged), size=(SAMPLES, len(merged)))
    boot = [cohen_kappa_score(human_points.values[d], jury_points.values[d], weights="quadratic",
                              labels=[1, 2, 3, 4, 5]) for d in draws]
    counts = frame.groupby(["username", "answer"]).size().unstack(fill_value=0)
    overlap = counts.dot(counts.T).to_numpy(copy=True)  # a copy: pandas 3 hands out read-only arrays
    np.fill_diagonal(overlap, 0)
    first, second = np.unravel_index(overlap.argmax(), overlap.shape)
    pair = [counts.index[first], counts.index[second]]
    rated = frame[frame["username"].isin(pair)]
    hlong = pd.DataFrame({"answer": rated["answer"], "rater": rated["username"],
                          "score": rated["overall"].round(DECIMALS)}).pipe(_z)
    return {"icc3k_z": icc, "spearman": [rho, float(np.tanh(z - half)), float(np.tanh(z + half))],
            "weighted_kappa": [kappa, float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))],
            "clinicians_icc3k_z": _icc3k(hlong), "pair": pair, "answers": len(merged)}


def main() -> None:
    """Print the vectors as JSON."""
    pg.options["round.column.CI95"] = None  # pingouin rounds intervals to 2 decimals unless told not to
    rows = make_ratings()
    frame = pd.DataFrame(rows)
    groups = {name: frame[frame["dataset_name"] == name] for name in sorted(frame["dataset_name"].unique())}
    groups["aci_bench+medi_qa"] = frame[frame["dataset_name"].isin(["aci_bench", "medi_qa"])]
    groups["all"] = frame
    out = {"versions": {"pingouin": pg.__version__, "pandas": pd.__version__, "scipy": scipy.__version__,
                        "scikit-learn": sklearn.__version__, "numpy": np.__version__},
           "rows": rows, "statistics": {name: statistics(group) for name, group in groups.items()},
           "f_quantiles": [[0.975, d1, d2, float(f.ppf(0.975, d1, d2))] for d1, d2 in F_CASES]}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

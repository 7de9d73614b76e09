#!/usr/bin/env python3
"""Does context matter? S_rf and S_raf against n on the same Brown windows for three embeddings:
static GloVe vectors, a pretrained encoder's layer 0 and one of its contextual layers.

    analysis/context_matters.py --static G.h5 --layer0 L0.h5 --contextual L6.h5 -o DIR

Each FILE is a results file of jobs/configs/context_minilm_brown.ini run on one embeddings file
(jobs/context_matters.sh runs all three). Writes DIR/context_matters.png (and .pdf): mean S with
its 95 % t interval over trials against n, rf's certified upper bound dashed, one colour per
embedding, one panel per model; DIR/context_matters.csv and .md: per embedding and n the mean S of
rf and raf, rf's mean S_upper and the median over trials of S_raf / S_rf on the same text, and
per embedding the slope of log S against log n (median of per-trial slopes, order-statistic
95 % interval; wordsens_analysis.rules.stats.loglog_slope).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from wordsens_analysis import reader  # noqa: E402
from wordsens_analysis.rules import stats  # noqa: E402

SERIES = [("static", "GloVe 6B, static (pieces share their word's vector)", "tab:gray", "s"),
          ("layer0", "encoder layer 0 (token + position)", "tab:blue", "o"),
          ("contextual", "encoder contextual layer", "tab:red", "^")]


def load(paths: dict) -> pd.DataFrame:
    frames = []
    for key, path in paths.items():
        ws = reader.read_results(path).ws
        ws = ws[ws["words"] == 1] if "words" in ws else ws
        frames.append(ws.assign(embedding=key))
    return pd.concat(frames, ignore_index=True)


def table(ws: pd.DataFrame) -> tuple:
    """(per-n table, per-embedding slope table)."""
    rows, slopes = [], []
    for key, label, _, _ in SERIES:
        e = ws[ws["embedding"] == key]
        if e.empty:
            continue
        d = int(e["d"].iloc[0])
        for n, g in e.groupby("n"):
            rf, raf = g[g["model"] == "rf"], g[g["model"] == "raf"]
            paired = rf.set_index("trial")["S"].to_frame("rf").join(
                raf.set_index("trial")["S"].to_frame("raf"), how="inner")
            rows.append({"embedding": key, "d": d, "n": int(n), "trials": len(paired),
                         "S_rf": rf["S"].mean(), "S_upper_rf": rf["S_upper"].mean(),
                         "S_raf": raf["S"].mean(),
                         "median S_raf/S_rf": float(np.median(paired["raf"] / paired["rf"]))})
        for model in ("rf", "raf"):
            fit = stats.loglog_slope(e[e["model"] == model], "n", "S")
            slopes.append({"embedding": key, "model": model, "slope": fit["estimate"],
                           "ci_low": fit["ci_low"], "ci_high": fit["ci_high"],
                           "trials": fit["trials"]})
    return pd.DataFrame(rows), pd.DataFrame(slopes)


def figure(ws: pd.DataFrame, path: str, contextual_label: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.stats import t as t_dist
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for ax, model, title in ((axes[0], "rf", "rf (k = D)"), (axes[1], "raf", "raf")):
        for key, label, colour, marker in SERIES:
            g = ws[(ws["embedding"] == key) & (ws["model"] == model)]
            if g.empty:
                continue
            if key == "contextual":
                label = contextual_label
            s = stats.summarize(g, ["n"], "S")
            half = t_dist.ppf(0.975, (s["count"] - 1).clip(lower=1)) * s["sem"]
            ax.errorbar(s["n"], s["mean"], yerr=half, color=colour, marker=marker, capsize=2,
                        label=label)
            if model == "rf" and g["S_upper"].notna().any():
                up = g.groupby("n")["S_upper"].mean()
                ax.plot(up.index, up.values, color=colour, ls="--", lw=1)
        if model == "rf":
            n = np.asarray(sorted(ws["n"].unique()), float)
            ax.plot(n, 2.0 / np.sqrt(n), color="k", ls=":", lw=1, label="∝ 1/√n")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n (WordPiece pieces per text)")
        ax.set_ylabel("word sensitivity S (mean, 95 % CI)")
        ax.set_title(title + (": S (solid), certified S_upper (dashed)" if model == "rf" else ""))
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize=8, loc="lower left")
    d = int(ws["d"].iloc[0])
    fig.suptitle(f"Does context matter? The same Brown windows, d = {d}, first word changed")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    fig.savefig(os.path.splitext(path)[0] + ".pdf")
    plt.close(fig)


def markdown(per_n: pd.DataFrame, slopes: pd.DataFrame) -> str:
    def fmt(v):
        return f"{v:.3g}" if isinstance(v, (float, np.floating)) else str(v)
    lines = ["| embedding | d | n | trials | S_rf | S_upper,rf | S_raf | median S_raf/S_rf |",
             "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for r in per_n.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v) for v in r) + " |")
    lines += ["", "| embedding | model | slope of log S vs log n [95 % CI] | trials |",
              "|---|---|---|--:|"]
    for r in slopes.itertuples(index=False):
        lines.append(f"| {r.embedding} | {r.model} | {r.slope:.3f} [{r.ci_low:.3f}, "
                     f"{r.ci_high:.3f}] | {r.trials} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--static", required=True, help="results on the static GloVe file")
    p.add_argument("--layer0", required=True, help="results on the encoder's layer 0")
    p.add_argument("--contextual", required=True, help="results on a contextual layer")
    p.add_argument("--contextual-label", default="encoder layer 6 (contextual)")
    p.add_argument("-o", "--output", required=True, help="output folder")
    args = p.parse_args(argv)
    os.makedirs(args.output, exist_ok=True)
    ws = load({"static": args.static, "layer0": args.layer0, "contextual": args.contextual})
    if ws["d"].nunique() != 1:
        sys.exit("context_matters: the three files must share one d")
    per_n, slopes = table(ws)
    per_n.to_csv(os.path.join(args.output, "context_matters.csv"), index=False)
    slopes.to_csv(os.path.join(args.output, "context_matters_slopes.csv"), index=False)
    with open(os.path.join(args.output, "context_matters.md"), "w") as f:
        f.write(markdown(per_n, slopes))
    figure(ws, os.path.join(args.output, "context_matters.png"), args.contextual_label)
    print(markdown(per_n, slopes))
    return 0


if __name__ == "__main__":
    sys.exit(main())

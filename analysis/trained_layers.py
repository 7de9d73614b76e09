#!/usr/bin/env python3
"""The word sensitivity of a pretrained encoder's layers on their own inputs (docs/METHOD.md §2,
"Trained layers"): S against n per layer for the trained attention and the whole trained layer,
their random twins and raf, on the same Brown windows.

    analysis/trained_layers.py RESULTS… -o DIR

Each RESULTS is a results file of jobs/configs/trained_minilm.ini at one layer ℓ (its
`encoder-layer`; jobs/trained_minilm.sh runs ℓ = 1 … 6). Writes DIR/trained_layers.png (and
.pdf): one panel per layer, mean S with its 95 % t interval over trials against n, one line per
model in its own style (wordsens_analysis.twins.model_pieces); DIR/trained_layers.md and .csv:
per layer and model the slope of log S against log n (median of per-trial slopes,
order-statistic 95 % interval: wordsens_analysis.rules.stats.loglog_slope) and S at the smallest
and largest n, and per layer the ratios on the same texts, trained/twin and trained/raf, as the
median over trials of the per-trial mean over n of log(S_a/S_b), exponentiated, with its
order-statistic 95 % interval.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from wordsens_analysis import reader  # noqa: E402
from wordsens_analysis.reading import stored_config  # noqa: E402
from wordsens_analysis.rules import stats  # noqa: E402
from wordsens_analysis.twins import model_pieces  # noqa: E402

MODELS = ("trained_attn", "twin_attn", "trained_layer", "twin_layer", "raf", "mhraf")
PAIRS = (("trained_attn", "twin_attn"), ("trained_attn", "raf"), ("trained_layer", "twin_layer"),
         ("trained_layer", "raf"), ("trained_layer", "trained_attn"))


def layer_of(results) -> int:
    """The file's `encoder-layer`, from the configuration it stores (Results.config)."""
    value = stored_config.of(results).get("encoder-layer")
    if not isinstance(value, int):
        raise SystemExit(f"trained_layers: {results.path} has no encoder-layer (not a trained "
                         "study)")
    return int(value)


def load(paths) -> pd.DataFrame:
    frames = []
    for path in paths:
        r = reader.read_results(path)
        ws = r.ws[r.ws["words"] == 1] if "words" in r.ws else r.ws
        frames.append(ws.assign(layer=layer_of(r)))
    return pd.concat(frames, ignore_index=True)


def slopes(ws: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (layer, model), g in ws.groupby(["layer", "model"], sort=True):
        fit = stats.loglog_slope(g, "n", "S")
        by_n = g.groupby("n")["S"].mean()
        rows.append({"layer": int(layer), "model": model, "slope": fit["estimate"],
                     "ci_low": fit["ci_low"], "ci_high": fit["ci_high"],
                     "trials": fit["trials"], "n_min": int(by_n.index.min()),
                     "S_at_n_min": by_n.iloc[0], "n_max": int(by_n.index.max()),
                     "S_at_n_max": by_n.iloc[-1]})
    return pd.DataFrame(rows)


def ratios(ws: pd.DataFrame) -> pd.DataFrame:
    """Per layer and pair (a, b): per trial the mean over the n both have of log(S_a/S_b) on the
    same text, then the median over trials and its interval, exponentiated."""
    rows = []
    for layer, g in ws.groupby("layer", sort=True):
        for a, b in PAIRS:
            ga, gb = g[g["model"] == a], g[g["model"] == b]
            if ga.empty or gb.empty:
                continue
            joined = ga.set_index(["trial", "n"])["S"].to_frame("a").join(
                gb.set_index(["trial", "n"])["S"].to_frame("b"), how="inner")
            per_trial = np.log(joined["a"] / joined["b"]).groupby(level="trial").mean()
            if per_trial.empty:
                continue
            med, low, high, _, _ = stats.median_interval(per_trial.to_numpy())
            rows.append({"layer": int(layer), "ratio": f"{a}/{b}",
                         "median": float(np.exp(med)),
                         "ci_low": float(np.exp(low)), "ci_high": float(np.exp(high)),
                         "trials": int(per_trial.size),
                         "trials_above_1": int((per_trial > 0).sum())})
    return pd.DataFrame(rows)


def figure(ws: pd.DataFrame, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.stats import t as t_dist
    layers = sorted(ws["layer"].unique())
    cols = min(3, len(layers))
    rows = -(-len(layers) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.8 * rows), squeeze=False,
                             sharex=True, sharey=True)
    for ax, layer in zip(axes.ravel(), layers):
        wl = ws[ws["layer"] == layer]
        for model in [m for m in MODELS if m in set(wl["model"])]:
            s = stats.summarize(wl[wl["model"] == model], ["n"], "S")
            half = t_dist.ppf(0.975, (s["count"] - 1).clip(lower=1)) * s["sem"]
            ax.errorbar(s["n"], s["mean"], yerr=half, capsize=2, label=model, ms=5,
                        **model_pieces.style(model))
        n = np.asarray(sorted(wl["n"].unique()), float)
        ax.plot(n, np.sqrt(n[0] / n) * 0.5, color="k", ls=":", lw=1, label="∝ 1/√n")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"layer {layer}")
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes.ravel()[len(layers):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("n (WordPiece pieces per text)")
    for ax in axes[:, 0]:
        ax.set_ylabel("S (mean, 95 % CI)")
    axes.ravel()[0].legend(fontsize=7, loc="lower left")
    d = int(ws["d"].iloc[0])
    fig.suptitle(f"all-MiniLM-L6-v2 layer by layer on its own inputs (Brown windows, d = {d}): "
                 "trained, random twin, raf")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    fig.savefig(os.path.splitext(path)[0] + ".pdf")
    plt.close(fig)


def markdown(sl: pd.DataFrame, ra: pd.DataFrame) -> str:
    lines = ["| layer | model | slope of log S vs log n [95 % CI] | S at n_min → n_max | trials |",
             "|--:|---|---|---|--:|"]
    for r in sl.itertuples(index=False):
        lines.append(f"| {r.layer} | {r.model} | {r.slope:+.3f} [{r.ci_low:+.3f}, "
                     f"{r.ci_high:+.3f}] | {r.S_at_n_min:.3g} (n={r.n_min}) → "
                     f"{r.S_at_n_max:.3g} (n={r.n_max}) | {r.trials} |")
    lines += ["", "| layer | ratio on the same texts | median [95 % CI] | trials above 1 |",
              "|--:|---|---|---|"]
    for r in ra.itertuples(index=False):
        lines.append(f"| {r.layer} | {r.ratio} | {r.median:.3g} [{r.ci_low:.3g}, "
                     f"{r.ci_high:.3g}] | {r.trials_above_1}/{r.trials} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("results", nargs="+", help="results files of trained_minilm.ini, one a layer")
    p.add_argument("-o", "--output", required=True, help="output folder")
    args = p.parse_args(argv)
    os.makedirs(args.output, exist_ok=True)
    ws = load(args.results)
    sl, ra = slopes(ws), ratios(ws)
    sl.to_csv(os.path.join(args.output, "trained_layers_slopes.csv"), index=False)
    ra.to_csv(os.path.join(args.output, "trained_layers_ratios.csv"), index=False)
    text = markdown(sl, ra)
    with open(os.path.join(args.output, "trained_layers.md"), "w") as f:
        f.write(text)
    figure(ws, os.path.join(args.output, "trained_layers.png"))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

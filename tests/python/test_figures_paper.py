"""The figures a reader puts beside the paper: they draw what the verdicts judge (medians over
trials; S_upper where the claim is an upper bound; the table's slope over the table's window),
name the paper's experiment and their data in words (never a path), keep legends readable, draw
no empty panel, and come in the paper's layout for a single file too."""
import html
import subprocess
import warnings

import h5py
import numpy as np
import pandas as pd
import pytest
from conftest import REPORT, synthetic_tables, write_results

from wordsens_analysis import read_results
from wordsens_analysis.claims import prepare_ws, verdicts
from wordsens_analysis.reading import build_studies
from wordsens_analysis.report import figure_series, figure_words, paper_figures, plots
from wordsens_analysis.rules import groups, regimes

PY = "/usr/bin/python3"


@pytest.fixture
def drawn(monkeypatch):
    """The figures the drawing functions build, kept open instead of saved."""
    figs = []

    def keep(fig, outdir, name, dpi=130):
        figs.append(fig)
        return [f"{outdir}/{name}.png"]

    monkeypatch.setattr(plots, "_save", keep)
    return figs


def _study(tmp_path, models=("rf", "drf", "raf", "raf_relu"), data=None, seed=3):
    tables = synthetic_tables(ns=(8, 16, 32, 64), trials=12, models=models)
    path = write_results(tmp_path / "study_a.h5", *tables)
    with h5py.File(path, "r+") as f:
        f.attrs["config_text"] = (f"data = {data}\n" if data else "") + f"seed = {seed}\n"
        f.attrs["master_seed"] = np.uint64(seed)
    with warnings.catch_warnings():  # the fixture's format predates the checksums: said, known
        warnings.simplefilter("ignore", UserWarning)
        studies, _, _ = build_studies([read_results(str(path))])
    return studies


def _lines(fig):
    return {line.get_label(): line for ax in fig.axes for line in ax.get_lines()}


def _texts(fig) -> list:
    out = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        if ax.get_legend() is not None:
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return out


def test_plotted_curves_are_the_medians_and_slope_the_table_judges(tmp_path, drawn):
    (study,) = _study(tmp_path)
    table = verdicts.judge_studies([study])
    paper_figures.ws_figure(study.ws, str(tmp_path), figure_words.sources([study]))
    lines = _lines(drawn[0])
    ws = prepare_ws(study.ws, study.catalogue)
    for claim, model, label in (("thm1_rf", "rf", "d=64"), ("thm2_drf", "drf", "d=64, L=2")):
        row = table[(table["kind"] == "primary") & (table["claim"] == claim)].iloc[0]
        # The table judges the certified bound's slope: the figure calls that curve judged.
        assert "S_upper" in row["statistic"]
        assert figure_series.judged_quantity(model) == "S_upper"
        (name,) = [k for k in lines if k.startswith(f"{label}: {figure_series.UPPER_JUDGED}")]
        # Its legend gives the table's estimate and interval, of S_upper, over the table's n.
        end = row["n_used"].split(",")
        assert f"slope of log S_upper over n={end[0]}..{end[-1]}: " in name
        assert f"{row['estimate']:+.2f} [{row['ci_low']:+.2f}, {row['ci_high']:+.2f}]" in name
        # Its points are the per-n medians of the trials × n matrix the rules judge.
        g = ws[(ws["model"] == model) & regimes.ws_mask(ws, model, study.catalogue)]
        plan = groups.Design(sorted(int(n) for n in g["n"].unique()), 0, "")
        cur = groups.usable_curves(g, "S_upper", plan)
        x, y = lines[name].get_data()
        assert list(x) == [int(v) for v in cur["x"]]
        assert np.allclose(y, np.median(cur["matrix"], axis=0), rtol=1e-12, atol=0)
        # The search's S is drawn too, called a lower bound.
        assert f"{label}: {figure_series.LOWER}" in lines


def test_attention_curve_is_the_median_of_S(tmp_path, drawn):
    (study,) = _study(tmp_path, models=("rf", "raf"))
    paper_figures.ws_figure(study.ws, str(tmp_path))
    lines = _lines(drawn[0])
    (name,) = [k for k in lines if k.startswith(f"d=64: {figure_series.LOWER_JUDGED}")]
    ws = prepare_ws(study.ws, study.catalogue)
    g = ws[ws["model"] == "raf"]
    want = g.groupby("n")["S"].median()
    x, y = lines[name].get_data()
    assert np.allclose(y, want.loc[list(x)].to_numpy(), rtol=1e-12, atol=0)


def test_titles_name_the_data_in_words_never_a_path(tmp_path, drawn):
    studies = _study(tmp_path, models=("rf", "raf"),
                     data="embeddings:/srv/some/dir/glove_brown_d100.h5")
    sources = figure_words.sources(studies)
    paper_figures.ws_figure(studies[0].ws, str(tmp_path), sources)
    plots.ws_figure(studies[0].ws, str(tmp_path), None, sources)
    for fig in drawn:
        text = "\n".join(_texts(fig))
        assert "study_a (real text: GloVe × Brown; seed 3)" in text
        for part in ("/srv", "some/dir", "glove_brown_d100", ".h5", str(tmp_path)):
            assert part not in text, part


def test_legends_readable_and_no_empty_panel(tmp_path, drawn):
    (study,) = _study(tmp_path, models=("rf", "raf"))
    sources = figure_words.sources([study])
    paper_figures.ws_figure(study.ws, str(tmp_path), sources)
    paper_figures.gen_figure(study.gen, str(tmp_path), sources)
    plots.ws_figure(study.ws, str(tmp_path), None, sources)
    plots.gen_figure(study.gen, str(tmp_path), sources)
    assert len(drawn) == 4
    # rf and raf only: two panels of word sensitivity, none for drf or raf_relu.
    assert len(drawn[0].axes) == 2
    for fig in drawn:
        for ax in fig.axes:
            assert ax.has_data(), ax.get_title()
            legend = ax.get_legend()
            if legend is not None:
                assert min(t.get_fontsize() for t in legend.get_texts()) >= 8


@pytest.mark.parametrize("draw, words", [
    (lambda s, out: paper_figures.ws_figure(s.ws, out), figure_words.PAPER_WS),
    (lambda s, out: paper_figures.gen_figure(s.gen, out), figure_words.PAPER_GEN),
    (lambda s, out: plots.ws_figure(s.ws, out), figure_words.PAPER_WS),
    (lambda s, out: plots.gen_figure(s.gen, out), figure_words.PAPER_GEN)])
def test_each_figure_names_the_papers_experiment(tmp_path, drawn, draw, words):
    (study,) = _study(tmp_path, models=("rf", "raf"))
    draw(study, str(tmp_path))
    title = " ".join(drawn[0]._suptitle.get_text().split())
    assert words in title


def test_single_file_report_has_the_papers_layout(tmp_path):
    tables = synthetic_tables(ns=(8, 16, 32, 64), trials=12, models=("rf", "raf"))
    path = write_results(tmp_path / "one.h5", *tables)
    out = tmp_path / "report"
    p = subprocess.run([PY, REPORT, str(path), "-o", str(out)], capture_output=True, text=True,
                       timeout=180)
    assert p.returncode == 0, p.stderr
    for name in ("paper_ws_vs_n.png", "paper_gen_error.png"):
        assert (out / name).stat().st_size > 0, name
    md = (out / "report.md").read_text()
    assert "![Word sensitivity against n, per model family (the paper's layout)]" \
           "(paper_ws_vs_n.png)" in md
    # Each figure's caption names the paper's experiment and the data, in words.
    assert f"{figure_words.PAPER_WS[0].upper()}{figure_words.PAPER_WS[1:]}." in md
    assert "Data: one (synthetic texts, Gaussian tokens; seed" in md
    assert html.escape(figure_words.PAPER_WS[1:]) in (out / "report.html").read_text()


def test_multi_word_points_are_medians_at_each_fraction(tmp_path, drawn):
    rng = np.random.default_rng(5)
    rows = [dict(model="rf", d=8, k=512, n=n, words=m, trial=t, S=float(rng.lognormal()),
                 series="mw") for n in (32, 64) for m in (1, 2, 4) for t in range(7)]
    df = pd.DataFrame(rows)
    plots.multi_word_figure(df, str(tmp_path), {"mw": "mw (synthetic texts, Gaussian tokens)"})
    # error bars: the label is the container's, the points its first line's
    lines = {c.get_label(): c.lines[0] for ax in drawn[0].axes for c in ax.containers}
    for n in (32, 64):
        x, y = lines[f"n={n}: median S_m"].get_data()
        want = df[df["n"] == n].groupby("words")["S"].median()
        assert np.allclose(np.asarray(x, dtype=float), want.index.to_numpy() / n)
        assert np.allclose(np.asarray(y, dtype=float), want.to_numpy(), rtol=1e-12, atol=0)

"""analysis/context_matters.py: the "does context matter?" table and figure from three results
files, on synthetic files whose truths are known (conftest.synthetic_tables)."""
import os
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT, synthetic_tables, write_results

SCRIPT = os.path.join(ROOT, "analysis", "context_matters.py")


def three_files(tmp_path, raf_slopes):
    paths = {}
    for (name, slope), seed in zip(raf_slopes.items(), (1, 2, 3)):
        tasks, ws, _ = synthetic_tables(ns=(8, 16, 32, 64), d=64, trials=8, seed=seed,
                                        models=("rf", "raf"), gen_models=(),
                                        slopes={"raf": slope})
        paths[name] = write_results(tmp_path / f"{name}.h5", tasks, ws)
    return paths


def test_table_slopes_and_figure(tmp_path):
    truths = {"static": -0.3, "layer0": 0.0, "contextual": -0.15}
    paths = three_files(tmp_path, truths)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, SCRIPT, "--static", str(paths["static"]), "--layer0",
                          str(paths["layer0"]), "--contextual", str(paths["contextual"]),
                          "-o", str(out)], capture_output=True, text=True,
                         env=dict(os.environ, MPLBACKEND="Agg"))
    assert run.returncode == 0, run.stderr
    slopes = pd.read_csv(out / "context_matters_slopes.csv")
    for name, truth in truths.items():
        raf = slopes[(slopes["embedding"] == name) & (slopes["model"] == "raf")].iloc[0]
        assert abs(raf["slope"] - truth) < 0.05, (name, raf["slope"])
        rf = slopes[(slopes["embedding"] == name) & (slopes["model"] == "rf")].iloc[0]
        assert -0.75 < rf["slope"] < -0.5  # n^-0.5 times the width factor 1 + 1/sqrt(n)
    per_n = pd.read_csv(out / "context_matters.csv")
    assert sorted(per_n["n"].unique()) == [8, 16, 32, 64]
    assert set(per_n["embedding"]) == set(truths)
    # the ratio falls with n where raf is flat and rf decays
    lay = per_n[per_n["embedding"] == "layer0"].sort_values("n")["median S_raf/S_rf"].tolist()
    assert lay == sorted(lay)
    assert (out / "context_matters.png").stat().st_size > 10_000
    assert "| layer0 | raf |" in (out / "context_matters.md").read_text()


def test_refuses_files_of_different_d(tmp_path):
    paths = three_files(tmp_path, {"static": 0.0, "layer0": 0.0, "contextual": 0.0})
    tasks, ws, _ = synthetic_tables(ns=(8, 16, 32), d=32, trials=6, models=("rf", "raf"),
                                    gen_models=())
    other = write_results(tmp_path / "d32.h5", tasks, ws)
    run = subprocess.run([sys.executable, SCRIPT, "--static", str(other), "--layer0",
                          str(paths["layer0"]), "--contextual", str(paths["contextual"]),
                          "-o", str(tmp_path / "o")], capture_output=True, text=True)
    assert run.returncode != 0 and "share one d" in run.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))

"""The binary with the models of a pretrained encoder's layer (trained_attn, trained_layer and
their twins; docs/METHOD.md §2 "Trained layers") on a tiny encoder written by the test: their
weights are an input like the data (a changed weights file is refused on resume), the data file
must hold the states that enter the layer, of the same weights, in LayerNorm coordinates, and
every misuse is one line and exit 2 before anything runs."""
import hashlib
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

from tiny_encoder import write_tiny_encoder

BIN = os.environ.get("WORDSENS_BIN")
pytestmark = pytest.mark.skipif(
    not BIN, reason="WORDSENS_BIN is unset (ctest sets it to the built wordsens binary)")


def env():
    e = dict(os.environ)
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return e


def run(tmp, text, *args):
    ini = tmp / "study.ini"
    ini.write_text(text)
    return subprocess.run([BIN, "run", str(ini), *args], capture_output=True, text=True,
                          timeout=300, env=env(), cwd=tmp)


@pytest.fixture
def encoder(tmp_path):
    return write_tiny_encoder(tmp_path / "encoder", d=4, heads=2, width=8, layers=2)


def study(encoder, models="trained_attn,trained_layer", extra=""):
    return (f"experiments = ws\nmodels = {models}\nn = 3,5\nd = 4\ntrials = 1\nmax-evals = 20\n"
            f"positions = first\nencoder = {encoder}\nencoder-layer = 2\n" + extra)


def one_line_error(p, *fragments):
    assert p.returncode == 2, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_a_changed_weights_file_is_refused_on_resume(tmp_path, encoder):
    out = tmp_path / "out.h5"
    p = run(tmp_path, study(encoder), "--output", str(out))
    assert p.returncode == 0, p.stderr
    with h5py.File(out, "r") as f:
        fingerprints = f.attrs["input_fingerprints"]
        fingerprints = fingerprints.decode() if isinstance(fingerprints, bytes) else fingerprints
    digest = hashlib.sha256((encoder / "model.safetensors").read_bytes()).hexdigest()
    assert f"content=sha256:{digest}" in fingerprints, fingerprints
    # The same run again is a resume with nothing left to do; after one weight changed (the
    # file's size and header as they were), it is refused.
    assert run(tmp_path, study(encoder), "--output", str(out)).returncode == 0
    weights = encoder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-3] ^= 0x40
    weights.write_bytes(bytes(data))
    one_line_error(run(tmp_path, study(encoder), "--output", str(out)), "encoder:",
                   "model.safetensors changed", "--overwrite")


def embeddings_file(path, layer, coordinates, sha256, d=4, lengths=(5, 5, 5, 5)):
    rng = np.random.default_rng(1)
    with h5py.File(path, "w") as f:
        f["tokens"] = rng.normal(size=(len(lengths), max(lengths), d)).astype(np.float32)
        f["lengths"] = np.asarray(lengths, dtype=np.int32)
        f["labels"] = np.asarray([1, -1] * (len(lengths) // 2), dtype=np.int8)
        f.attrs["layer"] = np.int32(layer)
        f.attrs["coordinates"] = coordinates
        f.attrs["embedding_weights_sha256"] = sha256
        f.attrs["text_windows"] = "whole"
    return path


def test_the_data_must_be_the_layer_below_in_layernorm_coordinates(tmp_path, encoder):
    digest = hashlib.sha256((encoder / "model.safetensors").read_bytes()).hexdigest()
    text = study(encoder).replace("n = 3,5", "n = 5")

    def with_data(layer, coordinates, sha):
        path = embeddings_file(tmp_path / f"data_{layer}_{coordinates}_{sha[:4]}.h5", layer,
                               coordinates, sha)
        return run(tmp_path, text + f"data = embeddings:{path}\n", "--output",
                   str(tmp_path / f"out_{layer}_{coordinates}_{sha[:4]}.h5"))

    assert with_data(1, "normalised", digest).returncode == 0
    one_line_error(with_data(0, "normalised", digest), "take the states of layer 1",
                   "holds layer '0'", "--coordinates normalised")
    one_line_error(with_data(1, "hidden", digest), "LayerNorm coordinates",
                   "coordinates 'hidden'")
    one_line_error(with_data(1, "normalised", "0" * 64), "of the same weights", digest)


def test_misuse_is_one_line_before_anything_runs(tmp_path, encoder):
    out = ["--output", str(tmp_path / "never.h5")]
    text = study(encoder)
    no_encoder = text.replace(f"encoder = {encoder}\n", "")
    one_line_error(run(tmp_path, no_encoder, *out), "need a pretrained encoder")
    one_line_error(run(tmp_path, text.replace("d = 4", "d = 6"), *out),
                   "the encoder's layers are d = 4 wide")
    one_line_error(run(tmp_path, text + "mask = causal\n", *out), "mask = causal does not apply")
    one_line_error(run(tmp_path, text.replace("encoder-layer = 2", "encoder-layer = 3"), *out),
                   "has layers 1 ... 2")
    one_line_error(run(tmp_path, text.replace(f"encoder = {encoder}", "encoder = nowhere"), *out),
                   "nowhere/config.json: cannot be read")
    assert not (tmp_path / "never.h5").exists()


def columns_line_up(lines, header_index, column):
    """Every row of a fixed-width table ends its value of `column` where the header's name ends
    (the numbers are right-aligned), whatever the models' names."""
    header = lines[header_index]
    end = header.index(f" {column} ") + len(column) + 1
    rows = [line for line in lines[header_index + 1:] if line.strip() and line.startswith(" ")]
    assert rows, lines
    for row in rows:
        assert row[end - 1] != " " and (len(row) == end or row[end] == " "), (header, row)


def test_the_dry_run_and_info_tables_fit_the_longest_model_name(tmp_path, encoder):
    """trained_layer and twin_layer are longer than the paper's names: the model column widens
    to them, so n stays under its header."""
    text = study(encoder, models="raf,trained_attn,twin_attn,trained_layer,twin_layer")
    p = run(tmp_path, text, "--dry-run")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("point"))
    table = [lines[header]] + [line for line in lines[header + 1:]
                               if line[:8].strip().isdigit()]
    columns_line_up(table, 0, "n")
    out = tmp_path / "out.h5"
    p = run(tmp_path, text, "--output", str(out))
    assert p.returncode == 0, p.stderr
    info = subprocess.run([BIN, "info", str(out)], capture_output=True, text=True, timeout=60,
                          env=env()).stdout.splitlines()
    header = info.index(next(line for line in info if line.lstrip().startswith("exp  model")))
    table = [info[header]] + [line for line in info[header + 1:] if line.startswith("  ws")]
    columns_line_up(table, 0, "n")


def test_a_trained_study_is_judged_by_the_trained_claims(tmp_path, encoder):
    """A study of the four trained models and raf on the same texts reaches the verdict pipeline:
    every trained claim (docs/VERDICT_RULES.md "Beyond the paper") gets its extension row with
    its group judged on this file's records, each verdict one its evidence may give (lower
    bounds: Ω(1) confirmed at most, an order never more than 'not refuted (lower bound only)'
    and never contradicted)."""
    from wordsens_analysis import api, claims, rules

    text = (f"experiments = ws\nmodels = raf,trained_attn,twin_attn,trained_layer,twin_layer\n"
            f"n = 2,3,4\nd = 4\ntrials = 6\nmax-evals = 20\npositions = first\nseed = 11\n"
            f"encoder = {encoder}\nencoder-layer = 2\n")
    p = run(tmp_path, text, "--output", str(tmp_path / "t.h5"))
    assert p.returncode == 0, p.stderr
    table = api.verdicts_table(str(tmp_path / "t.h5"))
    trained = [c for c in claims.EXTENSION_CLAIMS
               if c.model in ("trained_attn", "twin_attn", "trained_layer", "twin_layer")]
    assert len(trained) == 8
    for c in trained:
        rows = table[(table["claim"] == c.id) & (table["kind"] == rules.EXTENSION)]
        assert len(rows) == 1, (c.id, table[["claim", "kind"]].to_string())
        row = rows.iloc[0]
        reason = str(row["reason"])
        # The group was judged: the row gives its statistic over this file's trials.
        if "over" in c.id or "under" in c.id:
            assert row["verdict"] in (rules.NOT_REFUTED_LB, rules.INCONCLUSIVE), row
            assert f"log(S_{c.model}/S_" in reason and "of 6 trials" in reason, reason
        else:
            assert row["verdict"] in (rules.CONFIRMED, rules.INCONCLUSIVE), row
            assert f"slope of log S_{c.model} vs log n" in reason and "of 6 trials" in reason, \
                reason
    # The study's own figure and tables (analysis/trained_layers.py) read the same file: the
    # layer from its stored configuration, every model's slope and every pair's ratio.
    script = os.path.join(os.path.dirname(__file__), "..", "..", "analysis", "trained_layers.py")
    out = tmp_path / "figure"
    p = subprocess.run([sys.executable, script, str(tmp_path / "t.h5"), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    import pandas as pd
    slopes = pd.read_csv(out / "trained_layers_slopes.csv")
    assert set(slopes["layer"]) == {2}
    assert set(slopes["model"]) == {"raf", "trained_attn", "twin_attn", "trained_layer",
                                    "twin_layer"}
    assert (slopes["trials"] == 6).all()
    ratios = pd.read_csv(out / "trained_layers_ratios.csv")
    assert len(ratios) == 5 and (ratios["trials"] == 6).all(), ratios
    assert (out / "trained_layers.png").stat().st_size > 0

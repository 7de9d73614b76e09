"""The trained models of the C++ suite (trained_attn, trained_layer: src/models/trained) against
the numpy forward pass (analysis/datasets/bert_encoder.py), with the same weights file read by
both readers (the `safetensors` library here, the suite's own parser there): φ of a text equals
the encoder's own attention output and layer output, at the text and after one word moved, to
1e-6 (float64 on both sides: in fact to rounding). On a tiny encoder written by the test and, when
the venv has it, on all-MiniLM-L6-v2 layer by layer. Also: the normalised states the builder writes
for the trained models (--coordinates normalised) give the hidden states back through the
LayerNorm's gain and bias, and have the row norm √d the suite's ball needs."""
import os
import subprocess

import numpy as np
import pytest

import bert_encoder as be
from conftest import real_model_dir, write_tiny_encoder

CHECK = os.environ.get("WORDSENS_TRAINED_CHECK")
REAL = real_model_dir()
TOLERANCE = 1e-6
needs_check = pytest.mark.skipif(not CHECK or not os.path.exists(CHECK),
                                 reason="WORDSENS_TRAINED_CHECK (ctest sets it) is not built")


def input_norm(enc, layer):
    """The LayerNorm whose output enters layer `layer` (1-based)."""
    return enc.embeddings.norm if layer == 1 else enc.layers[layer - 2].norm2


def write_reference(enc, ids, layer, path, rng):
    """The reference file of trained_layer_check: U, the encoder's outputs at it and after a
    move of one row (see trained_layer_check.cpp)."""
    from safetensors.numpy import save_file
    weights = enc.layers[layer - 1]
    U = be.normalised_state(enc, ids, layer - 1)
    X = be.hidden_state(enc, ids, layer - 1)
    norm = input_norm(enc, layer)
    np.testing.assert_allclose(U * norm.gamma + norm.beta, X, rtol=0, atol=1e-12)
    n, d = U.shape
    position = int(rng.integers(n))
    delta = rng.normal(size=d)
    delta *= np.sqrt(d) * 0.7 / np.linalg.norm(delta)  # inside the ball of radius √d
    moved = U.copy()
    moved[position] += delta
    X_moved = moved * norm.gamma + norm.beta
    tensors = {
        "n": np.array([n], dtype=np.float64), "U": U,
        "attention": be.multi_head_attention(weights, X),
        "layer": be.hidden_state(enc, ids, layer),  # the encoder's own next states
        "position": np.array([position], dtype=np.float64), "delta": delta,
        "attention_moved": be.multi_head_attention(weights, X_moved),
        "layer_moved": be.encoder_layer(weights, X_moved),
    }
    save_file({k: np.ascontiguousarray(v, dtype=np.float64) for k, v in tensors.items()},
              str(path))


def run_check(folder, layer, reference):
    p = subprocess.run([CHECK, str(folder), str(layer), str(reference), str(TOLERANCE)],
                       capture_output=True, text=True, timeout=300)
    lines = dict(line.rsplit(" ", 1) for line in p.stdout.splitlines())
    return p, lines


def check_encoder(folder, ids_of_layer, tmp_path, rng):
    enc = be.read_encoder(folder)
    for layer in range(1, len(enc.layers) + 1):
        reference = tmp_path / f"reference_{layer}.safetensors"
        write_reference(enc, ids_of_layer, layer, reference, rng)
        p, lines = run_check(folder, layer, reference)
        assert p.returncode == 0, (layer, p.stdout, p.stderr)
        assert lines.pop("sha256") == be.file_sha256(folder / be.WEIGHTS_FILE)
        assert len(lines) == 8, lines  # two models, four comparisons each
        assert all(float(v) <= TOLERANCE for v in lines.values()), (layer, lines)


@needs_check
def test_trained_models_equal_the_forward_pass_of_a_tiny_encoder(tmp_path):
    folder = write_tiny_encoder(tmp_path / "tiny", layers=3)
    rng = np.random.default_rng(3)
    check_encoder(folder, rng.integers(5, 29, size=9), tmp_path, rng)


@needs_check
def test_the_check_fails_on_a_wrong_reference(tmp_path):
    """The comparison can fail: a reference computed with another encoder's weights."""
    folder = write_tiny_encoder(tmp_path / "tiny", seed=0)
    other = write_tiny_encoder(tmp_path / "other", seed=1)
    rng = np.random.default_rng(4)
    reference = tmp_path / "reference.safetensors"
    write_reference(be.read_encoder(other), rng.integers(5, 29, size=6), 1, reference, rng)
    p, lines = run_check(folder, 1, reference)
    assert p.returncode == 1, p.stdout + p.stderr
    assert all(float(v) > TOLERANCE for k, v in lines.items() if k != "sha256"), lines


@needs_check
def test_a_bad_weights_file_is_one_line_and_exit_2(tmp_path):
    folder = write_tiny_encoder(tmp_path / "tiny")
    rng = np.random.default_rng(5)
    reference = tmp_path / "reference.safetensors"
    write_reference(be.read_encoder(folder), rng.integers(5, 29, size=6), 1, reference, rng)
    weights = folder / be.WEIGHTS_FILE
    data = bytearray(weights.read_bytes())
    weights.write_bytes(bytes(data[:len(data) // 2]))  # cut short: offsets beyond the file
    p, _ = run_check(folder, 1, reference)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "model.safetensors" in p.stderr, p.stderr


def test_normalised_states_have_norm_sqrt_d_and_give_the_hidden_states(tmp_path):
    folder = write_tiny_encoder(tmp_path / "tiny", layers=2)
    enc = be.read_encoder(folder)
    ids = np.random.default_rng(6).integers(5, 29, size=(3, 7))
    for layer in range(len(enc.layers) + 1):
        U = be.normalised_state(enc, ids, layer)
        norm = enc.embeddings.norm if layer == 0 else enc.layers[layer - 1].norm2
        np.testing.assert_allclose(U * norm.gamma + norm.beta, be.hidden_state(enc, ids, layer),
                                   rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(U, axis=-1), np.sqrt(U.shape[-1]), rtol=1e-9)


@needs_check
@pytest.mark.skipif(REAL is None, reason="the model package is not installed in this venv "
                    "(bash jobs/install_encoder.sh)")
def test_trained_models_equal_the_forward_pass_of_minilm(tmp_path):
    """Every layer of all-MiniLM-L6-v2 on the WordPiece pieces of a real sentence (23)."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(REAL / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    text = ("the committee said the city's primary election produced no evidence that any "
            "irregularities took place, and it praised the officials")
    ids = np.asarray(tok.encode(text, add_special_tokens=False).ids)
    assert len(ids) >= 16
    check_encoder(REAL, ids, tmp_path, np.random.default_rng(7))

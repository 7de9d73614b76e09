"""The forward pass of a BERT encoder in numpy (float64), one function per piece of a layer.

The reference for every use of a pretrained encoder in the suite: the embeddings builder
(encoder_brown.py) computes its hidden states with it, and it is checked against an independent
implementation (PyTorch's multi-head attention, tests/encoder) and against the closed formula of
layer 0. Everything is computed in float64 from the stored float32 weights.

    enc = read_encoder(model_dir)                 # config.json + model.safetensors, validated
    H0 = embedding_layer(enc.embeddings, ids)     # LN(E_word[t_i] + E_pos[i] + E_type[0])
    A = multi_head_attention(enc.layers[0], H0)   # MHA(H0): softmax(Q Kᵀ/√d_h) V per head, W_O, b_O
    H1 = encoder_layer(enc.layers[0], H0)         # LN₂(H + W₂ GELU(W₁ H + b₁) + b₂), H = LN₁(H0 + A)
    Hs = hidden_states(enc, ids, upto=3)          # [H0, H1, H2, H3]
    U2 = normalised_state(enc, ids, 2)            # H2 = γ ⊙ U2 + β: the closing LN's rows
    e = sentence_embedding(enc, ids)              # mean over tokens of the last layer, unit norm

`ids` is one window (n,) or a batch of windows of one length (B, n); hidden states are (n, d) or
(B, n, d). A window of n tokens is encoded as a text of its own: positions 0 … n−1, token type 0,
every token attending to every token (no padding, so no mask). Matrices are kept as the file
stores them, (out × in) as in y = x Wᵀ + b.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WEIGHTS_FILE = "model.safetensors"
CONFIG_FILE = "config.json"


class EncoderError(RuntimeError):
    """A model folder that is not a BERT encoder this module can run (one line)."""


@dataclass(frozen=True)
class LayerNorm:
    gamma: np.ndarray
    beta: np.ndarray
    eps: float


@dataclass(frozen=True)
class Embeddings:
    word: np.ndarray         # vocabulary × d
    position: np.ndarray     # max positions × d
    token_type: np.ndarray   # types × d
    norm: LayerNorm


@dataclass(frozen=True)
class Layer:
    """One post-LN encoder layer: H = LN₁(X + MHA(X)), out = LN₂(H + W₂ GELU(W₁ H + b₁) + b₂)."""
    heads: int
    W_Q: np.ndarray
    b_Q: np.ndarray
    W_K: np.ndarray
    b_K: np.ndarray
    W_V: np.ndarray
    b_V: np.ndarray
    W_O: np.ndarray
    b_O: np.ndarray
    norm1: LayerNorm
    W_1: np.ndarray   # intermediate × d
    b_1: np.ndarray
    W_2: np.ndarray   # d × intermediate
    b_2: np.ndarray
    norm2: LayerNorm


@dataclass(frozen=True)
class Encoder:
    config: dict
    embeddings: Embeddings
    layers: tuple
    weights_sha256: str
    path: Path

    @property
    def width(self) -> int:
        return int(self.config["hidden_size"])


def file_sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- the single weights reader ----------------------------------------------------------------

def read_encoder(model_dir, expected_sha256: str | None = None) -> Encoder:
    """The encoder of `model_dir` (config.json and model.safetensors of a BertModel). Checks the
    weights' SHA-256 against `expected_sha256` when given, the architecture the forward pass
    implements (absolute positions, GELU, post-LN), and every tensor's shape against the config."""
    from safetensors.numpy import load_file  # the venv's safetensors (jobs/install_encoder.sh)

    model_dir = Path(model_dir)
    weights_path = model_dir / WEIGHTS_FILE
    config_path = model_dir / CONFIG_FILE
    for p in (weights_path, config_path):
        if not p.is_file():
            raise EncoderError(f"{p} is missing")
    sha = file_sha256(weights_path)
    if expected_sha256 is not None and sha != expected_sha256:
        raise EncoderError(f"{weights_path}: SHA-256 {sha} does not match the pinned digest "
                           f"{expected_sha256}")
    config = json.loads(config_path.read_text())
    checks = {"hidden_act": "gelu", "position_embedding_type": "absolute", "model_type": "bert"}
    for key, want in checks.items():
        if config.get(key, want) != want:
            raise EncoderError(f"{config_path}: {key} = {config.get(key)!r}, this forward pass "
                               f"implements {want!r} only")
    d, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    inter, count = int(config["intermediate_size"]), int(config["num_hidden_layers"])
    if d % heads:
        raise EncoderError(f"{config_path}: hidden_size {d} is not a multiple of {heads} heads")
    eps = float(config["layer_norm_eps"])
    tensors = load_file(str(weights_path))

    def get(name, shape):
        if name not in tensors:
            raise EncoderError(f"{weights_path}: no tensor {name}")
        t = tensors[name]
        if tuple(t.shape) != tuple(shape):
            raise EncoderError(f"{weights_path}: {name} has shape {tuple(t.shape)}, the config "
                               f"implies {tuple(shape)}")
        t = np.asarray(t, dtype=np.float64)
        if not np.all(np.isfinite(t)):
            raise EncoderError(f"{weights_path}: {name} holds a NaN or infinite value")
        return t

    def norm(prefix):
        return LayerNorm(get(prefix + ".weight", (d,)), get(prefix + ".bias", (d,)), eps)

    e = "embeddings."
    embeddings = Embeddings(
        word=get(e + "word_embeddings.weight", (int(config["vocab_size"]), d)),
        position=get(e + "position_embeddings.weight", (int(config["max_position_embeddings"]), d)),
        token_type=get(e + "token_type_embeddings.weight", (int(config["type_vocab_size"]), d)),
        norm=norm(e + "LayerNorm"))
    layers = []
    for i in range(count):
        p = f"encoder.layer.{i}."
        a = p + "attention."
        layers.append(Layer(
            heads=heads,
            W_Q=get(a + "self.query.weight", (d, d)), b_Q=get(a + "self.query.bias", (d,)),
            W_K=get(a + "self.key.weight", (d, d)), b_K=get(a + "self.key.bias", (d,)),
            W_V=get(a + "self.value.weight", (d, d)), b_V=get(a + "self.value.bias", (d,)),
            W_O=get(a + "output.dense.weight", (d, d)), b_O=get(a + "output.dense.bias", (d,)),
            norm1=norm(a + "output.LayerNorm"),
            W_1=get(p + "intermediate.dense.weight", (inter, d)),
            b_1=get(p + "intermediate.dense.bias", (inter,)),
            W_2=get(p + "output.dense.weight", (d, inter)), b_2=get(p + "output.dense.bias", (d,)),
            norm2=norm(p + "output.LayerNorm")))
    return Encoder(config=config, embeddings=embeddings, layers=tuple(layers),
                   weights_sha256=sha, path=model_dir)


# --- the pieces of a layer --------------------------------------------------------------------

def normalise(X: np.ndarray, eps: float) -> np.ndarray:
    """(x − mean) / √(var + ε) over the last axis (biased variance): a LayerNorm before its gain
    and bias."""
    mu = X.mean(axis=-1, keepdims=True)
    centred = X - mu
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    return centred / np.sqrt(var + eps)


def layer_norm(X: np.ndarray, norm: LayerNorm) -> np.ndarray:
    """(x − mean) / √(var + ε) · γ + β over the last axis (biased variance, as BERT)."""
    return normalise(X, norm.eps) * norm.gamma + norm.beta


def gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU x Φ(x) = x (1 + erf(x/√2)) / 2 (BERT's "gelu", not the tanh form)."""
    from scipy.special import erf
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def embedding_layer(emb: Embeddings, ids, token_type: int = 0) -> np.ndarray:
    """Layer 0: LN(E_word[t_i] + E_pos[i] + E_type[token_type]) for positions i = 0 … n−1."""
    ids = np.asarray(ids)
    n = ids.shape[-1]
    if n > emb.position.shape[0]:
        raise EncoderError(f"a window of {n} tokens exceeds the {emb.position.shape[0]} positions")
    if ids.size and (ids.min() < 0 or ids.max() >= emb.word.shape[0]):
        raise EncoderError(f"token id outside the vocabulary of {emb.word.shape[0]}")
    x = emb.word[ids] + emb.position[:n] + emb.token_type[token_type]
    return layer_norm(x, emb.norm)


def embedding_sum(emb: Embeddings, ids, token_type: int = 0) -> np.ndarray:
    """E_word[t_i] + E_pos[i] + E_type[token_type], layer 0 before its LayerNorm."""
    ids = np.asarray(ids)
    return emb.word[ids] + emb.position[:ids.shape[-1]] + emb.token_type[token_type]


def _split_heads(X: np.ndarray, heads: int) -> np.ndarray:
    """(…, n, d) → (…, heads, n, d / heads)."""
    *lead, n, d = X.shape
    return np.swapaxes(X.reshape(*lead, n, heads, d // heads), -3, -2)


def attention_probabilities(layer: Layer, X: np.ndarray) -> np.ndarray:
    """softmax(Q_h K_hᵀ / √d_h) per head, (…, heads, n, n); rows sum to 1."""
    Q = _split_heads(X @ layer.W_Q.T + layer.b_Q, layer.heads)
    K = _split_heads(X @ layer.W_K.T + layer.b_K, layer.heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    scores -= scores.max(axis=-1, keepdims=True)
    P = np.exp(scores)
    return P / P.sum(axis=-1, keepdims=True)


def multi_head_attention(layer: Layer, X: np.ndarray) -> np.ndarray:
    """MHA(X) = concat_h(P_h V_h) W_Oᵀ + b_O, with V = X W_Vᵀ + b_V (the attention sublayer
    before its residual and LayerNorm: what the `trained_attn` model maps X to)."""
    P = attention_probabilities(layer, X)
    V = _split_heads(X @ layer.W_V.T + layer.b_V, layer.heads)
    context = np.swapaxes(P @ V, -3, -2)          # (…, n, heads, d_h)
    context = context.reshape(*context.shape[:-2], -1)
    return context @ layer.W_O.T + layer.b_O


def feed_forward(layer: Layer, H: np.ndarray) -> np.ndarray:
    """W₂ GELU(W₁ H + b₁) + b₂, row by row."""
    return gelu(H @ layer.W_1.T + layer.b_1) @ layer.W_2.T + layer.b_2


def encoder_layer(layer: Layer, X: np.ndarray) -> np.ndarray:
    """The whole post-LN layer (the `trained_layer` model): H = LN₁(X + MHA(X)),
    out = LN₂(H + feed_forward(H))."""
    H = layer_norm(X + multi_head_attention(layer, X), layer.norm1)
    return layer_norm(H + feed_forward(layer, H), layer.norm2)


def hidden_states(encoder: Encoder, ids, upto: int | None = None) -> list:
    """[H0, H1, …, H_upto] of the windows `ids` (default: every layer)."""
    upto = len(encoder.layers) if upto is None else upto
    if not 0 <= upto <= len(encoder.layers):
        raise EncoderError(f"layer {upto} is not in 0 … {len(encoder.layers)}")
    states = [embedding_layer(encoder.embeddings, ids)]
    for layer in encoder.layers[:upto]:
        states.append(encoder_layer(layer, states[-1]))
    return states


def hidden_state(encoder: Encoder, ids, layer: int) -> np.ndarray:
    """H_layer alone (the same numbers as hidden_states(...)[layer], without keeping the
    layers below: a batch of windows then needs the memory of two layers, not of all)."""
    if not 0 <= layer <= len(encoder.layers):
        raise EncoderError(f"layer {layer} is not in 0 … {len(encoder.layers)}")
    H = embedding_layer(encoder.embeddings, ids)
    for weights in encoder.layers[:layer]:
        H = encoder_layer(weights, H)
    return H


def normalised_state(encoder: Encoder, ids, layer: int) -> np.ndarray:
    """U_layer, the rows of H_layer before the gain and bias of the LayerNorm that closes it:
    H_layer = γ ⊙ U_layer + β (the embeddings' LayerNorm for layer 0, LN₂ of the layer
    otherwise). The input coordinates of the trained models of layer + 1 (docs/METHOD.md §2):
    every row has norm √d·√(var/(var + ε)), so the suite's rescaling to √d leaves it as it is."""
    if not 0 <= layer <= len(encoder.layers):
        raise EncoderError(f"layer {layer} is not in 0 … {len(encoder.layers)}")
    if layer == 0:
        embedding_layer(encoder.embeddings, ids)  # its checks of the ids and the length
        return normalise(embedding_sum(encoder.embeddings, ids), encoder.embeddings.norm.eps)
    weights = encoder.layers[layer - 1]
    X = hidden_state(encoder, ids, layer - 1)
    H = layer_norm(X + multi_head_attention(weights, X), weights.norm1)
    return normalise(H + feed_forward(weights, H), weights.norm2.eps)


def sentence_embedding(encoder: Encoder, ids) -> np.ndarray:
    """Mean of the last layer's rows, normalised to unit length (sentence-transformers' pooling
    for all-MiniLM-L6-v2; `ids` should then carry [CLS] … [SEP] as the model was trained)."""
    last = hidden_states(encoder, ids)[-1]
    pooled = last.mean(axis=-2)
    return pooled / np.linalg.norm(pooled, axis=-1, keepdims=True)

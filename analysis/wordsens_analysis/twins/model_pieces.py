"""What the analysis holds of each model beyond what a results file says of it (its traits come
from the file's /models, reading/catalogue.py): the style it is drawn with, and its numpy twin, φ
recomputed from the weights stored with a witness (witness_check.py checks S with it, in code that
shares nothing with the C++ maps).

One entry per model, as the C++ catalogue has one row per model (src/models/registry.cpp):
adding a model adds one entry here (docs/EXTENDING.md), and tests/python/test_binary.py fails
for a model the binary knows that has no entry, no style or no twin.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

# φ of a witness's model: X (n × d) -> the feature vector.
FeatureMap = Callable[[np.ndarray], np.ndarray]
# A twin: (the witness, its elementwise activation or None when the file names one the analysis
# does not know) -> φ from the weights stored with it, or None when they were not stored.
Twin = Callable[[object, Optional[Callable]], Optional[FeatureMap]]


@dataclass(frozen=True)
class ModelPieces:
    style: dict  # matplotlib keywords of the model's lines and points: color, marker
    twin: Twin


def softmax_rows(s: np.ndarray) -> np.ndarray:
    z = s - s.max(axis=1, keepdims=True)  # shift by the row maximum: scores reach hundreds
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def relu_rows(s: np.ndarray) -> np.ndarray:
    """Row-normalised ReLU; a row whose ReLUs are all 0 stays all 0 (docs/METHOD.md §2)."""
    r = np.maximum(s, 0.0)
    tot = r.sum(axis=1, keepdims=True)
    return np.divide(r, tot, out=np.zeros_like(r), where=tot > 0)


def attention(X: np.ndarray, W: np.ndarray, model: str = "raf") -> np.ndarray:
    """The attention matrix of a stored sample X (rows already rescaled to norm √d)."""
    s = X @ W @ X.T / np.sqrt(X.shape[1])
    return relu_rows(s) if model == "raf_relu" else softmax_rows(s)


def _rf_twin(w, act):
    """φ(X) = ϕ(V vec(X))."""
    if "V" not in w.arrays or act is None:
        return None
    V = w.arrays["V"]
    return lambda X: act(V @ X.ravel())


def _drf_twin(w, act):
    """φ(X) = ϕ(V_L ϕ(… ϕ(V_1 vec(X))))."""
    layers = sorted((k for k in w.arrays if re.fullmatch(r"V\d+", k)), key=lambda k: int(k[1:]))
    if not layers or act is None:
        return None
    Vs = [w.arrays[k] for k in layers]

    def phi(X):
        h = X.ravel()
        for V in Vs:
            h = act(V @ h)
        return h

    return phi


def masked(s: np.ndarray, w) -> np.ndarray:
    """The scores under the witness's mask: causal (mask = causal) sets s_jl = −∞ for l > j,
    so that row j attends to words 0 … j only."""
    if w.model_keys.get("mask", "none") != "causal":
        return s
    return np.where(np.tri(*s.shape, dtype=bool), s, -np.inf)


def _attention_twin(rows):
    """φ(X) = vec(A(X) X), A = rows(X W Xᵀ/√d), the scores (masked when causal) normalised row
    by row (softmax for raf, the row-normalised ReLU for raf_relu); the activation plays no
    part."""
    def twin(w, act):
        if w.W is None:
            return None
        return lambda X: (rows(masked(X @ w.W @ X.T / np.sqrt(X.shape[1]), w)) @ X).ravel()

    return twin


def _value_attention_twin(w, act):
    """raf_v: φ(X) = vec(A(X) X W_V W_O), A = softmax(X W Xᵀ/√d) (masked when causal); the
    activation plays no part."""
    if w.W is None or "WV" not in w.arrays or "WO" not in w.arrays:
        return None
    WV, WO = w.arrays["WV"], w.arrays["WO"]
    return lambda X: (softmax_rows(masked(X @ w.W @ X.T / np.sqrt(X.shape[1]), w)) @ X @ WV
                      @ WO).ravel()


def layer_norm(X: np.ndarray) -> np.ndarray:
    """Each row centred and scaled to unit variance (ε = 1e-5 added to it), no gain or bias."""
    centred = X - X.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + 1e-5)


def _multi_head(X: np.ndarray, w, heads: int) -> np.ndarray:
    """Σ over heads h of softmax(X Q_h (X K_h)ᵀ/√d_h) X V_h, concatenated, then W_O; Q_h, K_h,
    V_h the columns [h·d_h, (h+1)·d_h) of WQ, WK, WV."""
    Q, K, V = X @ w.arrays["WQ"], X @ w.arrays["WK"], X @ w.arrays["WV"]
    dh = X.shape[1] // heads
    cols = [slice(h * dh, (h + 1) * dh) for h in range(heads)]
    Y = np.hstack([softmax_rows(masked(Q[:, c] @ K[:, c].T / np.sqrt(dh), w)) @ V[:, c]
                   for c in cols])
    return Y @ w.arrays["WO"]


def _transformer_twin(block: bool):
    """mhraf: φ(X) = vec(MHA(X)); block: H = X + MHA(LN(X)), φ(X) = vec(H + ϕ(LN(H) W1) W2)
    (the activation is the MLP's)."""
    needed = ("WQ", "WK", "WV", "WO") + (("W1", "W2") if block else ())

    def twin(w, act):
        if any(k not in w.arrays for k in needed) or (block and act is None):
            return None
        heads = int(w.model_keys.get("heads", "1"))
        if not block:
            return lambda X: _multi_head(X, w, heads).ravel()

        def phi(X):
            H = X + _multi_head(layer_norm(X), w, heads)
            return (H + act(layer_norm(H) @ w.arrays["W1"]) @ w.arrays["W2"]).ravel()

        return phi

    return twin


def _affine_layer_norm(X: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float):
    """γ ⊙ (x − mean x)/√(var x + ε) + β row by row (biased variance, as BERT)."""
    centred = X - X.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + eps) * gamma + beta


def _exact_gelu(x: np.ndarray) -> np.ndarray:
    """x·Φ(x) (BERT's "gelu", not the tanh form)."""
    from scipy.special import erf
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


TRAINED_ATTENTION_ARRAYS = ("WQ", "bQ", "WK", "bK", "WV", "bV", "WO", "bO", "gamma0", "beta0",
                            "heads", "epsilon")
TRAINED_LAYER_ARRAYS = TRAINED_ATTENTION_ARRAYS + ("gamma1", "beta1", "W1", "b1", "W2", "b2",
                                                   "gamma2", "beta2")


def _trained_twin(whole_layer: bool):
    """Layer ℓ of a pretrained encoder on U, the previous LayerNorm's normalised rows (the sample
    as stored): X = γ₀ ⊙ U + β₀, MHA(X) = concat_h softmax(Q_h K_hᵀ/√d_h) V_h W_O + b_O with
    Q = X W_Q + b_Q (K, V alike); trained_attn (and its twin): φ(U) = vec(MHA(X));
    trained_layer: H = LN₁(X + MHA(X)), φ(U) = vec(LN₂(H + GELU(H W₁ + b₁) W₂ + b₂)). Heads and
    the LayerNorms' ε are stored with the weights; the activation key plays no part."""
    needed = TRAINED_LAYER_ARRAYS if whole_layer else TRAINED_ATTENTION_ARRAYS

    def twin(w, act):
        a = w.arrays
        if any(k not in a for k in needed):
            return None
        heads, eps = int(a["heads"][0, 0]), float(a["epsilon"][0, 0])

        def row(name):
            return a[name].ravel()

        def phi(U):
            X = U * row("gamma0") + row("beta0")
            Q, K, V = (X @ a["W" + r] + row("b" + r) for r in "QKV")
            dh = X.shape[1] // heads
            cols = [slice(h * dh, (h + 1) * dh) for h in range(heads)]
            Y = np.hstack([softmax_rows(Q[:, c] @ K[:, c].T / np.sqrt(dh)) @ V[:, c]
                           for c in cols])
            M = Y @ a["WO"] + row("bO")
            if not whole_layer:
                return M.ravel()
            H = _affine_layer_norm(X + M, row("gamma1"), row("beta1"), eps)
            F = _exact_gelu(H @ a["W1"] + row("b1")) @ a["W2"] + row("b2")
            return _affine_layer_norm(H + F, row("gamma2"), row("beta2"), eps).ravel()

        return phi

    return twin


PIECES = {
    "rf": ModelPieces(style=dict(color="tab:blue", marker="o"), twin=_rf_twin),
    "drf": ModelPieces(style=dict(color="tab:green", marker="s"), twin=_drf_twin),
    "raf": ModelPieces(style=dict(color="tab:red", marker="^"), twin=_attention_twin(softmax_rows)),
    "raf_relu": ModelPieces(style=dict(color="tab:purple", marker="v"),
                             twin=_attention_twin(relu_rows)),
    "raf_v": ModelPieces(style=dict(color="tab:brown", marker="P"), twin=_value_attention_twin),
    "mhraf": ModelPieces(style=dict(color="tab:pink", marker="*"), twin=_transformer_twin(False)),
    "block": ModelPieces(style=dict(color="tab:olive", marker="h"), twin=_transformer_twin(True)),
    # A pretrained encoder's layer in dark colours, its random twin in the light shade of the
    # same hue with an open marker of the same shape.
    "trained_attn": ModelPieces(style=dict(color="darkcyan", marker="d"),
                                     twin=_trained_twin(False)),
    "twin_attn": ModelPieces(style=dict(color="paleturquoise", marker="d", mfc="none"),
                                  twin=_trained_twin(False)),
    "trained_layer": ModelPieces(style=dict(color="navy", marker="p"), twin=_trained_twin(True)),
    "twin_layer": ModelPieces(style=dict(color="cornflowerblue", marker="p", mfc="none"),
                              twin=_trained_twin(True)),
}

# A model without an entry (a file written by a build with a model this analysis does not have)
# is still drawn, in this style, and its witnesses are not recomputed.
UNKNOWN_STYLE = dict(color="black", marker="x")


def style(model: str) -> dict:
    entry = PIECES.get(model)
    return entry.style if entry is not None else UNKNOWN_STYLE

"""Independent recomputation of attention witnesses saved with --save-witness (SPEC §2–3).

The C++ suite certifies S by its witness (i*, Δ*): recomputing the map from scratch must give S
to 1e-9 relative. Doing it again here, in numpy, from the stored X, W and Δ*, checks the file
and the C++ maps with code that shares nothing with them.
"""
from __future__ import annotations

import numpy as np

ATTENTION_MODELS = ("raf", "raf_relu")


def softmax_rows(s: np.ndarray) -> np.ndarray:
    z = s - s.max(axis=1, keepdims=True)  # shift by the row maximum: scores reach hundreds
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def relu_rows(s: np.ndarray) -> np.ndarray:
    """Row-normalised ReLU; a row whose ReLUs are all 0 stays all 0 (SPEC §2)."""
    r = np.maximum(s, 0.0)
    tot = r.sum(axis=1, keepdims=True)
    return np.divide(r, tot, out=np.zeros_like(r), where=tot > 0)


def attention(X: np.ndarray, W: np.ndarray, model: str = "raf") -> np.ndarray:
    """The attention matrix of a stored sample X (rows already rescaled to norm √d)."""
    s = X @ W @ X.T / np.sqrt(X.shape[1])
    return relu_rows(s) if model == "raf_relu" else softmax_rows(s)


def perturbed(X: np.ndarray, position: int, delta: np.ndarray) -> np.ndarray:
    Xp = np.array(X, dtype=float, copy=True)
    Xp[position] += np.asarray(delta, dtype=float).ravel()
    return Xp


def recompute_S(w) -> float:
    """‖φ(X^i(Δ*)) − φ(X)‖ / ‖φ(X)‖ with φ(X) = A(X) X; NaN if the witness lacks X or W."""
    if w.X is None or w.W is None or w.model not in ATTENTION_MODELS:
        return float("nan")
    Xp = perturbed(w.X, w.position, w.delta)
    y = attention(w.X, w.W, w.model) @ w.X
    yp = attention(Xp, w.W, w.model) @ Xp
    return float(np.linalg.norm(yp - y) / np.linalg.norm(y))


def check_witnesses(witnesses) -> list:
    """(task_id, model, S stored, S recomputed, relative difference) per attention witness."""
    rows = []
    for w in witnesses:
        S = recompute_S(w)
        if np.isfinite(S):
            rows.append((w.task_id, w.model, w.S, S, abs(S - w.S) / max(abs(w.S), 1e-300)))
    return rows

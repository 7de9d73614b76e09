"""Independent recomputation of witnesses saved with --save-witness (docs/METHOD.md §2–§5).

The C++ suite certifies S by its witness (i*, Δ*): recomputing the map from scratch must give S
to 1e-9 relative. Doing it again here, in numpy, from the stored X, weights and Δ*, checks the
file and the C++ feature maps with code that shares nothing with them. For rf the certified
upper bound max_i ‖V_i‖₂·√d/‖φ(X)‖ is recomputed as well. Witnesses of several changed words
(M*, Δ*) are recomputed the same way, rf's bound over the examined sets M as
max_M ‖V_M‖₂·√(m·d)/‖φ(X)‖.
"""
from __future__ import annotations


import numpy as np

from .model_pieces import PIECES

def _gelu(a):
    """GELU(z) = z·Φ(z), the exact form (block's MLP)."""
    from scipy.special import erf
    return 0.5 * a * (1.0 + erf(a / np.sqrt(2.0)))


ACTIVATIONS = {"relu": lambda a: np.maximum(a, 0.0), "tanh": np.tanh, "gelu": _gelu}


def perturbed(X: np.ndarray, position: int, delta: np.ndarray) -> np.ndarray:
    Xp = np.array(X, dtype=float, copy=True)
    Xp[position] += np.asarray(delta, dtype=float).ravel()
    return Xp


def feature_map(w, activation: str = "relu"):
    """φ of the witness's model from its stored weights (its twin, model_pieces.py), or None when
    they were not stored or the analysis has no twin of the model."""
    entry = PIECES.get(w.model)
    return None if entry is None else entry.twin(w, ACTIVATIONS.get(activation))


def perturbed_words(X: np.ndarray, words, moves: np.ndarray) -> np.ndarray:
    """X^M(Δ): row words[j] of X moved by row j of `moves` (m × d)."""
    Xp = np.array(X, dtype=float, copy=True)
    for j, i in enumerate(words):
        Xp[i] += moves[j]
    return Xp


def _witness_text(w) -> np.ndarray:
    if getattr(w, "words", ()):
        return perturbed_words(w.X, w.words, w.delta)
    return perturbed(w.X, w.position, w.delta)


def recompute_S(w, activation: str = "relu") -> float:
    """‖φ(X^i(Δ*)) − φ(X)‖ / ‖φ(X)‖ (several words: X^{M*}(Δ*)); NaN if the witness lacks X or
    the weights."""
    phi = feature_map(w, activation) if w.X is not None else None
    if phi is None:
        return float("nan")
    y = phi(w.X)
    return float(np.linalg.norm(phi(_witness_text(w)) - y) / np.linalg.norm(y))


def recompute_S_upper(w, activation: str = "relu") -> float:
    """rf: max_i ‖V_i‖₂ · √d / ‖φ(X)‖ with V_i the column block of word i (docs/METHOD.md §5);
    for several words, max over the examined sets M of ‖V_M‖₂ · √(m·d) / ‖φ(X)‖ (§4)."""
    phi = feature_map(w, activation) if w.X is not None else None
    if w.model != "rf" or phi is None:
        return float("nan")
    n, d = w.X.shape
    V = w.arrays["V"]
    sets = getattr(w, "sets", []) if getattr(w, "words", ()) else [(i,) for i in range(n)]
    if not sets:
        return float("nan")
    top = max(np.linalg.norm(np.hstack([V[:, i * d:(i + 1) * d] for i in M]), ord=2) * np.sqrt(
        len(M) * d) for M in sets)
    return float(top / np.linalg.norm(phi(w.X)))


def check_witnesses(witnesses, activation: str = "relu") -> list:
    """Per witness with weights: task, model, S stored/recomputed and their relative difference,
    and for rf the same for S_upper."""
    rows = []
    for w in witnesses:
        S = recompute_S(w, activation)
        if not np.isfinite(S):
            continue
        Su = recompute_S_upper(w, activation)
        rel_u = abs(Su - w.S_upper) / abs(w.S_upper) if np.isfinite(Su) else float("nan")
        rows.append((w.task_id, w.model, w.S, S, abs(S - w.S) / max(abs(w.S), 1e-300),
                     w.S_upper, Su, rel_u))
    return rows


CHECK_COLUMNS = ["task_id", "model", "S_stored", "S_recomputed", "rel_diff", "S_upper_stored",
                 "S_upper_recomputed", "rel_diff_upper"]

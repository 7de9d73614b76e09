"""The floor under row-normalised ReLU attention, in numpy (the twin of src/models/attention/relu_floor.cpp).

Move word i so that, among the other words, only one (l*) keeps a positive score in row i: the
scores s_il = x_i'ᵀ(W x_l)/√d are linear in the new word x_i', so "only l* positive" is n − 1 sign
constraints in d unknowns, solvable while n − 1 < d. Row i of the attention is then all l* (or
l* and the new word), and its output jumps from a spread average to a whole word: S_relu stays of
the order of 1/2 at every n < d (docs/METHOD.md, "A floor for ReLU attention"). The suite's
search starts there; this module measures the floor itself.
"""
from __future__ import annotations

import numpy as np

from .model_pieces import attention, relu_rows
from .witness_check import perturbed


def floor_moves(X: np.ndarray, W: np.ndarray, i: int, candidates: int = 2) -> list:
    """Moves Δ (‖Δ‖ ≤ √d) of word i after which exactly one other word keeps a positive score
    in row i: one per l* among the `candidates` words farthest from row i's output, each the
    largest move along the least-norm solution of the sign constraints. Empty when n − 1 ≥ d."""
    n, d = X.shape
    if n < 2 or n - 1 >= d:
        return []
    others = [l for l in range(n) if l != i]
    keys = X[others] @ W.T  # row r: (W x_l)ᵀ
    gram = keys @ keys.T
    try:
        chol = np.linalg.cholesky(gram)
    except np.linalg.LinAlgError:
        return []

    def solve(b):
        return np.linalg.solve(chol.T, np.linalg.solve(chol, b))

    y = relu_rows(X @ W @ X.T)[i] @ X
    order = np.argsort(X[others] @ y, kind="stable")
    xi = X[i]
    qxi = keys.T @ solve(keys @ xi)
    room = max(0.0, d - qxi @ qxi)
    moves = []
    for r in order:
        if len(moves) >= candidates:
            break
        signs = -np.ones(n - 1)
        signs[r] = 1.0
        z = keys.T @ solve(signs)
        zz, zx = z @ z, z @ xi
        if not zz > 0:
            continue
        tau = (zx + np.sqrt(zx * zx + zz * room)) / zz
        delta = tau * z - qxi
        norm = np.linalg.norm(delta)
        if norm > np.sqrt(d):
            delta *= np.sqrt(d) / norm
        moved = keys @ (xi + delta)
        if np.array_equal(moved > 0, np.arange(n - 1) == r):
            moves.append(delta)
    return moves


def sensitivity(X: np.ndarray, W: np.ndarray, i: int, delta: np.ndarray) -> float:
    """‖φ(X^i(Δ)) − φ(X)‖ / ‖φ(X)‖ for raf_relu, from scratch."""
    phi = attention(X, W, "raf_relu") @ X
    Xp = perturbed(X, i, delta)
    return float(np.linalg.norm(attention(Xp, W, "raf_relu") @ Xp - phi) / np.linalg.norm(phi))


def floor(X: np.ndarray, W: np.ndarray, candidates: int = 2, positions=None) -> float:
    """The largest S over the floor moves of `positions` (default: every word; any one word's
    floor already bounds S from below), 0 when n − 1 ≥ d."""
    positions = range(X.shape[0]) if positions is None else positions
    return max((sensitivity(X, W, i, delta) for i in positions
                for delta in floor_moves(X, W, i, candidates)), default=0.0)


def gaussian_instance(rng: np.random.Generator, n: int, d: int) -> tuple:
    """A synthetic text (rows rescaled to norm √d) and attention weights W ~ N(0, 1/d)."""
    X = rng.normal(size=(n, d))
    X *= np.sqrt(d) / np.linalg.norm(X, axis=1, keepdims=True)
    return X, rng.normal(0, 1 / np.sqrt(d), (d, d))

"""The floor under ReLU attention (wordsens_analysis/twins/relu_floor.py, the numpy twin of the
search's floor starts): the construction does what it says, and the floor it gives is of the
order of a word at every n < d — what the softmax contrast must not call decay."""
import numpy as np
import pytest

from wordsens_analysis.twins import relu_floor


@pytest.mark.parametrize("n,d", [(5, 16), (30, 64), (63, 64), (100, 256)])
def test_only_one_other_word_keeps_a_positive_score(n, d):
    X, W = relu_floor.gaussian_instance(np.random.default_rng(n + d), n, d)
    for i in (0, n // 2, n - 1):
        moves = relu_floor.floor_moves(X, W, i)
        assert moves, (n, d, i)
        for delta in moves:
            assert np.linalg.norm(delta) <= np.sqrt(d) * (1 + 1e-12)
            row = (X[i] + delta) @ W @ np.delete(X, i, axis=0).T
            assert (row > 0).sum() == 1


def test_no_move_where_the_constraints_outnumber_the_dimensions():
    X, W = relu_floor.gaussian_instance(np.random.default_rng(1), 9, 8)
    assert relu_floor.floor_moves(X, W, 0) == [] and relu_floor.floor(X, W) == 0.0


@pytest.mark.parametrize("d,ns", [(64, (8, 32, 63)), (256, (16, 128, 255))])
def test_the_floor_keeps_of_the_order_of_a_word_at_every_n_below_d(d, ns):
    rng = np.random.default_rng(d)
    for n in ns:
        values = [relu_floor.floor(*relu_floor.gaussian_instance(rng, n, d), positions=range(4))
                  for _ in range(3)]
        assert min(values) > 0.45, (n, d, values)

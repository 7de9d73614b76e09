"""background.start: the value computed on another core is the value computed in place, and
every way the child can fail ends with the caller's own computation (its value or its error)."""
import os

import pandas as pd
import pytest

from wordsens_analysis.report import background


def test_the_value_comes_back_from_the_child():
    frame = pd.DataFrame({"claim": ["a", "b"], "verdict": ["confirmed", "contradicted"]})
    parent = os.getpid()
    wait = background.start(lambda: (os.getpid(), frame.copy()))
    pid, value = wait()
    pd.testing.assert_frame_equal(value, frame)
    if hasattr(os, "fork") and len(os.sched_getaffinity(0)) >= 2:
        assert pid != parent  # it really ran elsewhere


def test_an_error_in_the_child_is_raised_by_the_caller():
    def fails():
        raise ValueError("no such claim")

    wait = background.start(fails) if _forks() else None
    if wait is None:
        with pytest.raises(ValueError, match="no such claim"):
            background.start(fails)
        return
    with pytest.raises(ValueError, match="no such claim"):
        wait()


def test_a_value_that_cannot_be_pickled_is_computed_by_the_caller():
    wait = background.start(lambda: (lambda: 42))  # a lambda does not pickle
    assert wait()() == 42


def test_a_child_that_dies_is_replaced_by_the_caller(tmp_path):
    marker = tmp_path / "ran"

    def dies_in_the_child():
        if os.getpid() != parent:
            os._exit(9)  # killed mid-way, nothing sent
        marker.write_text("here")
        return 7

    parent = os.getpid()
    assert background.start(dies_in_the_child)() == 7
    assert marker.read_text() == "here"


def _forks():
    return hasattr(os, "fork") and len(os.sched_getaffinity(0)) >= 2

"""A computation run on another core while the caller goes on: the report judges the verdicts
under the other tolerance settings (several seconds) while it draws the figures.

The computation runs in a forked child, which hands its value back pickled through a pipe. Where
that cannot help or cannot work (no fork, one usable CPU, the child dies, the value cannot be
pickled) the computation runs in the caller instead, so the result is always the same.
"""
from __future__ import annotations

import os
import pickle
from typing import Callable, TypeVar

T = TypeVar("T")


def start(compute: Callable[[], T]) -> Callable[[], T]:
    """Starts compute() and returns a function that waits for its value (or raises its error)."""
    if not hasattr(os, "fork") or len(os.sched_getaffinity(0)) < 2:
        return _at_once(compute)
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return _at_once(compute)
    # The child leaves through os._exit: no exit handlers of the parent's, and what the parent
    # had buffered for stdout or stderr is not written a second time.
    if pid == 0:
        status = 0
        try:
            os.close(read_end)
            with os.fdopen(write_end, "wb") as out:
                out.write(pickle.dumps(compute(), protocol=pickle.HIGHEST_PROTOCOL))
        except BaseException:  # noqa: BLE001 - the parent computes it again and sees the error
            status = 1
        os._exit(status)
    os.close(write_end)

    def wait() -> T:
        with os.fdopen(read_end, "rb") as data:
            payload = data.read()
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0:
            try:
                return pickle.loads(payload)
            except Exception:  # noqa: BLE001 - a truncated value: compute it here
                pass
        return compute()

    return wait


def _at_once(compute: Callable[[], T]) -> Callable[[], T]:
    value = compute()
    return lambda: value

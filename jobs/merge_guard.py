#!/usr/bin/env python3
"""Whether the merge of an array run's shards may write its output (jobs/slurm/merge.sbatch).

    merge_guard.py WORDSENS OUTPUT.h5 SHARD.h5

No script merges with --overwrite: an existing OUTPUT.h5 may be somebody's finished study of
another configuration, and replacing it would lose it. So:
- OUTPUT.h5 does not exist: exit 0, merge.
- OUTPUT.h5 is complete and holds the shards' study (the same configuration, the shard's lines
  aside, and the same build): exit 10, nothing to do (a resubmitted merge job after a merge
  that finished).
- anything else: exit 2 with one line saying what OUTPUT.h5 holds; it is left untouched.
Everything is read with `WORDSENS info --config` (the file's own provenance).
"""
from __future__ import annotations

import os
import subprocess
import sys

MERGE, DONE, REFUSE = 0, 10, 2
# Lines of a configuration that differ between a shard and the merged study.
SHARD_KEYS = ("shard", "output")
BUILD_LINES = ("software:", "build:")


def info(wordsens: str, path: str) -> str:
    p = subprocess.run([wordsens, "info", "--config", path], capture_output=True, text=True,
                       errors="replace")
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        raise ValueError(last)
    return p.stdout


def configuration(text: str) -> list:
    """The configuration lines of `info --config`, without the shard's own keys."""
    lines = text.split("\nconfiguration:\n", 1)[1].splitlines() if "\nconfiguration:\n" in text \
        else []
    return [line for line in lines
            if line.strip() and line.split("=", 1)[0].strip() not in SHARD_KEYS]


def build(text: str) -> list:
    return [line for line in text.splitlines() if line.startswith(BUILD_LINES)]


def tasks(text: str) -> tuple:
    for line in text.splitlines():
        if line.startswith("tasks done:"):
            done, _, planned = line.split()[2].partition("/")
            return int(done), int(planned)
    return 0, 0


def verdict(output_info: str, shard_info: str) -> tuple:
    """(exit code, message) for an existing output against a shard of the study."""
    if configuration(output_info) != configuration(shard_info):
        differ = sorted({line.split("=", 1)[0].strip() for line in
                         set(configuration(output_info)) ^ set(configuration(shard_info))})
        return REFUSE, ("holds another configuration (keys " + ", ".join(differ[:6])
                        + (", …" if len(differ) > 6 else "") + ")")
    if build(output_info) != build(shard_info):
        return REFUSE, "holds the same configuration computed by another build"
    done, planned = tasks(output_info)
    if done != planned or planned == 0:
        return REFUSE, f"holds the same configuration, but only {done} of {planned} tasks"
    return DONE, "already holds the complete merge of this study: nothing to do"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3:
        print("usage: merge_guard.py WORDSENS OUTPUT.h5 SHARD.h5", file=sys.stderr)
        return REFUSE
    wordsens, output, shard = argv
    if not os.path.lexists(output):
        return MERGE
    try:
        out_info = info(wordsens, output)
    except ValueError as err:
        print(f"merge: {output} exists and is no readable results file ({err}): not replaced; "
              "move it away to merge", file=sys.stderr)
        return REFUSE
    try:
        shard_info = info(wordsens, shard)
    except ValueError as err:
        print(f"merge: cannot read the shard {shard}: {err}", file=sys.stderr)
        return REFUSE
    code, why = verdict(out_info, shard_info)
    if code == REFUSE:
        print(f"merge: {output} exists and {why}: not replaced; move it away to merge "
              "these shards", file=sys.stderr)
    else:
        print(f"merge: {output} {why}")
    return code


if __name__ == "__main__":
    sys.exit(main())

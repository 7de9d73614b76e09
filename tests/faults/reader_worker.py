#!/usr/bin/python3
"""A long-lived reader for random_damage.py: one request per line on stdin, one JSON answer per
line on stdout, so that each case does not pay Python's and pandas' start-up.

    read PATH   the analysis reader (read_results, what wordsens-report uses):
                {"rc": 0, "records": <sha256 of its records>} or {"rc": 1|2, "error": "<line>"}
    dump PATH   tests/mpi/dump_records.py's text of PATH: {"rc": 0|1, "records": <sha256>}

A crash of h5py (a signal) ends this process: the driver sees it and starts another.
"""
import contextlib
import hashlib
import io
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "analysis"))
sys.path.insert(0, os.path.join(ROOT, "tests", "mpi"))

import dump_records  # noqa: E402
from wordsens_analysis.reader import DamagedFileError, ResultsFileError, read_results  # noqa: E402


def records_digest(res) -> str:
    """The reader's records: tasks, ws (one and several words) and gen, without wall times."""
    h = hashlib.sha256()
    for name in ("tasks", "ws", "multi_word", "gen"):
        df = getattr(res, name)
        df = df.drop(columns=[c for c in ("seconds",) if c in df.columns])
        df = df.reindex(sorted(df.columns), axis=1)
        h.update(name.encode())
        h.update(df.to_csv(index=False, float_format="%.17g").encode())
    return h.hexdigest()


def read(path):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = read_results(path)
    except DamagedFileError as e:
        return {"rc": 1, "error": str(e)}
    except ResultsFileError as e:
        return {"rc": 2, "error": str(e)}
    except Exception as e:  # noqa: BLE001 - any other exception is a finding: report it
        return {"rc": 3, "error": f"{type(e).__name__}: {e}"}
    return {"rc": 0, "records": records_digest(res)}


def dump(path):
    out = io.StringIO()
    sys.argv = ["dump_records.py", path]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            rc = dump_records.main() or 0
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
    except Exception as e:  # noqa: BLE001
        return {"rc": 1, "error": f"{type(e).__name__}: {e}"}
    return {"rc": rc, "records": hashlib.sha256(out.getvalue().encode()).hexdigest()}


def main():
    for line in sys.stdin:
        command, _, path = line.rstrip("\n").partition(" ")
        answer = read(path) if command == "read" else dump(path)
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()

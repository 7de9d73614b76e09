#!/usr/bin/python3
"""Damaged results files: every reader fails within seconds with one line, never hangs, and
leaves the file as it was; the leftovers of a killed writer stay accepted.

usage: damaged_files.py WORDSENS CASE
"""
import os
import shutil
import sys

from faults_lib import (DAMAGED, check, digest, flip_byte, h5py_edit, main)

# Byte flips over the first 36 KB of a small results file: the superblock, the object headers,
# the B-trees and heaps of its groups and datasets, and some raw data (not checksummed by HDF5,
# so a flip there may go unnoticed: those offsets are allowed to read as "fine").
FLIP_OFFSETS = [20, 100, 200, 600, 1000, 1500] + list(range(2000, 36000, 2000))
# The other readers are tried on a few of them (each costs a process start).
FEW_OFFSETS = [20, 200, 1000, 2000, 8000, 12000, 30000, 34000]


def _flipped_files(case, offsets=FEW_OFFSETS, at_least=5):
    """(offset, path) of each flipped copy `wordsens info` calls damaged, after checking info's
    contract on every flip: exit 0 or 1 (damaged, one line), bounded, file unchanged."""
    config = case.small_config()
    good, _ = case.reference(config)
    damaged = []
    for offset in offsets:
        path = case.path(f"flip_{offset}.h5")
        flip_byte(good, path, offset)
        before = digest(path)
        res = case.ws("info", path)
        check(res.rc in (0, 1), f"flip at {offset}: info exit {res.rc}\n{res}")
        if res.rc == 1:
            case.expect_error(res, 1, DAMAGED, path)
            damaged.append((offset, path))
        check(res.seconds < 10, f"flip at {offset}: info took {res.seconds:.1f} s\n{res}")
        check(digest(path) == before, f"flip at {offset}: info changed the file")
    # Metadata flips used to hang every reader (HDF5 retried forever); each must be caught fast.
    check(len(damaged) >= at_least, f"only {len(damaged)} of {len(offsets)} flips detected: "
          f"{[o for o, _ in damaged]}")
    return config, damaged


def flip_info(case):
    _, damaged = _flipped_files(case, FLIP_OFFSETS, 10)
    print(f"info: {len(damaged)}/{len(FLIP_OFFSETS)} flips refused as damaged, "
          f"offsets {[o for o, _ in damaged]}")


def flip_resume(case):
    """A resume of a flipped file: exit 1, one line, the file untouched (it used to hang and
    ignore TERM)."""
    config, damaged = _flipped_files(case)
    for offset, path in damaged:
        before = digest(path)
        res = case.ws("run", config, "--output", path, "--progress", "60")
        case.expect_error(res, 1, DAMAGED, path)
        check(res.seconds < 15, f"flip at {offset}: resume took {res.seconds:.1f} s")
        check(digest(path) == before, f"flip at {offset}: the refused resume changed the file")
        check(not os.path.exists(path + ".lock"), f"flip at {offset}: a lock file was left")


def flip_merge(case):
    """merge with a flipped input: exit 1, one line, no output, the input untouched."""
    config, damaged = _flipped_files(case)
    good = case.path("reference.h5")
    for offset, path in damaged:
        before = digest(path)
        out = case.path("merged.h5")
        res = case.ws("merge", good, path, "-o", out)
        case.expect_error(res, 1, DAMAGED, path)
        check(not os.path.exists(out), f"flip at {offset}: merge left {out}")
        check(digest(path) == before, f"flip at {offset}: merge changed its input")
        check(not [n for n in os.listdir(case.dir) if n.startswith("merged.h5.")],
              f"flip at {offset}: merge left temporary files: {os.listdir(case.dir)}")


def flip_report(case):
    """wordsens-report (the Python reader) on flipped files: one line, no traceback, bounded.
    Its exit code for a damaged file is report/cli.py's mapping of ResultsFileError (2 today;
    DamagedFileError is the subclass a report may map to 1)."""
    _, damaged = _flipped_files(case)
    for offset, path in damaged[:5]:
        before = digest(path)
        res = case.report(path)
        case.expect_error(res, res.rc, DAMAGED, path)
        check(res.rc in (1, 2), f"flip at {offset}: report exit {res.rc}\n{res}")
        check(res.err.startswith("wordsens-report: error:"), f"not the report's line\n{res}")
        check(res.seconds < 15, f"flip at {offset}: report took {res.seconds:.1f} s")
        check(digest(path) == before, f"flip at {offset}: the report changed the file")


# (name, h5py code damaging a consistent file, a word the diagnosis must name)
DAMAGES = [
    ("cut_column", "f['ws/S'].resize((3,))", "/ws/S has 3 rows"),
    ("cleared_flag", "ids = f['ws/task_id'][:]\nf['tasks/done'][int(ids[len(ids) // 2])] = 0",
     "unfinished task lies before"),
    ("duplicated_ws_row", "\n".join([
        "g = f['ws']",
        "for k in g:",
        "    if not k.endswith('_values'):",
        "        n = g[k].shape[0]; g[k].resize((n + 1,)); g[k][n] = g[k][0]"]),
     "repeat their key (task_id)"),
    ("duplicated_gen_key", "f['gen/objective'][1] = f['gen/objective'][0]",
     "repeat their key (task_id, training, objective)"),
    ("unknown_task", "f['ws/task_id'][2] = 99999", "not in /tasks"),
    ("foreign_experiment", "f['gen/task_id'][0] = f['ws/task_id'][0]", "other experiment"),
    ("offset_outside", "f['ws/examined_offset'][1] = 10**6", "point outside /ws/examined_values"),
    ("bad_done_flag", "f['tasks/done'][0] = 7", "done flags other than 0 and 1"),
    ("short_task_column", "f['tasks/trial'].resize((5,))", "/tasks/trial has 5 rows"),
    ("missing_column", "del f['gen/E']", "/gen/E is missing"),
    ("altered_config", "f.attrs['config_text'] = f.attrs['config_text'].decode() + 'x = 1\\n'",
     "config_hash does not match"),
    ("cleared_flag_gen", "ids = f['gen/task_id'][:]\nf['tasks/done'][int(ids[len(ids) // 2])] = 0",
     "unfinished task lies before"),
    ("repeated_task_id", "f['tasks/task_id'][1] = f['tasks/task_id'][0]", "task ids repeat"),
    ("done_ws_no_row", "\n".join([
        "g = f['ws']",
        "for k in g:",
        "    if not k.endswith('_values'):",
        "        g[k].resize((g[k].shape[0] - 1,))"]), "done tasks without their rows"),
    ("done_gen_no_row", "\n".join([
        "g = f['gen']",
        "for k in g:",
        "    if not k.endswith('_values'):",
        "        g[k].resize((g[k].shape[0] - 4,))"]), "done tasks without their rows"),
    ("missing_root_attr", "del f.attrs['master_seed']", "the root attribute master_seed"),
    ("length_outside", "f['ws/examined_length'][1] = 10**6", "point outside"),
    ("negative_offset", "f['ws/examined_offset'][1] = -3", "point outside"),
]


def damaged_tables(case):
    """Each damage: info, resume and merge refuse with one line naming the problem (exit 1) and
    leave the file unchanged; info --check lists it (a resume used to truncate every column to
    a cut one, or write a second row for a task whose done flag was cleared)."""
    config = case.small_config()
    good, _ = case.reference(config)
    for name, code, words in DAMAGES:
        path = case.path(f"{name}.h5")
        shutil.copyfile(good, path)
        h5py_edit(path, code)
        before = digest(path)
        case.expect_error(case.ws("info", path), 1, DAMAGED, path, words)
        case.expect_error(case.ws("run", config, "--output", path, "--progress", "60"), 1,
                          DAMAGED, words)
        out = case.path("merged.h5")
        case.expect_error(case.ws("merge", path, "-o", out), 1, DAMAGED, words)
        check(not os.path.exists(out), f"{name}: merge wrote {out}")
        res = case.ws("info", "--check", path)
        check(res.rc == 1 and "verdict:  DAMAGED" in res.out and words in res.out,
              f"{name}: info --check does not list '{words}'\n{res}")
        check(digest(path) == before, f"{name}: the file changed")
        print(f"{name}: refused ({words})")


def killed_writer_leftovers(case):
    """What a kill -9 leaves is accepted: rows of an unfinished task after the done ones, in
    columns of unequal length, flat values past the last row, a summary rewrite cut short. info
    reads it, --check notes it, and a resume completes it with the reference's records."""
    config = case.small_config()
    good, reference = case.reference(config)
    path = case.path("left.h5")
    shutil.copyfile(good, path)
    h5py_edit(path, "\n".join([
        "ids = f['ws/task_id'][:]",
        "last = int(ids[-1])",
        "f['tasks/done'][last] = 0",  # the last ws row becomes an orphan of an unfinished task
        "g = f['ws']",
        "for k in ('task_id', 'S', 'examined_offset'):",  # half a row more of the same task
        "    n = g[k].shape[0]; g[k].resize((n + 1,)); g[k][n] = g[k][n - 1]",
        "v = g['examined_values']; n = v.shape[0]; v.resize((n + 5,))",
        "s = f['summary/ws/S_mean']; s.resize((s.shape[0] - 1,))",
    ]))
    res = case.ws("info", path)
    check(res.rc == 0, f"leftovers refused\n{res}")
    res = case.ws("info", "--check", path)
    check(res.rc == 0 and "verdict:  consistent" in res.out and "unfinished tasks" in res.out
          and "summary rewrite was interrupted" in res.out, f"--check\n{res}")
    res = case.ws("run", config, "--output", path, "--progress", "60")
    check(res.rc == 0, f"resume of the leftovers failed\n{res}")
    case.same_records(path, reference)
    check(case.ws("info", "--check", path).out.count("note:") == 0, "notes after the resume")


def report_missing_column(case):
    """wordsens-report on a file without /ws/S (it printed a traceback): one line."""
    config = case.small_config()
    good, _ = case.reference(config)
    path = case.path("no_S.h5")
    shutil.copyfile(good, path)
    h5py_edit(path, "del f['ws/S']")
    res = case.report(path)
    case.expect_error(res, res.rc, DAMAGED, "/ws/S is missing")
    check(res.rc in (1, 2), f"exit {res.rc}\n{res}")
    case.expect_error(case.ws("info", path), 1, DAMAGED, "/ws/S is missing")


def report_empty_shell(case):
    """A file with only the two header attributes (info refused it, the report accepted it):
    both refuse it now with one line."""
    path = case.path("shell.h5")
    h5py_edit_new(path)
    res = case.report(path)
    case.expect_error(res, res.rc, DAMAGED, "/tasks")
    check(res.rc in (1, 2), f"exit {res.rc}\n{res}")
    case.expect_error(case.ws("info", path), 1, DAMAGED)
    check(not os.path.exists(case.path("report_out")), "the report wrote an output")


def h5py_edit_new(path):
    import subprocess
    code = ("import h5py, numpy as np\n"
            f"with h5py.File({path!r}, 'w', libver='latest') as f:\n"
            "    f.attrs['filetype'] = 'wordsens-results'\n"
            "    f.attrs['format_version'] = np.array([1, 3], dtype=np.int32)\n")
    subprocess.run(["/usr/bin/python3", "-c", code], check=True, timeout=30)


def not_regular(case):
    """A directory or FIFO given as a results file: "is a directory" / "not a regular file"
    (they said "no such file"), exit 2, for info, resume, merge and the report; nothing
    blocks on the FIFO."""
    config = case.small_config()
    os.mkdir(case.path("dir.h5"))
    os.mkfifo(case.path("fifo.h5"))
    for name, words in (("dir.h5", "is a directory"), ("fifo.h5", "not a regular file")):
        path = case.path(name)
        case.expect_error(case.ws("info", path), 2, words, path)
        case.expect_error(case.ws("run", config, "--output", path, "--progress", "60"), 2,
                          words, path)
        case.expect_error(case.ws("merge", path, "-o", case.path("m.h5")), 2, words, path)
        res = case.report(path)
        case.expect_error(res, 2, words, path)
    res = case.ws("info", case.path("missing.h5"))
    case.expect_error(res, 2, "no such file")


CASES = {f.__name__: f for f in (flip_info, flip_resume, flip_merge, flip_report,
                                 damaged_tables, killed_writer_leftovers, report_missing_column,
                                 report_empty_shell, not_regular)}

if __name__ == "__main__":
    sys.exit(main(CASES))

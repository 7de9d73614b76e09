#!/usr/bin/python3
"""Inputs: a changed embeddings file is refused on resume and merge (the fingerprint stored in
the results file), bad token values and impossible grids are refused before the run starts, and
a configuration that is a directory or binary gives one readable line.

usage: inputs.py WORDSENS CASE
"""
import os
import resource
import shutil
import sys

from faults_lib import check, digest, h5py_edit, main, write_embeddings

EMB_ARGS = ["--models", "raf", "--experiments", "ws,gen", "--n", "4", "--d", "3", "--N", "3",
            "--trials", "6", "--progress", "60"]


def changed_input(case):
    """The embeddings file at the same path changed (a resume mixed old and new data, 58 tasks
    of one and 262 of the other): resume exits 2 with one line naming the input and what
    changed, the results file unchanged. Touching it (same content) resumes; shards computed
    from different data do not merge."""
    emb = write_embeddings(case.path("emb.h5"))
    data = ["--data", f"embeddings:{emb}"]
    res = case.ws("run", *data, *EMB_ARGS, "--output", case.path("reference.h5"))
    check(res.rc == 0, f"reference\n{res}")
    reference = case.dump(case.path("reference.h5"))
    out = case.path("partial.h5")
    res = case.ws("run", *data, *EMB_ARGS, "--output", out, "--walltime", "0.000001")
    check(res.rc == 3, f"partial run\n{res}")
    info = case.ws("info", out)
    check("content=mulrot64:" in info.out, f"no input fingerprint in info\n{info}")
    original = case.path("emb_original.h5")
    shutil.copyfile(emb, original)
    h5py_edit(emb, "f['tokens'][2, 1, 0] += 1.0")
    before = digest(out)
    res = case.ws("run", *data, *EMB_ARGS, "--output", out)
    case.expect_error(res, 2, f"embeddings:{emb} changed", "content")
    check(digest(out) == before, "the refused resume changed the file")
    # The same content again, at a new mtime: resumes, with the reference's records.
    shutil.copyfile(original, emb)
    os.utime(emb, (1e9, 1e9))
    res = case.ws("run", *data, *EMB_ARGS, "--output", out)
    check(res.rc == 0, f"resume with the same content\n{res}")
    case.same_records(out, reference)
    # Shards of different data: merge refuses them.
    s0 = case.path("s0.h5")
    res = case.ws("run", *data, *EMB_ARGS, "--output", s0, "--shard", "0/2")
    check(res.rc == 0, f"shard 0\n{res}")
    h5py_edit(emb, "f['tokens'][0, 0, 0] += 1.0")
    s1 = case.path("s1.h5")
    res = case.ws("run", *data, *EMB_ARGS, "--output", s1, "--shard", "1/2")
    check(res.rc == 0, f"shard 1\n{res}")
    res = case.ws("merge", s0, s1, "-o", case.path("all.h5"))
    case.expect_error(res, 2, "different input data")
    check(not os.path.exists(case.path("all.h5")), "merge wrote an output")


def bad_token_values(case):
    """NaN, infinite and all-zero tokens were found mid-run (exit 1); now before the start:
    exit 2, one line naming the token, no file. A bad value outside every window the tasks use
    (a token past n, a coordinate past d) is no reason to refuse."""
    for name, edit, words in (
            ("nan", "tokens[:, 1, 2] = np.nan", "NaN or infinite"),
            ("inf", "tokens[:, 0, 0] = np.inf", "NaN or infinite"),
            ("zero", "tokens[:, 2, :3] = 0.0", "is zero in its first 3 coordinates")):
        emb = write_embeddings(case.path(f"{name}.h5"), edit=edit)
        out = case.path(f"{name}_out.h5")
        res = case.ws("run", "--data", f"embeddings:{emb}", *EMB_ARGS, "--output", out)
        case.expect_error(res, 2, words, emb)
        check(not os.path.exists(out), f"{name}: a results file was created")
    emb = write_embeddings(case.path("outside.h5"),
                           edit="tokens[:, 6, 1] = np.nan\ntokens[:, 1, 3] = np.inf")
    res = case.ws("run", "--data", f"embeddings:{emb}", *EMB_ARGS, "--output",
                  case.path("outside_out.h5"))
    check(res.rc == 0, f"values outside the used windows were refused\n{res}")


def too_many_tasks(case):
    """A grid of 10⁸ tasks (it allocated 1.5 GB and died of std::bad_alloc): one line naming
    the limit, exit 2, within a memory limit of 1 GB (so nothing large was allocated)."""
    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    res = case.ws("run", "--n", "10,11,12,13,14,15,16,17,18,19", "--d", "4", "--models", "raf",
                  "--trials", "10000000", "--dry-run", preexec=limit_memory)
    case.expect_error(res, 2, "100000000 tasks", "more than 10000000")


def config_not_text(case):
    """A directory as the configuration (it ran the default study) and a binary file (its raw
    bytes were printed over three lines): one printable line each, exit 2, no file."""
    os.mkdir(case.path("conf.d"))
    with open(case.path("binary.ini"), "wb") as f:
        f.write(b"n = 4\n\x00\x01\x02\xff\xfe\nd = 3\n\x1b[31mred\n")
    for name, words in (("conf.d", "is a directory"), ("binary.ini", "not a text file")):
        res = case.ws("run", case.path(name), "--output", case.path("out.h5"), "--progress", "60")
        line = case.expect_error(res, 2, words, name)
        check(line.isprintable(), f"unprintable bytes in {line!r}")
    check(not os.path.exists(case.path("out.h5")), "a file was created")


CASES = {f.__name__: f for f in (changed_input, bad_token_values, too_many_tasks,
                                 config_not_text)}

if __name__ == "__main__":
    sys.exit(main(CASES))

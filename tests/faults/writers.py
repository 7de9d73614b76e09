#!/usr/bin/python3
"""Who may write an output: one writer at a time (the second told who the first is), a new
file appears whole or not at all, stale temporaries are cleaned, --overwrite replaces only a
wordsens results file, an output name too long is bad input, and runs without mpirun side by
side do not share Open MPI's session directory.

usage: writers.py WORDSENS CASE
"""
import fcntl
import os
import re
import shutil
import socket
import subprocess
import sys
import time

from faults_lib import (LIMIT, Failure, check, digest, main, write_embeddings)


def two_writers_new_output(case):
    """Two runs started together on a new output (both were accepted, and the one that said
    "complete" could leave a file holding only the other's tasks): exactly one runs, the other
    exits 2 naming the first's pid; the file holds the reference's records. Eight races.

    The study lasts about a second (480 tasks), so the second writer starts while the first
    runs; a try where it still found the file complete (a plain resume, "0 to run": the first
    had finished before the second was scheduled) is not a race and is repeated, up to 16."""
    config = case.small_config(trials=60)
    _, reference = case.reference(config)
    races = 0
    for attempt in range(16):
        if races == 8:
            break
        out = case.path(f"two_{attempt}.h5")
        cmd = [case.wordsens, "run", config, "--output", out, "--progress", "60"]
        procs = [subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  text=True) for _ in range(2)]
        results = []
        for p in procs:
            try:
                _, err = p.communicate(timeout=LIMIT)
            except subprocess.TimeoutExpired:
                p.kill()
                check(False, f"try {attempt}: a writer hung")
            results.append((p.pid, p.returncode, err))
        case.same_records(out, reference)
        check(not os.path.exists(out + ".lock"), f"try {attempt}: lock file left behind")
        codes = sorted(rc for _, rc, _ in results)
        if codes == [0, 0] and sum(", 0 to run on" in err for _, _, err in results) == 1:
            continue  # one ran it all before the other started: a resume, not a race
        check(codes == [0, 2], f"try {attempt}: exit codes {codes}: {results}")
        (winner, _, _), = [r for r in results if r[1] == 0]
        (_, _, loser_err), = [r for r in results if r[1] == 2]
        lines = [line for line in loser_err.splitlines() if "error" in line]
        check(len(lines) == 1 and f"pid {winner}" in lines[0] and "being written by another"
              in lines[0], f"try {attempt}: the second writer's message: {loser_err!r}")
        races += 1
    check(races == 8, f"only {races} of 16 tries raced (the other writer had always finished)")
    print("8 races: one writer ran, the other was refused naming it")


def second_writer_while_running(case):
    """A resume or an --overwrite while a run writes the file: exit 2 naming the writer; the
    running writer finishes with the reference's records."""
    config = case.small_config(trials=60)
    _, reference = case.reference(config)
    out = case.path("busy.h5")
    first = subprocess.Popen([case.wordsens, "run", config, "--output", out, "--progress", "60"],
                             stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + LIMIT
    while not os.path.exists(out) and time.monotonic() < deadline:
        time.sleep(0.01)
    check(os.path.exists(out), "the first writer created nothing")
    refused = 0
    for extra in ([], ["--overwrite"]):
        res = case.ws("run", config, "--output", out, "--progress", "60", *extra)
        if res.rc == 0 and first.poll() is not None:
            break  # the first had finished: this was a plain resume
        case.expect_error(res, 2, "being written by another process", f"pid {first.pid}")
        refused += 1
    check(refused > 0, "the first writer ended before a second one could race it")
    _, err = first.communicate(timeout=LIMIT)
    check(first.returncode == 0, f"the first writer failed: {err}")
    case.same_records(out, reference)


def stale_temporaries(case):
    """kill -9 during creation leaves OUT.tmp-PID (nothing removed it): the next writer removes
    the ones no live process holds, and keeps one a live process holds locked."""
    config = case.small_config()
    out = case.path("out.h5")
    dead = out + ".tmp-999999"
    live = out + ".tmp-1"
    with open(dead, "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n" + bytes(100))
    with open(live, "wb") as f:
        f.write(b"partial")
    # A live creator: another process holding a lock on its temporary file.
    holder = subprocess.Popen(
        ["/usr/bin/python3", "-c",
         "import fcntl, sys, time\n"
         f"f = open({live!r}, 'r+')\n"
         "fcntl.lockf(f, fcntl.LOCK_EX)\n"
         "print('locked', flush=True)\n"
         "sys.stdin.readline()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    check(holder.stdout.readline().strip() == "locked", "the lock holder did not start")
    try:
        res = case.ws("run", config, "--output", out, "--progress", "60")
        check(res.rc == 0, f"the run failed\n{res}")
        check(not os.path.exists(dead), "the stale temporary of a dead process is still there")
        check(os.path.exists(live), "the temporary of a live process was removed")
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=LIMIT)
    # And a real kill -9 in the middle of creating a big task table.
    big = case.small_config("big.ini", trials=400000, experiments="ws", models="raf")
    out2 = case.path("big.h5")
    for delay in (0.3, 0.6, 1.0):
        p = subprocess.Popen([case.wordsens, "run", big, "--output", out2, "--progress", "60"],
                             stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.kill()
        p.wait(timeout=LIMIT)
        left = [n for n in os.listdir(case.dir) if n.startswith("big.h5.tmp-")]
        if left:
            break
    if not left:
        print("note: no kill landed during creation (the machine created the file too fast); "
              "the simulated temporary above covers the removal")
        return
    if os.path.exists(out2):
        os.remove(out2)  # killed after the rename: start over, as a user would
    res = case.ws("run", big, "--output", out2, "--walltime", "0.001", "--progress", "60")
    check(res.rc == 3, f"the rerun failed\n{res}")
    rest = [n for n in os.listdir(case.dir) if n.startswith("big.h5.tmp-")]
    check(not rest, f"temporaries left after the rerun: {rest}")
    print(f"a kill -9 during creation left {left}; the rerun removed it")


def overwrite_only_results(case):
    """--overwrite replaced anything: a text file, another program's HDF5 file, the config file
    itself, the run's input data, a directory. Each is refused (exit 2, one line saying why) and
    left unchanged; a wordsens results file is replaced."""
    config = case.small_config()
    emb = write_embeddings(case.path("emb.h5"))
    case.write("notes.txt", "my notes\n")
    subprocess.run(["/usr/bin/python3", "-c", "import h5py; h5py.File('other.h5', 'w')"
                    ".create_dataset('x', data=[1, 2])"], check=True, cwd=case.dir)
    os.mkdir(case.path("adir"))
    targets = [("notes.txt", config, "not a wordsens results file"),
               ("other.h5", config, "not a wordsens results file"),
               ("small.ini", config, "is the configuration file"),
               ("adir", config, "is a directory"),
               ("emb.h5", None, "is the input data")]
    for name, cfg, words in targets:
        path = case.path(name)
        before = digest(path) if os.path.isfile(path) else None
        args = [cfg] if cfg else ["--data", f"embeddings:{emb}", "--models", "raf", "--n", "4",
                                  "--d", "3", "--trials", "2"]
        res = case.ws("run", *args, "--output", path, "--overwrite", "--progress", "60")
        case.expect_error(res, 2, words, name)
        if before is not None:
            check(digest(path) == before, f"{name} was changed")
    # merge too refuses to overwrite a foreign file.
    good, _ = case.reference(config)
    before = digest(case.path("notes.txt"))
    res = case.ws("merge", good, "-o", case.path("notes.txt"), "--overwrite")
    case.expect_error(res, 2, "not a wordsens results file")
    check(digest(case.path("notes.txt")) == before, "merge changed notes.txt")
    # A wordsens results file of another configuration is replaced.
    other = case.small_config("other.ini", seed=9)
    res = case.ws("run", other, "--output", good, "--overwrite", "--progress", "60")
    check(res.rc == 0, f"--overwrite of a results file failed\n{res}")
    check("seed = 9" in case.run(["/usr/bin/python3", "-c", "import h5py;print(h5py.File("
                                  f"{good!r}, 'r', libver='latest', swmr=True)"
                                  ".attrs['config_text'])"]).out, "not replaced")


def overwrite_through_symlink(case):
    """--overwrite of an output that is a symbolic link to a results file (run and merge): the
    linked file gets the new results and the link stays a link to it. It used to replace the
    link with a regular file and leave the linked file with the old results."""
    config = case.small_config()
    other = case.small_config("other.ini", seed=9)
    _, reference = case.reference(config)
    os.mkdir(case.path("store"))
    for command in ("run", "merge"):
        target = case.path(f"store/{command}.h5")
        link = case.path(f"{command}_link.h5")
        res = case.ws("run", other, "--output", target, "--progress", "60")
        check(res.rc == 0, f"{command}: the old results\n{res}")
        os.symlink(os.path.join("store", f"{command}.h5"), link)  # relative, as `ln -s` makes
        if command == "run":
            res = case.ws("run", config, "--output", link, "--overwrite", "--progress", "60")
        else:
            shard = case.path("shard.h5")
            if not os.path.exists(shard):
                check(case.ws("run", config, "--output", shard, "--progress", "60").rc == 0,
                      "the merge input")
            res = case.ws("merge", shard, "-o", link, "--overwrite")
        check(res.rc == 0, f"{command} --overwrite through a link failed\n{res}")
        check(os.path.islink(link), f"{command}: the link was replaced by a file")
        check(os.path.realpath(link) == os.path.realpath(target), f"{command}: link retargeted")
        case.same_records(target, reference)
        leftovers = [n for n in os.listdir(case.dir) + os.listdir(case.path("store"))
                     if ".tmp-" in n]
        check(not leftovers, f"{command}: temporaries left: {leftovers}")


def long_output_name(case):
    """An output name too long for the file system (exit 1 before): exit 2, one line; a name
    that fits alone but not with '.tmp-<pid>' is refused the same way."""
    config = case.small_config()
    good, _ = case.reference(config)
    for length in (300, 250):
        name = case.path("o" * length + ".h5")
        res = case.ws("run", config, "--output", name, "--progress", "60")
        case.expect_error(res, 2, "too long")
        case.expect_error(case.ws("merge", good, "-o", name), 2, "too long")
    check(not [n for n in os.listdir(case.dir) if n.startswith("ooo")], "files were created")


def merge_writes_whole(case):
    """A merge that fails (a task done in both inputs) leaves no output, and the next merge is
    not blocked by a partial file (it was)."""
    config = case.small_config()
    good, reference = case.reference(config)
    out = case.path("all.h5")
    res = case.ws("merge", good, shutil.copyfile(good, case.path("copy.h5")), "-o", out)
    case.expect_error(res, 2, "done in both")
    check(not os.path.exists(out), "a failed merge left an output")
    s0, s1 = case.path("s0.h5"), case.path("s1.h5")
    for i, shard in enumerate((s0, s1)):
        res = case.ws("run", config, "--output", shard, "--shard", f"{i}/2", "--progress", "60")
        check(res.rc == 0, f"shard {i}\n{res}")
    res = case.ws("merge", s0, s1, "-o", out)
    check(res.rc == 0, f"merge\n{res}")
    case.same_records(out, reference)
    check(re.search(r"\.tmp-\d+$", " ".join(os.listdir(case.dir))) is None, "temporaries left")


def singletons_side_by_side(case):
    """Runs started without mpirun, side by side (one failed now and then in MPI_Init, "A call to
    mkdir was unable to create the desired directory": Open MPI's singletons all build their
    session tree in the same <tmp>/ompi.<host>.<uid>/jf.0, and the first to end removes it under
    the others). Each singleton now keeps its tree in a directory of its own under TMPDIR: eight
    runs at once succeed even with the shared place unusable (a file where Open MPI's directory
    goes), hold the reference's records, and leave nothing in TMPDIR; what a killed run left there
    is removed by the next run on that host (and only that: not a live process's directory, not
    another host's, whose pids mean nothing here)."""
    config = case.small_config(trials=10)
    _, reference = case.reference(config)
    tmp = case.path("tmp")
    os.mkdir(tmp)
    blocker = os.path.join(tmp, f"ompi.{socket.gethostname().split('.')[0]}.{os.getuid()}")
    with open(blocker, "w", encoding="utf-8") as f:
        f.write("not a directory\n")
    host = socket.gethostname()
    gone = subprocess.Popen(["true"])
    gone.wait()
    left = {name: os.path.join(tmp, name) for name in (
        f"wordsens-mpi.{host}.{gone.pid}.aaaaaa",            # a killed run's: removed
        f"wordsens-mpi.{host}.{os.getpid()}.bbbbbb",         # a live process's: kept
        f"wordsens-mpi.other-{host}.{gone.pid}.cccccc")}     # another host's: kept
    for path in left.values():
        os.makedirs(os.path.join(path, "ompi.x.0", "jf.0", "1", "0"))
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("OMPI_MCA_orte_tmpdir_base", None)
    runs = []
    for i in range(8):
        out = case.path(f"side{i}.h5")
        args = [case.wordsens, "run", config, "--output", out, "--progress", "60"]
        runs.append((out, args, subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL,
                                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                 text=True, errors="replace")))
    for out, args, p in runs:
        try:
            _, err = p.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            p.kill()
            raise Failure(f"hung: '{' '.join(args)}' did not end within {LIMIT} s") from None
        check(p.returncode == 0, f"a run beside seven others failed: exit {p.returncode}\n"
                                 f"{err.strip()[:1500]}")
        case.same_records(out, reference)
    expected = sorted([os.path.basename(blocker), *list(left)[1:]])
    check(sorted(os.listdir(tmp)) == expected,
          f"TMPDIR holds {sorted(os.listdir(tmp))} after the runs, not {expected}")


CASES = {f.__name__: f for f in (two_writers_new_output, second_writer_while_running,
                                 stale_temporaries, overwrite_only_results,
                                 overwrite_through_symlink, long_output_name,
                                 merge_writes_whole, singletons_side_by_side)}

if __name__ == "__main__":
    sys.exit(main(CASES))

"""The small modules jobs/reproduce_paper.sh and the Slurm scripts lean on, without the binary:

- jobs/process_tree.py ends every process a pipeline started, in whatever process group, one
  that ignores TERM too, and one whose parent died after the TERM;
- jobs/merge_guard.py lets a merge write only where nothing is, or finds the merge done, and
  refuses any other existing file (the merge job replaced a finished study of another
  configuration with --overwrite).
"""
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "jobs"))

import merge_guard  # noqa: E402
import process_tree  # noqa: E402


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_process_tree_ends_every_descendant_whatever_its_group(tmp_path):
    pids = tmp_path / "pids"
    # A shell (the pipeline) with: a child in a process group of its own (as `set -m` or
    # mpirun's ranks would be), a grandchild that ignores TERM, and a child whose own child
    # outlives it once TERM came (it is adopted by init).
    script = f"""
setsid sleep 300 & echo $! >> {pids}
bash -c 'trap "" TERM; sleep 300 & echo $! >> {pids}; wait' & echo $! >> {pids}
bash -c 'trap "exit 0" TERM; (trap "" TERM; exec sleep 300) & echo $! >> {pids}; sleep 300 & wait' &
wait
"""
    shell = subprocess.Popen(["bash", "-c", script])
    try:
        deadline = time.monotonic() + 10
        while (not pids.exists() or len(pids.read_text().split()) < 4) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        started = [int(p) for p in pids.read_text().split()]
        assert len(started) == 4 and all(alive(p) for p in started)
        t0 = time.monotonic()
        assert process_tree.end(shell.pid, grace=1.0) == []
        took = time.monotonic() - t0
        assert not any(alive(p) for p in started), [p for p in started if alive(p)]
        assert took < 8, took
        # the root itself is not signalled (its own trap decides): its `wait` just ended
        assert shell.wait(timeout=10) == 0
    finally:
        shell.kill()
        shell.wait()


def test_process_tree_leaves_other_processes_alone():
    other = subprocess.Popen(["sleep", "30"])
    root = subprocess.Popen(["bash", "-c", "sleep 30 & wait"])
    try:
        time.sleep(0.3)
        assert process_tree.end(root.pid, grace=0.5) == []
        assert other.poll() is None
    finally:
        for p in (other, root):
            p.send_signal(signal.SIGKILL)
            p.wait()


INFO = """file:          {name}
filetype:      wordsens-results 1.9
software:      wordsens 0.1.0 (git {sha})
build:         -march=x86-64-v3; Release
created (UTC): 2026-12-05T10:58:44Z
command line:  wordsens run c.ini
config hash:   96b6e1b1339a7023
tasks done:    {done}/24 (100.0%)

configuration:
N = 5
experiments = ws,gen
{extra}seed = {seed}
"""


def info(name="a.h5", sha="eca5d97", done=24, seed=3, extra=""):
    return INFO.format(name=name, sha=sha, done=done, seed=seed, extra=extra)


def test_merge_guard_verdicts():
    shard = info("a.shard-0-of-3.h5", done=8, extra="shard = 0/3\n")
    assert merge_guard.verdict(info(), shard)[0] == merge_guard.DONE
    code, why = merge_guard.verdict(info(seed=77), shard)
    assert code == merge_guard.REFUSE and "another configuration (keys seed)" in why
    code, why = merge_guard.verdict(info(sha="0000000"), shard)
    assert code == merge_guard.REFUSE and "another build" in why
    code, why = merge_guard.verdict(info(done=20), shard)
    assert code == merge_guard.REFUSE and "only 20 of 24 tasks" in why
    # no configuration at all (an older writer's, or a foreign text): never the same study
    code, _ = merge_guard.verdict("tasks done: 1/1\n", shard)
    assert code == merge_guard.REFUSE


def test_merge_guard_without_an_output_merges(tmp_path):
    assert merge_guard.main(["/bin/false", str(tmp_path / "none.h5"), "x"]) == merge_guard.MERGE
    (tmp_path / "junk.h5").write_text("not hdf5")
    # an existing file the binary cannot read is never replaced
    assert merge_guard.main(["/bin/false", str(tmp_path / "junk.h5"), "x"]) == \
        merge_guard.REFUSE

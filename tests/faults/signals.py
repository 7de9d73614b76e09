#!/usr/bin/python3
"""Signals at every stage: TERM/INT during start-up end the run at once (exit 4), a USR1 during
start-up checkpoints it as soon as the task loop starts (exit 3, it used to kill the process),
TERM to mpirun itself, and a closed stderr (SIGPIPE) does not kill a run.

usage: signals.py WORDSENS CASE
"""
import os
import signal
import subprocess
import sys
import time

from faults_lib import LIMIT, SMALL_INI, check, main

MPIRUN = os.environ.get("MPIRUN", "mpirun")


def _wait_caught(pid, sig):
    """Until the process has a handler for `sig` (the SigCgt mask of /proc/PID/status)."""
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            return False
        if int(fields["SigCgt"].strip(), 16) & (1 << (sig - 1)):
            return True
        time.sleep(0.0005)
    return False


def _start_stopped(case, config, out):
    """A run stopped (SIGSTOP) as soon as its start-up handlers exist: well inside start-up
    (options, inputs, MPI and the results file are still ahead). Signals sent now are delivered
    when it continues (SIGCONT)."""
    p = subprocess.Popen([case.wordsens, "run", config, "--output", out, "--progress", "60"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    check(_wait_caught(p.pid, signal.SIGTERM), "the run never caught TERM")
    os.kill(p.pid, signal.SIGSTOP)
    check(not os.path.exists(out), "the run was past start-up when stopped")
    return p


def term_during_startup(case):
    """TERM and INT while the run starts (before: the handlers were installed after MPI_Init,
    and a run hung in a damaged file ignored TERM): exit 4 within a second, one line, no file."""
    config = case.write("small.ini", SMALL_INI)
    for sig in (signal.SIGTERM, signal.SIGINT):
        out = case.path(f"out_{sig.name}.h5")
        p = _start_stopped(case, config, out)
        start = time.monotonic()
        p.send_signal(sig)
        os.kill(p.pid, signal.SIGCONT)
        try:
            _, err = p.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            p.kill()
            check(False, f"{sig.name} during start-up was ignored")
        elapsed = time.monotonic() - start
        check(p.returncode == 4, f"{sig.name}: exit {p.returncode}: {err!r}")
        check(elapsed < 2, f"{sig.name}: took {elapsed:.1f} s")
        lines = err.strip().splitlines()
        check(len(lines) == 1 and "interrupted" in lines[0], f"{sig.name}: stderr {err!r}")
        check(not os.path.exists(out), f"{sig.name}: a file was created")


def usr1_during_startup(case):
    """USR1 before the task loop (it killed the run, exit 138, no file): the run checkpoints as
    soon as the loop starts (exit 3, the file created, no task run); a resume completes it with
    the reference's records. Once on a run stopped in start-up, and three times as soon as its
    handler exists (before MPI starts)."""
    config = case.write("small.ini", SMALL_INI)
    _, reference = case.reference(config)
    out = case.path("stopped_usr1.h5")
    p = _start_stopped(case, config, out)
    p.send_signal(signal.SIGUSR1)
    os.kill(p.pid, signal.SIGCONT)
    _, err = p.communicate(timeout=LIMIT)
    check(p.returncode == 3 and "checkpointed after 0 tasks" in err, f"exit {p.returncode}: {err}")
    res = case.ws("run", config, "--output", out, "--progress", "60")
    check(res.rc == 0, f"resume\n{res}")
    case.same_records(out, reference)
    for attempt in range(3):
        out = case.path(f"early_{attempt}.h5")
        p = subprocess.Popen([case.wordsens, "run", config, "--output", out, "--progress", "60"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # The first moment a handler can exist (before it, the dynamic loader runs: a few ms).
        check(_wait_caught(p.pid, signal.SIGUSR1), "the run never caught USR1")
        p.send_signal(signal.SIGUSR1)
        _, err = p.communicate(timeout=LIMIT)
        check(p.returncode == 3, f"USR1 at 50 ms: exit {p.returncode}: {err}")
        res = case.ws("run", config, "--output", out, "--progress", "60")
        check(res.rc == 0, f"resume\n{res}")
        case.same_records(out, reference)


def term_to_mpirun(case):
    """TERM to mpirun itself: the ranks flush and stop (each says "exit 4"), but Open MPI's
    mpirun always exits 1 after a TERM (hard-coded in Open MPI 4.1; README "Exit codes"). The
    file is consistent and a resume gives the reference's records. Signal the ranks (srun,
    Slurm) to get 4 from the launcher."""
    # About 7 s on one core, 3 to 4 s on two: mpirun handles a TERM only after its own event
    # loop gets to it, and a shorter run ended first on a loaded machine.
    config = case.write("long.ini", "experiments = ws,gen\nmodels = rf,raf\nn = 12,20\nd = 6\n"
                        "k = 1.0D\nN = 8\ntrials = 96\nseed = 5\nmax-evals = 200\n")
    _, reference = case.reference(config)
    out = case.path("term.h5")
    with open(case.path("term.log"), "w", encoding="utf-8") as log:
        p = subprocess.Popen([MPIRUN, "--oversubscribe", "-n", "2", case.wordsens, "run", config,
                              "--output", out, "--progress", "0.1"], stdout=subprocess.DEVNULL,
                             stderr=log)
    log = open(case.path("term.log"), encoding="utf-8")  # its own offset, not the writer's
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline and p.poll() is None:
        log.seek(0)
        if "progress:" in log.read():
            break
        time.sleep(0.05)
    log.seek(0)
    check(p.poll() is None, f"the run ended before it could be signalled: {log.read()}")
    start = time.monotonic()
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        p.kill()
        check(False, "mpirun ignored TERM")
    elapsed = time.monotonic() - start
    log.seek(0)
    text = log.read()
    check(elapsed < 10, f"TERM: took {elapsed:.1f} s")
    check(p.returncode == 1, f"mpirun exit {p.returncode} (Open MPI 4.1 gives 1 after TERM): "
          f"{text}")
    check("interrupted (TERM/INT)" in text and "(exit 4)" in text,
          f"the ranks did not report the interruption: {text}")
    res = case.ws("info", "--check", out)
    check(res.rc == 0, f"the interrupted file is not consistent\n{res}")
    res = case.ws("run", config, "--output", out, "--progress", "60")
    check(res.rc == 0, f"resume\n{res}")
    case.same_records(out, reference)


def closed_stderr(case):
    """`wordsens run … 2>&1 | head -1` (it died of SIGPIPE): the run finishes, exit 0."""
    config = case.write("small.ini", SMALL_INI)
    _, reference = case.reference(config)
    out = case.path("piped.h5")
    script = (f"'{case.wordsens}' run '{config}' --output '{out}' --progress 0.001 2>&1 | head -1;"
              " exit ${PIPESTATUS[0]}")
    res = case.run(["bash", "-c", script])
    check(res.rc == 0, f"the run's exit: {res.rc}\n{res}")
    case.same_records(out, reference)


CASES = {f.__name__: f for f in (term_during_startup, usr1_during_startup, term_to_mpirun,
                                 closed_stderr)}

if __name__ == "__main__":
    sys.exit(main(CASES))

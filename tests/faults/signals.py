#!/usr/bin/python3
"""Signals at every stage: TERM/INT during start-up end the run at once (exit 4), a USR1 during
start-up checkpoints it as soon as the task loop starts (exit 3, it used to kill the process),
TERM to mpirun itself, and a closed stderr (SIGPIPE) does not kill a run.

usage: signals.py WORDSENS CASE
"""
import os
import shutil
import signal
import subprocess
import sys
import time

from faults_lib import LIMIT, ROOT, SMALL_INI, check, main

MPIRUN = os.environ.get("MPIRUN", "mpirun")
MPI_STEP = os.path.join(ROOT, "jobs", "mpi_step.sh")


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
    mpirun always exits 1 after a TERM (hard-coded in Open MPI 4.1; docs/COMMANDS.md "Exit
    codes"). The file is consistent and a resume gives the reference's records. Signal the ranks (srun,
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


def _children(pid):
    """The pids of the children of `pid` (every thread's)."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def _exe(pid):
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return ""


def _first(find, deadline):
    """The first non-empty result of find(), polled until `deadline` (None after it)."""
    while time.monotonic() < deadline:
        found = find()
        if found:
            return found
        time.sleep(0.0002)
    return None


def _mpi_step(case, config, out, *redirect):
    """`bash jobs/mpi_step.sh mpirun -n 2 -- wordsens run …`, as jobs/run_local.sh runs it."""
    return subprocess.Popen(["bash", MPI_STEP, MPIRUN, "--oversubscribe", "-n", "2", "--",
                             case.wordsens, "run", config, "--output", out, "--progress", "60"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            **dict(redirect))


def _launched(p, target, wordsens):
    """The pid of `target` of a run started by _mpi_step, as soon as it exists: the script once
    it handles USR1 (a shell dies of one in its first milliseconds, before it has read a line),
    mpirun as soon as it runs mpirun, a rank as soon as it runs wordsens (before: mpirun's fork,
    then `env`). None when it never appears."""
    deadline = time.monotonic() + LIMIT
    if target == "script":
        return p.pid if _wait_caught(p.pid, signal.SIGUSR1) else None
    mpirun = os.path.realpath(shutil.which(MPIRUN) or MPIRUN)
    launcher = _first(lambda: [c for c in _children(p.pid) if _exe(c) == mpirun], deadline)
    if target == "mpirun" or not launcher:
        return launcher[0] if launcher else None
    program = os.path.realpath(wordsens)
    ranks = _first(lambda: [c for c in _children(launcher[0]) if _exe(c) == program], deadline)
    return ranks[0] if ranks else None


def usr1_at_any_moment(case):
    """USR1 at 0, 10 and 100 ms after the start of the script that runs a study as the job
    scripts do (jobs/mpi_step.sh), of its mpirun, and of a rank: every run ends in exit 3
    (checkpointed) or exit 0 (the USR1 came before anything could take it and the run started as
    usual), and a resume gives the reference's records. A USR1 to the script or to a rank is
    never lost: always exit 3. Plain mpirun died of a USR1 in its first milliseconds (exit 138),
    and a rank of one while it was being loaded (mpirun then ended the job)."""
    config = case.write("long.ini", "experiments = ws\nmodels = rf,raf\nn = 4,6\nd = 3\n"
                        "k = 1.0D\ntrials = 40\nseed = 5\nmax-evals = 400\n")
    _, reference = case.reference(config)
    outcomes = []
    for target in ("script", "mpirun", "rank"):
        for delay in (0.0, 0.01, 0.1):
            where = f"USR1 to {target} at {delay * 1000:.0f} ms"
            out = case.path(f"usr1_{target}_{int(delay * 1000)}ms.h5")
            p = _mpi_step(case, config, out)
            pid = _launched(p, target, case.wordsens)
            if pid is None:
                p.kill()
                check(False, f"{where}: no process to signal")
            time.sleep(delay)
            try:
                os.kill(pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass
            try:
                _, err = p.communicate(timeout=LIMIT)
            except subprocess.TimeoutExpired:
                p.kill()
                check(False, f"{where}: hung")
            # mpirun may get it before any rank exists (then no rank sees it); a rank holds it
            # until its handler exists, and the script until a rank can take it.
            allowed = (0, 3) if target == "mpirun" else (3,)
            check(p.returncode in allowed, f"{where}: exit {p.returncode}: {err}")
            if p.returncode == 3:
                check("checkpointed" in err, f"{where}: no checkpoint message: {err}")
                res = case.ws("run", config, "--output", out, "--progress", "60")
                check(res.rc == 0, f"{where}: resume\n{res}")
            case.same_records(out, reference)
            outcomes.append(f"{target} at {delay * 1000:.0f} ms: exit {p.returncode}")
    print("; ".join(outcomes))


def usr1_kills_a_rank_while_it_loads(case):
    """mpirun forwards a USR1 to a rank between its exec and the shim's first instructions, where
    nothing can hold it: the rank dies of it before it has run anything and mpirun ends the job
    (exit 138). Made certain here with ranks that take the default action of USR1 at once
    (Python, unblocked, SIG_DFL): jobs/mpi_step.sh reports the step as checkpointed, exit 3,
    naming what happened; any other exit of mpirun is passed on unchanged."""
    die = ("import os, signal; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1]); "
           "signal.signal(signal.SIGUSR1, signal.SIG_DFL); os.kill(os.getpid(), signal.SIGUSR1)")
    res = case.run(["bash", MPI_STEP, MPIRUN, "--oversubscribe", "-n", "2", "--",
                    sys.executable, "-c", die])
    check(res.rc == 3, f"exit {res.rc}\n{res}")
    check("checkpointed" in res.err and "USR1" in res.err, f"no message naming it: {res}")
    res = case.run(["bash", MPI_STEP, MPIRUN, "--oversubscribe", "-n", "2", "--",
                    sys.executable, "-c", "raise SystemExit(7)"])
    check(res.rc != 3 and res.rc != 0, f"another failure became exit {res.rc}\n{res}")


def closed_streams_mpirun(case):
    """mpirun with stdout and stderr closed spins forever once the ranks have finished (Open
    MPI's launcher, even with `true` as the ranks). Started as the job scripts start it
    (jobs/mpi_step.sh), the run finishes: exit 0, the file complete."""
    config = case.write("small.ini", SMALL_INI)
    _, reference = case.reference(config)
    out = case.path("closed.h5")
    script = f"exec bash '{MPI_STEP}' '{MPIRUN}' --oversubscribe -n 2 -- '{case.wordsens}' " \
             f"run '{config}' --output '{out}' --progress 0.01 >&- 2>&-"
    res = case.run(["bash", "-c", script])
    check(res.rc == 0, f"exit {res.rc}\n{res}")
    case.same_records(out, reference)


def usr1_as_the_script_takes_it(case):
    """A USR1 the moment jobs/mpi_step.sh handles it, 150 times: the script always reads and
    runs its step (here `env true`, so that each try is quick; env itself may die of the USR1
    passed to it). bash runs a trap between the commands it reads, and one that ran while it
    read or expanded a `$( … )` broke that read ("trap: line 2: unexpected EOF while looking
    for matching `)'"; about 1 try in 150 with the step's old `$(basename …)`, 1 in 20 with an
    mpirun launcher): the script sets its trap after its functions are read, and starts the
    step without a command substitution."""
    broken = []
    for attempt in range(150):
        p = subprocess.Popen(["bash", MPI_STEP, "env", "--", "true"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        if _wait_caught(p.pid, signal.SIGUSR1):
            try:
                os.kill(p.pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass
        _, err = p.communicate(timeout=LIMIT)
        if "unexpected EOF" in err or "syntax error" in err:
            broken.append(f"try {attempt}: exit {p.returncode}: {err.strip()}")
    check(not broken, f"{len(broken)} of 150 tries broke the script: {broken[:1]}")


CASES = {f.__name__: f for f in (term_during_startup, usr1_during_startup, term_to_mpirun,
                                 closed_stderr, usr1_at_any_moment,
                                 usr1_kills_a_rank_while_it_loads, closed_streams_mpirun,
                                 usr1_as_the_script_takes_it)}

if __name__ == "__main__":
    sys.exit(main(CASES))

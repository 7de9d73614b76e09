"""The children the driver starts, the signals it takes and the locks they hold.

- Signals. TERM, INT or HUP before the run's own handler (set once the arguments, plans and
  locks are checked) ends the driver with 128 + its number: by then it has started nothing but
  short steps that write nothing, and one that runs is let finish first. From then on
  (`on_interrupt`), the handler ends every process the run started (jobs/process_tree.py: TERM,
  then KILL after 10 s) at once, whatever the driver waits for, and ends the run with 128 + the
  signal's number. A USR1 is remembered and passed to the MPI step that runs or the next one
  (jobs/mpi_step.sh passes it to the ranks, which checkpoint: exit 3).
- Locks. A lock's descriptor is held by the driver and every process it starts (an orphan of a
  killed run keeps it), so that a second run is refused while any of them is alive.
- Steps. An MPI step runs under jobs/mpi_step.sh: no hang on closed streams, no death by a USR1
  in mpirun's first milliseconds or in a rank still loading.
"""
from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import process_tree  # noqa: E402  (jobs/process_tree.py)

NAME = "reproduce_paper"
INTERRUPTS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
USR1_BIT = 1 << (signal.SIGUSR1 - 1)  # in /proc/PID/status SigCgt
USR1_FROM_ENTRY = "WORDSENS_DRIVER_USR1"  # "1": the entry point took a USR1 before the exec
PR_SET_CHILD_SUBREAPER = 36


class _State:
    def __init__(self):
        self.lock_fds = []        # every child inherits them
        self.foreground = 0       # short steps running before the run's own handler
        self.pending = None       # a signal that came during one of them
        self.on_interrupt = None  # the run's own handler, once set
        self.ending = False
        self.usr1 = False         # a USR1 not passed on yet


STATE = _State()


def say(message: str, err: bool = False) -> None:
    print(f"{NAME}: {message}", file=sys.stderr if err else sys.stdout, flush=True)


def _exit_now(code: int) -> None:
    """Ends the driver with `code` at once, wherever it was (no cleanup code of an interrupted
    step runs: the files stay as the step left them)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _name(signum: int) -> str:
    return signal.Signals(signum).name[3:]


def _early(signum: int) -> None:
    STATE.ending = True
    say(f"{_name(signum)} before any study started: nothing to end", err=True)
    _exit_now(128 + signum)


def _interrupted(signum, _frame) -> None:
    if STATE.ending:
        return
    if STATE.on_interrupt is not None:
        STATE.ending = True
        STATE.on_interrupt(signum, _name(signum))
        _exit_now(128 + signum)
    elif STATE.foreground:
        STATE.pending = STATE.pending or signum
    else:
        _early(signum)


def _usr1(_signum, _frame) -> None:
    STATE.usr1 = True


def install() -> None:
    """The handlers of the driver's first moments; the signals the entry point blocked across
    its exec (so that one arriving before these handlers existed waits for them) are let in, and
    a USR1 the entry point took is remembered."""
    for s in INTERRUPTS:
        signal.signal(s, _interrupted)
    signal.signal(signal.SIGUSR1, _usr1)
    STATE.usr1 = os.environ.pop(USR1_FROM_ENTRY, "0") == "1"
    # The run's processes stay in its tree when their parent dies: a Ctrl-C ends the MPI step's
    # shell at once, and mpirun, orphaned, would leave the tree the handler ends and waits for.
    _become_subreaper()
    # A closed output (`| head`) ends the driver quietly, as it ends a shell script.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [*INTERRUPTS, signal.SIGUSR1])


def _become_subreaper() -> None:
    """Orphaned descendants are adopted by the driver, not by init (Linux prctl; without it,
    process_tree.py still follows the orphans of its first reading)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def exit_code(returncode: int) -> int:
    """A child's exit code as a shell gives it: 128 + N for one that died of signal N."""
    return 128 - returncode if returncode < 0 else returncode


def on_interrupt(attempt_ended) -> None:
    """From now on TERM, INT or HUP ends every process of the run: `attempt_ended(code, name)`
    then reports and records the attempt it interrupted, if any."""

    def end_run(signum: int, name: str) -> None:
        say(f"{name}: ending every process of this run (its files stay resumable)", err=True)
        for pid, _ in process_tree.end(os.getpid(), 10.0):
            print(f"process_tree: pid {pid} outlived KILL", file=sys.stderr, flush=True)
        attempt_ended(128 + signum, name)

    STATE.on_interrupt = end_run


def _children_env(extra: dict | None) -> dict:
    env = dict(os.environ)
    env.update(extra or {})
    return env


@contextlib.contextmanager
def _foreground():
    """A step the driver waits for. Before the run's own handler, a signal that comes meanwhile
    ends the driver once the step is done (it writes nothing; the shell let it finish too)."""
    STATE.foreground += 1
    try:
        yield
    finally:
        STATE.foreground -= 1
        if STATE.pending and not STATE.foreground and STATE.on_interrupt is None:
            _early(STATE.pending)


def quiet(argv: list, merge: bool = False, stdin: str | None = None, env: dict | None = None):
    """A short step, its output captured (stderr merged into stdout with `merge`)."""
    with _foreground():
        return subprocess.run(argv, input=stdin, text=True, errors="surrogateescape",
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                              pass_fds=STATE.lock_fds, env=_children_env(env))


def _as_a_background_job() -> None:
    """In the child before its exec: what a shell's `&` gives a job (no terminal Ctrl-C)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGQUIT, signal.SIG_IGN)


def run(argv: list, env: dict | None = None, stdout=None, background: bool = False) -> int:
    """A step whose output goes where the driver's goes (or to `stdout`); its exit code. A
    `background` step (the report, the rules' next look, building texts) reads no terminal and
    is not ended by a Ctrl-C to the run's group: the driver's handler ends it, with the rest."""
    with _foreground():
        return exit_code(subprocess.run(
            argv, pass_fds=STATE.lock_fds, env=_children_env(env), stdout=stdout,
            stdin=subprocess.DEVNULL if background else None,
            preexec_fn=_as_a_background_job if background else None).returncode)


def nproc() -> str:
    """The processing units this run may use, as coreutils' nproc counts them (it honours
    OMP_NUM_THREADS and the CPU affinity)."""
    p = quiet(["nproc"])
    return p.stdout.strip() if p.returncode == 0 else str(len(os.sched_getaffinity(0)))


def _handles_usr1(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & USR1_BIT)
    except (OSError, ValueError):
        pass
    return False


def mpi_step(launcher: list, program: list) -> int:
    """`LAUNCHER -- PROGRAM` under jobs/mpi_step.sh; its exit code. A USR1 to the driver is
    passed to the step once the step's shell takes it (a USR1 before that would end the shell)."""
    argv = ["bash", os.path.join(os.path.dirname(HERE), "mpi_step.sh"), *launcher, "--",
            *program]
    step = subprocess.Popen(argv, pass_fds=STATE.lock_fds,
                            env=_children_env({"WORDSENS_STEP_NAME": NAME}))
    while True:
        try:
            return exit_code(step.wait(timeout=0.05))
        except subprocess.TimeoutExpired:
            pass
        if STATE.usr1 and _handles_usr1(step.pid):
            STATE.usr1 = False
            try:
                os.kill(step.pid, signal.SIGUSR1)
            except OSError:
                pass


def lock(path: str, what: str) -> int:
    """Takes the lock of `path` on a descriptor every child inherits, or refuses the run naming
    the holder (the pid the lock's file holds). Returns the descriptor."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    os.set_inheritable(fd, True)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            with open(path, "rb") as f:
                holder = "".join(c for c in f.read(32).decode("latin-1") if c.isdigit())
        except OSError:
            holder = ""
        os.close(fd)
        say(f"{what} is in use by another run (pid {holder or '?'}, or a process it started): "
            "wait for it to end, or end it; a rerun then resumes", err=True)
        sys.exit(2)
    except OSError as e:
        say(f"cannot lock {path} ({e.strerror}): no guard against a second run", err=True)
    else:
        try:
            with open(path, "w") as f:  # the holder's pid, for the refusal's line
                f.write(f"{os.getpid()}\n")
        except OSError:
            pass
    STATE.lock_fds.append(fd)
    return fd

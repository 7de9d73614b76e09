"""A report directory is published whole, by one writer at a time.

The report is built in a fresh temporary directory beside the destination (`.NAME.tmp-…`) and
swapped into place by one rename (Linux's renameat2 RENAME_EXCHANGE where the file system has it,
else two renames), so a reader sees the old report or the new one, never a mix, and no file of
an earlier report survives the new one. A report that fails leaves the old one as it was.

One writer at a time: a lock file beside the destination (`.NAME.lock`, flock) is held while the
report is built; a second report into the same directory is refused with one line naming the
first one's pid. A caller that holds the lock itself (jobs/reproduce_paper.sh holds it for its
whole run) passes the descriptor in WORDSENS_REPORT_LOCK_FD; the report checks that it is the
same lock file and that the lock is indeed held through it.

Only a report may be replaced: the destination must be absent, empty, a directory written by
this module (it holds the marker file `.wordsens-report`) or one of an older report (nothing but
report.md / report.html and the report's .md, .html, .csv, .png and .pdf files). Anything else
(`-o .`, a home directory) is refused before any work.
"""
from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import tempfile

LOCK_FD_ENV = "WORDSENS_REPORT_LOCK_FD"
MARKER = ".wordsens-report"
REPORT_SUFFIXES = (".md", ".html", ".csv", ".png", ".pdf")
MARKER_TEXT = ("written by wordsens-report: this directory is replaced whole by the next report "
               "into it\n")


class ReportDirError(Exception):
    """The destination cannot take a report (one line: what and why)."""


def destination(outdir: str) -> str:
    """The directory the report replaces: symbolic links resolved (a link to a report directory
    keeps pointing at the new report)."""
    return os.path.realpath(outdir)


def lock_path(dest: str) -> str:
    parent, name = os.path.split(dest)
    return os.path.join(parent, f".{name}.lock")


def _holder(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            pid = f.read(32).strip()
        return f" (pid {pid})" if pid.isdigit() else ""
    except OSError:
        return ""


def _inherited_lock(path: str):
    """The descriptor of WORDSENS_REPORT_LOCK_FD when it is `path` and holds its lock."""
    text = os.environ.get(LOCK_FD_ENV, "")
    if not text.isdigit():
        return None
    fd = int(text)
    try:
        if not os.path.samestat(os.fstat(fd), os.stat(path)):
            return None
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held through this descriptor already
    except OSError:
        return None
    return fd


def acquire(dest: str):
    """Locks `dest` for this process; returns the descriptor to close (None: the caller's
    inherited lock). Raises ReportDirError when another writer holds it."""
    path = lock_path(dest)
    if _inherited_lock(path) is not None:
        return None
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ReportDirError(f"another report is being written into {dest}{_holder(path)}: "
                             "wait for it to end, or choose another -o") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def check_replaceable(dest: str) -> None:
    """Raises ReportDirError unless `dest` is absent, empty or a report directory."""
    if not os.path.lexists(dest):
        return
    if not os.path.isdir(dest):
        raise ReportDirError(f"{dest} exists and is not a directory")
    if os.path.ismount(dest):
        raise ReportDirError(f"{dest} is a mount point: a report is published by renaming a "
                             "directory into place; choose a directory inside it")
    entries = os.listdir(dest)
    if not entries or MARKER in entries:
        return
    foreign = [e for e in sorted(entries)
               if not (e.endswith(REPORT_SUFFIXES) and os.path.isfile(os.path.join(dest, e))
                       and not os.path.islink(os.path.join(dest, e)))]
    if foreign or not {"report.md", "report.html"} & set(entries):
        shown = ", ".join(repr(e) for e in (foreign or sorted(entries))[:3])
        raise ReportDirError(f"{dest} holds files that are not a wordsens report ({shown}"
                             f"{', …' if len(foreign or entries) > 3 else ''}): the report "
                             "replaces its directory whole; choose another -o")


def _stale(parent: str, name: str) -> list:
    """Temporary directories of earlier reports into `name` that ended before publishing."""
    heads = (f".{name}.tmp-", f".{name}.old-")
    return [os.path.join(parent, e) for e in os.listdir(parent) if e.startswith(heads)]


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: str, b: str) -> bool:
    """Swaps the directories a and b in one step; False where the system cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), b)


def publish(stage: str, dest: str) -> None:
    """Puts the finished report `stage` in the place of `dest` (its sibling)."""
    if os.path.lexists(dest):
        if not _exchange(stage, dest):
            parent, name = os.path.split(dest)
            old = tempfile.mkdtemp(prefix=f".{name}.old-", dir=parent)
            os.rename(dest, os.path.join(old, "report"))
            os.rename(stage, dest)
            stage = old
        shutil.rmtree(stage, ignore_errors=True)  # the old report
    else:
        os.rename(stage, dest)


@contextlib.contextmanager
def building(outdir: str):
    """Yields an empty directory to write the report into; on a normal exit it replaces
    `outdir` whole; on an exception `outdir` is left as it was."""
    dest = destination(outdir)
    parent, name = os.path.split(dest)
    if not name:
        raise ReportDirError(f"{outdir}: the report needs a directory of its own, not /")
    os.makedirs(parent, exist_ok=True)
    fd = acquire(dest)
    try:
        check_replaceable(dest)
        for old in _stale(parent, name):
            shutil.rmtree(old, ignore_errors=True)
        stage = tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=parent)
        try:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(stage, 0o777 & ~umask)  # mkdtemp's 0700 is no report's mode
            yield stage
            with open(os.path.join(stage, MARKER), "w", encoding="utf-8") as f:
                f.write(MARKER_TEXT)
            publish(stage, dest)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
    finally:
        if fd is not None:
            os.close(fd)


def add_file(dest: str, name: str, text: str) -> None:
    """Writes one more file into a published report directory whole (a temporary file renamed
    into place): the results section beside the report."""
    path = os.path.join(dest, name)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=dest)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise

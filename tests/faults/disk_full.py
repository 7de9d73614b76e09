#!/usr/bin/python3
"""A full disk, two ways: a file-size limit (RLIMIT_FSIZE, always available: writes past it fail
with EFBIG, "File too large") and a small tmpfs (ENOSPC, "No space left on device"; skipped,
visibly, where mounting is not allowed). Every failure is one line naming the file and the
system error, exit 1, no crash; no file claims to be complete; a resume with space completes
the run with the reference's records.

usage: disk_full.py WORDSENS CASE
"""
import os
import resource
import subprocess
import sys

from faults_lib import check, main, mount_tmpfs

FSIZE_ERROR = "File too large"
NOSPACE_ERROR = "No space left on device"


def limit_file_size(size):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return apply


def no_leftovers(case, directory, prefix):
    left = [n for n in os.listdir(directory) if n.startswith(prefix)]
    check(not left, f"left behind: {left}")


def _create(case, directory, preexec, error):
    """Creating the file fails (it segfaulted: exit 139): one line, exit 1, nothing left."""
    config = case.small_config()
    out = os.path.join(directory, "out.h5")
    res = case.ws("run", config, "--output", out, "--progress", "60", preexec=preexec)
    case.expect_error(res, 1, f"cannot create {out}", error)
    no_leftovers(case, directory, "out.h5")
    print(f"creation: {res.error_lines()[0]}")


def _created_size(case, config):
    """The size of a freshly created file of the study (its layout, no task done)."""
    path = case.path("sized.h5")
    res = case.ws("run", config, "--output", path, "--walltime", "0.000001", "--progress", "60")
    check(res.rc == 3, f"creating a file to measure failed\n{res}")
    return os.path.getsize(path)


def _mid_run(case, directory, preexec, error):
    """A write fails mid-run (the messages never said "no space"): one error line naming the
    file and the system error, exit 1; the file keeps what was committed and a resume with
    space left gives the reference's records."""
    config = case.small_config()
    _, reference = case.reference(config)
    out = os.path.join(directory, "out.h5")
    res = case.ws("run", config, "--output", out, "--progress", "60", preexec=preexec)
    case.expect_error(res, 1, out, error, strict=False)
    check("complete" not in res.err, f"a failed run said complete\n{res}")
    return config, out, reference


def _merge(case, directory, preexec, error):
    """merge onto a full disk (it left a file info called complete, with every statistic 0, and
    that blocked the next merge): exit 1, one line, no output; the next merge succeeds."""
    config = case.small_config()
    _, reference = case.reference(config)
    shards = case.shards(config)
    out = os.path.join(directory, "all.h5")
    res = case.ws("merge", *shards, "-o", out, preexec=preexec)
    case.expect_error(res, 1, out, error)
    no_leftovers(case, directory, "all.h5")
    return shards, out, reference


def disk_full_create_fsize(case):
    _create(case, case.dir, limit_file_size(16 * 1024), FSIZE_ERROR)


def disk_full_create_tmpfs(case):
    _create(case, mount_tmpfs(case, "full", "40k"), None, NOSPACE_ERROR)


def disk_full_mid_run_fsize(case):
    size = _created_size(case, case.small_config())
    config, out, reference = _mid_run(case, case.dir, limit_file_size(size + 32 * 1024),
                                      FSIZE_ERROR)
    # The refused write left the file shorter than its superblock says: readers call it
    # damaged, a resume (with no limit) extends it and completes it.
    res = case.ws("run", config, "--output", out, "--progress", "60")
    check(res.rc == 0, f"resume after the limit\n{res}")
    case.same_records(out, reference)


def disk_full_mid_run_tmpfs(case):
    size = _created_size(case, case.small_config())
    directory = mount_tmpfs(case, "full", str(size + 48 * 1024))
    config, out, reference = _mid_run(case, directory, None, NOSPACE_ERROR)
    info = case.ws("info", out)
    check(info.rc == 0 and "tasks done" in info.out, f"info after the failure\n{info}")
    # Free some space (grow the tmpfs) and resume.
    grow = subprocess.run(["mount", "-o", "remount,size=8m", directory], capture_output=True,
                          text=True)
    check(grow.returncode == 0, f"cannot grow the tmpfs: {grow.stderr}")
    res = case.ws("run", config, "--output", out, "--progress", "60")
    check(res.rc == 0, f"resume with space\n{res}")
    case.same_records(out, reference)


def disk_full_merge_fsize(case):
    shards, out, reference = _merge(case, case.dir, limit_file_size(64 * 1024), FSIZE_ERROR)
    res = case.ws("merge", *shards, "-o", out)
    check(res.rc == 0, f"the next merge\n{res}")
    case.same_records(out, reference)


def disk_full_merge_tmpfs(case):
    directory = mount_tmpfs(case, "full", "200k")
    shards, out, reference = _merge(case, directory, None, NOSPACE_ERROR)
    out2 = case.path("all.h5")
    res = case.ws("merge", *shards, "-o", out2)
    check(res.rc == 0, f"the next merge\n{res}")
    case.same_records(out2, reference)


CASES = {f.__name__: f for f in (disk_full_create_fsize, disk_full_create_tmpfs,
                                 disk_full_mid_run_fsize, disk_full_mid_run_tmpfs,
                                 disk_full_merge_fsize, disk_full_merge_tmpfs)}

if __name__ == "__main__":
    sys.exit(main(CASES))

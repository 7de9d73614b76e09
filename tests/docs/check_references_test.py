#!/usr/bin/env python3
"""The reference checker fails on each kind of dangling reference and passes a clean tree.

Builds small trees outside git (the checker then walks every file) and runs the checker on them.
"""
import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_references.py")

CLEAN = {
    "docs/METHOD.md": "# Method\n\n## 1. Samples\n\ntext\n",
    "src/a.cpp": "// See docs/METHOD.md §1 and [the method](../docs/METHOD.md).\n",
}
# The planted references to documents outside the repository are assembled at run time, so that
# this file itself holds none of them.
BRIEF, ISSUE, OUTSIDE = "SP" + "EC", "iss" + "ue", "../" + "shared"
BAD = {
    "steering brief": f"// as the brief says ({BRIEF} §3)\n",
    "issue number": f"// fixed for {ISSUE} 12\n",
    "missing file": "// see docs/NOWHERE.md\n",
    "missing section": "// see docs/METHOD.md §7\n",
    "broken link": "[x](docs/GONE.md)\n",
    "folder outside": f"see {OUTSIDE}/notes\n",
}


def run_on(files):
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)) or root, exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        done = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


def main():
    failures = []
    code, out = run_on(CLEAN)
    if code != 0:
        failures.append(f"clean tree flagged (exit {code}):\n{out}")
    for kind, text in BAD.items():
        code, out = run_on({**CLEAN, "src/bad.cpp": text})
        if code != 1 or "src/bad.cpp:1" not in out:
            failures.append(f"{kind} not caught (exit {code}):\n{out}")
    for f in failures:
        print(f)
    print(f"{len(BAD) + 1 - len(failures)} of {len(BAD) + 1} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

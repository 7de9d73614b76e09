#!/usr/bin/env python3
"""Everything that states the suite's version states the top-level VERSION's.

The binary takes it from CMake's project(), which reads VERSION; the analysis package, its pip
metadata and CITATION.cff hold copies (an installed package has no checkout to read), so this
check keeps them equal, and keeps CHANGELOG.md's newest section consistent with it
(docs/RELEASING.md): "Unreleased" while VERSION is not yet released, else "VERSION — DATE" with
CITATION.cff's date-released that DATE. Given the binary, `wordsens --version` must say VERSION.
Exits 1 listing each disagreement.

usage: check_version.py ROOT [WORDSENS_BINARY]
"""
import ast
import os
import re
import subprocess
import sys
import tomllib

SEMVER = re.compile(r"^\d+\.\d+\.\d+$")
RELEASE = re.compile(r"^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})\s*$")


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def python_version(text):
    """__version__ of _version.py, read without importing the package (it needs numpy)."""
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["__version__"]:
            return ast.literal_eval(node.value)
    return None


def cff_field(text, key):
    m = re.search(rf"^{key}:\s*\"?([^\"\s]+)\"?\s*$", text, re.M)
    return m.group(1) if m else None


def changelog_problems(text, version, cff_date):
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    if not sections:
        return ["CHANGELOG.md has no section"]
    top = sections[0]
    released = [m.group(1) for m in map(RELEASE.match, sections) if m]
    if top.strip() == "## Unreleased":
        if version in released:
            return [f"CHANGELOG.md has a released {version}, but VERSION still says {version} "
                    "under a new Unreleased section (bump VERSION)"]
        return []
    m = RELEASE.match(top)
    if not m:
        return [f"CHANGELOG.md's newest section is neither '## Unreleased' nor "
                f"'## X.Y.Z — YYYY-MM-DD': {top!r}"]
    problems = []
    if m.group(1) != version:
        problems.append(f"CHANGELOG.md's newest release is {m.group(1)}, VERSION says {version}")
    if cff_date != m.group(2):
        problems.append(f"CITATION.cff date-released is {cff_date}, CHANGELOG.md's release of "
                        f"{m.group(1)} is dated {m.group(2)}")
    return problems


def check(root, binary=None):
    version = read(root, "VERSION").strip()
    if not SEMVER.match(version):
        return [f"VERSION is {version!r}, not X.Y.Z"]
    problems = []
    cmake = read(root, "CMakeLists.txt")
    if not re.search(r'file\(STRINGS\s+"\$\{CMAKE_CURRENT_SOURCE_DIR\}/VERSION"\s+WORDSENS_VERSION',
                     cmake) or not re.search(r"project\(wordsens VERSION \$\{WORDSENS_VERSION\}",
                                             cmake):
        problems.append("CMakeLists.txt's project() does not take its version from VERSION")
    py = python_version(read(root, "analysis/wordsens_analysis/_version.py"))
    if py != version:
        problems.append(f"analysis/wordsens_analysis/_version.py says {py}, VERSION {version}")
    project = tomllib.loads(read(root, "analysis/pyproject.toml"))
    if "version" in project["project"] or "version" not in project["project"].get("dynamic", []):
        problems.append("analysis/pyproject.toml states a version of its own (it must be dynamic)")
    attr = project.get("tool", {}).get("setuptools", {}).get("dynamic", {}).get("version", {})
    if attr != {"attr": "wordsens_analysis._version.__version__"}:
        problems.append(f"analysis/pyproject.toml takes its version from {attr}, not _version.py")
    cff = read(root, "CITATION.cff")
    if cff_field(cff, "version") != version:
        problems.append(f"CITATION.cff says version {cff_field(cff, 'version')}, VERSION {version}")
    problems += changelog_problems(read(root, "CHANGELOG.md"), version,
                                   cff_field(cff, "date-released"))
    if binary:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split()
        said = out[1] if len(out) > 1 else None
        if said != version:
            problems.append(f"{binary} --version says {said}, VERSION {version}")
    return problems


def main():
    problems = check(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print("version: every statement agrees")


if __name__ == "__main__":
    main()

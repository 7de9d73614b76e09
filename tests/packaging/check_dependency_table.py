#!/usr/bin/env python3
"""docs/INSTALL.md's dependency table states the minimums the build checks, and no others.

A row's "checked by" names where its minimum is enforced: `cmake_minimum_required` (and
CMakePresets.json's cmakeMinimumRequired), `find_package(NAME)` in CMakeLists.txt and cmake/,
or analysis/pyproject.toml's `requires-python`, `dependencies` and `build-system` (the package
named in the row's first cell); "—" there is a minimum nothing checks. Each row's minimum ("—"
for none) must be the checked one, and every find_package and every pip requirement must have
its row, so that raising a minimum in the build without the table (or the reverse) fails.
Exits 1 listing each disagreement.

usage: check_dependency_table.py ROOT
"""
import glob
import json
import os
import re
import sys
import tomllib

TABLE = "docs/INSTALL.md"
REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)\s*(?:>=\s*([\d.]+))?$")


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def table_rows(text):
    """(line number, dependency, minimum or None, checked by) for each row of the table."""
    rows, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and "checked by" in cells:
            inside, header = True, cells
            continue
        if not inside or not line.startswith("|"):
            inside = False
            continue
        if set(line) <= set("|-: "):
            continue
        row = dict(zip(header, cells))
        minimum = None if row["minimum"] == "—" else row["minimum"]
        rows.append((number, row["dependency"], minimum, row["checked by"].strip("`")))
    return rows


def cmake_minimums(root):
    """What the build checks: {check: minimum or None}."""
    found = {}
    for path in ["CMakeLists.txt"] + sorted(
            os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "cmake", "*.cmake"))):
        text = re.sub(r"#.*", "", read(root, path))
        for name, version in re.findall(r"find_package\(\s*(\w+)(?:\s+(\d[\d.]*))?", text):
            found[f"find_package({name})"] = version or None
        m = re.search(r"cmake_minimum_required\(\s*VERSION\s+([\d.]+)", text)
        if m:
            found["cmake_minimum_required"] = m.group(1)
    return found


def pip_minimums(root):
    """{(check, package): minimum or None} of analysis/pyproject.toml."""
    project = tomllib.loads(read(root, "analysis/pyproject.toml"))
    found = {("requires-python", None): project["project"]["requires-python"].lstrip(">=")}
    for check, requirements in [("dependencies", project["project"].get("dependencies", [])),
                                ("build-system", project["build-system"]["requires"])]:
        for requirement in requirements:
            m = REQUIREMENT.match(requirement)
            if not m:
                raise SystemExit(f"analysis/pyproject.toml: cannot read {requirement!r}")
            found[(check, m.group(1).lower())] = m.group(2)
    return found


def check(root):
    problems = []
    cmake, pip = cmake_minimums(root), pip_minimums(root)
    presets = json.loads(read(root, "CMakePresets.json"))["cmakeMinimumRequired"]
    if "cmake_minimum_required" in cmake and \
            f"{presets['major']}.{presets['minor']}" != cmake["cmake_minimum_required"]:
        problems.append(f"CMakePresets.json requires CMake {presets['major']}.{presets['minor']}, "
                        f"CMakeLists.txt {cmake['cmake_minimum_required']}")
    seen = set()
    for number, name, minimum, checked_by in table_rows(read(root, TABLE)):
        where = f"{TABLE}:{number}: {name}"
        if checked_by == "—":
            continue
        if checked_by in ("dependencies", "build-system"):
            key = (checked_by, name.lower())
            actual, known = pip.get(key), key in pip
        elif checked_by == "requires-python":
            key = (checked_by, None)
            actual, known = pip.get(key), key in pip
        else:
            key = checked_by
            actual, known = cmake.get(key), key in cmake
        seen.add(key)
        if not known:
            problems.append(f"{where}: nothing in the build is {checked_by} for it")
        elif actual != minimum:
            problems.append(f"{where}: the table says {minimum or '—'}, {checked_by} "
                            f"{actual or 'no minimum'}")
    for key in sorted(set(cmake) | set(pip), key=str):
        if key not in seen:
            problems.append(f"{TABLE}: no row for {key if isinstance(key, str) else key[1] or key[0]}"
                            f" (checked by the build)")
    return problems


def main():
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        sys.exit(1)
    print(f"{TABLE}: every minimum is the build's")


if __name__ == "__main__":
    main()

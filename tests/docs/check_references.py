#!/usr/bin/env python3
"""Every reference in the repository points inside it.

Checks every file git tracks (or, outside a git checkout, every file under the root) for:
- references to documents that are not part of the repository (the project's steering notes,
  issue numbers): users cannot follow them;
- repository paths named in text or code (src/…, docs/…, jobs/…, analysis/…, tests/…, cmake/…,
  and top-level README.md, CHANGELOG.md) that do not exist;
- Markdown links [text](target#anchor) whose file or heading does not exist;
- "FILE.md §N" section references whose section does not exist in that file.
Exits 1 listing each problem as FILE:LINE: what.

usage: check_references.py [ROOT]
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))
TEXT_SUFFIXES = (".md", ".cpp", ".hpp", ".h", ".py", ".sh", ".ini", ".txt", ".cmake", ".json",
                 ".toml", ".sbatch", ".in", ".cfg", "")
OUTSIDE = [
    (re.compile(r"\bSPEC(\.md)?\s*§"), "a section of the project's steering brief (not in the repository)"),
    (re.compile(r"\bSPEC\.md\b|\bSPEC\b"), "the project's steering brief (not in the repository)"),
    (re.compile(r"\bARCHITECTURE\.md\b"), "the project's steering notes (not in the repository)"),
    (re.compile(r"\.\./shared\b"), "a folder outside the repository"),
    (re.compile(r"\b[Ii]ssues?\s+#?\d+\b"), "an issue number (not in the repository)"),
]
PATH = re.compile(r"(?<![\w./-])((?:src|docs|jobs|analysis|tests|cmake)/[\w./<>*-]*[\w*>]"
                  r"|README\.md|CHANGELOG\.md)")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
SECTION = re.compile(r"([\w./-]+\.md)\s*§\s*(\d+)")
GENERATED = ("build/", "results/", "report/", "out/", "analysis/datasets/cache/")


def tracked_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
        return [f for f in out if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for base, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "build"]
            files += [os.path.relpath(os.path.join(base, n), ROOT) for n in names]
        return files


def slug(heading):
    """GitHub's anchor of a Markdown heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(path):
    with open(path, encoding="utf-8") as f:
        return [line.lstrip("#").strip() for line in f if line.startswith("#")]


def path_exists(ref, source):
    ref = ref.rstrip(".,;:)").split("#")[0]
    if any((ref + "/").startswith(g) for g in GENERATED) or "<" in ref or "*" in ref:
        return True  # generated output or a pattern, not a file of the repository
    for base in (ROOT, os.path.dirname(os.path.join(ROOT, source))):
        if os.path.exists(os.path.join(base, ref)):
            return True
    return False


def main():
    problems = []
    files = tracked_files()
    for rel in files:
        if rel.startswith("tests/docs/") or not rel.endswith(TEXT_SUFFIXES):
            continue
        full = os.path.join(ROOT, rel)
        if not os.path.isfile(full):
            continue
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except UnicodeDecodeError:
            continue  # binary fixtures
        for number, line in enumerate(lines, 1):
            where = f"{rel}:{number}"
            for pattern, what in OUTSIDE:
                if pattern.search(line):
                    problems.append(f"{where}: refers to {what}: {line.strip()[:100]}")
            for match in PATH.finditer(line):
                if not path_exists(match.group(1), rel):
                    problems.append(f"{where}: no such file in the repository: {match.group(1)}")
            if rel.endswith(".md"):
                for match in LINK.finditer(line):
                    target = match.group(1)
                    if re.match(r"^[a-z]+:", target):
                        continue  # a URL
                    file_part, _, anchor = target.partition("#")
                    dest = os.path.normpath(os.path.join(os.path.dirname(full), file_part)) \
                        if file_part else full
                    if not os.path.exists(dest):
                        problems.append(f"{where}: link to a missing file: {target}")
                    elif anchor and dest.endswith(".md") and \
                            anchor not in {slug(h) for h in headings(dest)}:
                        problems.append(f"{where}: link to a missing heading: {target}")
            for match in SECTION.finditer(line):
                doc, section = match.group(1), match.group(2)
                dest = os.path.join(ROOT, doc) if os.path.exists(os.path.join(ROOT, doc)) else \
                    os.path.join(os.path.dirname(full), doc)
                if not os.path.exists(dest):
                    problems.append(f"{where}: section reference to a missing file: {doc}")
                elif not any(re.match(rf"{section}[.\s]", h) for h in headings(dest)):
                    problems.append(f"{where}: {doc} has no section {section}")
    for p in problems:
        print(p)
    print(f"{len(files)} files checked: {len(problems)} references point nowhere")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

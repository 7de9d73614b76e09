"""What the source checks of this folder share: a self-test that builds small source trees and
expects each bad one to give exactly one violation naming its file, the command line (SRC_DIR,
or --self-test) with its exit codes, and the order of folders a layer's files may use (C++
includes, folder_order_violations; Python imports, package_order_violations)."""
import ast
import os
import re
import sys
import tempfile


def write_tree(root, files):
    """Writes {relative path: text} under root."""
    for path, body in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as out:
            out.write(body)


def self_test(name, violations, cases, fine, caught):
    """0 when `fine` alone gives no violation and `fine` plus each case exactly one, naming the
    case's file; else 1 with a line saying which did not."""
    for path, text in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            write_tree(tmp, {**fine, path: text})
            got = violations(tmp)
            if len(got) != 1 or path not in got[0]:
                print(f"self-test: {path} gave {got}, expected one violation")
                return 1
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(tmp, fine)
        if violations(tmp):
            print(f"self-test: a clean tree gave {violations(tmp)}")
            return 1
    print(f"{name} self-test: each of {len(cases)} kinds of {caught} is caught")
    return 0


def main(argv, doc, violations, run_self_test, clean):
    """`script SRC_DIR`: a line per violation and exit 1 (or `clean` and 0); `script --self-test`;
    anything else: the usage line of `doc` and exit 2."""
    if argv[1:] == ["--self-test"]:
        return run_self_test()
    if len(argv) != 2:
        print(doc.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    found = violations(argv[1])
    for line in found:
        print(line)
    if not found:
        print(clean)
    return 1 if found else 0


def folder_order_violations(layer_dir, layer, rank, script):
    """The includes of a layer's subfolders that do not point downward: each file of folder F
    (under layer_dir, "" for the layer's own files) may include `"<layer>/G/…"` only for G = F or
    rank[G] < rank[F]; a folder, or an included folder, missing from `rank` is a violation too,
    so that a new one is placed in the order on purpose. `script` names the order's file."""
    include = re.compile(r'^\s*#\s*include\s+"' + re.escape(layer) +
                         r'/(?:([a-z_0-9]+)/)?[^"]+"', re.M)
    found = []
    for here, _dirs, files in os.walk(layer_dir):
        folder = os.path.relpath(here, layer_dir)
        folder = "" if folder == "." else folder
        for name in sorted(files):
            if not name.endswith((".hpp", ".cpp")):
                continue
            where = os.path.join(layer, folder, name)
            if folder not in rank:
                found.append(f"{where}: folder {layer}/{folder}/ is not in the order of {script}")
                continue
            with open(os.path.join(here, name), encoding="utf-8") as source:
                text = source.read()
            for match in include.finditer(text):
                target = match.group(1) or ""
                line = text.count("\n", 0, match.start()) + 1
                if target not in rank:
                    found.append(f"{where}:{line}: includes {layer}/{target}/, which is not in "
                                 "the order")
                elif target != folder and rank[target] >= rank[folder]:
                    found.append(f"{where}:{line}: {layer}/{folder or '*.cpp'} must not include "
                                 f"{layer}/{target or '*.hpp'} ({match.group(0).strip()})")
    return found


def _imports(tree, parts):
    """(line, target, names) of every import in a module's syntax tree, wherever it sits (a
    function's lazy import counts too): target as the list of the dotted name's parts, resolved
    against the module's package `parts` when relative; names those of a `from … import`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = parts[:len(parts) - node.level + 1] if node.level else []
            target = base + (node.module.split(".") if node.module else [])
            yield node.lineno, target, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split("."), []


def _face_names(init_path):
    """The names a wing's __init__.py binds by importing them (what its face exports)."""
    if not os.path.exists(init_path):
        return set()
    with open(init_path, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    return {a.asname or a.name for node in tree.body if isinstance(node, ast.ImportFrom)
            for a in node.names}


def package_order_violations(package_dir, package, rank, top, script):
    """The imports between the wings of a Python package (its subpackages) that do not point
    downward, as folder_order_violations for C++ includes: a module of wing F (the first folder
    under package_dir; "" for the package's own modules) may import wing G only for G = F or
    rank[G] < rank[F], and only through G's face: `from <package>.G import name` (or its
    relative form) where a name that is a module of G is one G/__init__.py imports itself, never
    `<package>.G.<module>`. A folder missing from `rank`, or a module of the package's own folder
    that is not in `top`, is a violation too, so that a new one is placed on purpose. `script`
    names the order's file."""
    found = []
    for here, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        folder = os.path.relpath(here, package_dir)
        folder = "" if folder == "." else folder
        wing = folder.split(os.sep)[0]
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            where = "/".join(filter(None, [package, folder, name]))
            if wing not in rank:
                found.append(f"{where}: folder {package}/{wing}/ is not in the order of {script}")
                continue
            if not wing and name not in top:
                found.append(f"{where}: a module outside any wing (the package's own modules "
                             f"are {', '.join(sorted(top))}; see {script})")
                continue
            parts = [package] + ([p for p in folder.split(os.sep)] if folder else [])
            with open(os.path.join(here, name), encoding="utf-8") as source:
                tree = ast.parse(source.read())
            for line, target, names in _imports(tree, parts):
                if target[:1] != [package]:
                    continue  # the standard library, numpy …
                inner = target[1:]
                for item in ([inner] if inner or not names else [[n] for n in names]):
                    found += _import_problems(f"{where}:{line}", item, names if inner else [],
                                              wing, package_dir, package, rank)
    return found


def _import_problems(where, inner, names, wing, package_dir, package, rank):
    """What is wrong with one import of `package`.<inner> (importing `names` from it) by a module
    of `wing`."""
    folder = inner[0] if inner and os.path.isdir(os.path.join(package_dir, inner[0])) else ""
    shown = ".".join([package, *inner])
    if folder not in rank:
        return [f"{where}: imports {shown}, whose wing {folder}/ is not in the order"]
    if folder == wing:
        return []
    if rank[folder] >= rank[wing]:
        side = "side by side with" if rank[folder] == rank[wing] else "below"
        return [f"{where}: {package}/{wing or '*.py'} must not import {shown} ({wing or 'the face'}"
                f" is {side} {folder or 'the face'})"]
    if not folder:
        return []
    if len(inner) > 1:
        return [f"{where}: imports {shown}, past the face of {folder}/ (import from "
                f"{package}.{folder})"]
    wing_dir = os.path.join(package_dir, folder)
    exported = _face_names(os.path.join(wing_dir, "__init__.py"))
    modules = [n for n in names if n not in exported
               and (os.path.exists(os.path.join(wing_dir, n + ".py"))
                    or os.path.isdir(os.path.join(wing_dir, n)))]
    return [f"{where}: imports the module {folder}/{n} past the face of {folder}/ (its "
            "__init__.py does not import it)" for n in modules]

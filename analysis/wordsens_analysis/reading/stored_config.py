"""A results file's configuration as typed values (FORMAT.md, "/config").

From format 1.11 on the file holds /config: one attribute per `key = value` line of config_text,
typed by the key's kind (src/study/study_settings.cpp). `config_of_file` gives them as a dict of
Python values (bool, int, float, str, or a list of them); for an older file it reads the same
values from config_text by the same kinds (`config_of_text`, the one upgrade path), so that the
analysis never parses the text itself. The dict holds the keys the file names: an optional key a
study does not name (`mask`, `heads`, `words-fraction` …) is absent, and `value` gives what its
absence means.
"""
from __future__ import annotations

import h5py
import numpy as np

from . import schema

# The kind of each study key, as FORMAT.md's generated table of /config gives it
# (tests/python/test_stored_config.py compares the two).
KINDS = {
    "N": "integers", "activation": "text", "budget-check": "integer", "d": "integers",
    "data": "text", "encoder": "text", "encoder-layer": "integer", "experiments": "texts",
    "first-trial": "integer", "gen-d": "integers", "gen-models": "texts", "gen-n": "integers",
    "guided-start": "boolean", "heads": "integers", "k": "texts", "layers": "integers",
    "mask": "text", "max-evals": "integer", "max-trials": "integer",
    "min-total-sphere-starts": "count or auto", "mlp-width": "texts", "models": "texts",
    "n": "integers", "near-origin-starts": "integer", "objective": "texts", "positions": "text",
    "purpose": "text", "race-evaluations": "integer", "race-survivors": "integer",
    "rel-tol": "real", "rf-sampling": "text", "save-witness": "boolean", "screen-points": "integer",
    "seed": "integer", "select": "text", "sphere-starts": "integer", "training": "texts",
    "trials": "integer", "upper-bound": "boolean", "word-sets": "text", "words": "integers",
    "words-fraction": "reals",
}

# What an optional key means where a study does not name it (`wordsens run`'s defaults: the text
# names these keys only where they apply and differ from them).
ABSENT = {
    "mask": "none", "rf-sampling": "full", "purpose": "claims", "first-trial": 0,
    "max-trials": 0, "select": "", "words": [1], "words-fraction": [], "word-sets": "first",
    "race-evaluations": 0,
}


def value(config: dict, key: str, default=None):
    """config[key], else what the key's absence means (ABSENT), else `default`."""
    if key in config:
        return config[key]
    return ABSENT.get(key, default)


def text(config: dict, key: str, default: str = "") -> str:
    """A key's value as the configuration text spells it (a list joined by ',', a switch as
    true or false), `default` when the file does not name it."""
    if key not in config:
        return default
    v = config[key]
    if isinstance(v, list):
        return ",".join(format_real(x) if isinstance(x, float) else str(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def format_real(x: float) -> str:
    """The shortest %g spelling that reads back exactly (study/grid_spec.cpp format_double)."""
    text = ""
    for precision in range(1, 18):
        text = "%.*g" % (precision, x)
        if float(text) == x:
            break
    return text


def setting_text(kind: str, v) -> str:
    """The canonical text of a value of that kind."""
    if kind == "boolean":
        return "true" if v else "false"
    if kind == "count or auto":
        return "auto" if v < 0 else str(v)
    if kind == "real":
        return format_real(v)
    if kind in ("integers", "reals", "texts"):
        item = {"integers": str, "reals": format_real, "texts": str}[kind]
        return ",".join(item(x) for x in v)
    return str(v)


def _parse_loosely(kind: str, text: str):
    items = text.split(",") if text else []
    if kind == "boolean":
        return {"true": True, "false": False}[text]
    if kind == "integer":
        return int(text)
    if kind == "count or auto":
        return -1 if text == "auto" else int(text)
    if kind == "real":
        return float(text)
    if kind == "integers":
        return [int(x) for x in items]
    if kind == "reals":
        return [float(x) for x in items]
    if kind == "texts":
        return items
    return text


def parse_setting(kind: str, text: str):
    """The value whose canonical text is `text`; None when it is not one."""
    try:
        v = _parse_loosely(kind, text)
    except (KeyError, ValueError):
        return None
    if kind == "count or auto" and v < -1:
        return None
    return v if setting_text(kind, v) == text else None


def typed_lines(text: str | None) -> list:
    """(key, kind, value) per line of a stored configuration text, as the writer types them
    (study_settings.cpp settings_of_text): blank lines and comments skipped, a `[section]`'s
    keys named `section.key`, a key given twice its last value; a key that is not a study key,
    or a value not in its kind's canonical spelling, as text."""
    out: dict = {}
    section = ""
    for line in (text or "").splitlines():
        line = line.strip(" \t\r")
        if not line or line[0] in "#;":
            continue
        if line[0] == "[" and line[-1] == "]":
            section = line[1:-1].strip(" \t\r") + "."
            continue
        key, sep, rest = line.partition("=")
        if not sep:
            continue
        if not key.strip(" \t\r"):
            continue  # no key: nothing the INI reader takes
        key, rest = section + key.strip(" \t\r"), rest.strip(" \t\r")
        kind = KINDS.get(key)
        v = parse_setting(kind, rest) if kind else None
        out[key] = (kind, v) if v is not None else ("text", rest)
    return [(key, kind, v) for key, (kind, v) in out.items()]


def config_of_text(text: str | None) -> dict:
    """The typed configuration of a stored configuration text (files before 1.11)."""
    return {key: v for key, _, v in typed_lines(text)}


def _python(v):
    """An attribute's value as Python: bytes decoded, numpy scalars and arrays unwrapped."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.ndarray):
        return [_python(x) for x in v.tolist()] if v.ndim else _python(v[()])
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def stored(f: h5py.File) -> dict:
    """/config's attributes as Python values."""
    group = f[schema.GROUP_CONFIG]
    return {key: _python(group.attrs[key]) for key in group.attrs}


def config_of_file(f: h5py.File, minor: int, config_text: str | None) -> dict:
    """The file's configuration typed: /config from format 1.11 on, else from config_text."""
    if minor >= schema.CONFIG_MINOR and schema.GROUP_CONFIG in f:
        return stored(f)
    return config_of_text(config_text)


def of(res) -> dict:
    """The typed configuration of a Results (its `config`; read from its config_text when it has
    none, as for a Results built without read_results)."""
    config = getattr(res, "config", None)
    return config if config else config_of_text(getattr(res, "attrs", {}).get("config_text"))


def _tagged(v):
    """A value with its types, so that True and 1, or 2 and 2.0, do not compare equal."""
    if isinstance(v, list):
        return ("list", tuple(_tagged(x) for x in v))
    return (type(v).__name__, v)


def differences(f: h5py.File, config_text: str | None) -> list:
    """The keys where /config and config_text differ ("" each a short reason), in the text's
    order; a key /config has and the text does not last (content_checks.cpp's rule)."""
    group = f[schema.GROUP_CONFIG]
    found = []
    lines = typed_lines(config_text)
    for key, kind, v in lines:
        if key not in group.attrs:
            found.append(f"{key} is missing")
            continue
        raw = group.attrs[key]
        mine = _python(raw)
        if (np.asarray(raw).ndim == 1) != (kind in ("integers", "reals", "texts")):
            found.append(f"{key} is not stored as {kind}")
        elif _tagged(mine) != _tagged(v):
            found.append(f"{key} = {mine!r}, config_text {v!r}")
    if len(group.attrs) != len(lines):
        found.append(f"{len(group.attrs)} keys, config_text {len(lines)}")
    return found

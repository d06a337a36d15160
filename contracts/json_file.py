"""The house's JSON files: one text form, written atomically, read back.

Every JSON file a job or a command writes (stage outputs, register records,
the ledger, report summaries, weights manifests, evaluation results) goes
through :func:`write_json`, so they share one form: indented two spaces
unless asked otherwise, keys in the order built unless ``sort_keys``, a final
newline, and NaN and infinities as ``null`` (JSON has none; a reader gets
``None``, never a value Python's ``json`` alone would accept).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from contracts.atomic import atomic_write
from contracts.errors import InputError


def finite(value: Any) -> Any:
    """``value`` with NaN and infinities as None, recursively (mappings, lists, tuples)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def json_text(data: Any, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``data`` as the house's JSON text (``indent`` None: one line), with a final newline."""
    return json.dumps(finite(data), indent=indent, sort_keys=sort_keys, allow_nan=False) + "\n"


def write_json(path: str | Path, data: Any, *, indent: int | None = 2,
               sort_keys: bool = False) -> Path:
    """Write :func:`json_text` of ``data`` atomically; returns the path written."""
    return atomic_write(path, json_text(data, indent=indent, sort_keys=sort_keys))


def load_json(path: str | Path) -> Any:
    """A JSON file's value (UTF-8)."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def recorded_sha256(path: str, option: str = "--init-record") -> str:
    """The ``sha256`` a JSON record holds (given by ``option``); one line naming the file when
    it holds none."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8")).get("sha256")
    except (OSError, ValueError, AttributeError) as exc:
        raise InputError(f"{option} {path}: not a JSON record ({exc})") from None
    if not isinstance(value, str):
        raise InputError(f"{option} {path}: no sha256 key")
    return value

"""SHA-256 the house compares: of a file's bytes, and of a value as canonical JSON.

A file's hash is what manifests, freeze records, the ledger and the hash
checks compare; a value's canonical JSON (sorted keys, no spaces, anything
JSON cannot hold written as its ``str``) is what the records' ids and
protocol hash, the profile hash and the trainer's config hash are taken of,
so the same value always gets the same hash whatever order its keys were
built in.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

#: bytes read per block
BLOCK = 1 << 20


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes (what ``sha256sum`` prints)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON: sorted keys, no spaces, non-JSON values as their ``str``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def canonical_sha256(value: Any) -> str:
    """SHA-256 of ``value``'s canonical JSON (:func:`canonical_json`)."""
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()

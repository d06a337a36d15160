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


#: a SHA-256 as pins, manifests and records hold it: 64 lower-case hex digits (what
#: ``sha256sum`` prints); the claim schema's pattern is this one
SHA256_PATTERN = "^[0-9a-f]{64}$"
_HEX = frozenset("0123456789abcdef")


def sha256_problem(value: object) -> str | None:
    """What keeps ``value`` from being a SHA-256 as a pin is written, in words (None: it is
    one).  Upper-case hex is refused, not folded: a pin has one spelling, the one
    ``sha256sum`` prints and every record compares, so a declaration's protocol hash does
    not depend on how its author copied the number."""
    if not isinstance(value, str):
        return f"{type(value).__name__} {value!r} is not a SHA-256 (64 hex digits)"
    if set(value) <= _HEX and len(value) == 64:
        return None
    if set(value.lower()) <= _HEX and value != value.lower() and len(value) == 64:
        return "upper-case hex digits: write the SHA-256 in lower case, as sha256sum prints it"
    if not value or not set(value.lower()) & _HEX or not set(value.lower()) <= _HEX:
        return (f"{value!r} is not hex digits (a placeholder?): give the SHA-256 sha256sum "
                "prints for the file")
    return f"{len(value)} hex digits: a SHA-256 has 64 (is it cut short?)"


def hash_mismatch(have: object, want: object, what: str = "SHA-256") -> str:
    """``what`` (the SHA-256 a file has or a manifest records) ``have`` is not the pin
    ``want``: both in full and where they first differ (a prefix of each may well be the
    same)."""
    have, want = str(have), str(want)
    at = next((i for i, (a, b) in enumerate(zip(have, want, strict=False)) if a != b),
              min(len(have), len(want)))
    return f"{what} {have} is not the pinned {want} (they differ from hex digit {at + 1} on)"

"""The SHA-256 of a file: what manifests, freeze records, the ledger and the hash checks compare."""

from __future__ import annotations

import hashlib
from pathlib import Path

#: bytes read per block
BLOCK = 1 << 20


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes (what ``sha256sum`` prints)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()

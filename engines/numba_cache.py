"""Keep numba's on-disk cache in step with the code the kernels embed.

``cache=True`` checks only the source file of the cached function, but a
kernel compiles in everything it calls (a search kernel embeds the engine, the
leaves and the n-tuple code), so after an edit elsewhere a cached kernel would
silently run the old code.  :func:`refresh` hashes every source file of the
``engines`` package and, when the hash differs from the stamp recorded beside
the cache, deletes every cached kernel of the package so numba rebuilds them.
It runs once when ``engines`` is imported; hashing costs about a millisecond.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from contracts.atomic import atomic_write

PACKAGE = Path(__file__).resolve().parent
_STAMP = PACKAGE / "__pycache__" / "numba-sources.sha256"


def source_hash() -> str:
    """SHA-256 over the relative paths and contents of the package's sources."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _cache_folders() -> list[Path]:
    folders = list(PACKAGE.rglob("__pycache__"))
    override = os.environ.get("NUMBA_CACHE_DIR")
    if override and Path(override).is_dir():
        folders.append(Path(override))
    return folders


def refresh() -> bool:
    """Drop stale cached kernels; True when the sources changed since the last run."""
    try:
        current = source_hash()
        if _STAMP.is_file() and _STAMP.read_text().strip() == current:
            return False
        for folder in _cache_folders():
            for path in folder.rglob("*.nb[ic]"):
                path.unlink(missing_ok=True)
        atomic_write(_STAMP, current + "\n")
        return True
    except OSError:  # a read-only install: numba falls back as usual
        return False

"""Keep the search's numba cache in step with the code it embeds.

Numba's ``cache=True`` checks only the source file of the cached function,
but a compiled search kernel embeds the engine, the leaves and the n-tuple
code it calls.  After an edit to any of them the cached kernel would run the
old code.  :func:`drop_stale_kernels` hashes every source the kernels depend
on and, when the hash differs from the one recorded beside the cache, deletes
the search package's cache files so they are rebuilt.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_ENGINES = Path(__file__).resolve().parent.parent
#: Packages whose code the search kernels compile in.
DEPENDENCIES = ("drop7", "leaves", "ntuple", "search")
_STAMP = "search-deps.sha256"


def dependency_hash() -> str:
    """SHA-256 over the names and contents of the dependencies' sources."""
    digest = hashlib.sha256()
    for package in DEPENDENCIES:
        for path in sorted((_ENGINES / package).glob("*.py")):
            digest.update(f"{package}/{path.name}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def drop_stale_kernels(dispatcher) -> bool:
    """Delete the search's cached kernels if a dependency changed; True if it did.

    ``dispatcher`` is one of the package's ``cache=True`` kernels: numba's own
    locator tells where the package's cache lives (``NUMBA_CACHE_DIR`` aware).
    Call it at import, before any kernel runs.
    """
    try:
        folder = Path(dispatcher._cache._cache_path)
        current = dependency_hash()
        stamp = folder / _STAMP
        if stamp.is_file() and stamp.read_text().strip() == current:
            return False
        folder.mkdir(parents=True, exist_ok=True)
        for path in folder.iterdir():
            if path.suffix in (".nbi", ".nbc"):
                path.unlink(missing_ok=True)
        tmp = folder / f".{_STAMP}.{os.getpid()}"
        tmp.write_text(current + "\n")
        os.replace(tmp, stamp)
        return True
    except OSError:  # read-only installs: numba falls back as usual
        return False

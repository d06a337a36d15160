"""Weights on disk: ``.npy`` arrays beside a JSON manifest, hashed, written atomically.

A weights directory holds ``tables.npy`` (n-tuple values, float32, one flat
array of ``layout.entries``; or the ``N_TERMS`` float64 weights of ``linear-trained``,
in points) and ``manifest.json``::

    {"format": "drop7-weights-v1", "kind": "ntuple" | "linear",
     "layout": "A", "entries": 480000000, "dtype": "float32",
     "shape": [480000000], "file": "tables.npy", "sha256": "...",
     "moves_trained": ..., "games_trained": ..., "seeds": {...},
     "config": {...}, "config_hash": "...", "wall_s": ..., "moves_per_s": ...}

``sha256`` is the hash of the whole ``.npy`` file (``sha256sum tables.npy``
reproduces it).  Loading checks the manifest, the layout, the file's size,
shape and dtype and (unless told not to) the hash; any mismatch raises
:class:`WeightsError` (a ``ValueError``: the CLI prints one line, exit 2).

Writers never leave half a directory (:func:`contracts.atomic.atomic_dir`): they
write ``<dir>.tmp-<pid>`` and rename it into place, refusing to replace an
existing directory unless asked.
Zero blocks of an array are written as holes (sparse files), so a fresh or
sparsely trained record array costs little disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from contracts.atomic import TargetExistsError, atomic_dir
from contracts.hashing import file_sha256
from contracts.weights_dir import FORMAT, MANIFEST, TABLES
from engines.leaves.kinds import N_TERMS
from engines.ntuple.layouts import Layout, get_layout

_CHUNK = 1 << 20  # bytes per write / hash block (and hole granularity)


class WeightsError(ValueError):
    """A weights directory that is missing, truncated, or does not match its manifest."""


def alloc_zeroed(shape: tuple[int, ...], dtype: np.dtype = np.float32) -> np.ndarray:
    """A zero-filled array in anonymous memory, with transparent huge pages asked for.

    Pages cost nothing until touched (zeros are what fresh offset tables hold);
    ``MADV_HUGEPAGE`` cuts TLB misses on tables of gigabytes.
    """
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    buf = mmap.mmap(-1, max(nbytes, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE") and nbytes >= (1 << 21):
        with contextlib.suppress(OSError):  # kernels without THP
            buf.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(buf, dtype=dtype, count=int(np.prod(shape))).reshape(shape)


def fresh_tables(layout_name: str) -> tuple[np.ndarray, Layout]:
    """Full-size fresh tables of a layout, every entry at its initial value and every page
    touched (benchmarks time real memory traffic): ``(float32 values, layout)``."""
    layout = get_layout(layout_name)
    tables = alloc_zeroed((layout.entries,), np.float32)
    tables.fill(np.float32(layout.initial_entry))
    return tables, layout


def anon_huge_bytes(smaps_rollup: str | None = None) -> int | None:
    """Bytes of this process's anonymous memory in transparent huge pages (Linux), else None.

    ``smaps_rollup``: the text of ``/proc/self/smaps_rollup`` (read when not given).
    """
    if smaps_rollup is None:
        try:
            smaps_rollup = Path("/proc/self/smaps_rollup").read_text()
        except OSError:
            return None
    for line in smaps_rollup.splitlines():
        name, _, rest = line.partition(":")
        if name == "AnonHugePages":
            value, unit = rest.split()
            return int(value) * (1024 if unit == "kB" else 1)
    return None


def _npy_header(shape: tuple[int, ...], dtype: np.dtype) -> bytes:
    """The bytes of a version 1.0 ``.npy`` header for a C-ordered array."""
    import io

    out = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
              "fortran_order": False, "shape": tuple(int(s) for s in shape)}
    np.lib.format.write_array_header_1_0(out, header)
    return out.getvalue()


def write_npy(path: Path, shape: tuple[int, ...], dtype: np.dtype,
              chunks: Iterator[bytes | memoryview]) -> str:
    """Write an ``.npy`` file from raw data chunks (zero chunks become holes); returns SHA-256.

    Each chunk is hashed on a worker thread while it is written (``hashlib``
    and file writes both release the GIL), so the hash overlaps the write
    instead of adding to it; it is done before the next chunk is asked for,
    so a producer may refill one buffer.
    """
    digest = hashlib.sha256()
    header = _npy_header(shape, dtype)
    expected = int(np.prod(shape)) * np.dtype(dtype).itemsize
    written = 0
    digest.update(header)
    with open(path, "wb") as fh, ThreadPoolExecutor(max_workers=1) as hasher:
        fh.write(header)
        for chunk in chunks:
            view = memoryview(chunk).cast("B")
            hashed = hasher.submit(digest.update, view)
            if not np.count_nonzero(np.frombuffer(view, dtype=np.uint8)):  # zeros: a hole
                fh.seek(len(view), os.SEEK_CUR)
            else:
                fh.write(view)
            written += len(view)
            hashed.result()  # hashed before the producer may touch its buffer again
        fh.truncate(len(header) + written)
    if written != expected:
        raise WeightsError(f"{path}: wrote {written} bytes, expected {expected}")
    return digest.hexdigest()


def array_chunks(arr: np.ndarray, nbytes: int = _CHUNK) -> Iterator[memoryview]:
    """Raw bytes of a C-contiguous array, block by block."""
    flat = memoryview(np.ascontiguousarray(arr).reshape(-1)).cast("B")
    for start in range(0, len(flat), nbytes):
        yield flat[start:start + nbytes]


def write_manifest(path: Path, manifest: dict) -> None:
    """Write a manifest as pretty JSON."""
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def save_weights(final: Path, shape: tuple[int, ...], dtype: np.dtype,
                 chunks: Iterator[bytes | memoryview], manifest: dict,
                 replace: bool = False) -> dict:
    """Write ``tables.npy`` + ``manifest.json`` into ``final`` atomically; returns the manifest."""
    try:
        with atomic_dir(final, replace) as tmp:
            sha = write_npy(tmp / TABLES, shape, dtype, chunks)
            manifest = {**manifest, "format": FORMAT, "file": TABLES, "sha256": sha,
                        "dtype": np.dtype(dtype).name, "shape": [int(s) for s in shape]}
            write_manifest(tmp / MANIFEST, manifest)
    except TargetExistsError as exc:
        raise WeightsError(str(exc)) from None
    return manifest


def read_manifest(directory: Path) -> dict:
    """Parse a weights directory's manifest (WeightsError on anything wrong)."""
    path = Path(directory) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except (FileNotFoundError, NotADirectoryError):
        raise WeightsError(f"{path}: no manifest") from None
    except (OSError, ValueError) as exc:
        raise WeightsError(f"{path}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise WeightsError(f"{path}: not a {FORMAT} manifest")
    return manifest


def open_array(directory: Path, manifest: dict, verify: bool = True,
               mode: str = "r") -> np.ndarray:
    """Memory-map the manifest's array after checking size, shape, dtype and hash."""
    path = Path(directory) / str(manifest.get("file", TABLES))
    try:
        shape = tuple(int(s) for s in manifest["shape"])
        dtype = np.dtype(manifest["dtype"])
        sha = str(manifest["sha256"])
    except (KeyError, TypeError, ValueError) as exc:
        raise WeightsError(f"{path}: manifest lacks shape/dtype/sha256 ({exc})") from None
    if not path.is_file():
        raise WeightsError(f"{path}: missing")
    header = _npy_header(shape, dtype)
    size = path.stat().st_size
    want = len(header) + int(np.prod(shape)) * dtype.itemsize
    if size != want:
        raise WeightsError(f"{path}: {size} bytes, expected {want} (truncated or wrong shape)")
    try:
        arr = np.load(path, mmap_mode=mode)
    except (OSError, ValueError) as exc:
        raise WeightsError(f"{path}: unreadable ({exc})") from None
    if arr.shape != shape or arr.dtype != dtype:
        raise WeightsError(f"{path}: holds {arr.dtype}{list(arr.shape)}, manifest says "
                           f"{dtype}{list(shape)}")
    if verify and file_sha256(path) != sha:
        raise WeightsError(f"{path}: SHA-256 does not match the manifest")
    return arr


def load_ntuple(directory: Path, verify: bool = True) -> tuple[np.ndarray, Layout, dict]:
    """Load n-tuple tables for search: ``(values float32 memmap, layout, manifest)``.

    Use ``ntuple_value(cols, moves_remaining, values, layout.spec)``.
    """
    manifest = read_manifest(directory)
    if manifest.get("kind") != "ntuple":
        raise WeightsError(f"{directory}: holds {manifest.get('kind')!r} weights, "
                           "not n-tuple tables")
    try:
        layout = get_layout(str(manifest.get("layout")))
    except ValueError as exc:
        raise WeightsError(f"{directory}: {exc}") from None
    if manifest.get("entries") != layout.entries or manifest.get("shape") != [layout.entries]:
        raise WeightsError(f"{directory}: layout {layout.name} has {layout.entries} entries, "
                           f"manifest says {manifest.get('shape')}")
    if manifest.get("dtype") != "float32":
        raise WeightsError(f"{directory}: n-tuple tables must be float32")
    return open_array(directory, manifest, verify), layout, manifest


def load_linear(directory: Path, verify: bool = True) -> tuple[np.ndarray, dict]:
    """Load ``linear-trained`` weights: ``(float64[N_TERMS] in points, manifest)``."""
    manifest = read_manifest(directory)
    if manifest.get("kind") != "linear" or manifest.get("layout") != "linear":
        raise WeightsError(f"{directory}: holds {manifest.get('kind')!r} weights, not linear")
    if manifest.get("shape") != [N_TERMS] or manifest.get("dtype") != "float64":
        raise WeightsError(f"{directory}: linear weights must be float64[{N_TERMS}]")
    weights = np.array(open_array(directory, manifest, verify), dtype=np.float64)
    if not np.all(np.isfinite(weights)):
        raise WeightsError(f"{directory}: non-finite weights")
    return weights, manifest

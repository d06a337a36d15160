"""Weights on disk: ``.npy`` byte streams, zstd-compressed or plain, beside a JSON manifest.

Every learner's weights are written and read here, whatever they hold: the
n-tuple tables load with :func:`engines.ntuple.storage.load_ntuple`, the
linear-trained weights with :func:`engines.leaves.linear_weights.load_linear`.

A checkpoint (``drop7-weights-v2``) holds ``tables.npy.zst`` and
``manifest.json``: the file is one zstd frame whose content is exactly the
bytes of the ``.npy`` file of the array (version 1.0 header, then the values:
n-tuple values, float32, one flat array of ``layout.entries``; or the
``N_TERMS`` float64 weights of ``linear-trained``, in points)::

    {"format": "drop7-weights-v2", "kind": "ntuple" | "linear",
     "layout": "A", "entries": 480000000, "dtype": "float32",
     "shape": [480000000], "file": "tables.npy.zst", "sha256": "...",
     "moves_trained": ..., "games_trained": ..., "seeds": {...},
     "config": {...}, "config_hash": "...", "wall_s": ..., "moves_per_s": ...}

``sha256`` is the hash of the ``.npy`` byte stream, the same number as the
hash of the plain ``.npy`` file written before compression (``zstd -dc
tables.npy.zst | sha256sum``, or ``python -m engines.weights_files FILE``,
reproduces it), so every pinned hash holds whatever the storage.  Frozen
weights and checkpoints written before compression are ``drop7-weights-v1``:
a plain ``tables.npy`` (``sha256sum tables.npy``), memory-mapped when read.

Loading checks the manifest, the layout, the stream's header, length and
(unless told not to) hash; any mismatch or a damaged frame raises
:class:`WeightsError` (a ``ValueError``: the CLI prints one line, exit 2).
Writers and readers work block by block (1 MB), so memory stays that of the
array itself, and hash each block on a second thread while the next is
compressed or decoded.  Writers never leave half a directory
(:func:`contracts.atomic.atomic_dir`): they write ``<dir>.tmp-<pid>`` and
rename it into place, refusing to replace an existing directory unless asked.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import mmap
import os
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import zstandard

from contracts.atomic import TargetExistsError, atomic_dir
from contracts.hashing import file_sha256
from contracts.json_file import write_json
from contracts.weights_dir import FORMAT, FORMAT_RAW, MANIFEST, PACKED, PACKED_SUFFIX, TABLES

_CHUNK = 1 << 20  # bytes per write / hash block (and hole granularity)
#: zstd level of checkpoints and resume states (docs/training.md, Files: level 1 is as small
#: as 3 on these tables and twice as fast)
LEVEL = 1


#: how the compressed size of a checkpoint's values and of a resume state grows with the
#: entry updates ``u`` of training (a move updates every active entry once): measured on
#: layout A at 1e6, 2e6 and 2e7 moves and E at 2e7, it grows as ``K sqrt(u)`` bytes, K at most
#: 1,401 for values and 4,225 for a state (A at 2e6 moves); docs/training.md, Files
PACKED_STEP_K, PACKED_STATE_K = 1_401, 4_225
#: the most updates measured (A at 2e7 moves); past them the bound grows linearly
PACKED_MEASURED_UPDATES = 74 * 20_000_000
#: bytes added to every bound (frame and block headers, the constant background)
PACKED_SLACK = 1 << 20


def packed_bound(raw: int, updates: int, k: float) -> int:
    """Bytes on disk a compressed array of ``raw`` bytes takes at most after ``updates`` entry
    updates: twice the measured ``k sqrt(updates)``; past the measured range ``U``, the figure
    at ``U`` scaled in proportion to the updates (an upper bound while growth stays concave,
    as measured); never more than ``raw`` plus zstd's 3 bytes a 128 KB block."""
    measured = min(updates, PACKED_MEASURED_UPDATES)
    grown = k * math.sqrt(measured) * max(updates, measured) / max(measured, 1)
    return min(raw + raw // 1000 + PACKED_SLACK, PACKED_SLACK + math.ceil(2 * grown))


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
    out = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
              "fortran_order": False, "shape": tuple(int(s) for s in shape)}
    np.lib.format.write_array_header_1_0(out, header)
    return out.getvalue()


def _payload_bytes(shape: tuple[int, ...], dtype: np.dtype) -> int:
    return int(np.prod(shape)) * np.dtype(dtype).itemsize


def is_packed(path: str | Path) -> bool:
    """Whether an array file is stored compressed (``.npy.zst``) rather than plain."""
    return str(path).endswith(PACKED_SUFFIX)


def _hashed_write(path: Path, shape: tuple[int, ...], dtype: np.dtype,
                  chunks: Iterator[bytes | memoryview], packed: bool, threads: int) -> str:
    """Write the ``.npy`` byte stream of ``chunks``, plain (zero blocks as holes) or as one
    zstd frame; returns its SHA-256.  Each chunk is hashed on a worker thread while it is
    written (``hashlib``, zstd and file writes release the GIL), and the hash is done before
    the next chunk is asked for, so a producer may refill one buffer."""
    digest = hashlib.sha256()
    header = _npy_header(shape, dtype)
    expected = _payload_bytes(shape, dtype)
    written = 0
    digest.update(header)
    with contextlib.ExitStack() as stack:
        fh = stack.enter_context(open(path, "wb"))
        hasher = stack.enter_context(ThreadPoolExecutor(max_workers=1))
        out = fh
        if packed:
            cctx = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True,
                                            threads=threads if threads > 1 else 0)
            out = stack.enter_context(cctx.stream_writer(fh, size=len(header) + expected,
                                                         closefd=False))
        out.write(header)
        for chunk in chunks:
            view = memoryview(chunk).cast("B")
            if written + len(view) > expected:
                raise WeightsError(f"{path}: more than the {expected} bytes of "
                                   f"{np.dtype(dtype).name}{list(shape)}")
            hashed = hasher.submit(digest.update, view)
            if not packed and not np.count_nonzero(np.frombuffer(view, dtype=np.uint8)):
                fh.seek(len(view), os.SEEK_CUR)  # zeros: a hole
            else:
                out.write(view)
            written += len(view)
            hashed.result()  # hashed before the producer may touch its buffer again
        if written != expected:
            raise WeightsError(f"{path}: wrote {written} bytes, expected {expected}")
        if not packed:
            fh.truncate(len(header) + written)
    return digest.hexdigest()


def write_npy(path: Path, shape: tuple[int, ...], dtype: np.dtype,
              chunks: Iterator[bytes | memoryview]) -> str:
    """Write a plain ``.npy`` file from raw data chunks (zero chunks become holes); returns
    its SHA-256 (frozen weights: memory-mapped by every game job)."""
    return _hashed_write(Path(path), shape, dtype, chunks, packed=False, threads=1)


def write_packed(path: Path, shape: tuple[int, ...], dtype: np.dtype,
                 chunks: Iterator[bytes | memoryview], threads: int = 1) -> str:
    """Write the ``.npy`` byte stream of raw data chunks as one zstd frame (``threads``
    compressing threads, the job's budget); returns the stream's SHA-256, the hash the plain
    ``.npy`` file would have."""
    return _hashed_write(Path(path), shape, dtype, chunks, packed=True, threads=threads)


def array_chunks(arr: np.ndarray, nbytes: int = _CHUNK) -> Iterator[memoryview]:
    """Raw bytes of a C-contiguous array, block by block."""
    flat = memoryview(np.ascontiguousarray(arr).reshape(-1)).cast("B")
    for start in range(0, len(flat), nbytes):
        yield flat[start:start + nbytes]


@contextlib.contextmanager
def _open_stream(path: Path) -> Iterator[io.RawIOBase]:
    """The ``.npy`` byte stream of a plain or compressed array file, as a reader."""
    with open(path, "rb") as fh:
        if is_packed(path):
            with zstandard.ZstdDecompressor().stream_reader(fh, closefd=False) as reader:
                yield reader
        else:
            yield fh


def _read_exactly(stream, view: memoryview) -> int:
    """Fill ``view`` from ``stream``; returns the bytes read (fewer only at its end)."""
    pos = 0
    while pos < len(view):
        got = stream.readinto(view[pos:])
        if not got:
            break
        pos += got
    return pos


def _stream_blocks(path: Path, shape: tuple[int, ...], dtype: np.dtype,
                   into: np.ndarray | None = None, sha: str | None = None,
                   block: int = _CHUNK) -> Iterator[memoryview]:
    """The payload of an array file block by block, after checking its header (and at the
    end its length and, given ``sha``, its hash).  With ``into`` the blocks are views of that
    array's bytes, filled in order; otherwise one buffer refilled for each block."""
    header = _npy_header(shape, dtype)
    expected = _payload_bytes(shape, dtype)
    digest = hashlib.sha256(header) if sha is not None else None
    target = None if into is None else memoryview(into.reshape(-1)).cast("B")
    buf = None if into is not None else memoryview(bytearray(min(block, max(expected, 1))))
    try:
        with _open_stream(path) as stream, ThreadPoolExecutor(max_workers=1) as hasher:
            head = memoryview(bytearray(len(header)))
            got = _read_exactly(stream, head)
            if got != len(header):
                raise WeightsError(f"{path}: truncated (the stream ends at {got} of "
                                   f"{len(header) + expected} bytes)")
            if bytes(head) != header:
                raise WeightsError(f"{path}: not the .npy stream of "
                                   f"{np.dtype(dtype).name}{list(shape)}")
            pos, hashed = 0, None
            while pos < expected:
                n = min(block, expected - pos)
                view = target[pos:pos + n] if target is not None else buf[:n]
                if hashed is not None and target is None:
                    hashed.result()  # the one buffer is hashed before it is refilled
                got = _read_exactly(stream, view)
                if got != n:
                    raise WeightsError(f"{path}: truncated (the stream ends at "
                                       f"{len(header) + pos + got} of "
                                       f"{len(header) + expected} bytes)")
                if hashed is not None:
                    hashed.result()
                hashed = None if digest is None else hasher.submit(digest.update, view)
                yield view
                pos += n
            if hashed is not None:
                hashed.result()
            if stream.read(1):
                raise WeightsError(f"{path}: longer than {len(header) + expected} bytes "
                                   "(wrong shape)")
    except zstandard.ZstdError as exc:
        raise WeightsError(f"{path}: damaged compressed stream ({exc})") from None
    except OSError as exc:
        raise WeightsError(f"{path}: unreadable ({exc})") from None
    if digest is not None and digest.hexdigest() != sha:
        raise WeightsError(f"{path}: SHA-256 does not match the manifest")


def read_into(path: Path, dest: np.ndarray, sha: str | None = None) -> None:
    """Fill ``dest`` from an array file (plain or compressed) of its shape and dtype, block
    by block, checking the stream's hash against ``sha`` when given."""
    if not Path(path).is_file():
        raise WeightsError(f"{path}: missing")
    for _ in _stream_blocks(Path(path), dest.shape, dest.dtype, into=dest, sha=sha):
        pass


def stream_sha256(path: str | Path) -> str:
    """SHA-256 of an array file's ``.npy`` byte stream: the file's own hash when plain, the
    hash of its decompressed content when compressed (what manifests record)."""
    path = Path(path)
    if not is_packed(path):
        return file_sha256(path)
    digest, size = hashlib.sha256(), 0
    try:
        with open(path, "rb") as fh:
            want = zstandard.get_frame_parameters(fh.read(18)).content_size
        with _open_stream(path) as stream:
            while block := stream.read(_CHUNK):
                digest.update(block)
                size += len(block)
    except zstandard.ZstdError as exc:
        raise WeightsError(f"{path}: damaged compressed stream ({exc})") from None
    if size != want:  # a cut frame ends early without an error
        raise WeightsError(f"{path}: truncated (the stream ends at {size} of {want} bytes)")
    return digest.hexdigest()


def write_manifest(path: Path, manifest: dict) -> None:
    """Write a manifest as pretty JSON (keys sorted)."""
    write_json(path, manifest, sort_keys=True)


def _existing_sha(final: Path) -> str | None:
    """The SHA-256 the manifest of an existing weights directory records (None: no readable
    manifest)."""
    try:
        sha = read_manifest(final).get("sha256")
    except WeightsError:
        return None
    return sha if isinstance(sha, str) else None


def save_weights(final: Path, shape: tuple[int, ...], dtype: np.dtype,
                 chunks: Iterator[bytes | memoryview], manifest: dict,
                 replace: bool = False, threads: int = 1, same: bool = False) -> dict:
    """Write ``tables.npy.zst`` + ``manifest.json`` into ``final`` atomically; returns the
    manifest.  ``same``: an existing ``final`` whose manifest reads must hold the same
    tables (the same SHA-256), else :class:`WeightsError` and it is left as it is."""
    final = Path(final)
    try:
        with atomic_dir(final, replace) as tmp:
            sha = write_packed(tmp / PACKED, shape, dtype, chunks, threads)
            there = _existing_sha(final) if same else None
            if there is not None and there != sha:
                raise WeightsError(f"{final}: the checkpoint written again has SHA-256 "
                                   f"{sha[:16]}..., the one there {there[:16]}... (left as it "
                                   "was)")
            manifest = {**manifest, "format": FORMAT, "file": PACKED, "sha256": sha,
                        "dtype": np.dtype(dtype).name, "shape": [int(s) for s in shape]}
            write_manifest(tmp / MANIFEST, manifest)
    except TargetExistsError as exc:
        raise WeightsError(str(exc)) from None
    return manifest


def _regular(path: Path) -> None:
    """Refuse a path that exists and is not a regular file (a device or a FIFO: reading it
    would never end or never start) before it is opened."""
    if path.exists() and not path.is_file() and not path.is_dir():
        raise WeightsError(f"{path}: not a regular file (a device, FIFO or socket is never "
                           "read)")


def read_manifest(directory: Path) -> dict:
    """Parse a weights directory's manifest (WeightsError on anything wrong)."""
    path = Path(directory) / MANIFEST
    _regular(path)
    try:
        manifest = json.loads(path.read_text())
    except (FileNotFoundError, NotADirectoryError):
        raise WeightsError(f"{path}: no manifest") from None
    except (OSError, ValueError) as exc:
        raise WeightsError(f"{path}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") not in (FORMAT, FORMAT_RAW):
        raise WeightsError(f"{path}: not a {FORMAT} (or {FORMAT_RAW}) manifest")
    return manifest


def _array_facts(directory: Path, manifest: dict) -> tuple[Path, tuple[int, ...], np.dtype, str]:
    """The array file a manifest names, with its shape, dtype and SHA-256."""
    packed = manifest.get("format") == FORMAT
    path = Path(directory) / str(manifest.get("file", PACKED if packed else TABLES))
    try:
        shape = tuple(int(s) for s in manifest["shape"])
        dtype = np.dtype(manifest["dtype"])
        sha = str(manifest["sha256"])
    except (KeyError, TypeError, ValueError) as exc:
        raise WeightsError(f"{path}: manifest lacks shape/dtype/sha256 ({exc})") from None
    if is_packed(path) != packed:
        raise WeightsError(f"{path}: a {manifest.get('format')} manifest names a "
                           f"{'plain' if packed else 'compressed'} file")
    _regular(path)
    if not path.is_file():
        raise WeightsError(f"{path}: missing")
    return path, shape, dtype, sha


def open_array(directory: Path, manifest: dict, verify: bool = True) -> np.ndarray:
    """The manifest's array, read only, after checking size, shape, dtype and hash: a
    compressed array decoded into memory, a plain ``.npy`` file memory-mapped."""
    path, shape, dtype, sha = _array_facts(directory, manifest)
    if is_packed(path):
        arr = alloc_zeroed(shape, dtype)
        read_into(path, arr, sha if verify else None)
        arr.flags.writeable = False
        return arr
    header = _npy_header(shape, dtype)
    size = path.stat().st_size
    want = len(header) + _payload_bytes(shape, dtype)
    if size != want:
        raise WeightsError(f"{path}: {size} bytes, expected {want} (truncated or wrong shape)")
    try:
        arr = np.load(path, mmap_mode="r")
    except (OSError, ValueError) as exc:
        raise WeightsError(f"{path}: unreadable ({exc})") from None
    if arr.shape != shape or arr.dtype != dtype:
        raise WeightsError(f"{path}: holds {arr.dtype}{list(arr.shape)}, manifest says "
                           f"{dtype}{list(shape)}")
    if verify and file_sha256(path) != sha:
        raise WeightsError(f"{path}: SHA-256 does not match the manifest")
    return arr


def unpack_weights(src: Path, dst: Path) -> dict:
    """Write the weights of ``src`` (either format) into the existing directory ``dst`` as a
    plain ``tables.npy`` with a ``drop7-weights-v1`` manifest, checking the hash on the way;
    returns the new manifest.  Frozen weights are plain: every game job memory-maps them
    (one copy in the page cache), and ``sha256sum tables.npy`` checks them."""
    manifest = read_manifest(src)
    path, shape, dtype, sha = _array_facts(Path(src), manifest)
    written = write_npy(Path(dst) / TABLES, shape, dtype,
                        _stream_blocks(path, shape, dtype, sha=sha))
    if written != sha:
        raise WeightsError(f"{dst / TABLES}: SHA-256 {written} differs from {src}'s manifest")
    out = {**manifest, "format": FORMAT_RAW, "file": TABLES}
    write_manifest(Path(dst) / MANIFEST, out)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m engines.weights_files FILE...``: print each array file's stream SHA-256
    as ``sha256sum`` does (the number manifests, freeze records and pins hold)."""
    files = sys.argv[1:] if argv is None else argv
    if not files:
        print("usage: python -m engines.weights_files FILE...", file=sys.stderr)
        return 2
    for name in files:
        try:
            print(f"{stream_sha256(name)}  {name}")
        except (OSError, WeightsError) as exc:
            print(f"storage: error: {name}: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

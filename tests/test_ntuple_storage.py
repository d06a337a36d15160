"""Weights on disk: compressed round trip, the hash of the ``.npy`` stream, plain (frozen and
older) directories, sparse writes, and every refusal of a bad directory."""

from __future__ import annotations

import hashlib
import io
import json
import time
from pathlib import Path

import numpy as np
import pytest
import zstandard

from engines import weights_files as storage
from engines.leaves.kinds import N_TERMS
from engines.leaves.linear_weights import load_linear
from engines.ntuple.layouts import get_layout
from engines.ntuple.storage import load_ntuple
from engines.weights_files import (
    WeightsError,
    array_chunks,
    save_weights,
    stream_sha256,
    unpack_weights,
    write_npy,
    write_packed,
)

#: the SHA-256 of ``np.arange(1000, dtype=float32) * 0.5`` as a plain ``.npy`` file, computed
#: by the writer of plain files before compression (header + values; ``sha256sum``)
PINNED_SHA = "37dd411e437ec966ed84638b63cf6c695dd85f2c4001d3c4fb23a1e825f94d7e"
PINNED = np.arange(1000, dtype=np.float32) * np.float32(0.5)


def _save_t1(path: Path, values: np.ndarray | None = None) -> np.ndarray:
    layout = get_layout("T1")
    if values is None:
        values = np.random.default_rng(0).standard_normal(layout.entries).astype(np.float32)
    save_weights(path, values.shape, values.dtype, array_chunks(values),
                 {"kind": "ntuple", "layout": "T1", "entries": layout.entries})
    return values


def _npy_bytes(arr: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, arr)
    return out.getvalue()


def test_round_trip_is_bit_exact_compressed_and_hashes_the_npy_stream(tmp_path: Path) -> None:
    values = _save_t1(tmp_path / "w")
    loaded, layout, manifest = load_ntuple(tmp_path / "w")
    assert not loaded.flags.writeable and layout.name == "T1"
    assert loaded.view(np.uint32).tobytes() == values.view(np.uint32).tobytes()
    packed = tmp_path / "w" / "tables.npy.zst"
    assert zstandard.ZstdDecompressor().decompress(packed.read_bytes()) == _npy_bytes(values)
    assert manifest["sha256"] == hashlib.sha256(_npy_bytes(values)).hexdigest()
    assert manifest["dtype"] == "float32" and manifest["file"] == "tables.npy.zst"
    assert manifest["shape"] == [layout.entries] and manifest["format"] == "drop7-weights-v2"
    assert not (tmp_path / "w" / "tables.npy").exists()


def test_a_young_table_costs_little_disk(tmp_path: Path) -> None:
    values = np.full(get_layout("T1").entries, np.float32(0.27), dtype=np.float32)
    values[::9973] = np.random.default_rng(1).standard_normal(values[::9973].size)
    _save_t1(tmp_path / "w", values)
    assert (tmp_path / "w" / "tables.npy.zst").stat().st_size < values.nbytes // 50


@pytest.mark.parametrize("threads", [1, 2])
def test_the_hash_is_the_plain_npy_files_whatever_the_storage(tmp_path: Path,
                                                              threads: int) -> None:
    """The pinned hash was computed by the plain writer before compression existed."""
    assert write_npy(tmp_path / "p.npy", PINNED.shape, PINNED.dtype,
                     array_chunks(PINNED, 777)) == PINNED_SHA
    assert write_packed(tmp_path / "p.npy.zst", PINNED.shape, PINNED.dtype,
                        array_chunks(PINNED, 777), threads) == PINNED_SHA
    assert stream_sha256(tmp_path / "p.npy.zst") == stream_sha256(tmp_path / "p.npy") \
        == PINNED_SHA
    assert storage.main([str(tmp_path / "p.npy.zst")]) == 0


def test_the_sha256_command_prints_what_the_manifest_holds(tmp_path: Path, capsys) -> None:
    _save_t1(tmp_path / "w", np.resize(PINNED, get_layout("T1").entries))
    path = tmp_path / "w" / "tables.npy.zst"
    assert storage.main([str(path)]) == 0
    sha = json.loads((tmp_path / "w" / "manifest.json").read_text())["sha256"]
    assert capsys.readouterr().out == f"{sha}  {path}\n"
    path.write_bytes(path.read_bytes()[:100])
    assert storage.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err


def _save_plain_t1(directory: Path) -> np.ndarray:
    """A checkpoint as written before compression: a plain tables.npy, drop7-weights-v1."""
    layout = get_layout("T1")
    values = np.random.default_rng(5).standard_normal(layout.entries).astype(np.float32)
    directory.mkdir()
    sha = write_npy(directory / "tables.npy", values.shape, values.dtype, array_chunks(values))
    (directory / "manifest.json").write_text(json.dumps(
        {"format": "drop7-weights-v1", "kind": "ntuple", "layout": "T1",
         "entries": layout.entries, "dtype": "float32", "shape": [layout.entries],
         "file": "tables.npy", "sha256": sha}))
    return values


def test_a_checkpoint_written_before_compression_still_reads(tmp_path: Path) -> None:
    values = _save_plain_t1(tmp_path / "old")
    loaded, _, manifest = load_ntuple(tmp_path / "old")
    assert isinstance(loaded, np.memmap) and not loaded.flags.writeable
    assert np.array_equal(loaded, values)
    assert manifest["sha256"] == hashlib.sha256(_npy_bytes(values)).hexdigest()
    (tmp_path / "old" / "tables.npy").write_bytes(_npy_bytes(values + 1))
    with pytest.raises(WeightsError, match="SHA-256 does not match"):
        load_ntuple(tmp_path / "old")


@pytest.mark.parametrize("old", [False, True])
def test_unpacking_gives_the_plain_file_of_the_same_hash(tmp_path: Path, old: bool) -> None:
    """What the freeze does: a plain tables.npy (memory-mapped by the arms) of the same hash."""
    values = _save_plain_t1(tmp_path / "w") if old else _save_t1(tmp_path / "w")
    (tmp_path / "frozen").mkdir()
    manifest = unpack_weights(tmp_path / "w", tmp_path / "frozen")
    plain = tmp_path / "frozen" / "tables.npy"
    assert plain.read_bytes() == _npy_bytes(values)
    assert hashlib.sha256(plain.read_bytes()).hexdigest() == manifest["sha256"]
    assert manifest["format"] == "drop7-weights-v1" and manifest["file"] == "tables.npy"
    assert isinstance(load_ntuple(tmp_path / "frozen")[0], np.memmap)


def test_zero_blocks_of_a_plain_file_become_holes_with_the_same_bytes(tmp_path: Path) -> None:
    values = np.zeros(get_layout("T1").entries, dtype=np.float32)
    values[123_456] = 1.5
    path = tmp_path / "tables.npy"
    sha = write_npy(path, values.shape, values.dtype, array_chunks(values))
    assert np.array_equal(np.load(path), values)
    assert path.stat().st_blocks * 512 < path.stat().st_size // 2  # mostly holes
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("writer", [write_npy, write_packed])
def test_hash_of_fresh_chunks_of_any_size_matches_the_file(tmp_path: Path, writer) -> None:
    """The hasher thread keeps each chunk alive until it is hashed, in order."""
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, 5_000_003, dtype=np.uint8)
    data[1_000_000:3_100_000] = 0  # some whole zero chunks among them
    sizes = [1 << 20, 77, 1 << 20, 1 << 20, 4096, 300_000]
    bounds = np.cumsum([0, *sizes, len(data) - sum(sizes)])

    def fresh_chunks():
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            yield bytes(data[a:b])  # a new buffer each time, dropped by the caller

    sha = writer(tmp_path / "x.npy", data.shape, data.dtype, fresh_chunks())
    assert sha == hashlib.sha256(_npy_bytes(data)).hexdigest()
    back = np.zeros_like(data)
    if writer is write_packed:
        (tmp_path / "x.npy").rename(tmp_path / "x.npy.zst")
        storage.read_into(tmp_path / "x.npy.zst", back, sha)
    else:
        back = np.load(tmp_path / "x.npy")
    assert np.array_equal(back, data)


@pytest.mark.parametrize("writer", [write_npy, write_packed])
def test_each_chunk_is_hashed_before_the_next_is_asked_for(tmp_path: Path, monkeypatch,
                                                         writer) -> None:
    """A producer may refill one buffer: the (slowed) hash of a chunk is done before the
    producer runs again, and the file's hash comes out right."""
    hashed = []
    real_sha256 = hashlib.sha256

    class SlowSha256:
        def __init__(self) -> None:
            self.inner = real_sha256()

        def update(self, data) -> None:
            time.sleep(0.01)  # far slower than the write: a hash still running would show
            self.inner.update(data)
            hashed.append(len(data))

        def hexdigest(self) -> str:
            return self.inner.hexdigest()

    monkeypatch.setattr(storage.hashlib, "sha256", SlowSha256)
    rng = np.random.default_rng(4)
    data = rng.integers(0, 256, 6 << 16, dtype=np.uint8)
    data[: 2 << 16] = 0  # zero chunks (holes) too
    buf = bytearray(1 << 16)

    def refilled():
        for k, start in enumerate(range(0, len(data), len(buf))):
            assert len(hashed) == k + 1  # the header and every chunk handed out so far
            buf[:] = data[start:start + len(buf)].tobytes()
            yield buf

    sha = writer(tmp_path / "y.npy", data.shape, data.dtype, refilled())
    monkeypatch.undo()
    assert sha == hashlib.sha256(_npy_bytes(data)).hexdigest()


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    _save_t1(tmp_path / "w")
    before = (tmp_path / "w" / "tables.npy.zst").read_bytes()
    with pytest.raises(WeightsError, match="exists"):
        _save_t1(tmp_path / "w", np.ones(get_layout("T1").entries, dtype=np.float32))
    assert (tmp_path / "w" / "tables.npy.zst").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w"]  # no temporary left


def _edit_manifest(directory: Path, **changes) -> None:
    path = directory / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("damage, message", [
    ("truncate", "truncated|damaged"),
    ("cut", "truncated|damaged"),
    ("flip", "damaged"),
    ("other", "SHA-256 does not match"),
    ("header", "not the .npy stream"),
    ("layout", "unknown layout"),
    ("shape", "entries"),
    ("manifest", "no manifest"),
    ("format", "not a drop7-weights-v2"),
    ("kind", "not n-tuple"),
])
def test_bad_directories_are_refused(tmp_path: Path, damage: str, message: str) -> None:
    d = tmp_path / "w"
    _save_t1(d)
    tables = d / "tables.npy.zst"
    if damage == "truncate":  # into the last block (its 4-byte checksum is after it)
        with open(tables, "r+b") as fh:
            fh.truncate(tables.stat().st_size - 8)
    elif damage == "cut":
        with open(tables, "r+b") as fh:
            fh.truncate(tables.stat().st_size // 2)
    elif damage == "flip":
        data = bytearray(tables.read_bytes())
        data[len(data) // 2] ^= 1
        tables.write_bytes(bytes(data))
    elif damage == "other":  # a whole frame, of other values
        other = np.zeros(get_layout("T1").entries, dtype=np.float32)
        tables.write_bytes(zstandard.ZstdCompressor().compress(_npy_bytes(other)))
    elif damage == "header":  # the right values under a header of another shape
        other = np.zeros(get_layout("T1").entries + 1, dtype=np.float32)
        tables.write_bytes(zstandard.ZstdCompressor().compress(_npy_bytes(other)))
    elif damage == "layout":
        _edit_manifest(d, layout="Z")
    elif damage == "shape":
        _edit_manifest(d, shape=[10], entries=10)
    elif damage == "manifest":
        (d / "manifest.json").unlink()
    elif damage == "format":
        _edit_manifest(d, format="other")
    elif damage == "kind":
        _edit_manifest(d, kind="linear")
    with pytest.raises(WeightsError, match=message) as caught:
        load_ntuple(d)
    assert "\n" not in str(caught.value)


def test_linear_weights_round_trip(tmp_path: Path) -> None:
    w = np.linspace(-3, 3, N_TERMS)
    save_weights(tmp_path / "lin", w.shape, w.dtype, array_chunks(w),
                 {"kind": "linear", "layout": "linear", "entries": N_TERMS})
    loaded, _ = load_linear(tmp_path / "lin")
    assert loaded.dtype == np.float64 and np.array_equal(loaded, w)
    _save_t1(tmp_path / "nt")
    with pytest.raises(WeightsError, match="not linear"):
        load_linear(tmp_path / "nt")

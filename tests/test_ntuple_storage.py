"""Weights on disk: round trip, sparse writes, and every refusal of a bad directory."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np
import pytest

from engines.leaves.kinds import N_TERMS
from engines.ntuple import storage
from engines.ntuple.layouts import get_layout
from engines.ntuple.storage import (
    WeightsError,
    array_chunks,
    load_linear,
    load_ntuple,
    save_weights,
    write_npy,
)


def _save_t1(path: Path, values: np.ndarray | None = None) -> np.ndarray:
    layout = get_layout("T1")
    if values is None:
        values = np.random.default_rng(0).standard_normal(layout.entries).astype(np.float32)
    save_weights(path, values.shape, values.dtype, array_chunks(values),
                 {"kind": "ntuple", "layout": "T1", "entries": layout.entries})
    return values


def test_round_trip_memory_maps_and_hashes(tmp_path: Path) -> None:
    values = _save_t1(tmp_path / "w")
    loaded, layout, manifest = load_ntuple(tmp_path / "w")
    assert isinstance(loaded, np.memmap) and not loaded.flags.writeable
    assert np.array_equal(loaded, values) and layout.name == "T1"
    digest = hashlib.sha256((tmp_path / "w" / "tables.npy").read_bytes()).hexdigest()
    assert manifest["sha256"] == digest and manifest["dtype"] == "float32"
    assert manifest["shape"] == [layout.entries] and manifest["format"] == "drop7-weights-v1"


def test_zero_blocks_become_holes_with_the_same_bytes(tmp_path: Path) -> None:
    values = np.zeros(get_layout("T1").entries, dtype=np.float32)
    values[123_456] = 1.5
    _save_t1(tmp_path / "w", values)
    path = tmp_path / "w" / "tables.npy"
    assert np.array_equal(np.load(path), values)
    assert path.stat().st_blocks * 512 < path.stat().st_size // 2  # mostly holes
    manifest = json.loads((tmp_path / "w" / "manifest.json").read_text())
    assert manifest["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_hash_of_fresh_chunks_of_any_size_matches_the_file(tmp_path: Path) -> None:
    """The hasher thread keeps each chunk alive until it is hashed, in order."""
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, 5_000_003, dtype=np.uint8)
    data[1_000_000:3_100_000] = 0  # some whole zero chunks among them
    sizes = [1 << 20, 77, 1 << 20, 1 << 20, 4096, 300_000]
    bounds = np.cumsum([0, *sizes, len(data) - sum(sizes)])

    def fresh_chunks():
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            yield bytes(data[a:b])  # a new buffer each time, dropped by the caller

    sha = write_npy(tmp_path / "x.npy", data.shape, data.dtype, fresh_chunks())
    assert sha == hashlib.sha256((tmp_path / "x.npy").read_bytes()).hexdigest()
    assert np.array_equal(np.load(tmp_path / "x.npy"), data)


def test_each_chunk_is_hashed_before_the_next_is_asked_for(tmp_path: Path, monkeypatch) -> None:
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

    sha = write_npy(tmp_path / "y.npy", data.shape, data.dtype, refilled())
    monkeypatch.undo()
    assert sha == hashlib.sha256((tmp_path / "y.npy").read_bytes()).hexdigest()
    assert np.array_equal(np.load(tmp_path / "y.npy"), data)


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    _save_t1(tmp_path / "w")
    before = (tmp_path / "w" / "tables.npy").read_bytes()
    with pytest.raises(WeightsError, match="exists"):
        _save_t1(tmp_path / "w", np.ones(get_layout("T1").entries, dtype=np.float32))
    assert (tmp_path / "w" / "tables.npy").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w"]  # no temporary left


def _edit_manifest(directory: Path, **changes) -> None:
    path = directory / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("damage, message", [
    ("truncate", "truncated"),
    ("flip", "SHA-256"),
    ("layout", "unknown layout"),
    ("shape", "entries"),
    ("manifest", "no manifest"),
    ("format", "not a drop7-weights-v1"),
    ("kind", "not n-tuple"),
])
def test_bad_directories_are_refused(tmp_path: Path, damage: str, message: str) -> None:
    d = tmp_path / "w"
    _save_t1(d)
    tables = d / "tables.npy"
    if damage == "truncate":
        with open(tables, "r+b") as fh:
            fh.truncate(tables.stat().st_size - 4)
    elif damage == "flip":
        data = bytearray(tables.read_bytes())
        data[-1] ^= 1
        tables.write_bytes(bytes(data))
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
    with pytest.raises(WeightsError, match=message):
        load_ntuple(d)


def test_linear_weights_round_trip(tmp_path: Path) -> None:
    w = np.linspace(-3, 3, N_TERMS)
    save_weights(tmp_path / "lin", w.shape, w.dtype, array_chunks(w),
                 {"kind": "linear", "layout": "linear", "entries": N_TERMS})
    loaded, _ = load_linear(tmp_path / "lin")
    assert loaded.dtype == np.float64 and np.array_equal(loaded, w)
    _save_t1(tmp_path / "nt")
    with pytest.raises(WeightsError, match="not linear"):
        load_linear(tmp_path / "nt")

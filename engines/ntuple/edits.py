"""Training-free edits of frozen n-tuple tables: the never-updated entries zeroed, or set to
their class's mean (the register's optimism controls, TH-20260906-ntuple-fill-conditioned-leaf).

An entry is *untouched* when it still holds the layout's starting value
``20 / N`` bit for bit.  The trainer keeps no per-entry flag in a checkpoint,
but it needs none: an entry's value moves only by ``alpha * beta * delta / N``
with its coherence accumulator ``A`` growing by ``|delta|`` in the same update,
so an entry whose ``A`` is still 0 (never updated) holds its starting value
bit for bit, and the file alone names every such entry.  (An entry updated
back onto its starting value exactly would count as untouched too; the
register's edit reads its file the same way.)  Given the training's resume
state at the same step, the accumulators are read and checked against the
file: every entry with ``A`` = 0 must be at the starting value, and the
entries updated yet back at it are counted.  Only tables trained from the
fresh start have that starting value: a warm-started file is refused.

Two edits, each written as a new table file (its manifest names the edit, the
source's SHA-256 and the counts; its own SHA-256 is the file's hash):

* ``zero-untouched``: every untouched entry becomes 0.0, so a board made of
  unfamiliar patterns is worth less than a familiar one instead of a fresh
  board's 20 rises;
* ``class-mean``: every untouched entry becomes the mean of the touched
  entries of its class: the same table (tuple, phase and fill bucket) and the
  same pattern occupancy (how many of the tuple's cells hold a disc); a class
  with no touched entry keeps the starting value (counted).

The mean is taken in float64 over the touched entries in entry order and
rounded once to float32.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from contracts.atomic import TargetExistsError, atomic_dir
from contracts.weights_dir import FORMAT_RAW, MANIFEST, PACKED_SUFFIX, TABLES
from engines.ntuple.layouts import FAMILIES, N_PHASES, SPEC_FIELDS, SPEC_HEADER, Layout
from engines.ntuple.storage import load_ntuple
from engines.weights_files import (
    WeightsError,
    array_chunks,
    read_into,
    save_weights,
    write_manifest,
    write_npy,
)

EDITS = ("zero-untouched", "class-mean")
#: the edits that find their entries by the starting value ``20 / N`` (both: an untouched entry
#: is one still at it), so tables that started warm are refused for them
NEEDS_START = frozenset(EDITS)


def untouched(values: np.ndarray, layout: Layout) -> np.ndarray:
    """Mask of the entries still at the layout's starting value bit for bit."""
    start = np.float32(layout.initial_entry)
    return values.view(np.uint32) == start.view(np.uint32)


def _occupancy(size: int) -> np.ndarray:
    """Occupied cells (non-zero decimal digits) of every pattern of a table of ``size``."""
    digits = len(str(size - 1))
    idx = np.arange(size, dtype=np.int64)
    occ = np.zeros(size, dtype=np.int64)
    for d in range(digits):
        occ += (idx // 10**d) % 10 != 0
    return occ


def tables_of(layout: Layout) -> list[tuple[int, int]]:
    """``(first entry, patterns)`` of every table: each tuple in each phase and bucket."""
    spec, out = layout.spec, []
    copy = layout.entries // layout.buckets
    for j in range(layout.n_active):
        slot, first, stride = (int(v) for v in spec[SPEC_HEADER + SPEC_FIELDS * j:][:3])
        size = next(s for start, count, s in FAMILIES.values() if start <= slot < start + count)
        for b in range(layout.buckets):
            for ph in range(N_PHASES if stride else 1):
                out.append((b * copy + first + ph * stride, size))
    return out


def edit_values(values: np.ndarray, layout: Layout, edit: str) -> tuple[np.ndarray, dict]:
    """The edited copy of ``values`` and its counts (entries untouched, changed, classes
    without a touched entry)."""
    if edit not in EDITS:
        raise ValueError(f"unknown edit {edit!r} (choose from {', '.join(EDITS)})")
    mask = untouched(values, layout)
    out = values.copy()
    empty = 0
    if edit == "zero-untouched":
        out[mask] = np.float32(0.0)
    else:
        occ_of: dict[int, np.ndarray] = {}
        for first, size in tables_of(layout):
            occ = occ_of.setdefault(size, _occupancy(size))
            w, u = values[first:first + size], mask[first:first + size]
            if not u.any():
                continue
            classes = int(occ.max()) + 1
            t = ~u
            sums = np.bincount(occ[t], weights=w[t].astype(np.float64), minlength=classes)
            counts = np.bincount(occ[t], minlength=classes)
            means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
            fill = means[occ[u]]
            keep = np.isnan(fill)
            empty += int(np.count_nonzero((counts == 0) & (np.bincount(occ[u],
                                                                       minlength=classes) > 0)))
            seg = out[first:first + size]
            seg[np.flatnonzero(u)[~keep]] = fill[~keep].astype(np.float32)
    changed = out.view(np.uint32) != values.view(np.uint32)
    if (changed & ~mask).any():  # a guard on this module's own code, never off
        raise RuntimeError(f"edit {edit} moved a touched entry")
    return out, {"untouched": int(mask.sum()), "changed": int(changed.sum()),
                 "classes_without_touched": empty}


def check_accumulators(values: np.ndarray, layout: Layout, state: Path) -> dict:
    """Read the accumulators of the resume state ``state`` (a ``resume-<moves>`` directory of
    the training that wrote ``values``) and check what the file says: every entry whose
    ``A`` is 0 is untouched.  Returns the counts: entries never updated (``A`` = 0) and
    entries updated yet back at the starting value.  A state of other tables is refused."""
    state = Path(state)
    try:
        manifest = json.loads((state / "manifest.json").read_text())
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise WeightsError(f"{state / 'manifest.json'}: not a resume state ({exc})") from None
    if manifest.get("layout") != layout.name:
        raise WeightsError(f"{state / 'manifest.json'}: key layout: a state of layout "
                           f"{manifest.get('layout')} tables, not of layout {layout.name}")
    if manifest.get("init"):
        raise WeightsError(f"{state / 'manifest.json'}: key init: a state of tables that "
                           "started warm")
    vals = np.zeros(layout.entries, dtype=np.float32)
    acc = np.zeros((layout.entries, 2), dtype=np.float32)
    for name, dest in (("vals", vals), ("acc", acc)):
        read_into(state / f"{name}.npy{PACKED_SUFFIX}", dest, files.get(name))
    exported = (vals.astype(np.float64) + layout.initial_entry).astype(np.float32)
    if not np.array_equal(exported.view(np.uint32), values.view(np.uint32)):
        raise WeightsError(f"{state}: its tables are not the edited file's (another step or "
                           "another training)")
    never = acc[:, 1] == 0.0
    at_start = untouched(values, layout)
    if (never & ~at_start).any():
        raise WeightsError(f"{state}: an entry never updated has left the starting value")
    return {"never_updated": int(never.sum()), "updated_at_start": int((~never & at_start).sum())}


def edit_tables(source: Path, out: Path, edit: str, state: Path | None = None,
                sha256: str | None = None, plain: bool = False) -> dict:
    """Write the ``edit`` of the frozen tables ``source`` to the weights directory ``out``
    (``state``: the training's resume state at the same step, whose accumulators are checked
    against the file, :func:`check_accumulators`; ``sha256``: the hash the source must have,
    a pin or a frozen record's; ``plain``: a plain ``tables.npy``, as frozen weights are, for
    game jobs to memory-map, instead of a compressed stream); returns its manifest (with its
    SHA-256)."""
    if edit not in EDITS:
        raise ValueError(f"unknown edit {edit!r} (choose from {', '.join(EDITS)})")
    values, layout, manifest = load_ntuple(Path(source))
    if sha256 is not None and manifest["sha256"] != sha256:
        raise WeightsError(f"{Path(source) / MANIFEST}: key sha256: {manifest['sha256']}, "
                           f"not the {sha256} the edit was given")
    if edit in NEEDS_START and manifest.get("init") is not None:
        raise WeightsError(f"{Path(source) / MANIFEST}: key init: the tables were "
                           "warm-started, so their untouched entries do not hold the "
                           "starting value (edit tables trained from the fresh start)")
    values = np.asarray(values)
    checked = {} if state is None else {"accumulators": check_accumulators(values, layout,
                                                                          state)}
    edited, counts = edit_values(values, layout, edit)
    counts = {**counts, **checked}
    facts = {"kind": "ntuple", "layout": layout.name, "entries": layout.entries,
             **({"fill": layout.fill.describe()} if layout.fill else {}),
             "edit": {"rule": edit, "source": str(source), "source_sha256": manifest["sha256"],
                      "starting_value": float(np.float32(layout.initial_entry)), **counts}}
    if not plain:
        return save_weights(Path(out), edited.shape, edited.dtype, array_chunks(edited), facts)
    out = Path(out)
    empty = out.is_dir() and not any(out.iterdir())  # made for the job's outputs: filled
    try:
        with atomic_dir(out, replace=empty) as tmp:
            sha = write_npy(tmp / TABLES, edited.shape, edited.dtype, array_chunks(edited))
            facts = {**facts, "format": FORMAT_RAW, "file": TABLES, "sha256": sha,
                     "dtype": edited.dtype.name, "shape": list(edited.shape)}
            write_manifest(tmp / MANIFEST, facts)
    except TargetExistsError as exc:
        raise WeightsError(str(exc)) from None
    return facts

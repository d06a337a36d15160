"""N-tuple tables in memory and on disk: fresh full-size tables, and loading trained ones.

The array file and its manifest, and the memory an array is read into, are
:mod:`engines.weights_files`, which every learner's weights share; this
module holds what is the tables' own: fresh full-size tables and the check
that a weights directory holds the tables of a known layout (for a
fill-bucketed layout, the manifest's ``fill`` facts must be the layout's own
buckets, so a file is refused when its buckets are not the declared ones).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.ntuple.layouts import Layout, get_layout
from engines.weights_files import WeightsError, alloc_zeroed, open_array, read_manifest


def fresh_tables(layout_name: str) -> tuple[np.ndarray, Layout]:
    """Full-size fresh tables of a layout, every entry at its initial value and every page
    touched (benchmarks time real memory traffic): ``(float32 values, layout)``."""
    layout = get_layout(layout_name)
    tables = alloc_zeroed((layout.entries,), np.float32)
    tables.fill(np.float32(layout.initial_entry))
    return tables, layout


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
    have = manifest.get("fill")
    want = None if layout.fill is None else layout.fill.describe()
    if have != want:
        raise WeightsError(f"{directory / 'manifest.json'}: key fill is {have}, layout "
                           f"{layout.name} has fill buckets {want}")
    if manifest.get("dtype") != "float32":
        raise WeightsError(f"{directory}: n-tuple tables must be float32")
    return open_array(directory, manifest, verify), layout, manifest

"""Promotion of n-tuple tables into a fill-bucketed layout (the register's multi-stage start).

A bucketed layout (``A+occ5``, :mod:`engines.ntuple.layouts`) holds its base
layout's whole value array once per fill bucket, bucket-major.  Promoting
the base layout's tables copies them into every bucket, so the promoted leaf
is the frozen leaf bit for bit on every board (each bucket reads the very
entries the frozen tables hold) until training moves the buckets apart; the
trainer starts the accumulators fresh (:class:`engines.train.trainer.NtupleLearner`).
"""

from __future__ import annotations

import numpy as np

from engines.ntuple.layouts import Layout


def promotes(source: Layout, target: Layout) -> bool:
    """Whether ``source``'s tables promote into ``target``: ``target`` is ``source`` keyed
    on a fill rule."""
    return target.fill is not None and source.fill is None and target.base == source.name


def promote_into(dest: np.ndarray, values: np.ndarray, source: Layout, target: Layout) -> None:
    """Copy ``source``'s tables ``values`` into every bucket of ``dest`` (``target``'s
    array, written in place); ValueError when they do not promote."""
    if not promotes(source, target):
        raise ValueError(f"layout {source.name} tables do not promote into layout "
                         f"{target.name} (only a layout into itself keyed on a fill rule)")
    stride = source.entries
    if values.shape != (stride,) or dest.shape != (target.entries,):
        raise ValueError(f"promotion of {source.name} into {target.name}: arrays of "
                         f"{values.shape} and {dest.shape}, expected ({stride},) and "
                         f"({target.entries},)")
    for b in range(target.buckets):
        dest[b * stride:(b + 1) * stride] = values


def promote(values: np.ndarray, source: Layout, target: Layout) -> np.ndarray:
    """``source``'s tables ``values`` promoted into a new float32 array of ``target``."""
    dest = np.empty(target.entries, dtype=np.float32)
    promote_into(dest, values, source, target)
    return dest

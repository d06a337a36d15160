"""A leaf from a pinned file: weights made outside any claim, named by path and SHA-256.

It sits beside :mod:`engines.weights_files`, above both the leaves and the tables, since a
pinned file holds either (the leaves and the tables know nothing of each other).

Two things can be pinned (docs/claims.md, A leaf from a pinned file):

* **a linear vector** (leaf kind ``linear-file``): the fair leaf's
  :data:`~engines.leaves.kinds.N_TERMS` weights in points per raw term, in the
  feature table's order (docs/leaf.md), optionally followed by one intercept
  in points (added to every non-terminal leaf value), as

  - a ``.npy`` file holding a one-dimensional float64 array of 18 or 19
    values (what ``numpy.save`` writes of a CMA-ES or ridge result), or
  - a ``.json`` file holding one list of 18 or 19 numbers (a vector typed by
    hand or copied from a paper);

  its pin is the SHA-256 of the file's bytes (``sha256sum FILE``); a leaf that
  declares extra terms (:mod:`engines.leaves.extra_terms`) reads a vector of
  the 18 weights, then one weight per declared term in declared order, then the
  optional intercept, so each length has one meaning;
* **a weights directory** in the project's format
  (:mod:`contracts.weights_dir`: ``manifest.json`` beside ``tables.npy`` or
  ``tables.npy.zst``): n-tuple tables (leaf kind ``ntuple-file``), a
  ``linear-trained`` weights vector (``linear-file``) or a sparse network's
  parameters (``nnue-file``, :mod:`engines.leaves.nnue_weights`), as the
  manifest's ``kind`` says; its pin is the SHA-256 of the array's ``.npy`` stream, the
  number the manifest records (``python -m engines.weights_files FILE``).

Every value must be finite, and a linear vector's leaf values too (no board
may take them past :data:`~engines.leaves.linear_weights.LEAF_LIMIT`; n-tuple
values are summed in float64, so finite float32 entries always give a finite
leaf).  A relative path is read from the working directory, else from the
repository the package runs from (:func:`locate`: a shipped claim's files,
``config/pinned/``, whatever directory the run works in).  A path must be a
regular file or a weights directory, checked before anything is read (a
device or a FIFO would never end a hash).  A claim may pin
tables of the layouts A-E only, or one of them with a fill rule
(:func:`~engines.ntuple.layouts.layout_names`; the
test layouts are for the engine's own tests and benchmarks).  Anything else (a
missing file, another suffix, a wrong length, dtype or shape, a hash other than
the pin) is a :class:`PinnedError` with one line naming the file.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from contracts.hashing import file_sha256, hash_mismatch
from contracts.weights_dir import MANIFEST
from engines.leaves.kinds import N_TERMS

#: suffixes of a linear vector file
VECTOR_SUFFIXES = (".npy", ".json")
LINEAR_FILE, NTUPLE_FILE, NNUE_FILE = "linear-file", "ntuple-file", "nnue-file"
#: a weights directory's manifest ``kind`` -> the pinned leaf kind it holds
DIRECTORY_KINDS = {"ntuple": NTUPLE_FILE, "linear": LINEAR_FILE, "nnue": NNUE_FILE}


#: the repository the package runs from (installed editable): a shipped claim's pinned files
REPOSITORY = Path(__file__).resolve().parents[1]


def locate(path: str | Path) -> Path:
    """Where a pinned path is read: as written (from the working directory), else, for a
    relative path missing there, from :data:`REPOSITORY`, where a shipped claim's pinned files
    lie, so a run in another directory (``snakemake --directory``) reads them too.  The pin
    names the file wherever it lies: a different file found first is refused by its hash,
    never played."""
    path = Path(path)
    if path.is_absolute() or os.path.lexists(path):
        return path
    shipped = REPOSITORY / path
    return shipped if os.path.lexists(shipped) else path


class PinnedError(ValueError):
    """A pinned file that is missing, malformed, or not the one its SHA-256 names."""


class PinnedHashError(PinnedError):
    """A pinned file whose SHA-256 is not its pin."""


@dataclass(frozen=True)
class PinnedFile:
    """What a pinned path holds: its leaf ``kind``, the hash it has, its table entries
    (``N_TERMS`` for a linear vector) and its n-tuple layout (``linear`` for a vector)."""

    kind: str
    path: str
    sha256: str
    entries: int
    layout: str = "linear"


def _vector(values: np.ndarray, where: str, terms: tuple[str, ...] = ()) -> np.ndarray:
    """The weights, the intercept and the declared terms' weights, float64[N_TERMS + 1 +
    len(terms)] (intercept 0 when absent), refused when the length is not ``N_TERMS +
    len(terms)`` (+ 1), when not finite or when a leaf value of theirs could overflow."""
    from engines.leaves.extra_terms import EXTRA_TERMS
    from engines.leaves.linear_weights import check_leaf_bound
    from engines.weights_files import WeightsError

    n = N_TERMS + len(terms)
    if values.ndim != 1 or values.shape[0] not in (n, n + 1):
        declared = f" and one per declared term ({', '.join(terms)})" if terms else ""
        raise PinnedError(f"{where}: a linear vector holds {N_TERMS} weights{declared} ({n} "
                          f"values), or those and an intercept ({n + 1}), got shape "
                          f"{list(values.shape)}")
    if not np.all(np.isfinite(values)):
        raise PinnedError(f"{where}: non-finite weights")
    out = np.zeros(N_TERMS + 1 + len(terms))
    out[:N_TERMS] = values[:N_TERMS]
    out[N_TERMS] = values[n] if values.shape[0] > n else 0.0
    out[N_TERMS + 1:] = values[N_TERMS:n]
    try:
        check_leaf_bound(out, where, [EXTRA_TERMS[t].bound for t in terms])
    except WeightsError as exc:
        raise PinnedError(str(exc)) from None
    return out


def _json_float(value: int | float, path: Path) -> float:
    """A JSON number as a float; an integer too large for one is refused."""
    try:
        return float(value)
    except OverflowError:
        raise PinnedError(f"{path}: the integer {str(value)[:12]}... ({len(str(value))} "
                          "digits) is too large for a float") from None


def regular_path(path: str | Path) -> None:
    """Refuse, before anything reads it, a path that is missing or is neither a regular file
    nor a directory (a device, a FIFO, a socket: hashing ``/dev/zero`` never ends, opening a
    FIFO waits for a writer).  A symbolic link is judged by what it names."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise PinnedError(f"{path}: missing") from None
    except OSError as exc:
        raise PinnedError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise PinnedError(f"{path}: not a regular file or a weights directory (a device, "
                          "FIFO or socket is never read)")


def check_finite_tables(tables: np.ndarray, where: str, block: int = 1 << 22) -> None:
    """Refuse n-tuple tables holding a NaN or an infinity (read block by block: no copy of
    the tables); finite float32 entries give finite leaves (summed in float64)."""
    for start in range(0, tables.shape[0], block):
        part = tables[start:start + block]
        if not np.isfinite(part).all():
            bad = start + int(np.flatnonzero(~np.isfinite(part))[0])
            raise PinnedError(f"{where}: non-finite table entry {bad} ({tables[bad]})")


def read_vector(path: str | Path, terms: tuple[str, ...] = ()) -> np.ndarray:
    """A linear vector file (``.npy`` float64 or ``.json`` list of numbers) as
    float64[N_TERMS + 1 + len(terms)]: the weights, the intercept (0 when the file has
    none), then the declared terms' weights."""
    path = Path(path)
    if path.suffix not in VECTOR_SUFFIXES:
        raise PinnedError(f"{path}: a linear vector is a .npy or .json file (or a weights "
                          "directory)")
    try:
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, list) or not all(
                    isinstance(v, int | float) and not isinstance(v, bool) for v in data):
                raise PinnedError(f"{path}: not a JSON list of numbers")
            return _vector(np.array([_json_float(v, path) for v in data]), str(path), terms)
        arr = np.load(path, allow_pickle=False)
    except PinnedError:
        raise
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise PinnedError(f"{path}: unreadable ({str(exc).splitlines()[0]})") from None
    if not isinstance(arr, np.ndarray) or arr.dtype != np.float64:
        raise PinnedError(f"{path}: a linear vector .npy holds float64, got "
                          f"{getattr(arr, 'dtype', type(arr).__name__)}")
    return _vector(arr, str(path), terms)


def inspect_pinned(path: str | Path) -> tuple[str, int]:
    """The leaf kind a pinned path holds and its entries, read cheaply (no hash): a
    directory's manifest, else a vector file.  Missing paths and unknown kinds are
    :class:`PinnedError`."""
    from engines.weights_files import WeightsError, read_manifest

    path = locate(path)
    regular_path(path)
    if path.is_dir():
        try:
            manifest = read_manifest(path)
        except WeightsError as exc:
            raise PinnedError(str(exc)) from None
        kind, shape = manifest.get("kind"), manifest.get("shape")
        if kind not in DIRECTORY_KINDS:
            raise PinnedError(f"{path / MANIFEST}: holds {kind!r} weights, not n-tuple tables, "
                              "linear weights or a network")
        if not (isinstance(shape, list) and len(shape) == 1 and isinstance(shape[0], int)):
            raise PinnedError(f"{path / MANIFEST}: key shape: {shape!r} is not one length")
        return DIRECTORY_KINDS[kind], shape[0]
    if path.suffix not in VECTOR_SUFFIXES:
        raise PinnedError(f"{path}: a pinned leaf is a linear vector (.npy or .json) or a "
                          "weights directory")
    return LINEAR_FILE, N_TERMS


def load_pinned(path: str | Path, sha256: str, verify: bool = True, want: str | None = None,
                terms: tuple[str, ...] = ()
                ) -> tuple[str, np.ndarray | None, np.ndarray | None, object | None]:
    """Load a pinned leaf: ``(kind, weights float64[N_TERMS + 1 + len(terms)] or None,
    tables or None, layout or None)`` (a network: its flat parameters as the tables and its
    :class:`~engines.leaves.nnue_class.Sizes` as the layout), refusing a path that holds
    another leaf kind than ``want`` (when given), extra ``terms`` on anything but a linear
    vector file, and a file whose SHA-256 is not ``sha256`` (a weights directory's manifest
    must record the pin, and with ``verify`` its array must hash to it; a vector file is
    always hashed, it is small)."""
    from engines.leaves.linear_weights import load_linear
    from engines.ntuple.storage import load_ntuple
    from engines.weights_files import WeightsError, read_manifest

    path = locate(path)
    kind, _ = inspect_pinned(path)
    if want is not None and kind != want:
        raise PinnedError(f"{path}: holds a {kind} leaf, not {want}")
    if terms and path.is_dir():
        raise PinnedError(f"{path}: extra terms ({', '.join(terms)}) need a linear vector "
                          f"file (.npy or .json), not a weights directory of {kind}")
    if not path.is_dir():
        have = file_sha256(path)
        if have != sha256:
            raise PinnedHashError(f"{path}: {hash_mismatch(have, sha256)}")
        return kind, read_vector(path, terms), None, None
    try:
        have = read_manifest(path).get("sha256")
        if have != sha256:
            raise PinnedHashError(f"{path / MANIFEST}: "
                                  + hash_mismatch(have, sha256, "the recorded SHA-256"))
        if kind == LINEAR_FILE:
            weights, _ = load_linear(path, verify)
            return kind, _vector(weights, str(path)), None, None
        if kind == NNUE_FILE:
            from engines.leaves.nnue_weights import load_nnue

            params, sizes, _ = load_nnue(path, verify)
            return kind, None, params, sizes
        tables, layout, _ = load_ntuple(path, verify)
    except WeightsError as exc:
        cls = PinnedHashError if "SHA-256" in str(exc) else PinnedError
        raise cls(str(exc)) from None
    if verify:
        check_finite_tables(tables, str(path))
    return kind, None, tables, layout


def check_pinned(path: str | Path, sha256: str, terms: tuple[str, ...] = ()) -> PinnedFile:
    """Everything a run checks of a pinned file before any job: it is a regular file or a
    weights directory, has the format its kind needs (length, dtype, a claim's layout,
    finite values whose leaves are finite) and hashes to ``sha256`` (the whole array: a
    wrong table is refused before any block opens, not in the first game job); a vector
    is read with its declared extra ``terms``."""
    from engines.ntuple.layouts import FILL_RULES, FILL_SEP, LAYOUTS, layout_names

    kind, weights, tables, layout = load_pinned(path, sha256, verify=True, terms=terms)
    if tables is None:
        return PinnedFile(kind, str(path), sha256, N_TERMS)
    if kind == NNUE_FILE:
        return PinnedFile(kind, str(path), sha256, int(tables.shape[0]), "nnue")
    if layout.name not in layout_names():
        rules = ", ".join(FILL_SEP + r for r in FILL_RULES)
        raise PinnedError(f"{Path(path) / MANIFEST}: layout {layout.name} is a test layout, "
                          f"not one a claim may pin ({', '.join(LAYOUTS)}, or one of them with "
                          f"a fill rule: {rules})")
    return PinnedFile(kind, str(path), sha256, int(tables.shape[0]), layout.name)

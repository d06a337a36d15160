"""The protocol's stages between training and the screen: curves, gates, selection, freeze.

* :func:`validation_curve` - every checkpoint of one trained weights against
  the comparator in the same search on the validation block: the paired
  margin (mean score delta) and its bounds, one point per checkpoint.
* :func:`gates` - the claim's gate readings on those curves and on the training
  health of its weights (:mod:`analysis.health`); the screen block
  is opened only when every gate passes (a profile that does not enforce
  gates opens it anyway, and the verdict is then invalidated).
* :func:`select_checkpoint` - the declared selection: the largest margin
  (ties to the later point), the final point, or a fixed step.
* :func:`freeze` - copy the chosen checkpoint to the frozen directory as a
  plain ``.npy`` (a copy, not a link: nothing done to the checkpoint can
  touch the frozen weights) and record its SHA-256, recomputed from the copy.
* :func:`check_artefact` - a frozen artefact's record against the SHA-256 a
  declaration pins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analysis.contrast import contrast_paired
from analysis.games_table import pair_arms, read_games, select_block
from analysis.readings import evaluate
from contracts.atomic import atomic_dir
from contracts.hashing import file_sha256, hash_mismatch
from contracts.json_file import write_json
from contracts.weights_dir import TABLES

POINT_KEYS = ("n", "mean_candidate", "mean_baseline", "mean_delta", "sd_delta", "bootstrap_lb",
              "bootstrap_ub", "t_lb", "wins", "ties", "losses", "mean_moves_candidate",
              "mean_moves_baseline")
SELECTION = {"largest-margin": "largest validation margin; ties to the later point",
             "final": "the final checkpoint"}


def validation_curve(weights: str, comparator: str, comparator_csv: str,
                     checkpoints: Sequence[Mapping[str, Any]], seeds: tuple[int, int],
                     n_resamples: int) -> dict[str, Any]:
    """The validation curve of one trained weights.

    ``checkpoints``: one mapping per point with ``step``, ``arm``, ``games``
    (that arm's games CSV) and ``path`` (the checkpoint directory).  The
    margin of a point is the paired mean delta of the checkpoint's arm over
    the comparator on the validation seeds ``(start, count)``.
    """
    points = []
    for cp in checkpoints:
        games = select_block(read_games([cp["games"], comparator_csv]), [cp["arm"], comparator],
                             *seeds)
        c = contrast_paired(pair_arms(games, cp["arm"], comparator),
                            n_resamples=n_resamples).to_dict()
        point = {"step": int(cp["step"]), "arm": cp["arm"], "path": cp["path"],
                 "margin": c["mean_delta"]}
        point.update({k: c[k] for k in POINT_KEYS})
        points.append(point)
    points.sort(key=lambda p: p["step"])
    return {"weights": weights, "comparator": comparator, "points": points}


def gates(claim: str, names: Sequence[str], readings: Mapping[str, Mapping[str, Any]],
          curves: Mapping[str, Mapping[str, Any]], enforced: bool,
          health: Mapping[str, Mapping[str, Any]] | None = None,
          learners: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The gate decision of a claim: every gate reading (on the validation curves, the
    training health and the learners' curves), and whether all passed."""
    results = [evaluate(n, readings[n], {}, curves, health, learners=learners).to_dict()
               for n in names]
    failed = [r for r in results if r["outcome"] != "pass"]
    if not names:
        reason = "no gates declared"
    elif failed:
        reason = "; ".join(f"{r['name']}: {r['reason']}" for r in failed)
    else:
        reason = "; ".join(f"{r['name']}: {r['reason']}" for r in results)
    return {"claim": claim, "passed": not failed, "enforced": bool(enforced),
            "opens_screen": not failed or not enforced, "gates": results, "reason": reason}


def select_checkpoint(points: Sequence[Mapping[str, Any]], rule: Any) -> Mapping[str, Any]:
    """The point ``rule`` selects (``largest-margin``, ``final`` or ``{step: N}``)."""
    if not points:
        raise ValueError("no validation points to choose from")
    if rule == "largest-margin":
        return max(points, key=lambda p: (p["margin"], p["step"]))
    if rule == "final":
        return max(points, key=lambda p: p["step"])
    chosen = [p for p in points if p["step"] == rule["step"]]
    if not chosen:
        raise ValueError(f"no validation point at step {rule['step']}")
    return chosen[0]


def describe_selection(rule: Any) -> str:
    """The selection rule in words."""
    return SELECTION.get(rule) or f"the checkpoint at {rule['step']:,} moves"


def freeze(curve: Mapping[str, Any], gate: Mapping[str, Any], rule: Any, frozen_dir: str | Path,
           record_path: str | Path, artefact: str) -> dict[str, Any]:
    """Freeze the selected checkpoint of ``curve``: weights into ``frozen_dir``, record written
    (``artefact``: its name, ``claim/weights``).

    Refuses when the claim's gates failed and are enforced.  The SHA-256 is
    recomputed from the frozen file and must equal the checkpoint manifest's.
    """
    from engines.weights_files import read_manifest, unpack_weights

    if not gate["opens_screen"]:
        raise ValueError(f"the claim's gates failed, nothing to freeze: {gate['reason']}")
    best = select_checkpoint(curve["points"], rule)
    src = Path(best["path"])
    manifest = read_manifest(src)
    dst = Path(frozen_dir)
    with atomic_dir(dst, replace=True) as tmp:
        unpack_weights(src, tmp)  # frozen weights are a plain .npy, memory-mapped by the arms
        sha = file_sha256(tmp / TABLES)
        if sha != manifest.get("sha256"):
            raise ValueError(f"{src}: tables SHA-256 {sha} differs from its manifest")
    record = {"artefact": artefact, "weights": curve["weights"], "step": best["step"],
              "source": str(src), "frozen": str(dst), "sha256": sha, "margin": best["margin"],
              "bootstrap_lb": best["bootstrap_lb"], "t_lb": best["t_lb"],
              "selection": describe_selection(rule), "gates_passed": bool(gate["passed"]),
              "layout": manifest.get("layout"), "moves_trained": manifest.get("moves_trained")}
    write_json(record_path, record)
    return record


def check_artefact(record: Mapping[str, Any], key: str, pin: str | None, where: str) -> None:
    """Raise when a frozen record's SHA-256 differs from the declaration's pin."""
    if pin is not None and record["sha256"] != pin:
        raise ValueError(f"{where}: the frozen {key}'s " + hash_mismatch(record["sha256"], pin))

"""The screen protocol's decisions between training and the screen (no Snakemake here).

* :func:`validation_curve` - each checkpoint in search against the fair leaf in
  the same search on the validation block: the paired margin (mean score
  delta) and its bounds, one point per checkpoint.
* :func:`gate_decision` - criterion 1: the training signal passes when some
  validation point of the candidate layout has a positive margin.  If it
  fails, the screen block is never opened.
* :func:`select_checkpoint` - the candidate is the point with the largest
  margin; ties go to the later point.
* :func:`prepare_training` / :func:`trained_record` - keep a training
  directory only when the trainer can resume it for this request, and list
  its checkpoints once training is done; :func:`drop_resume_state` removes
  the final resume state when the profile does not keep it.
* :func:`freeze` - copy the chosen checkpoint to the frozen directory (a copy,
  not a link: nothing done to the checkpoint can touch the frozen weights) and
  record its SHA-256, recomputed from the copy.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analysis import atomic_write
from analysis.contrast import contrast_games
from analysis.games_table import read_games

POINT_KEYS = ("n", "mean_candidate", "mean_baseline", "mean_delta", "sd_delta", "bootstrap_lb",
              "bootstrap_ub", "t_lb", "wins", "ties", "losses", "mean_moves_candidate",
              "mean_moves_baseline")


def validation_curve(weights: str, fair_arm: str, fair_csv: str,
                     checkpoints: Sequence[Mapping[str, Any]],
                     n_resamples: int) -> dict[str, Any]:
    """The validation curve of one trained arm.

    ``checkpoints``: one mapping per point with ``step``, ``arm``, ``games``
    (that arm's games CSV) and ``path`` (the checkpoint directory).  The
    margin of a point is the paired mean delta of the checkpoint's arm over
    the fair arm (same seeds).
    """
    points = []
    for cp in checkpoints:
        games = read_games([cp["games"], fair_csv])
        c = contrast_games(games, cp["arm"], fair_arm, n_resamples=n_resamples).to_dict()
        point = {"step": int(cp["step"]), "arm": cp["arm"], "path": cp["path"],
                 "margin": c["mean_delta"]}
        point.update({k: c[k] for k in POINT_KEYS})
        points.append(point)
    points.sort(key=lambda p: p["step"])
    return {"weights": weights, "fair_arm": fair_arm, "points": points}


def select_checkpoint(points: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    """The point with the largest margin; ties go to the later point."""
    if not points:
        raise ValueError("no validation points to choose from")
    return max(points, key=lambda p: (p["margin"], p["step"]))


def gate_decision(curve: Mapping[str, Any]) -> dict[str, Any]:
    """Criterion 1 on a validation curve: pass when some margin is positive."""
    points = curve["points"]
    margins = [p["margin"] for p in points]
    positive = [p["step"] for p in points if p["margin"] > 0]
    best = select_checkpoint(points)
    if positive:
        reason = (f"validation margin positive at {len(positive)} of {len(points)} points "
                  f"(best {best['margin']:+,.0f} at {best['step']:,} moves)")
    else:
        reason = (f"no validation point of {curve['weights']} beat the fair leaf: best margin "
                  f"{best['margin']:+,.0f} over {len(points)} points; the screen block is "
                  "not opened")
    return {"weights": curve["weights"], "passed": bool(positive),
            "steps": [p["step"] for p in points], "margins": margins,
            "best_step": best["step"], "best_margin": best["margin"], "reason": reason}


def _latest_moves(out: Path) -> int | None:
    try:
        return int(load_json(out / "latest" / "manifest.json")["moves_trained"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def prepare_training(out: str | Path, request: Mapping[str, Any], steps: Sequence[int]) -> bool:
    """Make ``out`` ready for ``drop7 train --resume``; True when it resumes.

    The directory is kept only when it was made for the same request (layout,
    checkpoint interval, first game) and every checkpoint up to its resume
    state is still there; otherwise it is removed and training starts over.
    """
    out = Path(out)
    keep = ("layout", "every", "first_game")
    request_file = out / "workflow-request.json"
    resumable = False
    if request_file.exists():
        old = load_json(request_file)
        latest = _latest_moves(out)
        resumable = (all(old.get(k) == request[k] for k in keep) and latest is not None
                     and latest <= request["moves"]
                     and all((out / f"step-{s}" / "manifest.json").exists()
                             for s in steps if s <= latest))
    if not resumable and out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(request_file, dict(request))
    return resumable


def drop_resume_state(out: str | Path) -> None:
    """Remove a finished training directory's resume state (``latest`` and ``resume-*``).

    The checkpoints stay; a later run with a longer budget then starts over
    (:func:`prepare_training` finds nothing to resume).
    """
    out = Path(out)
    (out / "latest").unlink(missing_ok=True)  # a symlink, dangling or not
    for state in out.glob("resume-*"):
        shutil.rmtree(state)


def trained_record(out: str | Path, request: Mapping[str, Any],
                   steps: Sequence[int]) -> dict[str, Any]:
    """The training job's record: the request and every checkpoint's manifest (with its path)."""
    out = Path(out)
    checkpoints = []
    for step in steps:
        path = out / f"step-{step}"
        try:
            manifest = load_json(path / "manifest.json")
        except OSError:
            raise ValueError(f"{path}: checkpoint missing after training") from None
        checkpoints.append({**manifest, "path": str(path)})
    return {"request": dict(request), "checkpoints": checkpoints}


def freeze(curve: Mapping[str, Any], gate: Mapping[str, Any], frozen_dir: str | Path,
           record_path: str | Path, require_gate: bool = True) -> dict[str, Any]:
    """Freeze the best checkpoint of ``curve``: weights into ``frozen_dir``, record written.

    Refuses when the gate failed (unless ``require_gate`` is false: smoke tests
    only; the record then says so).  The SHA-256 is recomputed from the frozen
    file and must equal the checkpoint manifest's.
    """
    from engines.ntuple.storage import MANIFEST, TABLES, file_sha256, read_manifest

    if require_gate and not gate["passed"]:
        raise ValueError(f"training gate failed, nothing to freeze: {gate['reason']}")
    best = select_checkpoint(curve["points"])
    src = Path(best["path"])
    manifest = read_manifest(src)
    dst = Path(frozen_dir)
    if dst.exists():
        shutil.rmtree(dst)
    tmp = dst.with_name(dst.name + f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        shutil.copyfile(src / TABLES, tmp / TABLES)
        shutil.copy2(src / MANIFEST, tmp / MANIFEST)
        sha = file_sha256(tmp / TABLES)
        if sha != manifest.get("sha256"):
            raise ValueError(f"{src}: tables SHA-256 {sha} differs from its manifest")
        os.replace(tmp, dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    record = {"weights": curve["weights"], "step": best["step"], "source": str(src),
              "frozen": str(dst), "sha256": sha, "margin": best["margin"],
              "bootstrap_lb": best["bootstrap_lb"], "t_lb": best["t_lb"],
              "selection": "largest validation margin; ties to the later point",
              "gate_passed": bool(gate["passed"]),
              "layout": manifest.get("layout"), "moves_trained": manifest.get("moves_trained")}
    atomic_write(record_path, json.dumps(record, indent=2) + "\n")
    return record


def load_json(path: str | Path) -> Any:
    """Read a JSON file."""
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _finite(value: Any) -> Any:
    """NaN and infinities as None (JSON has no NaN), recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def write_json(path: str | Path, data: Any) -> None:
    """Write JSON atomically (temporary file, then rename); NaN is written as null."""
    atomic_write(path, json.dumps(_finite(data), indent=2, allow_nan=False) + "\n")

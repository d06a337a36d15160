"""The registered claim's verdict from its four falsification criteria.

Criteria (keys): ``training_signal`` (1, pilot tier), ``primary_screen`` (2),
``mechanism_ablation`` (3, pilot tier), ``direct_play`` (4); each is
``pass``, ``fail`` or ``not-run`` with a one-line reason.  The overall verdict
is one of :data:`VERDICTS`, chosen by the decision table in
docs/statistics.md (first matching row wins):

1. any methodological error -> ``invalidated-by-methodological-error``;
2. training signal failed -> ``not-supported-as-tested`` (screen never opened);
3. primary screen not run or failed -> ``not-supported-as-tested``;
4. primary passed but ablation or direct-play failed -> ``mixed``;
5. otherwise -> ``supported-as-tested`` (legs not run are named in the reason).

Evidence tier: ``public-development`` when the primary screen ran on at least
``public_n`` (256) held-out games, else ``pilot``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from analysis.contrast import FAIL, SCREEN_CRITERIA, Contrast

SUPPORTED = "supported-as-tested"
NOT_SUPPORTED = "not-supported-as-tested"
MIXED = "mixed"
INVALIDATED = "invalidated-by-methodological-error"
VERDICTS = (SUPPORTED, NOT_SUPPORTED, MIXED, INVALIDATED)
PILOT, PUBLIC = "pilot", "public-development"
PASSED, FAILED, NOT_RUN = "pass", "fail", "not-run"
#: the spec's held-out screen size
PUBLIC_SCREEN_N = 256

TITLES = {
    "training_signal": "1. Training signal (validation margin > 0 at some point)",
    "primary_screen": "2. Primary screen (candidate {search} vs fair {search}, held out)",
    "mechanism_ablation": "3. Mechanism ablation (windows-only layout E)",
    "direct_play": "4. Direct-play diagnostic (tables one ply vs fair {search})",
}


@dataclass(frozen=True)
class Criterion:
    """One falsification criterion's outcome."""

    key: str
    title: str
    status: str
    reason: str


@dataclass
class Verdict:
    """The claim's verdict as data the report renders."""

    verdict: str
    tier: str
    reason: str
    criteria: list[Criterion]
    methodological_errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; ``criteria`` is a list of {key, title, status, reason}."""
        return asdict(self)

    def status(self, key: str) -> str:
        """Status of criterion ``key``."""
        return next(c.status for c in self.criteria if c.key == key)


def _as_dict(contrast: Contrast | Mapping[str, Any] | None) -> dict[str, Any] | None:
    if contrast is None:
        return None
    return contrast.to_dict() if isinstance(contrast, Contrast) else dict(contrast)


def _screen_failures(c: Mapping[str, Any]) -> list[str]:
    """The statistical criteria a contrast failed (decisions/hash are errors, not evidence)."""
    return [k for k in c.get("failed", []) if k in SCREEN_CRITERIA]


def _fmt(x: float) -> str:
    return f"{x:+,.0f}"


def _training(margins: Sequence[float] | None, gate_failed: bool | None) -> Criterion:
    key = "training_signal"
    if margins:
        positive = sum(1 for m in margins if m > 0)
        best = max(margins)
        if gate_failed is not None and gate_failed != (positive == 0):
            raise ValueError("gate_failed flag contradicts the validation margins")
        if positive:
            why = (f"validation margin positive at {positive} of {len(margins)} points "
                   f"(best {_fmt(best)})")
            return Criterion(key, TITLES[key], PASSED, why)
        why = f"no validation point had a positive margin (best {_fmt(best)} over {len(margins)})"
        return Criterion(key, TITLES[key], FAILED, why)
    if gate_failed is None:
        return Criterion(key, TITLES[key], NOT_RUN, "no validation margins recorded")
    status = FAILED if gate_failed else PASSED
    outcome = "failed" if gate_failed else "passed"
    return Criterion(key, TITLES[key], status, f"training gate {outcome} (flag)")


def _primary(p: dict[str, Any] | None, training: Criterion) -> Criterion:
    key = "primary_screen"
    if p is None:
        why = ("screen never opened: training signal failed" if training.status == FAILED
               else "screen not opened")
        return Criterion(key, TITLES[key], NOT_RUN, why)
    failures = _screen_failures(p)
    stats = (f"n {p['n']}, mean delta {_fmt(p['mean_delta'])}, bootstrap LB "
             f"{_fmt(p['bootstrap_lb'])}, t LB {_fmt(p['t_lb'])}")
    if failures:
        return Criterion(key, TITLES[key], FAILED, f"failed {', '.join(failures)} ({stats})")
    return Criterion(key, TITLES[key], PASSED, f"all screen criteria pass ({stats})")


def _ablation(full: Sequence[float] | None, windows: Sequence[float] | None) -> Criterion:
    key = "mechanism_ablation"
    if not full or not windows:
        missing = "windows-only (E)" if not windows else "full layout"
        return Criterion(key, TITLES[key], NOT_RUN, f"no {missing} validation margins")
    best_full, best_e = max(full), max(windows)
    margins = f"windows-only best {_fmt(best_e)} vs full layout best {_fmt(best_full)}"
    if best_e >= best_full:
        return Criterion(key, TITLES[key], FAILED, f"{margins}: full-line leg not supported")
    return Criterion(key, TITLES[key], PASSED, f"{margins}: full lines add margin")


def _direct(d: dict[str, Any] | None, p: dict[str, Any] | None) -> Criterion:
    key = "direct_play"
    if d is None:
        return Criterion(key, TITLES[key], NOT_RUN, "direct-play arm not screened")
    if p is None:
        return Criterion(key, TITLES[key], NOT_RUN, "needs the primary screen, which was not run")
    direct_beats = not _screen_failures(d)
    leaf_beats = not _screen_failures(p)
    summary = f"direct mean delta {_fmt(d['mean_delta'])}"
    if direct_beats and not leaf_beats:
        why = (f"tables one ply beat fair {{search}} ({summary}) but not as its leaf: "
               "deployment leg refuted")
        return Criterion(key, TITLES[key], FAILED, why)
    if direct_beats:
        why = f"both one ply and as leaf beat fair {{search}} ({summary})"
        return Criterion(key, TITLES[key], PASSED, why)
    failed = ", ".join(_screen_failures(d))
    why = f"tables one ply do not beat fair {{search}} (failed {failed}; {summary})"
    return Criterion(key, TITLES[key], PASSED, why)


def _errors(
    p: dict[str, Any] | None,
    d: dict[str, Any] | None,
    training: Criterion,
    weights_hash_mismatch: bool,
    reused_block: bool,
    extra: Sequence[str],
) -> list[str]:
    errors: list[str] = []
    if weights_hash_mismatch:
        errors.append("screened weights do not match the frozen SHA-256")
    for name, c in (("primary screen", p), ("direct-play screen", d)):
        if c is None:
            continue
        crit = c.get("criteria", {})
        if crit.get("weights_hash") == FAIL and not weights_hash_mismatch:
            errors.append(f"{name}: screened weights do not match the frozen SHA-256")
        if crit.get("decisions") == FAIL:
            errors.append(f"{name}: {c.get('illegal') or 0} illegal and "
                          f"{c.get('unfinished') or 0} unfinished decisions")
    if reused_block:
        errors.append("the screen block was reused (read before for another candidate)")
    if training.status == FAILED and p is not None:
        errors.append("screen opened although the training gate failed")
    errors.extend(extra)
    return errors


def claim_verdict(
    *,
    candidate_margins: Sequence[float] | None = None,
    ablation_margins: Sequence[float] | None = None,
    primary: Contrast | Mapping[str, Any] | None = None,
    direct: Contrast | Mapping[str, Any] | None = None,
    gate_failed: bool | None = None,
    weights_hash_mismatch: bool = False,
    reused_block: bool = False,
    errors: Sequence[str] = (),
    public_n: int = PUBLIC_SCREEN_N,
    search: str = "d3s7",
) -> Verdict:
    """The claim's verdict from its four criteria.

    ``candidate_margins`` / ``ablation_margins``: paired validation margins
    (mean score delta vs fair d3s7 on the 64-game validation block) at each
    validation point, for the full layout and the windows-only layout E.
    ``primary``: the held-out screen contrast (None = screen not opened);
    ``direct``: the direct-play tables vs fair d3s7 on the same block.
    ``gate_failed`` stands in for the margins when only the gate outcome is
    known.  ``search`` names the search of the screen (``d3s7`` as
    registered) in titles and reasons.  ``weights_hash_mismatch``, ``reused_block`` and free-form
    ``errors`` are methodological errors; so are illegal/unfinished decisions
    or a hash mismatch recorded in a contrast's criteria.
    """
    p, d = _as_dict(primary), _as_dict(direct)
    training = _training(candidate_margins, gate_failed)
    crit = [
        training,
        _primary(p, training),
        _ablation(candidate_margins, ablation_margins),
        _direct(d, p),
    ]
    crit = [replace(c, title=c.title.replace("{search}", search),
                    reason=c.reason.replace("{search}", search)) for c in crit]
    by_key = {c.key: c for c in crit}
    errs = _errors(p, d, training, weights_hash_mismatch, reused_block, errors)
    tier = PUBLIC if p is not None and int(p["n"]) >= public_n else PILOT
    primary_status = by_key["primary_screen"].status
    legs_failed = [k for k in ("mechanism_ablation", "direct_play") if by_key[k].status == FAILED]
    if errs:
        verdict, why = INVALIDATED, errs[0]
    elif training.status == FAILED:
        verdict, why = NOT_SUPPORTED, "no training signal: the screen was never opened"
    elif primary_status == NOT_RUN:
        verdict, why = NOT_SUPPORTED, "primary screen not run: no held-out evidence"
    elif primary_status == FAILED:
        verdict, why = NOT_SUPPORTED, "primary screen " + by_key["primary_screen"].reason
    elif legs_failed:
        verdict = MIXED
        why = "primary screen passed but " + " and ".join(
            by_key[k].title.split(" (")[0][3:].lower() for k in legs_failed) + " failed"
    else:
        verdict = SUPPORTED
        not_run = [c.title.split(" (")[0][3:].lower() for c in crit if c.status == NOT_RUN]
        why = "primary screen passed" + (f"; not run: {', '.join(not_run)}" if not_run else "")
    return Verdict(verdict=verdict, tier=tier, reason=why, criteria=crit,
                   methodological_errors=errs)

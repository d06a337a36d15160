"""Checks a run makes before any job starts, and the estimate a dry run prints.

* :func:`before_any_job` - the profile's ledger exists (unless the profile
  starts a new one), every entry reads and the entries hold together
  (:func:`protocol.held_out.check_consistency`); every claim's blocks are on
  the side of the reserved range its ledger may read
  (:func:`protocol.held_out.block_refusal`); a frozen artefact that exists
  must match the SHA-256 its declaration pins; every pinned file (a leaf or a
  warm start, :mod:`engines.pinned_leaf`) exists, has its kind's format and
  hashes to its pin (:func:`pinned_files`), and so does a q arm's frozen one-ply Q
  (:func:`pinned_q_weights`) and a pruning prior's pinned weights
  (:func:`protocol.parts.prune_weights.check_pinned_priors`); a screen block that another
  claim owns in the ledger is refused unless the declaration shares it, and
  one this claim opened with other deciding parts (its protocol hash) is
  refused as its opening would refuse it, after the training.
* :func:`preflight` - the disk the run will write and the memory its largest
  job needs, against what the machine has: one line naming the shortfall;
  every external arm's program starts, takes its options and answers its trial
  decisions (:func:`external_programs`, from :func:`trial_programs`, which the run
  makes before its estimate).
* :func:`estimate_table` - every claim's estimated CPU hours by stage (an external arm's
  games from its program's measured seconds a decision).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from contracts.hashing import hash_mismatch
from engines.play.arm_specs import Q
from engines.seedbank import load_bank
from protocol import costs
from protocol.arms import decision_seconds
from protocol.files import run_relative
from protocol.held_out import block_refusal, check_consistency
from protocol.ledger import (
    LedgerError,
    Opener,
    check_ledger_file,
    is_committed,
    protocol_refusal,
    read_ledger,
    refusal,
)
from protocol.parts.prune_weights import check_pinned_priors
from protocol.plan_model import ClaimPlan, Pinned, Plan
from protocol.schema import DeclarationError


def _pin_key(plan: Plan, claim: str, key: str) -> str:
    for name, arm in plan.claims[claim].claim.arms.items():
        leaf = arm.get("leaf")
        if (isinstance(leaf, dict) and "sha256" in leaf and "weights" in leaf
                and f"{leaf.get('claim', claim)}/{leaf['weights']}" == key):
            return f"arms.{name}.leaf.sha256"
    return "arms"


def pinned_files(plan: Plan) -> None:
    """Refuse, in one line naming the claim's file and the key, a pinned file that is missing,
    malformed (length, dtype, suffix, layout) or whose SHA-256 is not its pin; the whole file
    is hashed, so a wrong table never reaches a game job (which hashes it again as it loads
    the leaf or the warm start).  A file several claims read is hashed once."""
    from engines.filters.kf_weights import KF_FILE, KfHashError, KfWeightsError, read_kf_file
    from engines.pinned_leaf import PinnedError, PinnedHashError, check_pinned

    seen: dict[tuple[str, str, tuple[str, ...]], str] = {}
    for p in plan.claims.values():
        starts = {t.init.key: t for t in p.trained.values() if isinstance(t.init, Pinned)}
        for key, pin in p.pinned.items():
            read = pin.path, pin.sha256, pin.terms
            if read not in seen and pin.kind == KF_FILE:
                try:
                    read_kf_file(pin.path, pin.sha256)
                except KfWeightsError as exc:
                    part = "sha256" if isinstance(exc, KfHashError) else "file"
                    raise DeclarationError(f"{p.claim.path}: key {key}.{part}: {exc}") from None
                seen[read] = ""
            if read not in seen:
                try:
                    seen[read] = check_pinned(pin.path, pin.sha256, pin.terms).layout
                except PinnedError as exc:
                    part = "sha256" if isinstance(exc, PinnedHashError) else "file"
                    raise DeclarationError(f"{p.claim.path}: key {key}.{part}: {exc}") from None
            t = starts.get(key)
            if t is not None and seen[read] != t.layout:
                raise DeclarationError(f"{p.claim.path}: key {key}.file: {pin.path} holds "
                                       f"layout {seen[read]} tables; weights "
                                       f"{t.name} train layout {t.layout}")


def pinned_q_weights(plan: Plan) -> None:
    """Refuse, in one line naming the claim's file and the key, a q arm's pinned weights that
    are not a one-ply Q directory whose manifest records its pin (the array hashed too)."""
    from engines.filters.oneply_q_weights import read_q
    from engines.weights_files import WeightsError

    for p in plan.claims.values():
        for name, arm in p.claim.arms.items():
            pin = arm.get("weights")
            if arm["play"] != Q or not isinstance(pin, Mapping):
                continue
            try:
                read_q(run_relative(pin["file"]), pin["sha256"])
            except WeightsError as exc:
                part = "sha256" if "SHA-256" in str(exc) else "file"
                raise DeclarationError(f"{p.claim.path}: key arms.{name}.weights.{part}: "
                                       f"{exc}") from None


def before_any_job(plan: Plan, hash_pinned: bool = True) -> None:
    """Refuse (one line naming file and key) what is already known to be wrong
    (``hash_pinned`` false: not the pinned files, for a job's own reading of the workflow,
    whose run checked them and whose leaf loading hashes them again)."""
    from contracts.json_file import load_json

    if hash_pinned:
        pinned_files(plan)
        pinned_q_weights(plan)
        check_pinned_priors({c: p.claim for c, p in plan.claims.items()})
    check_ledger_file(plan.profile["ledger"], plan.profile["ledger_new"],
                      plan.source_of("ledger"))
    for c, p in plan.claims.items():
        for key, art in p.artefacts.items():
            if art.sha256 is None or not Path(art.record).exists():
                continue
            try:
                sha = load_json(art.record)["sha256"]
            except (OSError, ValueError, KeyError, TypeError):
                raise DeclarationError(f"{art.record}: key sha256: not a readable frozen record "
                                       f"of {key}") from None
            if not isinstance(sha, str):
                raise DeclarationError(f"{art.record}: key sha256: {sha!r} is not a SHA-256")
            if sha != art.sha256:
                raise DeclarationError(
                    f"{p.claim.path}: key {_pin_key(plan, c, key)}: the frozen {key} "
                    f"({art.record}): its " + hash_mismatch(sha, art.sha256))
    path, committed = plan.profile["ledger"], is_committed(plan.profile["ledger"])
    for c, p in plan.claims.items():
        for block in p.blocks:
            why = block_refusal(block, committed)
            if why:
                owner = p.shares_block_of or c
                key = (f"claims.{owner}.block" if "block" in plan.profile["claims"].get(owner, {})
                       else "block_offset")
                raise DeclarationError(f"{plan.source_of(key)}: key {key}: claim {c} (declared "
                                       f"block {plan.claims[owner].claim.screen['block']}"
                                       f", block_offset {plan.profile['block_offset']}): {why}")
    ledger = read_ledger(path)
    check_consistency(ledger, path, committed=committed, screen=load_bank().roles["screen"],
                      fail=LedgerError)
    _declarations_as_opened(plan, ledger)
    for c, p in plan.claims.items():  # every claim: a single target runs any of them
        opener = Opener(c, {}, p.shares_block_of)
        for block in p.blocks:
            entries = [e for e in ledger["blocks"].get(str(block), []) if e["claim"] != c]
            why = refusal(block, opener, entries, plan.profile["allow_reuse"])
            if why:
                raise DeclarationError(f"{plan.profile['ledger']}: {why}")


def _frozen_hashes(p: ClaimPlan) -> dict[str, str] | None:
    """The SHA-256 of every frozen artefact the claim's arms read (its opener's hashes,
    :attr:`ClaimPlan.opener_records`), when all are frozen."""
    from contracts.json_file import load_json

    out = {}
    for key, art in p.opener_records.items():
        try:
            out[key] = load_json(art["record"])["sha256"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
    return out


def _declarations_as_opened(plan: Plan, ledger: dict) -> None:
    """Refuse what the opening of a claim's block would refuse after the training: a claim
    whose frozen artefacts are all on disk (or that reads none) and whose opener the ledger
    refuses (:func:`refusal`), or that opened its block before with other deciding parts
    (its protocol hash, :func:`protocol_refusal`).  Under ``allow_reuse`` an opening for other
    frozen weights is a new entry, so only an entry of the frozen hashes on disk counts."""
    from protocol.records.ids import protocol_sha256

    for c, p in plan.claims.items():
        known = _frozen_hashes(p)
        for block in p.blocks if known is not None else ():
            why = refusal(block, Opener(c, known, p.shares_block_of),
                          ledger["blocks"].get(str(block), []), plan.profile["allow_reuse"])
            if why:
                raise DeclarationError(f"{plan.profile['ledger']}: {why}")
        mine = [(b, e) for b in p.blocks for e in ledger["blocks"].get(str(b), [])
                if e["claim"] == c and "protocol_sha256" in e]
        if not mine:
            continue
        now = protocol_sha256(p.describe())
        for block, e in mine:
            if plan.profile["allow_reuse"] and known != e["hashes"]:
                continue
            why = protocol_refusal(block, Opener(c, e["hashes"], p.shares_block_of), [e], now)
            if why:
                raise DeclarationError(f"{p.claim.path}: {why}")


def disk_need(p: ClaimPlan, keep_final_state: bool) -> int:
    """Bytes a claim's run writes at most: checkpoints, resume states, frozen copies.

    Checkpoints and states are compressed: each is counted at
    :func:`engines.weights_files.packed_bound` of its updates (twice the measured growth, at
    most its raw size); frozen copies are plain, at their raw size.  A
    segment's state is deleted once the next segment has run, so at most two states of one
    weights are on disk at once (one if a single segment is left)."""
    from engines.train.trainer import updates_per_move
    from engines.weights_files import PACKED_STATE_K, PACKED_STEP_K, packed_bound

    need = 0
    for t in p.trained.values():
        step = t.entries * costs.STEP_BYTES_PER_ENTRY
        state = t.entries * costs.STATE_BYTES_PER_ENTRY
        per_move = updates_per_move(t.layout)
        missing = [s for s in t.steps if not Path(t.checkpoint(s), "manifest.json").exists()]
        need += sum(packed_bound(step, s * per_move, PACKED_STEP_K)
                    for s in missing)
        need += sum(packed_bound(state, s * per_move, PACKED_STATE_K)
                    for s in missing[-2:])
        if missing and keep_final_state:
            need += packed_bound(step, missing[-1] * per_move, PACKED_STEP_K)
    for art in p.artefacts.values():
        if art.claim == p.id and not Path(art.record).exists():
            need += art.entries * costs.STEP_BYTES_PER_ENTRY
    return need


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


@dataclass(frozen=True)
class Trial:
    """One external arm's check: the median seconds of its trial decisions, or the line that
    refuses it (``key``: the arm's key that line names, ``command`` or ``options``)."""

    seconds: float | None = None
    key: str = "command"
    refusal: str | None = None


def trial_programs(plan: Plan, claims: Sequence[str] | None = None
                   ) -> dict[tuple[str, str], Trial]:
    """Start every external arm's program of ``claims`` (every claim of the plan when None)
    as its jobs will start it, from the run's working directory
    (:func:`engines.play.referee_start.check_program`): every command word that names a file must
    exist (and hash to its pin), the program must start, shake hands in this protocol
    version, take the arm's options and answer its trial decisions, whose seconds are timed;
    then it is told to quit.  A program that cannot play is kept as its refusal (raised by
    :func:`external_programs` for a claim the run runs), not raised here: a dry run's
    estimate lists every claim."""
    from engines.play.arm_specs import ExternalSpec
    from engines.play.referee_program import ProgramError
    from engines.play.referee_start import OptionError, check_program

    out = {}
    for c in plan.claims if claims is None else claims:
        for name, arm in plan.claims[c].arms.items():
            if not isinstance(arm.spec, ExternalSpec):
                continue
            if shutil.which(arm.spec.command[0]) is None:
                out[c, name] = Trial(refusal=f"program {arm.spec.command[0]!r} not found on "
                                             f"PATH or from {Path.cwd()}")
                continue
            try:
                out[c, name] = Trial(check_program(arm.spec)[1])
            except ProgramError as exc:
                key = "options" if isinstance(exc, OptionError) else "command"
                out[c, name] = Trial(key=key, refusal=f"the program cannot play: {exc}")
    return out


def external_programs(plan: Plan, claims: Sequence[str],
                      trials: dict[tuple[str, str], Trial] | None = None) -> None:
    """Refuse with one line naming the claim's file and the arm's key an external arm of
    ``claims`` whose program cannot play (:func:`trial_programs`; ``trials``: those the run
    made already, before its estimate), before any block opens."""
    tried = {c for c, _ in trials} if trials is not None else set()
    trials = {**(trials or {}), **trial_programs(plan, [c for c in claims if c not in tried])}
    for c in claims:
        for name in plan.claims[c].arms:
            t = trials.get((c, name))
            if t is not None and t.refusal is not None:
                raise DeclarationError(f"{plan.claims[c].claim.path}: key arms.{name}.{t.key}: "
                                       f"{t.refusal}")


def preflight(plan: Plan, claims: Sequence[str], free: int | None = None,
              memory: int | None = None,
              trials: dict[tuple[str, str], Trial] | None = None) -> str:
    """Refuse with one line when the disk or the memory cannot hold the run of ``claims``,
    or an external arm's program cannot play (:func:`external_programs`, from ``trials``
    when the run made them before its estimate); else the line the run prints of what it
    asked for."""
    external_programs(plan, claims, trials)
    need = sum(disk_need(plan.claims[c], plan.profile["keep_final_state"]) for c in claims)
    root = Path(plan.paths.root)
    probe = next((d for d in (root, *root.parents) if d.exists()), Path("."))
    free = shutil.disk_usage(probe).free if free is None else free
    if need > free:
        raise DeclarationError(f"not enough disk for the {plan.name} run: it writes up to "
                               f"{need / 1e9:.1f} GB under {root}, {free / 1e9:.1f} GB free")
    memory = _memory_bytes() if memory is None else memory
    biggest = max((costs.train_mem_mb(t.entries) for c in claims
                   for t in plan.claims[c].trained.values()), default=0) * 10**6
    if memory is not None and biggest > memory:
        raise DeclarationError(f"not enough memory for the {plan.name} run: its largest "
                               f"training job needs {biggest / 1e9:.1f} GB, the machine has "
                               f"{memory / 1e9:.1f} GB")
    have = "" if memory is None else f", {memory / 1e9:.1f} GB on the machine"
    return (f"preflight: the {plan.name} run of {', '.join(claims) or 'nothing'} writes up to "
            f"{need / 1e9:.1f} GB under {root} ({free / 1e9:.1f} GB free); its largest training "
            f"job needs {biggest / 1e9:.1f} GB of memory{have}")


def estimate_table(plan: Plan, trials: dict[tuple[str, str], Trial] | None = None) -> str:
    """Every claim's estimated CPU hours by stage, as text (what a dry run prints).  An
    external arm's games are costed from its program's measured trial decisions
    (``trials``, :func:`trial_programs`) when given, else from the model's seconds a
    decision (its ``movetime``, or :data:`protocol.costs.EXTERNAL_DECISION_S`); a line
    under the table says which, for each external arm."""
    from engines.play.arm_specs import ExternalSpec

    width = max([24, *(len(c) + 2 for c in plan.order())])
    lines = [f"estimated CPU hours of the {plan.name} profile (one core each; "
             "docs/claims.md has the model):",
             f"  {'claim':<{width}}{'train':>9}{'validation':>12}{'screen':>9}{'panel':>9}"
             f"{'replay':>9}{'total':>9}"]
    notes = []
    for c in plan.order():
        measured = {}
        for name, arm in plan.claims[c].arms.items():
            if not isinstance(arm.spec, ExternalSpec):
                continue
            t = (trials or {}).get((c, name))
            if t is not None and t.seconds is not None:
                measured[name] = t.seconds
                notes.append(f"  {c} arm {name}: {t.seconds * 1000:.1f} ms a decision, "
                             "measured (the median of its program's trial decisions)")
            else:
                why = ("its program cannot play" if t is not None
                       else "its program not started")
                notes.append(f"  {c} arm {name}: {decision_seconds(arm.spec) * 1000:g} ms a "
                             f"decision, assumed, not measured ({why})")
        est = plan.claims[c].estimate(measured)
        hours = [est[k] / 3600 for k in ("train", "validation", "screen", "panel", "replay")]
        mark = "" if c in plan.run else "   (not in the default target)"
        if plan.claims[c].sequential is not None:
            mark += "   (screen: at most; sequential, it may stop at an earlier look)"
        lines.append(f"  {c:<{width}}" + "".join(f"{h:>{w}.2f}" for h, w in zip(
            [*hours, sum(hours)], (9, 12, 9, 9, 9, 9), strict=True)) + mark)
    if notes:
        lines += ["external arms' seconds a decision (their games: "
                  f"{costs.MOVES_PER_GAME} decisions each):", *notes]
    return "\n".join(lines)

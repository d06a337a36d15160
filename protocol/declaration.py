"""Claim declarations: ``config/claims/<id>.yaml``, loaded, schema-checked and cross-checked.

:func:`load_claims` reads every declaration of a directory and returns them
by id; :func:`load_claim_set` reads the shipped ones and those of a folder
of one's own beside them (``claims_dir``).  A declaration is first checked
against ``claim.schema.yaml`` (a misspelt key, a bad value), then by each
part of a claim for what a schema cannot say (:data:`CHECKS`, one module a
part in :mod:`protocol.parts`: screen, training, table edits, panel, arms,
validation, contrasts, readings, sequential screen, verdict).  Across claims
(:func:`check_across`): every claim and weights named exists, nothing is
circular, a warm start continues the same learner, an edit reads n-tuple
tables, a shared block is the block of a claim that owns it and declares at
least as many games.  Every
file of the directory must be a ``*.yaml`` declaration (a ``.yml`` would
otherwise be skipped silently).  Any failure is one :class:`DeclarationError`
line naming the file and the key.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from analysis.panel_conventions import CONVENTIONS
from analysis.reading_kinds import READING_KINDS
from contracts.hashing import SHA256_PATTERN
from contracts.panel_table import WORK
from engines.filters.kf_weights import KF_WEIGHTS
from engines.filters.kinds import ROOT_FILTERS
from engines.learners import train_schema
from engines.leaves.kinds import LEAF_KINDS
from engines.ntuple.edits import EDITS
from engines.play.policy_grammar import prune_priors
from protocol.arms import PLAY_KINDS
from protocol.claim import (
    Claim,
    declared_screen,
    edit_weights,
    is_pinned,
    pinned_path,
    screen_arm_names,
    td_weights,
)
from protocol.files import OutsideRootError, command_paths, run_relative
from protocol.parts.arm import check_arms
from protocol.parts.base import KeyCheck, names_of
from protocol.parts.contrasts import check_contrasts
from protocol.parts.direct_training import check_direct
from protocol.parts.edits import check_edits, check_sources
from protocol.parts.panel import check_panel, reference_name
from protocol.parts.pins import check_pins, named_leaves
from protocol.parts.prune_weights import check_prune_weights
from protocol.parts.readings import check_readings, check_recorded, check_verdict
from protocol.parts.replay import check_replay
from protocol.parts.screen import check_screen, check_shared_block
from protocol.parts.sequential import NO_PREFIX, check_sequential, sequential_contrast
from protocol.parts.training import (
    MAX_CHECKPOINTS,
    check_training,
    check_warm_starts,
    checkpoint_count,
    is_checkpoint,
)
from protocol.parts.validation import check_validation
from protocol.schema import DeclarationError, check, load_schema, read_yaml

__all__ = ["DEFAULT_CLAIMS_DIR", "FORMAT", "MAX_CHECKPOINTS", "NO_PREFIX", "SUFFIX", "Claim",
           "check_pins", "checkpoint_count", "claim_schema", "declared_screen", "is_checkpoint",
           "is_pinned", "load_claim", "load_claim_set", "load_claims", "pinned_path",
           "reference_name", "screen_arm_names", "sequential_contrast"]

#: the claim declaration format
FORMAT = "drop7-claim-v1"
#: the folder of the shipped declarations (relative to the repository)
DEFAULT_CLAIMS_DIR = "config/claims"
#: the one suffix of a declaration file
SUFFIX = ".yaml"
#: every part's check of one declaration, in order (the sequential screen's, which builds its
#: design, runs after them; the verdict's and the records' last)
CHECKS = (check_screen, check_training, check_direct, check_edits, check_panel, check_arms,
          check_prune_weights, check_validation, check_contrasts, check_readings)


def claim_schema() -> dict[str, Any]:
    """``claim.schema.yaml`` with the registries' fragments: the ``play`` enum (the arm kinds'
    plays, :data:`protocol.arms.PLAY_KINDS`), the root filters
    (:data:`engines.filters.kinds.ROOT_FILTERS`), a kf arm's (and a kf prior's) named weights
    (:data:`engines.filters.kf_weights.KF_WEIGHTS`), the pruning priors
    (:func:`engines.play.policy_grammar.prune_priors`), the leaves named without a path (the
    leaf kinds that read no weights, :data:`engines.leaves.kinds.LEAF_KINDS`), the reading kinds
    (:data:`analysis.reading_kinds.READING_KINDS`), a panel's work kinds
    (:data:`contracts.panel_table.WORK`) and its conventions
    (:data:`analysis.panel_conventions.CONVENTIONS`), a SHA-256's spelling
    (:data:`contracts.hashing.SHA256_PATTERN`) and a trained weights' ``train`` keys (each
    learner's, :func:`engines.learners.registry.train_schema`, the n-tuple layouts among them:
    :func:`engines.ntuple.layouts.layout_names`, A-E, each with each fill rule): each is listed
    once, where it is registered."""
    schema = copy.deepcopy(load_schema("claim"))
    arm = schema["properties"]["arms"]["additionalProperties"]["properties"]
    arm["play"]["enum"] = [p for k in PLAY_KINDS.values() for p in k.plays]
    arm["filter"]["enum"] = list(ROOT_FILTERS)
    arm["weights"]["anyOf"][0]["enum"] = list(KF_WEIGHTS)
    arm["prune"]["properties"]["prior"]["enum"] = list(prune_priors())
    arm["prune"]["properties"]["weights"]["anyOf"][0]["enum"] = list(KF_WEIGHTS)
    schema["$defs"]["leaf"]["oneOf"][0]["enum"] = [
        k.name for k in LEAF_KINDS.values() if not k.takes_path]
    reading = schema["properties"]["readings"]["additionalProperties"]["properties"]
    reading["kind"]["enum"] = list(READING_KINDS)
    schema["properties"]["panel"]["properties"]["work"]["enum"] = list(WORK)
    schema["properties"]["panel"]["properties"]["conventions"]["enum"] = list(CONVENTIONS)
    schema["$defs"]["sha256"]["pattern"] = SHA256_PATTERN
    weights = schema["properties"]["weights"]["additionalProperties"]["properties"]
    weights["train"].update(train_schema())
    weights["edit"]["properties"]["rule"]["enum"] = list(EDITS)
    return schema


def load_claim(path: str | Path, shown: str | Path | None = None) -> Claim:
    """One declaration, schema-checked and checked within itself (``shown``: the path that
    messages and reports name, e.g. relative to the repository)."""
    path = Path(path)
    doc = check(read_yaml(path), claim_schema(), shown or path)
    path = Path(shown or path)
    chk = KeyCheck(path)
    if doc["id"] != path.stem:
        chk.fail("id", f"{doc['id']!r} differs from the file's name {path.stem!r}")
    for part in CHECKS:
        part(doc, chk)
    design = check_sequential(doc, chk)
    for part in (check_verdict, check_recorded, check_replay):
        part(doc, chk)
    record_paths(doc, chk)
    return Claim(doc["id"], path, doc, design)


def record_paths(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Write every file the declaration names as it is recorded, relative to the run's
    directory (:mod:`protocol.files`; a file outside it is refused): an external arm's
    command words that name files, and each pinned file (an arm's leaf, the comparator, a
    warm start, an edit's source).  The declaration enters the protocol hash, the records
    and the page, so none of them holds a path of this machine."""
    pinned = [(f"arms.{n}.leaf", a.get("leaf")) for n, a in doc["arms"].items()]
    pinned.append(("validation.comparator", doc.get("validation", {}).get("comparator")))
    pinned += [(f"weights.{n}.train.init", w["train"].get("init"))
               for n, w in td_weights(doc).items()]
    pinned += [(f"weights.{n}.edit.from", e["from"]) for n, e in edit_weights(doc).items()]
    for key, leaf in pinned:
        if is_pinned(leaf):
            try:
                leaf["file"] = run_relative(leaf["file"])
            except OutsideRootError as exc:
                chk.fail(f"{key}.file", str(exc))
    for name, arm in doc["arms"].items():
        if "command" in arm:
            try:
                arm["command"] = list(command_paths(arm["command"])[0])
            except OutsideRootError as exc:
                chk.fail(f"arms.{name}.command[{exc.args[1]}]", exc.args[0])


def check_across(claims: Mapping[str, Claim]) -> None:
    """Every claim another names exists, with the weights named, and nothing is circular."""
    for claim in claims.values():
        chk = KeyCheck(claim.path)
        for key, leaf in named_leaves(claim):
            if "claim" not in leaf:
                continue
            other = claims.get(leaf["claim"])
            if other is None:
                chk.fail(f"{key}.claim", f"no claim {leaf['claim']!r} (claims: "
                         f"{names_of(claims)})")
            if leaf["weights"] not in other.weights:
                chk.fail(f"{key}.weights", f"claim {other.id} trains no "
                         f"{leaf['weights']!r} (it trains: {names_of(other.weights)})")
        check_warm_starts(claim, claims, chk)
        check_sources(claim, claims, chk)
        check_shared_block(claim, claims, chk)
    for claim in claims.values():
        seen, todo = set(), [c for c, _ in claim.imports()]
        while todo:
            other = todo.pop()
            if other == claim.id:
                KeyCheck(claim.path).fail("arms", "its frozen artefacts depend on this claim "
                                          "itself (a cycle of claims)")
            if other not in seen:
                seen.add(other)
                todo.extend(c for c, _ in claims[other].imports())


def _load_folder(directory: str | Path, shown: str | Path | None = None) -> dict[str, Claim]:
    """Every declaration of a folder (or the one declaration file ``directory``) by id,
    each checked within itself."""
    directory = Path(directory)
    if directory.is_file() and directory.suffix == SUFFIX:
        return {(c := load_claim(directory, shown)).id: c}
    if not directory.is_dir():
        raise DeclarationError(f"{shown or directory}: no such directory of claim declarations "
                               f"(nor a declaration file <id>{SUFFIX})")
    for entry in sorted(directory.iterdir()):
        if entry.suffix != SUFFIX or not entry.is_file():
            where = Path(shown) / entry.name if shown else entry
            raise DeclarationError(f"{where}: not a claim declaration: every file of "
                                   f"{shown or directory} must be <id>{SUFFIX} (rename it, or "
                                   "move it out)")
    paths = sorted(directory.glob(f"*{SUFFIX}"))
    if not paths:
        raise DeclarationError(f"{shown or directory}: no claim declarations (*.yaml)")
    return {c.id: c for c in (load_claim(p, Path(shown) / p.name if shown else None)
                              for p in paths)}


def load_claims(directory: str | Path, shown: str | Path | None = None) -> dict[str, Claim]:
    """Every declaration ``<directory>/*.yaml`` by id, checked within and across claims
    (``shown``: the directory as messages and reports name it).  Any other entry of the
    directory (a ``.yml``, a backup, a folder) is refused rather than skipped."""
    claims = _load_folder(directory, shown)
    check_across(claims)
    return claims


def load_claim_set(shipped: str | Path, own: str | Path | None,
                   shown: str | Path | None = None
                   ) -> tuple[dict[str, Claim], list[str], list[str]]:
    """The claims of a run: the shipped declarations (``config/claims``) and, when ``own``
    names another folder (or one declaration file), its claims beside them, a claim of the
    same id replacing the shipped one; checked across the whole set, so one's own claim may
    read a shipped claim's frozen weights.  Returns ``(claims, ids declared in own, those of
    them that replace a shipped claim)``."""
    claims = _load_folder(shipped, DEFAULT_CLAIMS_DIR)
    mine: list[str] = []
    replaced: list[str] = []
    if own is not None and Path(own).resolve() != Path(shipped).resolve():
        extra = _load_folder(own, shown or own)
        replaced = sorted(set(extra) & set(claims))
        claims.update(extra)
        mine = sorted(extra)
    check_across(claims)
    return claims, mine, replaced

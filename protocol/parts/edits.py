"""Training-free edits of n-tuple tables in a claim: their check, their plan, the planned type.

``weights: {NAME: {edit: {from: SOURCE, rule: RULE}}}`` declares one of the register's
controls (:mod:`engines.ntuple.edits`: ``zero-untouched``, ``class-mean``) as weights of the
claim.  ``SOURCE`` is weights this claim trains (a name), another claim's frozen weights
``{claim, weights}`` or a pinned weights directory ``{file, sha256}``: n-tuple tables, and,
for a rule that finds its entries by the starting value (every rule here,
:data:`~engines.ntuple.edits.NEEDS_START`), tables trained from the fresh start.  One job
runs ``drop7 tables edit`` on the source's frozen tables once they exist (after its freeze)
and writes a plain weights directory with its record (its SHA-256); an arm plays it with
``leaf: {weights: NAME}`` as frozen tables (an :class:`~protocol.parts.pins.Artefact` marked
``edited``), and its hash is one of the ledger opener's, like any frozen artefact's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.learners import get_learner
from engines.ntuple.edits import NEEDS_START
from engines.pinned_leaf import NTUPLE_FILE
from protocol import commands, costs
from protocol.claim import Claim, edit_weights, is_pinned, td_weights
from protocol.parts.base import KeyCheck, ProfileSettings, names_of
from protocol.parts.pins import Artefact, Pinned, plan_artefact, plan_pinned
from protocol.paths import Paths
from protocol.schema import DeclarationError

#: what the edit reads of its source, in a refusal
_FRESH = "tables trained from the fresh start"


def _check_recipe(train: Mapping[str, Any], rule: str, key: str, what: str,
                  chk: KeyCheck) -> None:
    """A trained source is n-tuple tables, from the fresh start for a rule that needs it."""
    kind = get_learner(train["learner"])
    if kind.pinned != NTUPLE_FILE:
        chk.fail(key, f"{what} is {kind.produces} (learner {kind.name}), not n-tuple tables: "
                 "an edit reads n-tuple tables")
    if "init" in train and rule in NEEDS_START:
        chk.fail(key, f"{what} starts warm (train.init): its untouched entries do not hold the "
                 f"starting value 20/N that rule {rule} reads; edit {_FRESH}")


def check_edits(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each edit's source within the declaration (another claim's in :func:`check_sources`,
    a pinned file's at the plan), and no validation comparator naming an edit (the
    validation runs before any freeze, so before any edit)."""
    edits, trained = edit_weights(doc), td_weights(doc)
    for name, e in edits.items():
        key, src = f"weights.{name}.edit.from", e["from"]
        if isinstance(src, str):
            if src in edits:
                chk.fail(key, f"{src!r} is an edit itself: an edit reads trained or pinned "
                         "tables (an edit of an edit is not supported)")
            if src not in doc.get("weights", {}):
                chk.fail(key, f"{src!r} is not weights this claim declares (weights: "
                         f"{names_of(doc.get('weights', {}))}); another claim's are "
                         "{claim: ID, weights: W}, a pinned directory {file, sha256}")
            train = doc["weights"][src]["train"]
            if src not in trained:
                chk.fail(key, f"{src!r} is {get_learner(train['learner']).produces} (learner "
                         f"{train['learner']}), not n-tuple tables: an edit reads n-tuple "
                         "tables")
            _check_recipe(train, e["rule"], key, repr(src), chk)
        elif src.get("claim") == doc["id"]:
            chk.fail(f"{key}.claim", "names this claim itself; use from: NAME")
    comp = doc.get("validation", {}).get("comparator")
    if isinstance(comp, Mapping) and "claim" not in comp and comp.get("weights") in edits:
        chk.fail("validation.comparator.weights", f"{comp['weights']!r} is an edit, written "
                 "after the freeze the validation comes before: compare against its source")


def check_sources(claim: Claim, claims: Mapping[str, Claim], chk: KeyCheck) -> None:
    """An edit of another claim's frozen weights names a claim that trains them as n-tuple
    tables (from the fresh start, for a rule that needs it)."""
    for name, e in claim.edits.items():
        key, src = f"weights.{name}.edit.from", e["from"]
        if not isinstance(src, Mapping) or "claim" not in src:
            continue
        other = claims.get(src["claim"])
        if other is None:
            chk.fail(f"{key}.claim", f"no claim {src['claim']!r} (claims: {names_of(claims)})")
        if src["weights"] not in other.weights:
            chk.fail(f"{key}.weights", f"claim {other.id} trains no {src['weights']!r} (it "
                     f"trains: {names_of(other.weights)})")
        _check_recipe(other.weights[src["weights"]]["train"], e["rule"], key,
                      f"{other.id}/{src['weights']}", chk)


@dataclass(frozen=True)
class Edit:
    """One edit of a claim as planned: its rule, what it reads (frozen tables or a pinned
    directory) and the edited tables the arms read (their directory and record)."""

    claim: str
    name: str
    rule: str
    source: Artefact | Pinned
    artefact: Artefact

    @property
    def inputs(self) -> list[str]:
        """What the job waits for: a frozen source's record and tables (a pinned directory is
        checked, hash and all, before any job)."""
        if isinstance(self.source, Artefact):
            return [self.source.record, self.source.tables]
        return []

    @property
    def outputs(self) -> dict[str, str]:
        """The edited tables, their manifest and their record."""
        from contracts.weights_dir import MANIFEST

        return {"tables": self.artefact.tables, "manifest": f"{self.artefact.dir}/{MANIFEST}",
                "record": self.artefact.record}

    def command(self) -> str:
        """The ``drop7 tables edit`` line of the job: a plain table file and its record; the
        source's hash is its frozen record's (read as the job starts) or its pin."""
        if isinstance(self.source, Artefact):
            source, check = self.source.dir, ("--source-record", self.source.record)
        else:
            source, check = self.source.path, ("--source-sha256", self.source.sha256)
        return commands.tables_edit(source, self.rule, self.artefact.dir, self.artefact.record,
                                    self.artefact.key, check)

    @property
    def seconds(self) -> float:
        """Estimated CPU seconds of the job."""
        return costs.edit_seconds(self.artefact.entries)

    @property
    def mem_mb(self) -> int:
        """Memory the job asks for."""
        return costs.edit_mem_mb(self.artefact.entries)


def plan_edits(claim: Claim, prof: ProfileSettings, claims: Mapping[str, Claim],
               paths: Paths) -> dict[str, Edit]:
    """Every edit of the claim: its source as this profile makes it and the edited tables
    (:func:`~protocol.parts.pins.plan_artefact` plans both).  A pinned source must be n-tuple
    tables (of the fresh start, for a rule that needs it), read from its manifest here."""
    out = {}
    for name, e in claim.edits.items():
        key, src = f"weights.{name}.edit.from", e["from"]
        if is_pinned(src):
            source: Artefact | Pinned = plan_pinned(claim, key, src)
            _check_pinned(claim, key, source, e["rule"])
        else:
            source = plan_artefact({"weights": src} if isinstance(src, str) else src, claim,
                                   claims, prof.profile, paths)
        edited = plan_artefact({"weights": name}, claim, claims, prof.profile, paths)
        out[name] = Edit(claim.id, name, e["rule"], source, edited)
    return out


def _check_pinned(claim: Claim, key: str, pinned: Pinned, rule: str) -> None:
    if pinned.kind != NTUPLE_FILE:
        raise DeclarationError(f"{claim.path}: key {key}.file: {pinned.path} holds a "
                               f"{pinned.kind} leaf, not n-tuple tables: an edit reads n-tuple "
                               "tables")
    from engines.pinned_leaf import locate
    from engines.weights_files import read_manifest

    if rule in NEEDS_START and read_manifest(locate(pinned.path)).get("init") is not None:
        raise DeclarationError(f"{claim.path}: key {key}.file: {pinned.path} holds tables that "
                               f"started warm (its manifest's init): rule {rule} reads the "
                               f"starting value 20/N; edit {_FRESH}")

"""A claim's leaves that read weights: frozen artefacts and pinned files.

A leaf names weights this claim trains, another claim's frozen weights
(:class:`Artefact`), or a pinned file ``{file, sha256}`` (:class:`Pinned`,
its kind and entries read cheaply; its hash checked before any job), which a
linear vector may follow with extra ``terms`` (:mod:`engines.leaves.extra_terms`).  Here
are the declaration's checks of such leaves, a per-profile pin's profile,
the plan of what an arm's or a comparator's leaf reads and the leaf as
played.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contracts.weights_dir import TABLES
from engines.learners import get_learner, learner_leaf
from engines.leaves.kinds import LeafSpec, parse_leaf
from protocol.claim import Claim, direct_weights, edit_weights, is_pinned, pinned_path, td_weights
from protocol.files import OutsideRootError
from protocol.parts.base import KeyCheck, ProfileSettings, names_of
from protocol.paths import Paths
from protocol.schema import DeclarationError


def table_entries(learner: str, layout: str | None) -> int:
    """Entries of a learner's weights (its registration's count; ``N_TERMS`` for linear)."""
    return get_learner(learner).entries(layout)


@dataclass(frozen=True)
class Artefact:
    """Frozen weights an arm reads: ``weights`` of ``claim`` (this claim or another)."""

    claim: str
    weights: str
    leaf: str  # ntuple | linear-trained
    dir: str
    record: str
    entries: int
    sha256: str | None = None  # the declaration's pin for this profile
    #: a training-free edit of tables (:mod:`protocol.parts.edits`), written by its edit job,
    #: not frozen from a training: it has no validation curve nor training health of its own
    edited: bool = False

    @property
    def key(self) -> str:
        """``claim/weights``: the artefact's name in records and reports."""
        return f"{self.claim}/{self.weights}"

    @property
    def tables(self) -> str:
        """The frozen tables file (what the arms read and the hashes check)."""
        return f"{self.dir}/{TABLES}"


@dataclass(frozen=True)
class Pinned:
    """A pinned file a claim reads (an arm's leaf, the comparator, a warm start): where the
    run reads it, the SHA-256 it must have, its leaf kind and the declaration's key."""

    path: str
    sha256: str
    kind: str  # linear-file | ntuple-file | nnue-file
    entries: int
    key: str
    terms: tuple[str, ...] = ()  # extra terms of a linear vector, in declared order

    def describe(self) -> dict[str, Any]:
        """JSON-ready, for the page, the records and the protocol hash (``terms`` only when
        declared, so a leaf without them describes itself as before)."""
        return {"file": self.path, "sha256": self.sha256, "kind": self.kind,
                **({"terms": list(self.terms)} if self.terms else {})}


def check_leaf(leaf: Any, key: str, doc: dict[str, Any], chk: KeyCheck) -> None:
    """A leaf that names weights names this claim's trained weights, or another claim's."""
    if is_pinned(leaf):
        return
    direct = direct_weights(doc)
    if isinstance(leaf, Mapping) and "claim" not in leaf and leaf["weights"] in direct:
        t = direct[leaf["weights"]]["train"]
        kind = get_learner(t["learner"])
        if kind.played_by(t) != "leaf":
            chk.fail(f"{key}.weights", f"{leaf['weights']!r} are {kind.name} weights "
                     f"({kind.produces}), not a leaf: a {kind.played_by(t)} arm plays them "
                     f"with weights: {leaf['weights']}")
        if key == "validation.comparator":
            chk.fail(f"{key}.weights", f"{leaf['weights']!r} are trained by one job without "
                     "validation: a comparator is a leaf the validation search knows")
    elif isinstance(leaf, Mapping) and "claim" not in leaf and leaf["weights"] not in {
            **td_weights(doc), **edit_weights(doc)}:
        chk.fail(f"{key}.weights", f"{leaf['weights']!r} is not trained by this claim "
                 f"(weights: {names_of(doc.get('weights', {}))}); name another claim with "
                 "claim: ID to use its frozen weights")
    if isinstance(leaf, Mapping) and leaf.get("claim") == doc["id"]:
        chk.fail(f"{key}.claim", "names this claim itself; use {weights: NAME} alone")


def named_leaves(claim: Claim) -> list[tuple[str, Mapping[str, Any]]]:
    """``(key, leaf)`` of every leaf given as a mapping: the arms' and the comparator's."""
    out = [(f"arms.{name}.leaf", arm["leaf"]) for name, arm in claim.arms.items()
           if isinstance(arm.get("leaf"), Mapping) and not is_pinned(arm["leaf"])]
    comparator = claim.doc.get("validation", {}).get("comparator")
    if isinstance(comparator, Mapping) and not is_pinned(comparator):
        out.append(("validation.comparator", comparator))
    return out


def check_pins(claims: Mapping[str, Claim], profiles: list[str]) -> None:
    """A per-profile SHA-256 pin is keyed by a profile that exists (a misspelt name would
    leave the artefact unchecked in the profile meant)."""
    for claim in claims.values():
        for key, leaf in named_leaves(claim):
            pins = leaf.get("sha256")
            for name in pins if isinstance(pins, Mapping) else ():
                if name not in profiles:
                    KeyCheck(claim.path).fail(f"{key}.sha256.{name}", f"no profile {name!r} "
                                              f"(profiles: {', '.join(profiles)}): the pin "
                                              "would never be checked")


def plan_artefact(leaf: Mapping[str, Any], claim: Claim, claims: Mapping[str, Claim],
                  profile: Mapping[str, Any], paths: Paths) -> Artefact:
    """The frozen artefact a leaf names (this claim's or another's) and its pin in
    ``profile`` (its entries those of the layout the profile trains,
    :meth:`~protocol.parts.base.ProfileSettings.layout`); a leaf naming an edit of this
    claim gives the edited tables (:mod:`protocol.parts.edits`)."""
    source = leaf.get("claim", claim.id)
    if (leaf["weights"] not in claims[source].weights
            and leaf["weights"] not in claims[source].edits):
        raise DeclarationError(f"{claim.path}: key arms.*.leaf.weights: {leaf['weights']!r} of "
                               f"claim {source} are not frozen tables validated there "
                               "(weights trained by one job are played by their own claim)")
    pin = leaf.get("sha256")
    if isinstance(pin, Mapping):
        pin = pin.get(profile["profile"])
    edit = claims[source].edits.get(leaf["weights"])
    if edit is not None:
        origin = edit["from"]
        key = f"weights.{leaf['weights']}.edit.from"
        read = (plan_pinned(claims[source], key, origin) if is_pinned(origin) else
                plan_artefact({"weights": origin} if isinstance(origin, str) else origin,
                              claims[source], claims, profile, paths))
        return Artefact(source, leaf["weights"], "ntuple",
                        paths.path("edited", claim=source, weights=leaf["weights"]),
                        paths.path("edited_record", claim=source, weights=leaf["weights"]),
                        read.entries, pin, edited=True)
    recipe = claims[source].weights[leaf["weights"]]["train"]
    layout = ProfileSettings(profile, claims[source]).layout(leaf["weights"],
                                                            recipe.get("layout"))
    return Artefact(source, leaf["weights"], learner_leaf(recipe["learner"]).kind,
                    paths.path("frozen", claim=source, weights=leaf["weights"]),
                    paths.path("frozen_record", claim=source, weights=leaf["weights"]),
                    table_entries(recipe["learner"], layout), pin)


def plan_pinned(claim: Claim, key: str, leaf: Any) -> Pinned | None:
    """A pinned file's facts read cheaply (kind and entries; the hash and the vector's length
    are checked before any job, :func:`protocol.checks.before_any_job`), or None for another
    leaf; declared ``terms`` must be registered and sit on a linear vector file."""
    if not is_pinned(leaf):
        return None
    from engines.leaves.extra_terms import TermError, check_terms
    from engines.pinned_leaf import LINEAR_FILE, PinnedError, inspect_pinned, locate

    try:
        path = pinned_path(claim, leaf["file"])
    except OutsideRootError as exc:
        raise DeclarationError(f"{claim.path}: key {key}.file: {exc}") from None
    try:
        kind, entries = inspect_pinned(path)
    except PinnedError as exc:
        raise DeclarationError(f"{claim.path}: key {key}.file: {exc}") from None
    terms: tuple[str, ...] = ()
    if "terms" in leaf:
        try:
            terms = check_terms(leaf["terms"])
        except TermError as exc:
            raise DeclarationError(f"{claim.path}: key {key}.terms: {exc}") from None
        if kind != LINEAR_FILE or locate(path).is_dir():
            raise DeclarationError(f"{claim.path}: key {key}.terms: {path} holds a {kind} "
                                   "weights directory; extra terms go on a linear vector "
                                   "file (.npy or .json)")
    return Pinned(path, leaf["sha256"], kind, entries + len(terms), key, terms)


def played_leaf(leaf: Any, artefact: Artefact | None, pinned: Pinned | None = None
                ) -> LeafSpec | None:
    """A declared leaf as played: a frozen artefact's tables, a pinned file (its kind, path
    and hash), or a leaf named by its kind."""
    if artefact is not None:
        return LeafSpec(artefact.leaf, artefact.dir)
    if pinned is not None:
        return LeafSpec(pinned.kind, pinned.path, pinned.sha256, pinned.terms)
    return parse_leaf(leaf) if leaf is not None else None

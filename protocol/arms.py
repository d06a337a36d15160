"""Arm kinds as a claim declares them (``arms.<name>.play``): each registered once.

A :class:`PlayKind` says what one kind of the engine's grammar
(:data:`engines.play.policy_grammar.ARM_KINDS`) is in a declaration: the ``play``
values that name it, the keys it takes and needs (the declaration check,
:func:`check_arm`; the schema's ``play`` enum is filled from
:data:`PLAY_KINDS` by :func:`claim_schema`), the typed spec it builds
(:func:`arm_spec`: the plan formats each spec once) and the seconds of one
decision (:func:`decision_seconds`, the cost model's).  A leaf's cost is its
kind's (:data:`engines.leaves.kinds.LEAF_KINDS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engines.filters.kf_weights import KF_WEIGHTS, TRAINED
from engines.leaves.kinds import LEAF_KINDS, LeafSpec
from engines.play.arm_specs import (
    BASELINE_NAMES,
    EXTERNAL,
    KF,
    BaselineSpec,
    ExternalSpec,
    KfSpec,
    PolicySpec,
    Q,
    QSpec,
    SearchSpec,
    parse_sampling,
)
from engines.play.policy_grammar import declared_prune, external_spec, prior_weights
from protocol import costs
from protocol.files import run_relative

#: the keys of an arm that some kinds take and others refuse (``play``, ``games`` and
#: ``note`` every arm takes), in the order a refusal is reported
KIND_KEYS = ("depth", "filter", "leaf", "reveals", "sampling", "strata", "prune", "command",
             "grace", "movetime", "options", "weights")
#: keys no arm may declare together: ``(key reported, other key, message)``
CONFLICTS = (("sampling", "reveals", "the register's sampling has no factored chance node: "
              "declare no reveals with it"),)


@dataclass(frozen=True)
class PlayKind:
    """One arm kind in a declaration.

    ``what`` names an arm of it in messages (``{play}``: the declared play);
    ``needs`` is ``(keys, key reported, message)`` of what it requires;
    ``refusals`` the message for a key it refuses when not "only <the kinds taking it>
    take(s) it"; ``spec(arm, leaf)`` builds the typed spec from the declared arm (``leaf``:
    its resolved leaf, and the profile's ``depth`` and ``strata`` in the arm);
    ``decision_seconds(spec)`` the estimated seconds of one decision.
    """

    kind: str
    plays: tuple[str, ...]
    what: str
    takes: tuple[str, ...]
    spec: Callable[[Mapping[str, Any], LeafSpec | None], PolicySpec]
    decision_seconds: Callable[[Any], float]
    needs: tuple[tuple[tuple[str, ...], str, str], ...] = ()
    refusals: dict[str, str] = field(default_factory=dict)
    #: what its ``weights`` must be: ``named`` (a name of the schema's enum) or ``pinned`` (a
    #: ``{file, sha256}``); None when it takes none or checks their forms itself (kf: a name,
    #: a pinned file or trained weights)
    weights: str | None = None


#: every arm kind a declaration may name, by its engine kind
PLAY_KINDS: dict[str, PlayKind] = {}


def register_play_kind(kind: PlayKind) -> PlayKind:
    """Add an arm kind to the declarations (once; its ``play`` values are its own)."""
    taken = {p for k in PLAY_KINDS.values() for p in k.plays}
    if kind.kind in PLAY_KINDS or taken & set(kind.plays):
        raise ValueError(f"arm kind {kind.kind!r} is registered already")
    PLAY_KINDS[kind.kind] = kind
    return kind


def play_kind(play: str) -> PlayKind:
    """The kind of a declared ``play``."""
    return next(k for k in PLAY_KINDS.values() if play in k.plays)


def _search_seconds(spec: SearchSpec) -> float:
    """A dDsS decision visits about ``2 (3.5 S)^D`` nodes, a direct one ``7 S``; a factored
    one (``M`` reveals) ``(1 + q (M - 1))`` times more per ply, ``q`` its leaf's
    :attr:`~engines.leaves.kinds.LeafKind.reveal_share`."""
    leaf = LEAF_KINDS[spec.leaf.kind]
    nodes = 7 * spec.strata if spec.name == "direct" else 2 * (3.5 * spec.strata) ** spec.depth
    if spec.reveals is not None:
        nodes *= (1 + leaf.reveal_share * (spec.reveals - 1)) ** (
            1 if spec.name == "direct" else spec.depth)
    return nodes * leaf.node_seconds


def _external_seconds(spec: ExternalSpec) -> float:
    """Its declared ``movetime``, else :data:`protocol.costs.EXTERNAL_DECISION_S`."""
    return (costs.EXTERNAL_DECISION_S if spec.movetime_ms is None
            else spec.movetime_ms / 1000)


_NO_SEARCH = {k: "{what} takes no " + k
              for k in ("depth", "filter", "leaf", "reveals", "sampling", "strata", "prune")}


def _prune(arm: Mapping[str, Any]) -> Any:
    """The declared ``prune`` of a search arm at the depth it is played (None: full width);
    a profile that searches shallower than declared prunes from ``min(from, depth)``."""
    p = arm.get("prune")
    if p is None:
        return None
    return declared_prune({**p, "from": min(p.get("from", 2), arm["depth"])}, arm["depth"])


def _sampling(arm: Mapping[str, Any]) -> int | None:
    """The register's policy seed of a declared ``sampling`` (None: our own samples)."""
    return parse_sampling(arm["sampling"]) if "sampling" in arm else None


register_play_kind(PlayKind(
    "search", ("search",), "a search arm",
    ("depth", "filter", "leaf", "reveals", "sampling", "strata", "prune"),
    lambda arm, leaf: SearchSpec("search", leaf, arm["depth"], arm["strata"],
                                 arm.get("reveals"), arm.get("filter"), _sampling(arm),
                                 _prune(arm)),
    _search_seconds,
    needs=((("leaf",), "leaf", "a search arm needs a leaf"),
           (("depth", "strata"), "depth", "a search arm needs depth and strata"))))
register_play_kind(PlayKind(
    "direct", ("direct",), "a direct arm", ("filter", "leaf", "reveals", "sampling", "strata"),
    lambda arm, leaf: SearchSpec("direct", leaf, 1, arm.get("strata", 7), arm.get("reveals"),
                                 arm.get("filter"), _sampling(arm)),
    _search_seconds,
    needs=((("leaf",), "leaf", "a direct arm needs a leaf"),),
    refusals={"depth": "a direct arm plays one ply: no depth",
              "prune": "a direct arm plays one ply: no prune (a search arm's)"}))
register_play_kind(PlayKind(
    "baseline", BASELINE_NAMES, "the {play} baseline", (),
    lambda arm, leaf: BaselineSpec(arm["play"]),
    lambda spec: costs.BASELINE_DECISION_S, refusals=_NO_SEARCH))
register_play_kind(PlayKind(
    EXTERNAL, (EXTERNAL,), "an external arm", ("command", "grace", "movetime", "options"),
    lambda arm, leaf: external_spec(arm["command"], arm.get("options"), arm.get("movetime"),
                                    arm.get("grace"), arm.get("pins")),
    _external_seconds,
    needs=((("command",), "command", "an external arm needs a command (the program and its "
            "arguments)"),),
    refusals=_NO_SEARCH))
register_play_kind(PlayKind(
    KF, (KF,), "a kf arm", ("weights",),
    lambda arm, leaf: _kf_spec(arm["weights"]),
    lambda spec: costs.BASELINE_DECISION_S,
    needs=((("weights",), "weights", "a kf arm needs weights (a named vector: "
            "engines/filters/kf_weights.py, a pinned file {file, sha256} or kf-q weights the "
            "claim trains)"),),
    refusals=_NO_SEARCH))


def _q_seconds(spec: QSpec) -> float:
    """A one-ply node's moves and leaf terms: a direct arm's decision at its strata."""
    return 7 * spec.strata * spec.reveals * LEAF_KINDS["linear"].node_seconds


register_play_kind(PlayKind(
    Q, (Q,), "a q arm", ("weights",),
    lambda arm, leaf: (QSpec(None, arm["weights"]["frozen"]) if "frozen" in arm["weights"]
                       else QSpec(arm["weights"]["sha256"],
                                  run_relative(arm["weights"]["file"]))),
    _q_seconds,
    needs=((("weights",), "weights", "a q arm needs weights: its frozen one-ply Q, pinned as "
            "{file, sha256} (docs/search.md, The one-ply Q prior), or ridge-q weights the "
            "claim trains"),),
    refusals=_NO_SEARCH))


def _kf_spec(weights: Any) -> KfSpec:
    """A kf arm's spec: a named vector, a pinned file ``{file, sha256}`` or (as planned) the
    training directory ``{trained: DIR}`` of weights the claim trains."""
    if not isinstance(weights, Mapping):
        return KfSpec(weights)
    if "trained" in weights:
        return KfSpec(None, None, weights["trained"])
    return KfSpec(None, weights["sha256"], weights["file"])


def check_arm(arm: Mapping[str, Any], fail: Callable[[str, str], None]) -> None:
    """What a declared arm's kind needs and refuses (``fail(key under the arm, message)``)."""
    kind = play_kind(arm["play"])
    what = kind.what.format(play=arm["play"])
    for keys, reported, message in kind.needs:
        if not set(keys) <= set(arm):
            fail(reported, message)
    for key in KIND_KEYS:
        if key in arm and key not in kind.takes:
            owners = [k.what for k in PLAY_KINDS.values() if key in k.takes]
            fail(key, kind.refusals.get(key, f"only {' or '.join(owners)} takes {key}")
                 .format(what=what))
    if "weights" in arm and kind.weights is not None and (
            isinstance(arm["weights"], Mapping) != (kind.weights == "pinned")):
        form = ("a pinned file {file, sha256}" if kind.weights == "pinned"
                else "a named vector")
        fail("weights", f"{what} takes {form} as its weights")
    if "sampling" in arm and "sampling" in kind.takes:
        try:
            parse_sampling(arm["sampling"])
        except ValueError as exc:
            fail("sampling", str(exc))
    if "prune" in arm and "prune" in kind.takes and "depth" in arm:
        # the weights' form (a name the claim trains: a placeholder DIR; its name is checked by
        # protocol.parts.prune_weights)
        p = {**arm["prune"], "weights": weights_text(arm["prune"])}
        try:
            declared_prune(p, arm["depth"])
        except ValueError as exc:
            sub = ("from" if "from must" in str(exc) else
                   "weights" if "weights" in str(exc) or "w must" in str(exc) else "prior")
            fail(f"prune.{sub}", str(exc))
    for key, other, message in CONFLICTS:
        if key in arm and other in arm:
            fail(key, message)


def arm_spec(arm: Mapping[str, Any], leaf: LeafSpec | None = None) -> PolicySpec:
    """The typed spec of a declared arm (``depth`` and ``strata`` as this profile plays them,
    ``leaf`` resolved to a path where it names weights)."""
    return play_kind(arm["play"]).spec(arm, leaf)


def decision_seconds(spec: PolicySpec) -> float:
    """Estimated seconds of one decision of an arm."""
    return PLAY_KINDS[spec.kind].decision_seconds(spec)


def weights_text(prune: Mapping[str, Any], trained: Callable[[str], str] | None = None
                 ) -> str | None:
    """The ``prune=PRIOR:WEIGHTS`` text of a declared prior's weights: a named vector as is,
    a pinned file ``SHA256:PATH`` (run-relative), trained weights ``trained:DIR`` with
    ``trained(name)`` their directory (None: the name itself, a placeholder for the checks of
    the declaration's form)."""
    w = prune.get("weights")
    if w is None:
        return None
    if isinstance(w, Mapping):
        return f"{w['sha256']}:{w['file']}"
    if prior_weights(prune["prior"]) == "kf" and w in KF_WEIGHTS:
        return str(w)
    return f"{TRAINED}:{trained(w) if trained else w}"

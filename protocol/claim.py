"""One validated claim declaration and what it says directly.

:class:`Claim` is a declaration after every check (``doc`` with the schema's
defaults filled in); :func:`declared_screen` and :func:`screen_arm_names`
say which games a claim plays and which arms play them, :func:`is_pinned`
and :func:`pinned_path` what a pinned leaf file is and where the run reads
it.  The checks and plans of each part of a claim are in
:mod:`protocol.parts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.sequential.design import SequentialDesign
from protocol.files import run_relative


def declared_screen(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The screen a declaration plays: its ``screen``, or for a claim with a panel and no
    screen the roots arm's games of the panel's block (``{games: roots.games, block:
    panel.block}``)."""
    if "screen" in doc:
        return doc["screen"]
    panel = doc["panel"]
    return {"games": panel["roots"]["games"], "block": panel["block"]}


def screen_arm_names(doc: Mapping[str, Any]) -> list[str]:
    """The arms that play the screen's games: every arm with a screen; without one, only the
    panel's roots arm (the others rank its roots)."""
    if "screen" in doc:
        return list(doc["arms"])
    return [doc["panel"]["roots"]["policy"]]


def _direct(w: Mapping[str, Any]) -> bool:
    from engines.learners import LEARNERS

    kind = LEARNERS.get(w["train"]["learner"])
    return kind is not None and kind.direct


def td_weights(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A declaration's trained weights the workflow validates as leaves (every learner's but
    those trained to their end by one job: :func:`direct_weights`; edits are not trained)."""
    return {n: w for n, w in doc.get("weights", {}).items() if "train" in w and not _direct(w)}


def direct_weights(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A declaration's trained weights of the learners one job trains to their end, without
    validation or gates (``frozen`` in their registration: kf-q, ridge-q, cmaes, cem,
    nnue-distil, nnue-evolve; :mod:`protocol.parts.direct_training`)."""
    return {n: w for n, w in doc.get("weights", {}).items() if "train" in w and _direct(w)}


def edit_weights(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A declaration's training-free edits of n-tuple tables: name -> ``{from, rule}``
    (:mod:`protocol.parts.edits`)."""
    return {n: w["edit"] for n, w in doc.get("weights", {}).items() if "edit" in w}


@dataclass(frozen=True)
class Claim:
    """One validated declaration (``doc`` holds the schema's defaults filled in)."""

    id: str
    path: Path
    doc: dict[str, Any]
    #: a sequential screen's design as declared (built once, by the check; None: a fixed
    #: screen)
    design: SequentialDesign | None = None

    @property
    def weights(self) -> dict[str, Any]:
        """Trained weights of the TC-TD learners (their leaves are validated in a search):
        name -> {train, select}."""
        return td_weights(self.doc)

    @property
    def edits(self) -> dict[str, Any]:
        """Training-free edits of n-tuple tables an arm plays as a leaf by name: name ->
        ``{from, rule}`` (:mod:`protocol.parts.edits`)."""
        return edit_weights(self.doc)

    @property
    def direct(self) -> dict[str, Any]:
        """Trained weights one job trains to their end (kf-q's and a weight search's of
        target kf for a kf arm, ridge-q's for a q arm, a weight search's linear vector and the
        network learners' for an arm's leaf; :mod:`protocol.parts.direct_training`)."""
        return direct_weights(self.doc)

    @property
    def arms(self) -> dict[str, Any]:
        """Screen arms: name -> declaration."""
        return self.doc["arms"]

    @property
    def contrasts(self) -> dict[str, Any]:
        """Contrasts: name -> {difference: [a, b]} or {interaction: [[a, b], [c, d]]} (none
        declared: {})."""
        return self.doc.get("contrasts", {})

    @property
    def screen(self) -> dict[str, Any]:
        """The screen's ``games`` and ``block`` (:func:`declared_screen`)."""
        return declared_screen(self.doc)

    @property
    def screen_arms(self) -> dict[str, Any]:
        """The arms that play the screen's games (:func:`screen_arm_names`): name ->
        declaration."""
        return {name: self.arms[name] for name in screen_arm_names(self.doc)}

    @property
    def panel(self) -> dict[str, Any] | None:
        """The ranking panel as declared (None: the claim has none)."""
        return self.doc.get("panel")

    @property
    def readings(self) -> dict[str, Any]:
        """Readings: name -> {kind, ...}."""
        return self.doc["readings"]

    def imports(self) -> set[tuple[str, str]]:
        """``(claim, weights)`` of every frozen artefact of another claim the arms read or a
        training starts from."""
        edited = [e["from"] for e in self.edits.values()]
        return ({(leaf["claim"], leaf["weights"]) for leaf in self.leaves() if "claim" in leaf}
                | {(i["claim"], i["weights"]) for _, i in self.warm_starts() if "claim" in i}
                | {(f["claim"], f["weights"]) for f in edited
                   if isinstance(f, Mapping) and "claim" in f})

    def warm_starts(self) -> list[tuple[str, dict[str, Any]]]:
        """``(weights, init)`` of every trained weights that starts warm."""
        return [(n, w["train"]["init"]) for n, w in self.weights.items()
                if "init" in w["train"]]

    def leaves(self) -> list[dict[str, Any]]:
        """Every leaf that names weights (trained, by TC-TD or by one job, or imported), not a
        pinned file."""
        leaves = [a.get("leaf") for a in self.arms.values()]
        if "validation" in self.doc:
            leaves.append(self.doc["validation"]["comparator"])
        return [leaf for leaf in leaves if isinstance(leaf, Mapping) and "weights" in leaf]

    def pinned_files(self) -> list[tuple[str, str, str]]:
        """``(key, path, sha256)`` of every pinned file the claim reads: its arms' and its
        comparator's leaves, its warm starts and its edits' sources (:func:`pinned_path`)."""
        out = [(f"arms.{n}.leaf", a["leaf"]) for n, a in self.arms.items()]
        if "validation" in self.doc:
            out.append(("validation.comparator", self.doc["validation"]["comparator"]))
        out += [(f"weights.{n}.train.init", w["train"].get("init"))
                for n, w in self.weights.items()]
        out += [(f"weights.{n}.edit.from", e["from"]) for n, e in self.edits.items()]
        out += [(f"weights.{n}.train.start", w["train"].get("start"))
                for n, w in self.direct.items()]
        return [(key, pinned_path(self, leaf["file"]), leaf["sha256"]) for key, leaf in out
                if is_pinned(leaf)]

    def contrast_arms(self, name: str) -> list[str]:
        """The arms of a contrast, in order (two or four)."""
        c = self.contrasts[name]
        return list(c["difference"]) if "difference" in c else [*c["interaction"][0],
                                                                  *c["interaction"][1]]


def is_pinned(leaf: Any) -> bool:
    """Whether a declared leaf (or warm start) is a pinned file ``{file, sha256}``."""
    return isinstance(leaf, Mapping) and "file" in leaf


def pinned_path(claim: Claim, file: str) -> str:
    """A pinned file's path as the run reads it and its records name it: normalised,
    relative to the run's working directory (the repository, as an external arm's command
    is; :func:`protocol.files.run_relative`, which refuses a path outside it).  The SHA-256
    beside it names what the file is wherever the run's directory lies."""
    del claim  # one place to change if paths ever become relative to the declaration
    return run_relative(file)

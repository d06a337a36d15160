"""A pruning prior's weights as a claim declares them: checked, planned, hashed before any job.

A search arm's ``prune: {prior, k, weights}`` takes its prior's weights as an arm of the
prior's kind takes them (``prior: q`` as ``play: q``, ``prior: kf`` as ``play: kf``): a named
vector (kf only), a pinned file ``{file, sha256}`` (hashed before any job, as a pinned leaf
is: :func:`check_pinned_priors`), or the name of weights the claim trains with a learner whose
weights play as that kind (ridge-q for q, kf-q for kf).  Planned (:func:`planned_prune`), the
weights become the ``prune=PRIOR:WEIGHTS`` text of the arm's policy string (``SHA256:PATH`` or
``trained:DIR``), and trained weights the arm's ``direct``, so its games and panel rows
wait for the fit and the fit's SHA-256 enters the ledger opener's hashes as a q arm's does
(:attr:`protocol.plan_model.ClaimPlan.opener_records`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.filters.kf_weights import KF_WEIGHTS
from engines.play.policy_grammar import prior_weights
from protocol.arms import weights_text
from protocol.claim import Claim, direct_weights
from protocol.files import OutsideRootError, run_relative
from protocol.parts.base import KeyCheck, names_of
from protocol.parts.direct_training import direct_files, played_as
from protocol.paths import Paths
from protocol.schema import DeclarationError


def check_prune_weights(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each pruning prior's weights named by a string: a named KF vector for ``kf``, else
    weights this claim trains whose learner plays as the prior's kind."""
    from engines.learners import get_learner

    learned = direct_weights(doc)
    for name, arm in doc["arms"].items():
        prune = arm.get("prune") or {}
        w, prior = prune.get("weights"), prune.get("prior")
        reads = prior_weights(prior)
        if not isinstance(w, str) or reads is None:
            continue  # a pinned file's form is the schema's; a prior without weights: check_arm
        if reads == "kf" and w in KF_WEIGHTS:
            continue
        mine = played_as(doc, prior)  # a prior reads what an arm of its kind plays
        key = f"arms.{name}.prune.weights"
        if w in mine:
            continue
        if w in learned:
            learner = get_learner(learned[w]["train"]["learner"])
            plays = learner.played_by(learned[w]["train"])
            chk.fail(key, f"{w!r} is trained by learner {learner.name}, whose weights a "
                     f"{plays} arm plays: a {prior} prior reads weights a {prior} arm "
                     f"plays ({names_of(mine)})")
        else:
            named = (f"neither a named vector ({', '.join(KF_WEIGHTS)}) nor "
                     if reads == "kf" else "not ")
            chk.fail(key, f"{w!r} is {named}weights this claim trains for a {prior} prior "
                     f"({names_of(mine)})")


def planned_prune(claim: Claim, name: str, paths: Paths
                  ) -> tuple[dict[str, Any], tuple[str, str] | None]:
    """A search arm's declared ``prune`` with its weights as their policy text, and the frozen
    weights and record of weights this claim trains that it reads (None: none)."""
    prune = dict(claim.arms[name]["prune"])
    w = prune.get("weights")
    if isinstance(w, Mapping):
        try:
            prune["weights"] = f"{w['sha256']}:{run_relative(w['file'])}"
        except OutsideRootError as exc:
            raise DeclarationError(f"{claim.path}: key arms.{name}.prune.weights.file: "
                                   f"{exc}") from None
        return prune, None
    if not isinstance(w, str) or w not in claim.direct:
        prune["weights"] = weights_text(prune)
        return prune, None
    weights, record = direct_files(claim, w, paths)
    # a kf prior reads the directory of its weights file (kf:w=trained:DIR), as a kf arm does;
    # a q prior the frozen weights directory itself
    kf = prior_weights(prune["prior"]) == "kf"
    where = weights.rpartition("/")[0] if kf else weights
    prune["weights"] = weights_text(prune, lambda _: where)
    return prune, (weights, record)


def check_pinned_priors(claims: Mapping[str, Claim]) -> None:
    """Refuse, in one line naming the claim's file and the key, a pruning prior's pinned
    weights that are missing, malformed or not their pin (a q prior's one-ply Q directory,
    its array hashed too; a kf prior's KF weights file)."""
    from engines.filters.kf_weights import KfHashError, KfWeightsError, read_kf_file
    from engines.filters.oneply_q_weights import read_q
    from engines.weights_files import WeightsError

    for claim in claims.values():
        for name, arm in claim.arms.items():
            prune = arm.get("prune") or {}
            pin = prune.get("weights")
            if not isinstance(pin, Mapping):
                continue
            key = f"arms.{name}.prune.weights"
            try:
                if prior_weights(prune["prior"]) == "kf":
                    read_kf_file(run_relative(pin["file"]), pin["sha256"])
                else:
                    read_q(run_relative(pin["file"]), pin["sha256"])
            except (KfWeightsError, WeightsError) as exc:
                part = ("sha256" if isinstance(exc, KfHashError) or "SHA-256" in str(exc)
                        else "file")
                raise DeclarationError(f"{claim.path}: key {key}.{part}: {exc}") from None

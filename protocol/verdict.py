"""A claim's verdict: its declared rule applied to its readings, after the methodological checks.

Verdicts: ``supported-as-tested``, ``not-supported-as-tested``, ``mixed``
and ``invalidated-by-methodological-error``.  The decision, first match wins:

1. any methodological error (illegal or unfinished decisions, screened
   weights that differ from their frozen SHA-256, a screen opened although a
   gate failed, frozen weights read although their claim's gates failed, a
   reused block, a block played again whose games differ from its first
   reading's) -> ``invalidated-by-methodological-error``;
2. the declared ``verdict.rules`` in order: a rule holds when every reading
   it names has one of the outcomes it lists;
3. otherwise the declared ``verdict.otherwise``.

The evidence tier is ``public-development`` when the profile shrank nothing
of the claim and nothing of any frozen artefact it reads (another claim's
tables: their training, and the validation that selected and gated them),
and it writes the committed ledger with every guard on; else ``pilot``; the
verdict lists what lowered it under ``tier_lowered_by``
(:attr:`protocol.plan_model.ClaimPlan.lowered_by`).  A sequential screen whose
simulated type I error exceeds the declared alpha beyond Monte Carlo error
(:func:`analysis.sequential.screen.exceeded_errors`) is ``pilot`` too, whatever
the profile, and the verdict names the rate (docs/statistics.md, "When the
simulated error rate exceeds alpha").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from analysis.readings import Reading
from analysis.report.model import Verdict
from protocol.plan_model import PILOT

SUPPORTED = "supported-as-tested"
NOT_SUPPORTED = "not-supported-as-tested"
MIXED = "mixed"
INVALIDATED = "invalidated-by-methodological-error"
VERDICTS = (SUPPORTED, NOT_SUPPORTED, MIXED, INVALIDATED)


def methodological_errors(*, integrity: Sequence[str], gate: Mapping[str, Any] | None,
                          screened: bool, reused: bool,
                          frozen: Mapping[str, Mapping[str, Any]] | None = None,
                          replayed: Sequence[str] = ()) -> list[str]:
    """Every reason the run cannot count as evidence (``frozen``: the records of the frozen
    artefacts the screen read, by key; ``replayed``: the ledger's
    :func:`protocol.ledger_readings.replay_errors`, a block played again with other games)."""
    errors = list(integrity)
    if screened and gate is not None and not gate["passed"]:
        errors.append("the screen was opened although a gate failed (" + gate["reason"] + ")")
    for key, record in sorted((frozen or {}).items()):
        if screened and not record["gates_passed"]:
            errors.append(f"the screen read {key}, frozen although its claim's gates failed")
    if reused:
        errors.append("the screen block was read before by another opener (a reuse)")
    return errors + list(replayed)


def _holds(rule: Mapping[str, Any], outcomes: Mapping[str, str]) -> bool:
    for name, wanted in rule["when"].items():
        allowed = [wanted] if isinstance(wanted, str) else list(wanted)
        if outcomes[name] not in allowed:
            return False
    return True


def _conditions(rule: Mapping[str, Any]) -> str:
    parts = []
    for name, wanted in rule["when"].items():
        allowed = [wanted] if isinstance(wanted, str) else list(wanted)
        parts.append(f"{name} is {' or '.join(allowed)}")
    return " and ".join(parts)


def decide(verdict: Mapping[str, Any], readings: Sequence[Reading], errors: Sequence[str],
           tier: str, lowered_by: Sequence[str] = (),
           exceeded: Sequence[str] = ()) -> dict[str, Any]:
    """The verdict of a claim as JSON (:class:`~analysis.report.model.Verdict`; ``verdict``:
    its declaration's ``verdict`` mapping; ``lowered_by``: what the profile shrank of the
    claim and of the artefacts it reads; ``exceeded``: the simulated error rates above
    their declared ones, which limit the tier to ``pilot``)."""
    if exceeded:
        tier, lowered_by = PILOT, [*lowered_by, *exceeded]
    outcomes = {r.name: r.outcome for r in readings}

    def decided(name: str, reason: str, rule: int | None) -> dict[str, Any]:
        return Verdict(tier=tier, tier_lowered_by=list(lowered_by), readings=list(readings),
                       outcomes=outcomes, methodological_errors=list(errors), verdict=name,
                       reason=reason, rule=rule).to_json()

    if errors:
        return decided(INVALIDATED, errors[0], None)
    for i, rule in enumerate(verdict["rules"]):
        if _holds(rule, outcomes):
            return decided(rule["then"], rule.get("because") or _conditions(rule), i)
    outcome_text = ", ".join(f"{r.name} {r.outcome}" for r in readings)
    return decided(verdict["otherwise"], f"{outcome_text}: no rule of the declaration applies",
                   None)

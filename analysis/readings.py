"""Evaluating a claim's readings: each declared reading on what its kind reads, or ``not-run``.

:func:`evaluate` looks a reading's kind up in :mod:`analysis.reading_kinds` and calls its
reader on the contrasts, validation curves, training health, arms' figures (which the
contrasts carry) or learners' curves and records that exist; a panel kind's outcome is taken
from the panel's readings file (read by :mod:`analysis.panel_report`).
Whatever a reading needs and does not exist gives ``not-run``.  The integrity
checks (illegal or unfinished decisions, a frozen hash) are not evidence but methodological errors:
:func:`integrity_errors`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from analysis.arm_figures import figures_of_arms
from analysis.contrast import FAIL
from analysis.reading_kinds import ARM, CONTRAST, CURVE, HEALTH, LEARNER, PANEL, reading_kind
from analysis.reading_result import NOT_RUN, Reading

__all__ = ["NOT_RUN", "Reading", "evaluate", "evaluate_all", "integrity_errors", "outcomes_of",
           "panel_reading"]


def panel_reading(name: str, spec: Mapping[str, Any], panel: Mapping[str, Any] | None
                  ) -> Reading:
    """A panel reading as the panel's readings file gives it (``panel``: that file's
    ``drop7-panel-readings-v1`` document), ``not-run`` when the panel was not read; a reading
    of another kind in the file is refused (it was read for another declaration)."""
    kind = spec["kind"]
    if panel is None:
        return Reading(name, kind, spec.get("title") or f"{name} ({kind})", NOT_RUN,
                       "the panel was not read (no panel readings): not run")
    got = panel.get("readings", {}).get(name)
    if got is None:
        return Reading(name, kind, spec.get("title") or f"{name} ({kind})", NOT_RUN,
                       f"the panel's readings have no {name}: not run")
    if got.get("kind") != kind or got.get("name", name) != name:
        raise ValueError(f"the panel's reading {name} is a {got.get('kind')!r} reading named "
                         f"{got.get('name')!r}; the declaration's is a {kind} reading")
    return Reading(name, kind, got["title"], got["outcome"], got["reason"],
                   dict(got.get("numbers", {})))


def evaluate(name: str, spec: Mapping[str, Any], contrasts: Mapping[str, Mapping[str, Any]],
             curves: Mapping[str, Mapping[str, Any]],
             health: Mapping[str, Mapping[str, Any]] | None = None,
             panel: Mapping[str, Any] | None = None,
             learners: Mapping[str, Mapping[str, Any]] | None = None) -> Reading:
    """One declared reading on the contrasts, curves, training health, panel readings and
    learners' curves (:func:`analysis.learner_readings.learner_sources`) that exist (else
    ``not-run``)."""
    kind = reading_kind(spec["kind"])
    if kind.source == PANEL:
        return panel_reading(name, spec, panel)
    title = spec.get("title") or f"{name} ({kind.name})"
    if kind.source == ARM:
        source, what = figures_of_arms(contrasts), "figures of arm"
    else:
        source, what = {CONTRAST: (contrasts, "contrast"), CURVE: (curves, "validation curve"),
                        HEALTH: (health or {}, "training health of"),
                        LEARNER: (learners or {}, "curve of the learner of")}[kind.source]
    names = [p for p in kind.parameters if p.role != "value"]
    missing = [spec[p.key] for p in names if spec[p.key] not in source]
    if missing:
        return Reading(name, kind.name, title, NOT_RUN,
                       f"no {what} {', '.join(missing)}: not run")
    # an optional value left out is None to the reader
    args = [spec.get(p.key) if p.role == "value" else source[spec[p.key]]
            for p in kind.parameters]
    outcome, reason, numbers = kind.reader(*args)
    return Reading(name, kind.name, title, outcome, reason, numbers)


def integrity_errors(contrasts: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Methodological errors recorded in contrasts: illegal or unfinished decisions, and
    screened weights that do not match their frozen SHA-256."""
    errors = []
    for name, c in contrasts.items():
        crit = c.get("criteria", {})
        if crit.get("decisions") == FAIL:
            errors.append(f"contrast {name}: {c.get('illegal') or 0} illegal and "
                          f"{c.get('unfinished') or 0} unfinished decisions")
        if crit.get("weights_hash") == FAIL:
            errors.append(f"contrast {name}: screened weights do not match the frozen SHA-256")
    return errors


def evaluate_all(readings: Mapping[str, Mapping[str, Any]],
                 contrasts: Mapping[str, Mapping[str, Any]],
                 curves: Mapping[str, Mapping[str, Any]],
                 health: Mapping[str, Mapping[str, Any]] | None = None,
                 panel: Mapping[str, Any] | None = None,
                 learners: Mapping[str, Mapping[str, Any]] | None = None) -> list[Reading]:
    """Every declared reading, in declaration order (``panel``: the panel's readings file,
    which gives the panel kinds' readings; None: they are ``not-run``; ``learners``: the
    learners' curves and records a learner kind reads)."""
    return [evaluate(name, spec, contrasts, curves, health, panel, learners)
            for name, spec in readings.items()]


def outcomes_of(readings: Sequence[Reading]) -> dict[str, str]:
    """``name -> outcome``."""
    return {r.name: r.outcome for r in readings}

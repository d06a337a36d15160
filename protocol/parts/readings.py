"""Readings, gates and verdict rules: their declaration's checks.

Each reading is checked by its kind (:mod:`analysis.reading_kinds`): the
keys it takes, what each names, its values, the kind's own check, and two
distinct rankers for a kind that reads their paired difference, and a figure the named
weights' learner gives for a learner kind.  A gate is a reading of a validation curve, of
training health or of a learner's curve; a verdict rule names
declared readings and outcomes their kinds can give; ``recorded`` names
declared arms, contrasts and weights, and a panel's rankers and figures.

A threshold reading declares what it reads as ``over`` (:data:`DECLARED_AS`): a
YAML 1.1 reader (PyYAML's ``yaml.safe_load``, many editors and linters) reads
a bare ``on`` key as the boolean true, so the declaration names it otherwise.
The planned declaration keeps the name ``on``, which the shipped claims'
protocol hashes were computed with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.panel_readings import figure_names
from analysis.reading_kinds import (
    LEARNER,
    OPTIONAL,
    PANEL,
    READING_KINDS,
    REQUIRED,
    gate_kinds,
)
from analysis.reading_result import NOT_RUN
from contracts.learner_figures import FIGURES, LAST
from engines.learners import get_learner
from protocol.claim import direct_weights, td_weights
from protocol.parts.base import KeyCheck, names_of
from protocol.parts.panel import ranker_names, reference_name

#: how a refusal names what each role of a reading's parameter names
_LABELS = {"contrast": ("contrast", "contrasts"), "weights": ("trained weights",
                                                              "trained weights"),
           "ranker": ("ranker", "the panel's rankers and reference"),
           "figure": ("figure", "the panel's figures"), "arm": ("arm", "arms"),
           "judge": ("ranker", "the panel's rankers and reference"),
           "learner": ("weights trained by one job", "weights trained by one job")}


def _pools(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What each role of a reading's parameter may name in this declaration."""
    panel = doc.get("panel")
    return {"contrast": doc.get("contrasts", {}), "weights": td_weights(doc),
            "ranker": [reference_name(panel), *ranker_names(panel)] if panel else [],
            "judge": [reference_name(panel), *ranker_names(panel)] if panel else [],
            "figure": list(figure_names(panel["recall"])) if panel else [],
            "arm": doc["arms"], "learner": direct_weights(doc)}


#: ``planned key -> declared key`` of a reading parameter whose planned name a YAML 1.1
#: reader misreads
DECLARED_AS = {"on": "over"}


def _declared_names(r: dict[str, Any], key: str, chk: KeyCheck) -> None:
    """A reading's :data:`DECLARED_AS` keys to their planned names; the planned name given in
    a declaration is refused."""
    for planned, declared in DECLARED_AS.items():
        if planned in r:
            chk.fail(f"{key}.{planned}", f"renamed {declared!r} (a YAML 1.1 reader reads a "
                     f"bare {planned!r} key as true): write {declared}: {r[planned]}")
        if declared in r:
            r[planned] = r.pop(declared)


def _shown(planned: str) -> str:
    """A reading parameter's key as a declaration writes it (:data:`DECLARED_AS`)."""
    return DECLARED_AS.get(planned, planned)


def _reading_keys() -> list[str]:
    """Every key some registered reading kind takes, in registration order."""
    return list(dict.fromkeys(p.key for k in READING_KINDS.values() for p in k.parameters))


def check_readings(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each reading by its kind (:mod:`analysis.reading_kinds`): its keys, what they name,
    its values, its own check, and two rankers of a paired kind distinct."""
    pools, keys = _pools(doc), _reading_keys()
    for name, r in doc["readings"].items():
        kind, key = READING_KINDS[r["kind"]], f"readings.{name}"
        _declared_names(r, key, chk)
        if kind.source == PANEL and "panel" not in doc:
            chk.fail(f"{key}.kind", f"a {kind.name} reading reads a ranking panel; this claim "
                     "declares no panel:")
        wanted = kind.keys
        optional = {p.key for p in kind.parameters if p.default is OPTIONAL}
        for p in kind.parameters:
            if p.key not in r and p.default is not REQUIRED and p.default is not OPTIONAL:
                r[p.key] = p.default
        for param in keys:
            if param in r and param not in wanted:
                chk.fail(f"{key}.{_shown(param)}", f"a {kind.name} reading takes "
                         f"{', '.join(map(_shown, wanted))}")
            if param in wanted and param not in r and param not in optional:
                chk.fail(f"{key}.{_shown(param)}", f"missing: a {kind.name} reading needs "
                         f"{', '.join(p.key for p in kind.parameters if p.default is REQUIRED)}")
        for p in [p for p in kind.parameters if p.key in r]:
            why = p.problem(r[p.key]) if p.problem else None
            if why:
                chk.fail(f"{key}.{_shown(p.key)}", why)
        for p in [p for p in kind.parameters if p.key in r]:
            pool = pools.get(p.role, ())
            if p.role != "value" and r[p.key] not in pool:
                label, plural = _LABELS[p.role]
                hint = ""
                if p.role == "figure" and str(r[p.key]).startswith("recall@"):
                    hint = (f"; recall@k for the k of panel.recall "
                            f"({', '.join(map(str, doc['panel']['recall']))})")
                chk.fail(f"{key}.{p.key}", f"no {label} {r[p.key]!r} ({plural}: "
                         f"{names_of(pool)}{hint})")
        if kind.check:
            kind.check(r, doc, lambda sub, message, key=key: chk.fail(f"{key}.{sub}", message))
        rankers = kind.of_role("ranker")
        if kind.paired and r[rankers[0].key] == r[rankers[1].key]:
            chk.fail(f"{key}.{rankers[1].key}", f"{r[rankers[1].key]!r} against itself")
        if r.get("judge") is not None and r["judge"] == r[rankers[0].key]:
            chk.fail(f"{key}.judge", f"{r['judge']!r} judged by its own values: give another "
                     "ranker (or the reference) as the judge")
        if r.get("judge") is not None:
            _check_judge(r["judge"], f"{key}.judge", doc, chk)
        if kind.source == LEARNER:
            _check_learner_figure(r, key, doc, chk)
    gates = gate_kinds()
    for i, gate in enumerate(doc["gates"]):
        if gate not in doc["readings"]:
            chk.fail(f"gates[{i}]", f"no reading {gate!r} (readings: {names_of(doc['readings'])})")
        if doc["readings"][gate]["kind"] not in gates:
            chk.fail(f"gates[{i}]", f"reading {gate!r} reads the screen; a gate must be a "
                     f"validation, health or learner reading ({', '.join(gates)})")


def _check_learner_figure(r: Mapping[str, Any], key: str, doc: Mapping[str, Any],
                          chk: KeyCheck) -> None:
    """The named weights' learner gives the figure (as declared: a figure that needs a key of
    the learner's declaration, nnue-evolve's ``reference``, only with it), and ``last`` only
    on a figure over the last generations."""
    train = doc["weights"][r["weights"]]["train"]
    learner = get_learner(train["learner"])
    gives = learner.figures_of(train)
    figure = FIGURES[r["figure"]]
    if figure.name not in gives:
        needs = (f" (it needs train.{figure.needs} in weights.{r['weights']})"
                 if figure.name in learner.figures else "")
        chk.fail(f"{key}.figure", f"{learner.name} weights {r['weights']!r} give no "
                 f"{figure.name}{needs}; they give {', '.join(gives) or 'no figure'}")
    if "last" in r and not figure.over_generations:
        chk.fail(f"{key}.last", f"{figure.name} is not read over generations: only "
                 f"{', '.join(f.name for f in FIGURES.values() if f.over_generations)} take "
                 f"last (default {LAST})")


def _check_judge(judge: str, key: str, doc: Mapping[str, Any], chk: KeyCheck) -> None:
    """A judge values every legal column at every root, as a reference does: the reference, an
    outcome ranker, or a search or direct arm that searches its root full width."""
    arm = doc["arms"].get(judge)
    if arm is None:  # the outcome reference or an outcome ranker (checked as a ranker above)
        return
    searched = arm["play"] in ("search", "direct")
    how = (" with its root pruned" if arm.get("prune", {}).get("root") == "pruned"
           else " with a root filter" if "filter" in arm else "") if searched else ""
    if not searched or how:
        chk.fail(key, f"arm {judge!r} plays {arm['play']}{how}: a judge values every legal "
                 "column, as a reference does (a search or direct arm, its root full width)")


def check_verdict(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Every rule names declared readings and outcomes their kinds can give (or
    ``not-run``)."""
    readings = doc["readings"]
    for i, rule in enumerate(doc["verdict"]["rules"]):
        for name, wanted in rule["when"].items():
            key = f"verdict.rules[{i}].when.{name}"
            if name not in readings:
                chk.fail(key, f"no reading {name!r} (readings: {names_of(readings)})")
            allowed = (*READING_KINDS[readings[name]["kind"]].outcomes, NOT_RUN)
            for outcome in [wanted] if isinstance(wanted, str) else wanted:
                if outcome not in allowed:
                    chk.fail(key, f"{outcome!r} is not an outcome of a "
                             f"{readings[name]['kind']} reading ({', '.join(allowed)})")


def check_recorded(doc: dict[str, Any], chk: KeyCheck) -> None:
    """``recorded`` names declared arms, contrasts and trained weights, and (``rankers``) the
    panel's rankers with figures of the panel, each a number or its two halves; and its source
    when it quotes any figure (a block of only a ``replay`` names its games file instead)."""
    rec = doc.get("recorded", {})
    if rec and "source" not in rec and set(rec) - {"replay"}:
        chk.fail("recorded.source", "missing: where the register's figures are quoted from")
    for part, names, label in (("arms", doc["arms"], "arm"),
                               ("contrasts", doc.get("contrasts", {}), "contrast"),
                               ("validation", td_weights(doc), "trained weights")):
        for name in rec.get(part, {}):
            if name not in names:
                chk.fail(f"recorded.{part}.{name}", f"not a declared {label} ({names_of(names)})")
    if "rankers" not in rec and "judged" not in rec:
        return
    panel = doc.get("panel")
    if panel is None:
        chk.fail("recorded.rankers" if "rankers" in rec else "recorded.judged", "the "
                 "register's figures of a panel's rankers; this claim declares no panel:")
    names = ranker_names(panel)
    judges = {r["judge"] for r in doc["readings"].values() if r.get("judge") is not None}
    for name, figs in rec.get("rankers", {}).items():
        if name not in names:
            chk.fail(f"recorded.rankers.{name}", f"not a ranker of the panel ({', '.join(names)})")
        _recorded_figures(figs, f"recorded.rankers.{name}", panel, chk)
    for judge, by in rec.get("judged", {}).items():
        if judge not in judges:
            chk.fail(f"recorded.judged.{judge}", f"no reading is judged by it (judges: "
                     f"{names_of(dict.fromkeys(sorted(judges)))})")
        for name, figs in by.items():
            if name not in [reference_name(panel), *names]:
                chk.fail(f"recorded.judged.{judge}.{name}", "not a ranker of the panel or its "
                         f"reference ({', '.join([reference_name(panel), *names])})")
            _recorded_figures(figs, f"recorded.judged.{judge}.{name}", panel, chk)


def _recorded_figures(figs: Mapping[str, Any], key: str, panel: Mapping[str, Any],
                      chk: KeyCheck) -> None:
    """Quoted figures: figures of the panel, each a number or its two halves."""
    figures = figure_names(panel["recall"])
    for figure, value in figs.items():
        if figure not in figures:
            chk.fail(f"{key}.{figure}", f"not a figure of the panel ({', '.join(figures)})")
        if isinstance(value, list) and len(value) != 2:
            chk.fail(f"{key}.{figure}", f"{value} is not a figure or its two halves")

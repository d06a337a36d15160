"""The figures a result record's ``metrics`` holds (docs/records.md, "Metrics").

The register keeps a result's numbers in ``metrics`` as named figures (its
examples: ``labelStabilityMeanSpearman``, ``modelTop1Pooled``); a reader of the
register must find there what the verdict read, without the report page.  For
each contrast of the screen: the games paired, the mean delta and both arms'
means, the bootstrap and Student-t bounds, the halves and quartiles, wins, ties
and losses, and each arm's root filter counts where it has one (how often it changed the
choice: the register's coverage); for a sequential screen its looks, bounds and decisions, the
corrected estimate with its interval and stage-wise p, and the simulated error
rates; the SHA-256 of every frozen artefact the arms read; a ranking panel's
figures per ranker, its readings and its roots (:func:`panel_metrics`, refused when they are
not the plan's panel's: :func:`check_panel`); the trained weights' figures are
:mod:`protocol.records.training`'s.  The names are the contrast JSON's
(analysis/contrast.py) and the panel figures' (analysis/panel_readings.py) in the register's
camelCase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.cli_numbers import seed_hex
from protocol.records.ids import RecordError

#: a contrast's figures in ``metrics.contrasts.<name>`` -> the contrast JSON's key
CONTRAST_FIGURES = {
    "candidate": "candidate", "baseline": "baseline", "n": "n",
    "meanCandidate": "mean_candidate", "meanBaseline": "mean_baseline",
    "meanDelta": "mean_delta", "sdDelta": "sd_delta",
    "bootstrapLower95": "bootstrap_lb", "bootstrapUpper95": "bootstrap_ub",
    "studentTLower95": "t_lb", "detectionFloor": "detection_floor", "halves": "halves",
    "q25Candidate": "q25_candidate", "q25Baseline": "q25_baseline",
    "medianCandidate": "median_candidate", "medianBaseline": "median_baseline",
    "q75Candidate": "q75_candidate", "q75Baseline": "q75_baseline",
    "lowerQuartileRegression": "quartile_regression",
    "wins": "wins", "ties": "ties", "losses": "losses",
    "bootstrapResamples": "n_bootstrap", "bootstrapSeed": "bootstrap_seed",
}
#: an arm's root filter (decisions, applied, changed, rate) -> the contrast JSON's key: only
#: where the arm has one
FILTER_FIGURES = {"filterCandidate": "filter_candidate", "filterBaseline": "filter_baseline"}
CONTRAST_FIGURES.update(FILTER_FIGURES)
#: a look of a sequential screen -> the look record's key
LOOK_FIGURES = {"look": "look", "n": "n", "meanDelta": "mean_delta", "statistic": "statistic",
                "efficacyBound": "efficacy_bound", "futilityBound": "futility_bound",
                "decision": "decision"}
#: the sequential screen's estimate at its stop -> the estimate's key
ESTIMATE_FIGURES = {"naiveMean": "naive_mean", "medianUnbiased": "median_unbiased",
                    "lower": "lower", "upper": "upper", "level": "level",
                    "stagewisePValue": "p_value"}
#: a simulated operating characteristic row -> the simulation's key
OPERATING_FIGURES = {"at": "at", "shift": "shift", "simulations": "n_sims",
                     "rejectionRate": "rejection_rate", "monteCarloSe": "mc_se",
                     "expectedGames": "expected_games", "futilityRate": "futility_rate",
                     "stopFraction": "stop_fraction",
                     "fixedSampleRejectionRate": "fixed_rejection_rate"}


def pick(source: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """``{figure: value}`` of the keys ``source`` holds (a dotted key reads into a nested
    object; a key absent at any level leaves its figure out)."""
    out = {}
    for figure, key in names.items():
        value: Any = source
        for part in key.split("."):
            if not isinstance(value, Mapping) or part not in value:
                break
            value = value[part]
        else:
            out[figure] = value
    return out


def sequential_metrics(seq: Mapping[str, Any]) -> dict[str, Any]:
    """A sequential screen's figures: design, looks, stop, estimates, simulated error rates."""
    design = seq["design"]
    est = seq.get("estimate") or {}
    return {
        "looksPlanned": list(design["looks"]), "alpha": design["alpha"],
        "spending": design["spending"], "alphaSpent": list(design["alpha_spent"]),
        "looks": [pick(x, LOOK_FIGURES) for x in seq["looks"]],
        "stopLook": seq["stop"]["look"], "decision": seq["stop"]["decision"],
        "nominalLevelAtStop": seq["level"], "bootstrapLowerAtLevel": seq["bootstrap_lb"],
        "criteria": dict(seq["criteria"]),
        "estimate": ({"error": est["error"]} if "error" in est else pick(est, ESTIMATE_FIGURES)),
        "effectForPower": seq["effect"], "effectSource": seq["effect_source"],
        "operating": [pick(r, OPERATING_FIGURES) for r in seq.get("operating", [])],
    }


def result_metrics(verdict: Mapping[str, Any], contrasts: Mapping[str, Mapping[str, Any]],
                   frozen: Mapping[str, str]) -> dict[str, Any]:
    """``metrics`` of a result: the readings' outcomes, the verdict rule that decided (numbered
    from 1 as on the report page; None when none did), the methodological errors, every
    contrast's figures (and the sequential screen's), the frozen artefacts' SHA-256."""
    rule = verdict.get("rule")
    out: dict[str, Any] = {
        "outcomes": dict(verdict.get("outcomes", {})),
        "rule": None if rule is None else int(rule) + 1,
        "methodologicalErrors": list(verdict.get("methodological_errors", [])),
        "contrasts": {name: pick(c, CONTRAST_FIGURES) for name, c in contrasts.items()},
        "frozenWeightsSha256": dict(sorted(frozen.items())),
    }
    seq = [(name, c["sequential"]) for name, c in contrasts.items() if c.get("sequential")]
    if seq:
        name, section = seq[0]
        out["sequential"] = {"contrast": name, **sequential_metrics(section)}
    return out


#: a panel figure in ``metrics.panel`` -> the figure's key (analysis.panel_bootstrap.Figure)
PANEL_FIGURE_KEYS = {"estimate": "estimate", "lower95": "lower", "upper95": "upper",
                     "halves": "halves", "roots": "roots", "games": "games"}


def panel_name(figure: str) -> str:
    """A panel figure's name in the register's camelCase (``regret_frac`` -> ``regretFrac``,
    ``recall@3`` -> ``recallAt3``)."""
    head, *rest = figure.replace("@", "_at_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def panel_metrics(readings: Mapping[str, Any], block: int) -> dict[str, Any]:
    """A ranking panel's figures for a result's ``metrics.panel``, from its readings file
    (``drop7-panel-readings-v1``): the reference and rankers, who gives values, the roots
    (their block, seeds in hex, every, cap, count, games), each ranker's figures (estimate,
    one-sided 95% bounds, halves, roots, games; ``None`` estimate: the ranker lacks it), the
    differences of paired readings, the panel readings' outcomes and reasons, the
    bootstrap's resamples and seed, the panel table's SHA-256, the conventions every figure
    is read under (analysis.panel_conventions; absent from a readings file written before
    they were declared) and the rankers' faults when there are some (:func:`panel_faults`)."""
    def figure(f: Mapping[str, Any]) -> dict[str, Any]:
        return {out: (list(f[key]) if key == "halves" else f[key])
                for out, key in PANEL_FIGURE_KEYS.items()}

    roots = readings["roots"]
    start, count = (int(x) for x in roots["seeds"])
    first = next((f for figs in readings["figures"].values() for f in figs.values()), {})
    return {
        "reference": readings["reference"], "rankers": list(readings["rankers"]),
        "givesValues": dict(readings["values"]), "work": readings["work"],
        "recall": list(readings["recall"]),
        "roots": {"block": block, "policy": roots["policy"],
                  "rangeStartHex": seed_hex(start), "rangeEndExclusiveHex": seed_hex(start + count),
                  "games": roots["games"], "every": roots["every"], "limit": roots["limit"],
                  "count": roots["count"]},
        "figures": {ranker: {panel_name(name): figure(f) for name, f in figs.items()}
                    for ranker, figs in readings["figures"].items()},
        "differences": {name: figure(f) for name, f in readings.get("differences", {}).items()},
        "readings": {name: {"kind": r["kind"], "outcome": r["outcome"], "reason": r["reason"]}
                     for name, r in readings["readings"].items()},
        "bootstrapResamples": first.get("n_resamples"), "bootstrapSeed": first.get("seed"),
        "tableSha256": readings["table_sha256"],
        **({"conventions": readings["conventions"]} if "conventions" in readings else {}),
        **panel_faults(readings),
    }


def panel_faults(readings: Mapping[str, Any]) -> dict[str, Any]:
    """``{"rankerFaults": {ranker: {"illegal": n, "unfinished": n}}}`` when the panel's readings
    file counts faults (analysis.panel_faults.ranker_faults), else nothing: a record of a
    panel without faults is the same as before they were recorded."""
    faults = readings.get("faults") or {}
    return {"rankerFaults": {name: dict(c) for name, c in faults.items()}} if faults else {}


def check_panel(plan: Mapping[str, Any], panel: Mapping[str, Any] | None,
                screened: bool) -> None:
    """Refuse panel figures that are not this claim's panel's: figures without a panel,
    none for a panel whose block was opened, another reference, other rankers, roots from
    other seeds than the planned ones."""
    planned = plan.get("panel")
    if planned is None:
        if panel is not None:
            raise RecordError(f"claim {plan['id']}: panel figures given, but the claim has no "
                              "panel")
        return
    if panel is None:
        if screened:
            raise RecordError(f"claim {plan['id']}: its block was opened but no panel readings "
                              "were given to the records")
        return
    for key, read in (("reference", str), ("rankers", list)):
        if read(panel[key]) != read(planned[key]):  # the plan's may hold a tuple
            raise RecordError(f"claim {plan['id']}: the panel readings' {key} {panel[key]!r} "
                              f"is not the plan's {read(planned[key])!r}")
    start, count = (int(x) for x in planned["seeds"])
    roots = panel["roots"]
    if (roots["rangeStartHex"], roots["rangeEndExclusiveHex"]) != (
            seed_hex(start), seed_hex(start + count)):
        raise RecordError(f"claim {plan['id']}: the panel's roots come from seeds "
                          f"{roots['rangeStartHex']} to {roots['rangeEndExclusiveHex']}, the "
                          f"plan's are {seed_hex(start)}:{count}")

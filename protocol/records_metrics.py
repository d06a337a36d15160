"""The figures a result record's ``metrics`` holds (docs/records.md, "Metrics").

The register keeps a result's numbers in ``metrics`` as named figures (its
examples: ``labelStabilityMeanSpearman``, ``modelTop1Pooled``); a reader of the
register must find there what the verdict read, without the report page.  For
each contrast of the screen: the games paired, the mean delta and both arms'
means, the bootstrap and Student-t bounds, the halves and quartiles, wins, ties
and losses; for a sequential screen its looks, bounds and decisions, the
corrected estimate with its interval and stage-wise p, and the simulated error
rates; the SHA-256 of every frozen artefact the arms read.  The names are the
contrast JSON's (analysis/contrast.py) in the register's camelCase.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


def _pick(source: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {out: source[key] for out, key in names.items() if key in source}


def sequential_metrics(seq: Mapping[str, Any]) -> dict[str, Any]:
    """A sequential screen's figures: design, looks, stop, estimates, simulated error rates."""
    design = seq["design"]
    est = seq.get("estimate") or {}
    return {
        "looksPlanned": list(design["looks"]), "alpha": design["alpha"],
        "spending": design["spending"], "alphaSpent": list(design["alpha_spent"]),
        "looks": [_pick(x, LOOK_FIGURES) for x in seq["looks"]],
        "stopLook": seq["stop"]["look"], "decision": seq["stop"]["decision"],
        "nominalLevelAtStop": seq["level"], "bootstrapLowerAtLevel": seq["bootstrap_lb"],
        "criteria": dict(seq["criteria"]),
        "estimate": ({"error": est["error"]} if "error" in est else _pick(est, ESTIMATE_FIGURES)),
        "effectForPower": seq["effect"], "effectSource": seq["effect_source"],
        "operating": [_pick(r, OPERATING_FIGURES) for r in seq.get("operating", [])],
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
        "contrasts": {name: _pick(c, CONTRAST_FIGURES) for name, c in contrasts.items()},
        "frozenWeightsSha256": dict(sorted(frozen.items())),
    }
    seq = [(name, c["sequential"]) for name, c in contrasts.items() if c.get("sequential")]
    if seq:
        name, section = seq[0]
        out["sequential"] = {"contrast": name, **sequential_metrics(section)}
    return out

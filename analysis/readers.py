"""What each reading kind of a screen or a training concludes: one reader a kind.

A reader takes the statistics the harness already computed (a contrast's
JSON from :mod:`analysis.contrast`, a validation curve's points, a training's
health from :mod:`analysis.health`) and gives an *outcome*, a one-line reason
whose figures carry the contrast's unit and are printed at its metric's precision
(:func:`analysis.metrics.figure_text`: whole points, moves to two decimals, a per-move
rate to four) and its numbers.  Which kind a reader serves, its outcomes
and its keys are registered once, in :mod:`analysis.reading_kinds`:

``screen`` (pass / fail)
    the four-part pass of a difference contrast: bootstrap 95% LB > 0,
    Student-t 95% LB > 0, both halves > 0, no lower-quartile regression; for a
    sequential screen, at its stopping look: the efficacy bound crossed, the
    bootstrap LB at the look's level > 0, both halves > 0, no lower-quartile
    regression.  The integrity checks (illegal or unfinished decisions, frozen
    hash) are not evidence but methodological errors
    (:func:`analysis.readings.integrity_errors`).
``upper-below-zero`` (refuted / not-refuted)
    the bootstrap 95% upper bound is below 0.
``lower-above-zero`` (pass / fail)
    the bootstrap 95% lower bound is above 0.
``three-way`` (supported / refuted / inconclusive)
    supported when both lower bounds are above 0, refuted when the bootstrap
    upper bound is below 0, otherwise inconclusive; the reason gives the
    detection floor, so "could not measure" is never read as "refuted".
``passes-while-not`` (pass / fail)
    a conditional diagnostic: fails when ``contrast`` passes the screen while
    ``while_not`` does not.
``non-inferior`` (pass / fail)
    the bootstrap 95% lower bound is above the declared ``margin`` (finite,
    below 0, in the contrast's units): the candidate loses no more than the
    margin.
``arm-at-most`` / ``arm-at-least`` (pass / fail)
    an arm's own figure (``figure``: ``mean``, ``median``, ``q25``, ``q75`` or ``moves``,
    :mod:`analysis.arm_figures`) is at most / at least ``threshold``: by default its one-sided
    95% bootstrap bound (the upper for at-most, the lower for at-least; a mean's only), or
    (``on``) its estimate, or its value in both halves of the seeds.
``margin-positive`` (pass / fail)
    some validation point of ``weights`` has a positive margin over the
    comparator (the training-signal gate).
``margin-below`` (pass / fail)
    at the same training budget (points up to the last step of ``weights``),
    the best margin of ``weights`` stays below the best of ``reference``.
``training-health`` (pass / fail)
    the training of ``weights`` was sound: no checkpoint plays worse than
    random one ply, and none falls by more than its interval from the one
    before (:mod:`analysis.health`).

A ranking panel's kinds are read by :mod:`analysis.panel_readings`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from analysis.arm_figures import ARM_FIGURES
from analysis.contrast import SCREEN_CRITERIA
from analysis.metrics import DEFAULT_METRIC, figure_text, unit_of
from analysis.panel_criteria import ON


def margin_problem(margin: float) -> str | None:
    """Why ``margin`` cannot be a non-inferiority margin (None when it can): it must be a
    finite number below 0.  0 would be ``lower-above-zero`` (superiority), and a positive
    margin a claim of superiority by that much, which is not what the kind says."""
    if not math.isfinite(margin):
        return f"{margin} is not a finite number"
    if margin >= 0:
        return (f"{margin:,} is not below 0: a non-inferiority margin is the largest loss "
                "accepted (for a bound above 0, read the contrast with lower-above-zero)")
    return None


def loss_margin_problem(margin: float) -> str | None:
    """Why ``margin`` cannot be a panel non-inferiority margin (None when it can): a finite
    number above 0, the largest loss accepted in the figure's units (the register writes its
    criteria so: "top-1 >= D4's - 0.02", "regret <= D4's + 0.02"); the sign of the loss
    follows the figure, so the margin carries none.  0 would be ``ranker-beats``."""
    problem = threshold_problem(margin)
    if problem:
        return problem
    return None if margin > 0 else (f"{margin} is not above 0: the margin is the largest loss "
                                    "accepted, in the figure's units (for a difference above "
                                    "0, read ranker-beats)")


def threshold_problem(threshold: float) -> str | None:
    """Why ``threshold`` cannot be a panel reading's threshold (None when it can): it must be
    a finite number."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        return f"{threshold!r} is not a number"
    return None if math.isfinite(threshold) else f"{threshold} is not a finite number"


def rate_problem(rate: float) -> str | None:
    """Why ``rate`` cannot be a share of decisions (None when it can): a number in 0..1."""
    problem = threshold_problem(rate)
    return problem or (None if 0 <= rate <= 1 else f"{rate} is not a share in 0..1")


def read_filter_rate(c: Mapping[str, Any], threshold: float) -> tuple[str, str, dict[str, Any]]:
    """Passes when the candidate arm's root filter changed the choice at a share of its
    decisions at least ``threshold`` (the register's coverage bar)."""
    f = c.get("filter_candidate")
    if f is None:
        return "fail", f"{c['candidate']} has no root filter counts", {}
    numbers = {"rate": f["rate"], "changed": f["changed"], "applied": f["applied"],
               "decisions": f["decisions"], "threshold": threshold}
    said = (f"{c['candidate']}'s filter changed the choice at {f['changed']:,} of "
            f"{f['decisions']:,} decisions ({f['rate']:.2%}; refused a column at "
            f"{f['applied']:,})")
    if f["rate"] >= threshold:
        return "pass", f"{said} >= {threshold:.2%}", numbers
    return "fail", f"{said} < {threshold:.2%}", numbers


def on_problem(on: str) -> str | None:
    """Why ``on`` is not what a threshold reading compares (None when it is one of
    :data:`analysis.panel_criteria.ON`)."""
    return None if on in ON else f"unknown {on!r} (one of {', '.join(ON)})"


def _f(x: float | None, c: Mapping[str, Any] | None = None) -> str:
    """A signed figure in the units of contrast ``c``'s metric (None: points, whole)."""
    return figure_text(x, (c or {}).get("metric", DEFAULT_METRIC), signed=True)


def _unit(c: Mapping[str, Any]) -> str:
    """The unit of a contrast's statistics (points, moves, or a per-move rate's)."""
    return unit_of(c.get("metric", DEFAULT_METRIC))


def _stats(c: Mapping[str, Any]) -> str:
    """The contrast's figures; prefixed by its metric when it is not the default score."""
    metric = c.get("metric", DEFAULT_METRIC)
    where = "" if metric == DEFAULT_METRIC else f"{metric}: "
    return (f"{where}n {c['n']}, mean delta {_f(c['mean_delta'], c)}, "
            f"bootstrap LB {_f(c['bootstrap_lb'], c)}, UB {_f(c['bootstrap_ub'], c)}, "
            f"t LB {_f(c['t_lb'], c)}")


def screen_failures(c: Mapping[str, Any]) -> list[str]:
    """The statistical criteria a contrast failed (integrity checks are not evidence); a
    sequential screen's at its stopping look."""
    if c.get("sequential"):
        return list(c["sequential"]["failed"])
    return [k for k in c.get("failed", []) if k in SCREEN_CRITERIA]


def _numbers(c: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("n", "mean_delta", "bootstrap_lb", "bootstrap_ub", "t_lb", "detection_floor")
    return {k: c.get(k) for k in keys}


def _read_sequential(c: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    seq = c["sequential"]
    stop, numbers = seq["stop"], {**_numbers(c), "look": seq["stop"]["look"],
                                  "level": seq["level"]}
    t = "-" if stop["statistic"] is None else f"{stop['statistic']:.2f}"
    bound = "-" if stop["efficacy_bound"] is None else f"{stop['efficacy_bound']:.2f}"
    where = (f"look {stop['look']} of {len(seq['design']['looks'])} ({stop['decision']}): "
             f"t {t}, efficacy bound {bound}, one-sided level {seq['level']:.4f}; {_stats(c)}")
    failures = screen_failures(c)
    if failures:
        return "fail", f"failed {', '.join(failures)} at {where}", numbers
    return "pass", f"efficacy bound crossed and the other criteria hold at {where}", numbers


def read_screen(c: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The four-part screen; a sequential screen's at its stopping look (the efficacy bound
    crossed, the bootstrap LB at the look's level above 0, both halves above 0, no
    lower-quartile regression: :mod:`analysis.sequential.screen`)."""
    if c.get("sequential"):
        return _read_sequential(c)
    failures = screen_failures(c)
    if failures:
        return "fail", f"failed {', '.join(failures)} ({_stats(c)})", _numbers(c)
    return "pass", f"all four screen criteria pass ({_stats(c)})", _numbers(c)


def read_upper_below_zero(c: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """Refuted when the bootstrap upper bound is below 0."""
    if c["bootstrap_ub"] < 0:
        return "refuted", f"bootstrap UB {_f(c['bootstrap_ub'], c)} < 0 ({_stats(c)})", _numbers(c)
    return "not-refuted", f"bootstrap UB {_f(c['bootstrap_ub'], c)} >= 0", _numbers(c)


def read_lower_above_zero(c: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """Passes when the bootstrap lower bound is above 0."""
    if c["bootstrap_lb"] > 0:
        return "pass", f"bootstrap LB {_f(c['bootstrap_lb'], c)} > 0 ({_stats(c)})", _numbers(c)
    return "fail", f"bootstrap LB {_f(c['bootstrap_lb'], c)} <= 0 ({_stats(c)})", _numbers(c)


def read_three_way(c: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """Supported / refuted / inconclusive, with the detection floor."""
    floor = f"detection floor {figure_text(c['detection_floor'], c.get('metric', DEFAULT_METRIC))}"
    if c["bootstrap_lb"] > 0 and c["t_lb"] > 0:
        return "supported", f"both lower bounds above 0 ({_stats(c)}; {floor})", _numbers(c)
    if c["bootstrap_ub"] < 0:
        return "refuted", f"bootstrap UB below 0 ({_stats(c)}; {floor})", _numbers(c)
    return ("inconclusive", f"the bounds straddle 0: this screen cannot tell a difference "
            f"smaller than its {floor} ({_stats(c)})", _numbers(c))


def read_passes_while_not(c: Mapping[str, Any], other: Mapping[str, Any]
                          ) -> tuple[str, str, dict[str, Any]]:
    """Fails when ``c`` passes the screen while ``other`` does not."""
    c_passes, other_passes = not screen_failures(c), not screen_failures(other)
    arms = f"{c['candidate']} vs {c['baseline']}"
    what = f"{arms}: mean delta {_f(c['mean_delta'], c)}"
    if c_passes and not other_passes:
        return "fail", f"{what} passes while {other['candidate']} does not", _numbers(c)
    if c_passes:
        return "pass", f"{what} passes, and so does {other['candidate']}", _numbers(c)
    return "pass", f"{what} does not pass (failed {', '.join(screen_failures(c))})", _numbers(c)


def read_non_inferior(c: Mapping[str, Any], margin: float) -> tuple[str, str, dict[str, Any]]:
    """Passes when the bootstrap lower bound is above the declared ``margin`` (below 0): the
    candidate loses no more than the margin."""
    numbers = {**_numbers(c), "margin": margin}
    bound = f"bootstrap LB {_f(c['bootstrap_lb'], c)} {{}} margin {_f(margin, c)} {_unit(c)}"
    if c["bootstrap_lb"] > margin:
        return "pass", f"{bound.format('>')}: non-inferior ({_stats(c)})", numbers
    return "fail", f"{bound.format('<=')}: not shown non-inferior ({_stats(c)})", numbers


def read_arm_threshold(at_least: bool, figs: Mapping[str, Any], figure: str,
                       threshold: float, on: str) -> tuple[str, str, dict[str, Any]]:
    """An arm's figure against ``threshold`` (``at_least``: it must be at least, else at most),
    on its bound, estimate or both halves (``on``); ``figs``: the arm's figures
    (:func:`analysis.arm_figures.figures_of_arms`)."""
    metric, arm = ARM_FIGURES[figure][0], figs["arm"]
    if figure not in figs:
        return "not-run", f"{arm} has no {figure} (its games table has no {metric}): not run", {}
    fig = figs[figure]
    if on == "halves":
        got, what = list(fig["halves"]), "both halves"
    elif on == "bound":
        got = [fig["lower" if at_least else "upper"]]
        what = "the 95% bootstrap lower bound" if at_least else "the 95% bootstrap upper bound"
    else:
        got, what = [fig["estimate"]], "the estimate"
    ok = all(x >= threshold if at_least else x <= threshold for x in got)
    sign = ">=" if at_least else "<="
    numbers = {"arm": arm, "figure": figure, "threshold": threshold, "on": on, "n": figs["n"],
               "contrast": figs["contrast"], **fig}

    def f(x: float) -> str:
        return figure_text(x, metric)

    bounds = f", bound {f(fig['lower'])} to {f(fig['upper'])}" if "lower" in fig else ""
    reason = (f"{arm} {figure}: {what} {' / '.join(map(f, got))} {'' if ok else 'not '}{sign} "
              f"{f(threshold)} {unit_of(metric)} (estimate {f(fig['estimate'])}{bounds}, halves "
              f"{' / '.join(map(f, fig['halves']))}, over {figs['n']} games of contrast "
              f"{figs['contrast']})")
    return ("pass" if ok else "fail"), reason, numbers


def _margins(curve: Mapping[str, Any], budget: int | None = None) -> list[tuple[int, float]]:
    return [(int(p["step"]), float(p["margin"])) for p in curve["points"]
            if budget is None or int(p["step"]) <= budget]


def read_margin_positive(curve: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """Some validation point has a positive margin."""
    points = _margins(curve)
    positive = [s for s, m in points if m > 0]
    best_step, best = max(points, key=lambda p: (p[1], p[0]))
    numbers = {"points": len(points), "positive": len(positive), "best_margin": best,
               "best_step": best_step}
    if positive:
        return ("pass", f"validation margin positive at {len(positive)} of {len(points)} points "
                f"(best {_f(best)} at {best_step:,} moves)", numbers)
    return ("fail", f"no validation point of {curve['weights']} beat the comparator (best "
            f"{_f(best)} over {len(points)} points)", numbers)


def read_margin_below(curve: Mapping[str, Any], reference: Mapping[str, Any]
                      ) -> tuple[str, str, dict[str, Any]]:
    """The best margin of ``curve`` stays below the reference's at the same budget."""
    mine = _margins(curve)
    budget = max(s for s, _ in mine)
    theirs = _margins(reference, budget)
    if not theirs:
        raise ValueError(f"{reference['weights']} has no validation point at or below "
                         f"{budget:,} moves, the budget of {curve['weights']}")
    best, best_ref = max(m for _, m in mine), max(m for _, m in theirs)
    numbers = {"budget": budget, "best_margin": best, "reference_best_margin": best_ref}
    text = (f"at {budget:,} moves: {curve['weights']} best {_f(best)} vs "
            f"{reference['weights']} best {_f(best_ref)}")
    if best >= best_ref:
        return "fail", f"{text}: as large or larger", numbers
    return "pass", f"{text}: below", numbers


def read_training_health(health: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """Every checkpoint one ply significantly above the better of the untrained start and
    random play, and no fall beyond its interval."""
    points = health["points"]
    last = points[-1]
    numbers = {"checkpoints": len(points), "games": health["games"],
               "no_lead": [p["step"] for p in points if p["no_lead"]],
               "worse_than_random": [p["step"] for p in points if p["worse_than_random"]],
               "falls": [p["step"] for p in points if p["fell"]],
               "last_one_ply_mean": last["one_ply_mean"], "last_random_mean": last["random_mean"]}
    if health["problems"]:
        return "fail", "; ".join(health["problems"]), numbers
    low = min(points, key=lambda p: p["lead_lb"])
    many = "s" if len(points) != 1 else ""
    return ("pass", f"{len(points)} checkpoint{many} one ply on {health['games']} games: every one "
            "significantly above the untrained start and random (least lead "
            f"{low['lead']:+,.0f}, 95% interval from {low['lead_lb']:+,.0f}, at {low['step']:,} "
            "moves), no fall beyond its interval", numbers)

"""Panel criteria: a figure against a declared threshold, one ranker against another.

The readers of the panel reading kinds (:mod:`analysis.reading_kinds`): a figure (its
estimate, a bound or both halves) at least or at most a threshold, a ranker's paired
difference from another's above zero, or above minus a margin.  Each returns a
:class:`~analysis.reading_result.Reading`; a figure with no roots is ``not-run``.
"""

from __future__ import annotations

from analysis.panel_bootstrap import Figure
from analysis.reading_result import Reading

#: figures where lower is better (``ranker-beats`` and ``ranker-non-inferior`` read their
#: difference's upper bound)
LOWER_IS_BETTER = ("regret", "regret_frac", "work", "work_ratio")
#: what each kind compares: ``on`` is ``estimate``, ``bound`` (the lower bound for at-least,
#: the upper for at-most) or ``halves`` (both halves)
ON = ("estimate", "bound", "halves")


def read_threshold(name: str, kind: str, ranker: str, figure_name: str, fig: Figure,
                   threshold: float, on: str = "bound", title: str | None = None) -> Reading:
    """``figure-at-least`` passes when the figure (``on``: its estimate, its lower bound, or
    both halves) is at least ``threshold``; ``figure-at-most`` when it (its upper bound) is
    at most.  A figure with no roots is ``not-run``."""
    if kind not in ("figure-at-least", "figure-at-most"):
        raise ValueError(f"{kind!r} is not a threshold reading kind (expected figure-at-least "
                         "or figure-at-most)")
    if on not in ON:
        raise ValueError(f"on must be one of {', '.join(ON)}, got {on!r}")
    title = title or f"{name} ({kind})"
    if fig.estimate is None:
        return Reading(name, kind, title, "not-run", f"{ranker} has no {figure_name} on this "
                       "panel (it gives no values, or reports no work)")
    at_least = kind == "figure-at-least"
    if on == "halves":
        got = list(fig.halves)
        what = "both halves"
    elif on == "bound":
        got = [fig.lower if at_least else fig.upper]
        what = "the 95% lower bound" if at_least else "the 95% upper bound"
    else:
        got = [fig.estimate]
        what = "the estimate"
    ok = all(x is not None and (x >= threshold if at_least else x <= threshold) for x in got)
    sign = ">=" if at_least else "<="
    shown = ", ".join("-" if x is None else f"{x:.4g}" for x in got)
    numbers = {"ranker": ranker, "figure": figure_name, "threshold": threshold, "on": on,
               **fig.to_dict()}
    reason = (f"{ranker} {figure_name}: {what} {shown} {'' if ok else 'not '}{sign} "
              f"{threshold:g} (estimate {fig.estimate:.4g} over {fig.roots} roots of "
              f"{fig.games} games)")
    return Reading(name, kind, title, "pass" if ok else "fail", reason, numbers)



def read_beats(name: str, ranker: str, other: str, figure_name: str, diff: Figure,
               title: str | None = None) -> Reading:
    """``ranker-beats``: passes when ``ranker``'s figure minus ``other``'s (:func:`difference`,
    paired by root, resampled by game) has its 95% lower bound above 0, or for a figure
    where lower is better (:data:`LOWER_IS_BETTER`) its upper bound below 0."""
    kind = "ranker-beats"
    title = title or f"{name} ({kind})"
    if diff.estimate is None:
        return Reading(name, kind, title, "not-run", f"{ranker} or {other} has no "
                       f"{figure_name} on this panel")
    lower_better = figure_name in LOWER_IS_BETTER
    ok = diff.upper < 0 if lower_better else diff.lower > 0
    bound, sign = (("upper", "<") if lower_better else ("lower", ">"))
    value = diff.upper if lower_better else diff.lower
    numbers = {"ranker": ranker, "other": other, "figure": figure_name, **diff.to_dict()}
    reason = (f"{ranker} - {other} {figure_name}: difference {diff.estimate:+.4g}, 95% "
              f"{bound} bound {value:+.4g} {sign if ok else 'not ' + sign} 0 (paired over "
              f"{diff.roots} roots of {diff.games} games)")
    return Reading(name, kind, title, "pass" if ok else "fail", reason, numbers)


def read_non_inferior(name: str, ranker: str, other: str, figure_name: str, diff: Figure,
                      margin: float, on: str = "bound", title: str | None = None) -> Reading:
    """``ranker-non-inferior``: passes when ``ranker`` loses at most ``margin`` (a loss, above
    0, in the figure's units) of ``other``'s figure: the paired difference ``ranker - other``
    (:func:`difference`) has its 95% lower bound above ``-margin`` (``on: bound``), or both
    halves (``halves``, the register's "on each held-out half-fold") or the estimate
    (``estimate``) at least ``-margin``; mirrored for a figure where lower is better (the upper
    bound below ``+margin``, halves or estimate at most ``+margin``)."""
    kind = "ranker-non-inferior"
    title = title or f"{name} ({kind})"
    if on not in ON:
        raise ValueError(f"on must be one of {', '.join(ON)}, got {on!r}")
    if diff.estimate is None:
        return Reading(name, kind, title, "not-run", f"{ranker} or {other} has no "
                       f"{figure_name} on this panel")
    lower_better = figure_name in LOWER_IS_BETTER
    limit = margin if lower_better else -margin
    if on == "bound":
        got = [diff.upper if lower_better else diff.lower]
        what = f"95% {'upper' if lower_better else 'lower'} bound"
        sign = "<" if lower_better else ">"
    else:
        got = list(diff.halves) if on == "halves" else [diff.estimate]
        what = "both halves" if on == "halves" else "the estimate"
        sign = "<=" if lower_better else ">="
    holds = {"<": lambda x: x < limit, ">": lambda x: x > limit,
             "<=": lambda x: x <= limit, ">=": lambda x: x >= limit}[sign]
    ok = all(x is not None and holds(x) for x in got)
    shown = ", ".join("-" if x is None else f"{x:+.4g}" for x in got)
    numbers = {"ranker": ranker, "other": other, "figure": figure_name, "margin": margin,
               "on": on, **diff.to_dict()}
    reason = (f"{ranker} - {other} {figure_name}: difference {diff.estimate:+.4g}, {what} "
              f"{shown} {sign if ok else 'not ' + sign} {limit:+g} (margin {margin:g}; paired "
              f"over {diff.roots} roots of {diff.games} games)")
    return Reading(name, kind, title, "pass" if ok else "fail", reason, numbers)

"""Synthetic panel tables for the panel tests."""

from __future__ import annotations

import math

import numpy as np

from analysis.panel_readings import ranking_order
from contracts.panel_table import VALUE_COLUMNS


def make_rows(games=12, roots=8, seed=3, noise=1.0, ties=False, legal_p=0.8):
    """A synthetic panel: reference values, a noisy ranker, a random ranker, a choice-only
    ranker (its choice is the noisy one's) and the reference itself as a ranker."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(games):
        game = 1000 + 7 * g
        for r in range(roots):
            legal = rng.random(7) < legal_p
            legal[rng.integers(7)] = True
            ref = rng.normal(0, 1000, 7)
            if ties:
                ref = np.round(ref / 1000) * 1000
            ref[~legal] = np.nan
            noisy = ref + rng.normal(0, 1000 * noise, 7)
            rand = np.where(legal, rng.random(7), np.nan)
            for name, v, work in (("ref", ref, 5000), ("noisy", noisy, 100),
                                  ("random", rand, 0)):
                order = ranking_order(v)
                rows.append(row(game, r, name, order[0], work, v))
            rows.append(row(game, r, "choice-only", ranking_order(noisy)[0], "", None))
    return rows


def row(game, root, ranker, choice, work, values):
    out = {"game": str(game), "root": str(root), "ranker": ranker, "choice": str(choice),
           "work": str(work)}
    for c, key in enumerate(VALUE_COLUMNS):
        out[key] = "" if values is None or math.isnan(values[c]) else repr(float(values[c]))
    return out


def readings_doc(rows=None, reference="ref", rankers=("noisy", "random", "choice-only"),
                 declared=None, n_resamples=200, recall=(2, 3), conventions="harness",
                 side=True):
    """A panel's readings file (``drop7-panel-readings-v1``, docs/panels.md) computed from a
    synthetic panel with the panel readings' own functions: every ranker's figures, the
    reference's against itself, the differences and readings declared, the agreement and
    three roots shown (from different games, boards drawn from the game seed); every figure
    under ``conventions``, and with ``side`` the same under the other convention."""
    from analysis.panel_conventions import other
    from analysis.panel_criteria import read_beats, read_threshold
    from analysis.panel_readings import choice_agreement, difference, panel_roots, read_ranker

    rows = make_rows(games=8, roots=5) if rows is None else rows
    declared = DECLARED if declared is None else declared
    roots = {name: panel_roots(rows, reference, name) for name in (reference, *rankers)}
    figures = {name: read_ranker(roots[name], recall, n_resamples, conventions=conventions)
               for name in roots}
    readings, differences = {}, {}
    for name, d in declared.items():
        if d["kind"] == "ranker-beats":
            diff = difference(roots[d["ranker"]], roots[d["other"]], d["figure"], recall,
                              n_resamples, conventions=conventions)
            differences[name] = diff.to_dict()
            readings[name] = read_beats(name, d["ranker"], d["other"], d["figure"], diff)
        else:
            readings[name] = read_threshold(name, d["kind"], d["ranker"], d["figure"],
                                            figures[d["ranker"]][d["figure"]], d["threshold"],
                                            d.get("on", "bound"))
    names = [reference, *rankers]
    keys = sorted({(int(r["game"]), int(r["root"])) for r in rows})
    shown, games = [], set()
    for game, root in keys:
        if game in games or len(shown) == 3:
            continue
        games.add(game)
        at = {r["ranker"]: r for r in rows if (int(r["game"]), int(r["root"])) == (game, root)}
        rng = np.random.default_rng(game)
        board = ["".join(".1234567#+"[k] for k in rng.integers(0, 10, 7)) for _ in range(7)]
        shown.append({"game": game, "root": root, "board": board, "next": 4,
                      "moves_remaining": 5, "level": 2, "score": 1234,
                      "reference": [float(at[reference][k]) if at[reference][k] else None
                                    for k in VALUE_COLUMNS],
                      "choices": {name: int(at[name]["choice"]) for name in rankers}})
    return {
        "format": "drop7-panel-readings-v1", "reference": reference, "rankers": list(rankers),
        "values": {name: roots[name].values is not None for name in names},
        "work": "nodes", "recall": list(recall),
        "roots": {"policy": "search:leaf=linear,d=3,s=7", "seeds": [1000, 8], "every": 4,
                  "limit": 1024, "count": len(keys), "games": len({g for g, _ in keys})},
        "figures": {name: {f: x.to_dict() for f, x in figures[name].items()}
                    for name in rankers},
        "reference_figures": {f: x.to_dict() for f, x in figures[reference].items()},
        "differences": differences,
        "readings": {name: r.to_dict() for name, r in readings.items()},
        "agreement": {"names": names,
                      "matrix": choice_agreement(rows, names).tolist()},
        "shown": shown, "table_sha256": "ab" * 32, "conventions": conventions,
        **({"side": {"conventions": other(conventions), **{
            k: v for k, v in readings_doc(rows, reference, rankers, declared, n_resamples, recall,
                                          other(conventions), False).items()
            if k in ("figures", "reference_figures", "differences", "readings")}}}
           if side else {}),
    }


#: the panel readings of the fixture's claim, as declared
DECLARED = {
    "noisy-top1": {"kind": "figure-at-least", "ranker": "noisy", "figure": "top1",
                   "threshold": 0.3, "on": "halves"},
    "noisy-regret": {"kind": "figure-at-most", "ranker": "noisy", "figure": "regret_frac",
                     "threshold": 0.5},
    "choice-tau": {"kind": "figure-at-least", "ranker": "choice-only", "figure": "tau",
                   "threshold": 0.5},
    "noisy-over-random": {"kind": "ranker-beats", "ranker": "noisy", "other": "random",
                          "figure": "top1"},
}


def panel_plan(readings=None, roots_arm="fair-d3s7"):
    """A plan's description of the fixture's panel (``PlannedPanel.describe()``, docs/panels.md):
    the roots, the reference and rankers by table name, each with its planned arm."""
    readings = readings_doc() if readings is None else readings
    names = [readings["reference"], *readings["rankers"]]
    count = readings["roots"]["count"]
    return {"roots_arm": roots_arm, "games": readings["roots"]["games"],
            "seeds": list(readings["roots"]["seeds"]), "every": readings["roots"]["every"],
            "limit": readings["roots"]["limit"], "roots": count,
            "reference": readings["reference"], "outcome": None,
            "rankers": list(readings["rankers"]), "work": "nodes",
            "recall": list(readings["recall"]),
            "arms": {name: {"policy": f"search:leaf=linear,d={4 - i},s=7", "games": count,
                            "shards": 1, "artefact": None} for i, name in enumerate(names)}}

"""A panel's figures under either convention (ours, ``harness``, and the register's), on small
tables built by hand, and the committed pilot panel read under the register's rules."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from panel_support import row

from analysis.panel_bootstrap import figure
from analysis.panel_conventions import CONVENTIONS, first_half, mix32, other
from analysis.panel_readings import panel_roots, per_root, read_ranker
from analysis.panel_report import check_declaration, read_panel
from analysis.report.panel_model import PanelSection
from contracts.panel_roots import read_roots
from contracts.panel_table import read_rows
from protocol.plan import load_plan

REPO = Path(__file__).resolve().parents[1]
NAN = math.nan


def one_root(ref, mine, choice):
    """A one-root panel: the reference ``ref`` and the ranker ``mine`` (its values, or None)
    choosing ``choice``; columns beyond the lists are illegal."""
    pad = [NAN] * 7
    r = (list(ref) + pad)[:7]
    v = None if mine is None else (list(mine) + pad)[:7]
    return panel_roots([row(1, 0, "ref", int(np.nanargmax(r)), 10, r),
                        row(1, 0, "me", choice, 1, v)], "ref", "me")


def test_a_ranker_tie_scores_half_a_pair_under_ours_and_none_under_the_registers() -> None:
    # the reference orders all three pairs (3 > 2 > 1); the ranker ties columns 0 and 1 and
    # orders the other two pairs as the reference does
    roots = one_root([3.0, 2.0, 1.0], [5.0, 5.0, 1.0], 0)
    assert per_root(roots, conventions="harness")["pairwise"][0] == pytest.approx(2.5 / 3)
    assert per_root(roots, conventions="register")["pairwise"][0] == pytest.approx(2 / 3)
    # a pair the reference ties is left out under both (no order to reproduce)
    tied = one_root([3.0, 3.0, 1.0], [5.0, 4.0, 1.0], 0)
    for name in CONVENTIONS:
        assert per_root(tied, conventions=name)["pairwise"][0] == pytest.approx(1.0)


def test_top1_is_any_tied_best_choice_under_ours_and_the_first_argmax_under_the_registers(
        ) -> None:
    # the reference ties columns 1 and 2 for best; the ranker values column 2 highest and
    # plays it: ours counts any tied best (1), the register's asks for its first best (0)
    roots = one_root([1.0, 4.0, 4.0], [0.0, 1.0, 2.0], 2)
    ours, theirs = per_root(roots, conventions="harness"), per_root(roots,
                                                                    conventions="register")
    assert ours["top1"][0] == 1.0 and theirs["top1"][0] == 0.0
    assert ours["regret"][0] == theirs["regret"][0] == 0.0  # either pick loses nothing
    # the ranker ties columns 0 and 1 and plays 1 (as a centre-first tie order would): ours
    # reads the played column 1 (best), the register's the first of its highest values, 0
    roots = one_root([1.0, 4.0, 2.0], [2.0, 2.0, 0.0], 1)
    ours, theirs = per_root(roots, conventions="harness"), per_root(roots,
                                                                    conventions="register")
    assert (ours["top1"][0], ours["regret"][0], ours["regret_frac"][0]) == (1.0, 0.0, 0.0)
    assert (theirs["top1"][0], theirs["regret"][0], theirs["regret_frac"][0]) == (0.0, 3.0,
                                                                                  1.0)
    # a ranker without values is read on its choice under either
    roots = one_root([1.0, 4.0, 2.0], None, 1)
    assert per_root(roots, conventions="register")["top1"][0] == 1.0


def test_a_root_of_one_legal_column_counts_under_ours_and_is_left_out_under_the_registers(
        ) -> None:
    roots = one_root([7.0], [2.0], 0)
    ours, theirs = per_root(roots, conventions="harness"), per_root(roots,
                                                                    conventions="register")
    assert (ours["top1"][0], ours["regret_frac"][0]) == (1.0, 0.0)
    assert all(math.isnan(theirs[f][0]) for f in ("top1", "regret", "regret_frac",
                                                  "pairwise", "tau", "recall@2"))
    assert theirs["work"][0] == 1.0  # the work was still spent
    # beside a two-column root, the one-column root drops out of the register's top-1 only
    rows = [row(1, 0, "ref", 0, 10, [7.0, *[NAN] * 6]), row(1, 0, "me", 0, 1, [2.0, *[NAN] * 6]),
            row(1, 4, "ref", 0, 10, [5.0, 1.0, *[NAN] * 5]),
            row(1, 4, "me", 1, 1, [0.0, 3.0, *[NAN] * 5])]
    roots = panel_roots(rows, "ref", "me")
    ours = read_ranker(roots, n_resamples=50, conventions="harness")["top1"]
    theirs = read_ranker(roots, n_resamples=50, conventions="register")["top1"]
    assert (ours.estimate, ours.roots) == (0.5, 2) and (theirs.estimate, theirs.roots) == (0.0, 1)


def _mix32_by_hand(x: int) -> int:
    """The register's finaliser on plain integers (the low 32 bits of ``x``)."""
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    return x ^ (x >> 16)


def test_the_halves_are_seed_order_under_ours_and_the_origin_seed_hash_under_the_registers(
        ) -> None:
    seeds = [0, 1, 2, 3, 4, 5, 0x3000000000041D00, 2**32 + 5]
    assert [int(h) for h in mix32(np.array(seeds, dtype=np.uint64))] == [
        _mix32_by_hand(s) for s in seeds]
    assert _mix32_by_hand(0) == 0 and _mix32_by_hand(2**32 + 5) == _mix32_by_hand(5)
    games = np.array(sorted(seeds), dtype=np.uint64)
    assert first_half(games, "harness").tolist() == [True] * 4 + [False] * 4
    assert first_half(games, "register").tolist() == [_mix32_by_hand(int(g)) % 2 == 0
                                                      for g in games]
    # a figure's halves follow the split: each game scores 1 where its hash is even, else 0
    x = np.array([1.0 if _mix32_by_hand(int(g)) % 2 == 0 else 0.0 for g in games])
    assert 0 < x.sum() < x.size  # both halves are filled
    split = figure(games, x, n_resamples=50, conventions="register")
    assert split.halves == (1.0, 0.0)
    ordered = figure(games, x, n_resamples=50, conventions="harness")
    assert ordered.halves == (x[:4].mean(), x[4:].mean())
    assert split.estimate == ordered.estimate  # the estimate is one, whatever the halves


def test_each_convention_names_the_other_and_a_bad_one_is_refused() -> None:
    assert {other(c) for c in CONVENTIONS} == set(CONVENTIONS)
    with pytest.raises(ValueError, match="'mine' is not a panel convention"):
        other("mine")
    with pytest.raises(ValueError, match="conventions: 'mine' is not one of harness, register"):
        check_declaration({"reference": "ref", "rankers": ["me"], "readings": {},
                           "conventions": "mine"})


@pytest.fixture(scope="module")
def pilot():
    folder = REPO / "reports" / "pilot" / "panels" / "shallow-ordering"
    plan = load_plan(REPO, {"profile": "pilot"})
    declaration = plan.claims["shallow-ordering"].panel_declaration()
    return read_rows(folder / "panel.csv"), read_roots(folder / "roots.json"), declaration


def test_the_pilot_d2_pairwise_fails_under_the_registers_rules_from_the_committed_table(
        pilot) -> None:
    rows, roots_doc, declaration = pilot
    assert declaration["conventions"] == "harness"  # as the block was opened
    small = {**declaration, "readings": {k: v for k, v in declaration["readings"].items()
                                         if k == "d2-pairwise"}}
    doc = read_panel(rows, roots_doc, small, n_resamples=200)
    ours, theirs = doc["readings"]["d2-pairwise"], doc["side"]["readings"]["d2-pairwise"]
    assert (doc["conventions"], doc["side"]["conventions"]) == ("harness", "register")
    assert ours["outcome"] == "pass" and theirs["outcome"] == "fail"
    assert min(theirs["numbers"]["halves"]) < 0.78 <= min(ours["numbers"]["halves"])
    # the auditor's 0.779 is the register's tie rule on our halves (the games in seed order)
    d2 = panel_roots(rows, "fair-d4s7", "fair-d2s7")
    register_pairs = per_root(d2, conventions="register")["pairwise"]
    seed_order = figure(d2.games, register_pairs, n_resamples=200, conventions="harness")
    assert seed_order.halves[0] == pytest.approx(0.779, abs=5e-4)
    # declared register, the roles swap: the register's figures decide, ours are beside
    swapped = read_panel(rows, roots_doc, {**small, "conventions": "register"}, n_resamples=200)
    assert swapped["readings"] == doc["side"]["readings"]
    assert swapped["side"]["readings"] == doc["readings"]
    section = PanelSection.from_json(swapped)
    assert section.conventions == "register" and section.side.conventions == "harness"
    assert section.side.readings["d2-pairwise"].outcome == "pass"

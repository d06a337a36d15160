"""The 18 terms of the frozen fair leaf, each computed by hand on a small board.

Boards are written bottom rows last (row 0 on top); ``e`` is the elevation
(bottom row 1) and ``h`` the column heights.  Every test checks both twins:
the readable one (:mod:`engines.leaves.linear_ref`) and the numba one.
"""

from __future__ import annotations

import numpy as np
import pytest

from engines.drop7.board import parse_rows, rows_to_cols
from engines.leaves import linear, linear_ref
from engines.leaves.kinds import N_TERMS


def board(*bottom_rows: str) -> list[str]:
    """Seven row strings from the bottom rows given (top rows empty)."""
    return ["0000000"] * (7 - len(bottom_rows)) + list(bottom_rows)


def terms(rows: list[str], moves_remaining: int = 5, next_disc: int = 1) -> dict[str, float]:
    """Terms by name; asserts the two twins agree bit for bit."""
    ref = linear_ref.linear_terms(parse_rows(rows).tolist(), moves_remaining, next_disc)
    out = np.zeros(N_TERMS)
    linear.linear_terms(rows_to_cols(rows), moves_remaining, next_disc, out)
    assert out.tolist() == ref
    return dict(zip(linear.TERM_NAMES, ref, strict=True))


def test_table_names_and_weights():
    assert len(linear.TERM_NAMES) == N_TERMS == 18 and linear.TERM_NAMES[0] == "open_columns"
    assert linear.TERM_NAMES[17] == "next_disc_vertical_options"
    assert linear.FAIR_WEIGHTS.tolist() == [180, -20, -620, -220, -18, -90, 1600, 700, 100, 40,
                                            -550, -750, -120, -95, -85, -1250, -35, 220]


def test_open_columns():
    # Columns 0 and 3 are full (top cell occupied): 7 - 2 = 5 open columns.
    rows = ["8008000"] * 7
    assert terms(rows)["open_columns"] == 5.0


def test_height_load():
    # Column 0 holds e = 1, 2 and column 1 holds e = 1: 1 + 4 + 1 = 6.
    assert terms(board("8000000", "8800000"))["height_load"] == 6.0


def test_solid_cracked_and_numbered_cells():
    # Bottom row 8 8 9 3 1: two solid, one cracked, two numbered.
    t = terms(board("8893100"))
    assert (t["solid_cells"], t["cracked_cells"], t["numbered_cells"]) == (2.0, 1.0, 2.0)


def test_high_low_numbers():
    # A 2 at e=5 (col 0) and a 1 at e=6 (col 1) count; a 2 at e=4 and a 3 at e=5 do not.
    rows = board("0100000", "2800300", "8820800", "8888800", "8888800", "8888800")
    assert terms(rows)["high_low_numbers"] == 2.0


def test_direct_potential_least_positive_window():
    # A 3 at col 3 (e=1, h=1), a solid at col 5.  vadd = ready(3-1) = 0.5.
    # Row run [3,3], L=1 < 3: windows a = 1..3.
    #   a=1 [1,3]: neighbours col 0 (h0) and col 4 (h0) ok; cost 1 + 1 + 0 = 2
    #   a=2 [2,4]: right neighbour col 5 has h=1 >= e -> skipped
    #   a=3 [3,5]: neighbours col 2, col 6 empty; cost 0 + 1 + 0 = 1  <- least
    # hadd = ready(1) = 1, add = union(1, 0.5) = 1.
    assert terms(board("0003080"))["direct_potential"] == 1.0


def test_direct_potential_blocked_window():
    # As above with a grey at col 6 too: a=3 [3,5] now has col 6 (h=1) on its right -> skipped.
    # Only a=1 is left (cost 2): hadd = ready(2) = 0.5; add = 1 - 0.5 * 0.5 = 0.75.
    assert terms(board("0003088"))["direct_potential"] == 0.75


def test_direct_potential_sums_vadd_and_hadd():
    # Bottom row 1 4 3: h = 1,1,1.
    #   1: vadd 0 (1 <= h), hadd 0 (1 <= L=3)                      add 0
    #   4: vadd ready(3) = 0.25; window [0,3] costs 1 -> hadd 1     add 1
    #   3: vadd ready(2) = 0.5; 3 <= L -> hadd 0                    add 0.5
    assert terms(board("1430000"))["direct_potential"] == 1.5


def test_latent_chain_potential_row():
    # Same board.  The 1 has excess = L - v = 2 and two other numbered discs in its row run
    # with adds {1, 0.5}: the 2nd largest (0.5) x ready(2) = 0.25.  The 4 and 3 have no excess.
    assert terms(board("1430000"))["latent_chain_potential"] == 0.25


def test_latent_chain_potential_column():
    # Column 0 from the bottom: 2, 1, 3 (h = 3); other columns empty.
    #   2 (e=1): vadd 0; window [0,1] costs 1 -> hadd 1; add 1
    #   1 (e=2): add 0
    #   3 (e=3): vadd 0; window [0,2] costs 0 + 3 + 3 = 6 -> hadd = ready(6) = 1/32; add 1/32
    # vrel of the 1: excess 3 - 1 = 2, others {1, 1/32}: 2nd largest 1/32 x ready(2) = 1/64.
    # vrel of the 2: excess 1, others {0, 1/32}: largest 1/32 x ready(1) = 1/32.
    # latent = 1/64 + 1/32 = 3/64; direct = 1/32 + 0 + 1 = 33/32.
    t = terms(board("3000000", "1000000", "2000000"))
    assert t["latent_chain_potential"] == 3 / 64
    assert t["direct_potential"] == 33 / 32


def test_latent_excludes_greys_and_needs_enough_others():
    # A 1 on a full grey row: L = 7, excess 6, but no other numbered disc -> rel 0.
    assert terms(board("1888888"))["latent_chain_potential"] == 0.0


# Board for the exposure terms: a grey G at col 1, e=1; a 4 above it; a 6 right of it.
#   4 (e=2, col 1, h = 0,2,1,0,...): vadd ready(2) = 1/2; run L=1; windows
#     a=0 [0,3] cost 2+0+1+2 = 5, a=1 [1,4] cost 0+1+2+2 = 5 -> hadd ready(5) = 1/16;
#     add = 1 - (1/2)(15/16) = 17/32
#   6 (e=1, col 2): vadd ready(5) = 1/16; run [1,2] L=2; windows a=0 [0,5], a=1 [1,6]
#     both cost 4 -> hadd 1/8; add = 1 - (7/8)(15/16) = 23/128
#   no rel anywhere (no excess), so the supports are 17/32 and 23/128.
def test_cracked_exposure():
    # 1 - (1 - 17/32)(1 - 23/128) = 1 - (15/32)(105/128) = 2521/4096.
    t = terms(board("0400000", "0960000"))
    assert t["cracked_exposure"] == 2521 / 4096
    assert t["solid_exposure"] == 0.0


def test_solid_exposure():
    # Supports sorted descending: 0.35 x 17/32 + 0.65 x 23/128 = 0.302734375.
    t = terms(board("0400000", "0860000"))
    assert t["solid_exposure"] == pytest.approx(0.302734375, abs=1e-15)
    assert t["cracked_exposure"] == 0.0


def test_solid_exposure_single_support():
    # A solid with only the 4 above it (17/32 as above, the 6 replaced by nothing):
    # 4 (e=2, col 1, h = 0,2,0,...): vadd 1/2; windows a=0 [0,3] cost 2+0+2+2 = 6,
    # a=1 [1,4] cost 0+2+2+2 = 6 -> hadd 1/32; add = 1 - (1/2)(31/32) = 33/64.
    # exposure = 0.35 x 33/64 (the missing second support counts 0).
    assert terms(board("0400000", "0800000"))["solid_exposure"] == 33 / 64 * 0.35


def test_adjacent_ones_side_by_side():
    # Bottom row 1 1, a 4 above the left 1 (h = 2,1,0,...).
    #   4 (e=2): vadd ready(2) = 1/2; window [0,3] costs 0+1+2+2 = 5 -> 1/16; add 17/32
    #   left 1: vadd 0; vrel: excess 2-1 = 1, others {17/32} -> 17/32
    #   right 1: vadd 0, vrel 0 (h = 1)
    # side by side -> 1 - max(union(vadd, vrel)) = 1 - 17/32 = 15/32.
    assert terms(board("4000000", "1100000"))["adjacent_ones"] == 15 / 32


def test_adjacent_ones_one_above_the_other():
    # Column 0: 1 on 1 (h=2), nothing else.  Escape is horizontal: both rows have L=1 = v
    # (hadd 0) and no excess (hrel 0): 1 - 0 = 1.
    assert terms(board("1000000", "1000000"))["adjacent_ones"] == 1.0


def test_triple_twos():
    # Row e=2: 2 2 2 2 on greys (h=2): per 2 vadd 0 (2 <= h), vrel 0 (no excess);
    #   (4-2)^2 x (1 - 0) = 4.
    # Column 6: 2, 2, 2 at e = 2, 3, 4 on a grey: escape horizontally through window [5,6]
    #   (col 4 on its left is empty): costs 2, 3, 4 -> hadd 1/2, 1/4, 1/8; max = 1/2;
    #   (3-2)^2 x (1 - 1/2) = 0.5.  Total 4.5.
    rows = board("0000002", "0000002", "2222002", "8888008")
    assert terms(rows)["triple_twos"] == 4.5


def test_two_twos_are_not_a_triple():
    assert terms(board("2200000", "8800000"))["triple_twos"] == 0.0


def test_dead_low_numbers():
    # Row e=3: 2 5 8 on grey columns (h = 3,3,3).
    #   5: vadd ready(5-3) = 1/2; window [0,4] costs 3+3 = 6 -> 1/32; add = 33/64
    #   2: row run 3 > 2 and column run 3 > 2: a candidate.  add 0; hrel: excess 1,
    #      others {33/64} -> 33/64; vrel 0 (only greys below) -> rel 33/64
    #   dead = 1 - union(0, 33/64) = 31/64.
    rows = board("2580000", "8880000", "8880000")
    assert terms(rows)["dead_low_numbers"] == 31 / 64


def test_covered_height_risk():
    # Row-major: cracked at col 3 e=2: 4 x 0.72; solid col 0 e=1: 1 x 1.65;
    # solid col 3 e=1: 1; cracked col 6 e=1: 1 x 1.65 x 0.72.  Total 6.718.
    t = terms(board("0009000", "8008009"))
    assert t["covered_height_risk"] == pytest.approx(2.88 + 1.65 + 1.0 + 1.188, abs=1e-12)


def test_low_number_height_risk():
    # Column 0: grey, 2 (e=2: 0), grey, 1 (e=4: (4-2)^2 = 4); column 1: grey, grey, 2 (e=3: 1);
    # column 2: a 3 at e=5 does not count.  Total 5.
    rows = board("0030000", "1080000", "8280000", "2880000", "8880000")
    assert terms(rows)["low_number_height_risk"] == 5.0


def test_danger_height_squared():
    assert terms(board(*["8000000"] * 6))["danger_height_squared"] == 4.0  # (6-4)^2
    assert terms(board(*["8000000"] * 4))["danger_height_squared"] == 0.0


def test_rise_pressure():
    # Heights 1, 2, 0, 0, 0, 0, 3 with 2 moves remaining: 1/2 + 8/2 + 27/2 = 18.
    rows = board("0000008", "0800008", "8800008")
    assert terms(rows, moves_remaining=2)["rise_pressure"] == 18.0


def test_next_disc_vertical_options():
    # Heights 0, 1, 2, 7, 6, 1, 3.
    rows = ["0001000", "0008800", "0008800", "0008800", "0008808",
            "0088808", "0888888"]
    assert [terms(rows, next_disc=d)["next_disc_vertical_options"] for d in (1, 2, 7)] == [
        1.0,  # h = 0: column 0
        2.0,  # h = 1: columns 1 and 5
        1.0,  # h = 6: column 4 (column 3 is full)
    ]


def test_opening_value_by_hand():
    # Opening board, 5 moves remaining, next disc 2 (every column h=1, so 7 options):
    # 180x7 - 20x7 - 620x7 - 95 x 8.3 - 35 x 1.4 + 220x7 = -2517.5
    rows = board("8888888")
    t = terms(rows, moves_remaining=5, next_disc=2)
    assert t["covered_height_risk"] == pytest.approx(8.3)
    value = linear.linear_value(rows_to_cols(rows), 5, 2, linear.FAIR_WEIGHTS)
    assert value == pytest.approx(-2517.5, abs=1e-9)

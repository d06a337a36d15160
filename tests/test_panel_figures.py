"""The panel section's figures and the agreement between rankers' choices."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib import image
from panel_support import make_rows

from analysis.panel_readings import PanelError, choice_agreement, panel_roots, read_ranker
from analysis.report.panel_figures import agreement_figure, ranker_figure

PNG = b"\x89PNG\r\n\x1a\n"


def test_choice_agreement_matches_a_plain_count() -> None:
    rows = make_rows(games=5, roots=6)
    names = ["ref", "noisy", "random", "choice-only"]
    got = choice_agreement(rows, names)
    choice = {(r["ranker"], r["game"], r["root"]): r["choice"] for r in rows}
    keys = sorted({(r["game"], r["root"]) for r in rows})
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            same = sum(choice[(a, *k)] == choice[(b, *k)] for k in keys)
            assert got[i, j] == pytest.approx(same / len(keys))
    assert np.array_equal(got, got.T) and (np.diag(got) == 1).all()
    assert got[1, 3] == 1  # the choice-only ranker plays the noisy one's choice
    with pytest.raises(PanelError, match="nobody does not rank the same roots as ref"):
        choice_agreement(rows, ["ref", "nobody"])


def _pixels(png: bytes) -> np.ndarray:
    assert png.startswith(PNG)
    return image.imread(io.BytesIO(png))


def test_a_figure_per_reading_over_the_rankers_with_its_threshold() -> None:
    rows = make_rows(games=6, roots=4)
    figs = {name: read_ranker(panel_roots(rows, "ref", name), n_resamples=200)
            for name in ("noisy", "random", "choice-only")}
    for reading in ("top1", "tau", "recall@2", "regret", "work_ratio"):
        data = {name: f[reading].to_dict() for name, f in figs.items()}
        one = _pixels(ranker_figure(reading, data, threshold=0.6, reference="ref"))
        fewer = _pixels(ranker_figure(reading, {"noisy": data["noisy"]}, reference="ref"))
        assert one.shape[0] > fewer.shape[0]  # a row per ranker
    assert _pixels(ranker_figure("top1", {})).shape[0] > 0
    names = list(figs)
    pixels = _pixels(agreement_figure(names, choice_agreement(rows, names)))
    assert pixels.shape[0] > 100

"""The learner reading kinds (``learner-at-least``, ``learner-at-most``): a learner's figure of
its curve or record against a threshold, declared, refused, read, and gating a screen
(analysis/learner_readings.py, contracts/learner_figures.py, protocol/parts/readings.py)."""

from __future__ import annotations

import copy

import pytest
from claims_support import REPO, claims_copy, write_claim

from analysis.readings import evaluate
from contracts.learner_figures import FIGURES, LAST
from engines.learners.registry import LEARNERS
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError
from protocol.stages import gates

CLAIM = "learner-readings"
SEARCH = {"depth": 2, "strata": 5}
DOC = {
    "format": "drop7-claim-v1", "id": CLAIM, "title": "a network read by its learners' curves",
    "claim": "a test claim: the distilled network's top-1 and the evolution's training signal",
    "weights": {
        "distilled": {"train": {"learner": "nnue-distil", "teacher": {"depth": 3, "strata": 7},
                                "games": 10, "epochs": 4, "probe": {"depth": 2, "strata": 7}}},
        "evolved": {"train": {"learner": "nnue-evolve", "start": {"weights": "distilled"},
                              "population": 6, "generations": 5, "games": 4,
                              "search": {"depth": 3, "strata": 7},
                              "reference": {"depth": 3, "strata": 7}}},
        "searched": {"train": {"learner": "cmaes", "target": "leaf-weights", "population": 8,
                               "generations": 6, "sigma": 0.25, "games": 4,
                               "search": SEARCH}},
    },
    "arms": {
        "net-evolved": {"play": "search", **SEARCH, "leaf": {"weights": "evolved"}},
        "leaf-searched": {"play": "search", **SEARCH, "leaf": {"weights": "searched"}},
        "fair": {"play": "search", **SEARCH, "leaf": "linear"},
    },
    "screen": {"games": 16, "block": 47},
    "contrasts": {"primary": {"difference": ["net-evolved", "fair"]}},
    "readings": {
        "primary": {"kind": "three-way", "contrast": "primary"},
        "distilled-top1": {"kind": "learner-at-least", "weights": "distilled",
                           "figure": "holdout_top1", "threshold": 0.35},
        "training-signal": {"kind": "learner-at-least", "weights": "evolved",
                            "figure": "mean_above_reference_share", "threshold": 0.6},
    },
    "gates": ["training-signal"],
    "verdict": {"rules": [{"when": {"primary": "supported"}, "then": "supported-as-tested",
                           "because": "it reads so"}],
                "otherwise": "not-supported-as-tested"},
}


def _folder(tmp_path, edit=None):
    doc = copy.deepcopy(DOC)
    if edit is not None:
        edit(doc)
    folder = tmp_path / "claims"
    folder.mkdir(parents=True, exist_ok=True)
    write_claim(folder, doc)
    return folder


def _evolve_curve(pairs):
    """An nnue-evolve curve of ``(mean, reference)`` per generation."""
    return {"curve": [{"generation": g, "best": m + 50, "mean": m, "control": m - 10,
                       "reference": r} for g, (m, r) in enumerate(pairs, 1)]}


def _source(learner, curve, record=None):
    return {"learner": learner, "figures": list(LEARNERS[learner].figures), "curve": curve,
            "record": record or {"sha256": "0" * 64}}


def _read(kind, figure, threshold, source, last=None):
    spec = {"kind": kind, "weights": "w", "figure": figure, "threshold": threshold}
    if last is not None:
        spec["last"] = last
    return evaluate("r", spec, {}, {}, learners={"w": source})


# 12 generations: the last 10 have the population's mean above the reference in 6
SIGNAL = _evolve_curve([(900, 100), (900, 100)] + [(200, 100)] * 6 + [(50, 100)] * 4)
DISTIL = {"top1": {"network": 0.44, "random_start": 0.15}, "roots": {"held_out": 256}}
KFQ = {"final_moves": 61.5, "games": 2000, "start_moves": 12.0, "random_moves": 14.2,
       "sha256": "0" * 64}


@pytest.mark.parametrize(("kind", "figure", "threshold", "source", "last", "outcome", "value"), [
    ("learner-at-least", "holdout_top1", 0.30, _source("nnue-distil", DISTIL), None,
     "pass", 0.44),
    ("learner-at-least", "holdout_top1", 0.45, _source("nnue-distil", DISTIL), None,
     "fail", 0.44),
    ("learner-at-most", "holdout_top1", 0.44, _source("nnue-distil", DISTIL), None,
     "pass", 0.44),
    # the last 10 of 12 generations by default: 6 of 10 above, not the first two's
    ("learner-at-least", "mean_above_reference_share", 0.6,
     _source("nnue-evolve", SIGNAL), None, "pass", 0.6),
    ("learner-at-least", "mean_above_reference_share", 0.61,
     _source("nnue-evolve", SIGNAL), None, "fail", 0.6),
    ("learner-at-least", "mean_above_reference_share", 0.5,
     _source("nnue-evolve", SIGNAL), 4, "fail", 0.0),
    ("learner-at-most", "mean_minus_reference", 0.0, _source("nnue-evolve", SIGNAL), 4,
     "pass", -50.0),
    ("learner-at-least", "mean_minus_reference", 0.0, _source("nnue-evolve", SIGNAL), None,
     "pass", 40.0),
    # the last generation: best 100, control 40
    ("learner-at-least", "best_gain", 60.0, _source("cmaes", SIGNAL), None, "pass", 60.0),
    ("learner-at-least", "best_gain", 61.0, _source("cmaes", SIGNAL), None, "fail", 60.0),
    ("learner-at-least", "final_moves", 60, _source("kf-q", None, KFQ), None, "pass", 61.5),
    ("learner-at-most", "final_moves", 60, _source("kf-q", None, KFQ), None, "fail", 61.5),
])
def test_each_kind_reads_a_small_curve(kind, figure, threshold, source, last, outcome,
                                       value) -> None:
    got = _read(kind, figure, threshold, source, last)
    assert (got.outcome, got.numbers["value"]) == (outcome, pytest.approx(value)), got.reason
    assert got.numbers["threshold"] == threshold and figure in got.reason
    if FIGURES[figure].over_generations:
        assert got.numbers["last"] == (last or LAST)


def test_a_figure_the_learner_does_not_give_and_missing_weights_are_not_run() -> None:
    """The reader's own guards: weights without the figure, weights without a curve."""
    no_ref = {**_source("nnue-evolve", SIGNAL), "figures": ["best_gain"]}
    got = _read("learner-at-least", "mean_above_reference_share", 0.5, no_ref)
    assert got.outcome == "not-run" and "give no mean_above_reference_share" in got.reason
    spec = {"kind": "learner-at-least", "weights": "w", "figure": "best_gain", "threshold": 0}
    assert evaluate("r", spec, {}, {}).outcome == "not-run"


def test_fewer_generations_than_last_are_read_and_said() -> None:
    got = _read("learner-at-least", "mean_above_reference_share", 0.5,
                _source("nnue-evolve", _evolve_curve([(200, 100), (50, 100)])))
    assert got.numbers["value"] == 0.5 and "fewer than the last 10" in got.reason


def test_the_declaration_takes_the_kind_and_gates_on_it(tmp_path) -> None:
    """A learner reading is declared (``last`` absent when left out), may be a gate, and the
    plan hands its weights' curve and record to the gates and verdict jobs; the figures are
    those the declaration gives (the reference's only with ``reference``)."""
    claim = load_claims(_folder(tmp_path))[CLAIM]
    assert "last" not in claim.readings["training-signal"]
    p = load_plan(REPO, {"profile": "smoke", "claims_dir": str(tmp_path / "claims")}).claims[
        CLAIM]
    assert list(p.learner_reads(gates=True)) == ["evolved"]
    assert list(p.learner_reads()) == ["distilled", "evolved"]  # in reading order
    d = p.direct_trained["evolved"].describe()
    assert d["figures"] == ["best_gain", "mean_above_reference_share", "mean_minus_reference"]
    assert p.direct_trained["searched"].describe()["figures"] == ["best_gain"]
    assert d["curve"].endswith("/curve.json") and d["record"].endswith("/frozen/manifest.json")
    planned = p.direct_trained["evolved"].planned
    assert planned["reference"] == planned["search"], "shrunk as the GA's search is"
    assert any(line.startswith("evolved: its reference") for line in p.shrunk)


@pytest.mark.parametrize(("edit", "key", "says"), [
    (lambda d: d["readings"]["distilled-top1"].update(figure="top1"),
     "readings.distilled-top1.figure", "'top1' is no learner figure"),
    (lambda d: d["readings"]["distilled-top1"].update(weights="fair"),
     "readings.distilled-top1.weights", "no weights trained by one job 'fair'"),
    (lambda d: d["readings"]["distilled-top1"].update(figure="best_gain"),
     "readings.distilled-top1.figure", "nnue-distil weights 'distilled' give no best_gain"),
    (lambda d: d["weights"]["evolved"]["train"].pop("reference"),
     "readings.training-signal.figure", "needs train.reference in weights.evolved"),
    (lambda d: d["readings"]["distilled-top1"].update(last=5),
     "readings.distilled-top1.last", "holdout_top1 is not read over generations"),
    (lambda d: d["readings"]["training-signal"].update(last=0),
     "readings.training-signal.last", "less than the minimum of 1"),
    (lambda d: d["readings"]["training-signal"].update(threshold=float("nan")),
     "readings.training-signal.threshold", "not a finite number"),
    (lambda d: d["readings"]["training-signal"].update(contrast="primary"),
     "readings.training-signal.contrast", "a learner-at-least reading takes"),
])
def test_a_bad_learner_reading_is_one_line_naming_the_key(tmp_path, edit, key, says) -> None:
    with pytest.raises(DeclarationError) as err:
        load_claims(_folder(tmp_path, edit))
    message = str(err.value)
    assert "\n" not in message and f"key {key}" in message and says in message, message


def test_weights_validated_as_a_leaf_are_not_a_learners_curve(tmp_path) -> None:
    """TD weights (validated, with gates of their own) have no learner curve to read."""
    def edit(d):
        d["readings"]["gain"] = {"kind": "learner-at-least", "weights": "linear-trained",
                                 "figure": "best_gain", "threshold": 0}
    folder = claims_copy(tmp_path, edit, claim="linear-trained-leaf")
    with pytest.raises(DeclarationError) as err:
        load_claims(folder)
    assert "key readings.gain.weights: no weights trained by one job 'linear-trained'" in str(
        err.value)


def test_a_failed_learner_gate_keeps_the_block_closed() -> None:
    """The gate decision reads the learner's curve: a training signal below the threshold
    fails the gate and the screen does not open (enforced); one above opens it."""
    readings = {"training-signal": DOC["readings"]["training-signal"]}
    flat = {"evolved": _source("nnue-evolve", _evolve_curve([(50, 100)] * 10))}
    closed = gates(CLAIM, ["training-signal"], readings, {}, True, {}, flat)
    assert not closed["passed"] and not closed["opens_screen"]
    assert "mean_above_reference_share 0 < 0.6" in closed["reason"]
    opened = gates(CLAIM, ["training-signal"], readings, {}, True, {},
                   {"evolved": _source("nnue-evolve", SIGNAL)})
    assert opened["passed"] and opened["opens_screen"]
    missing = gates(CLAIM, ["training-signal"], readings, {}, True, {}, None)
    assert missing["gates"][0]["outcome"] == "not-run" and not missing["opens_screen"]


@pytest.mark.workflow
def test_the_gates_job_waits_for_the_learner_a_gate_reads(tmp_path) -> None:
    """A dry run of the gates: the evolution's training (and the distillation it starts from)
    are planned before the gates job, which takes the evolved network's record."""
    from workflow_support import snakemake

    folder = _folder(tmp_path)
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(folder)})
    p = plan.claims[CLAIM]
    gate_file = plan.paths.path("gates", claim=CLAIM)
    result = snakemake(tmp_path / "run", "-n", "-p", "--config", "profile=smoke",
                       f"claims_dir={folder}", "--", gate_file)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    evolve, gate = out.index("drop7 nnue-evolve"), out.index("checkpoint gates")
    assert evolve < gate and "--reference-depth" in out
    assert p.direct_trained["evolved"].record in out[gate:]


def test_the_page_shows_the_reference_beside_best_mean_and_control() -> None:
    from analysis.report.learner_curves import LearnerCurveSection

    training = {"name": "evolved", "learner": "nnue-evolve", "produces": "a network",
                "recipe": {}, "shrunk": [], "curve_kind": "search"}
    curve = {**_evolve_curve([(200, 150)]), "frozen": {"rule": "re-selected"},
             "generations": 1}
    section = LearnerCurveSection.from_json(training, curve, {"sha256": "0" * 64})
    assert section.columns == ["generation", "best", "mean", "control", "reference (fair leaf)"]
    assert section.rows == [["1", "250", "200", "190", "150"]]
    plain = LearnerCurveSection.from_json(
        training, {**curve, "curve": [{k: v for k, v in curve["curve"][0].items()
                                       if k != "reference"}]}, {"sha256": "0" * 64})
    assert "reference (fair leaf)" not in plain.columns

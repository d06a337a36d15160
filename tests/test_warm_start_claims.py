"""``train: {init: ...}`` in a claim: the plan, the order of claims, the job's command, the
tier, and every misuse refused before any job in one line naming the file and the key."""

from __future__ import annotations

import copy
import hashlib

import numpy as np
import pytest
from claims_support import REPO, claims_copy, shipped

from engines.leaves.linear import FAIR_WEIGHTS
from protocol.checks import before_any_job
from protocol.plan import load_plan
from protocol.plan_model import Artefact, Pinned
from protocol.records.ids import protocol_sha256
from protocol.schema import DeclarationError


def _warm_ntuple(init: dict, layout: str = "A") -> dict:
    """A claim that continues the registered claim's frozen layout-A tables."""
    doc = copy.deepcopy(shipped("ntuple-line-tuples"))
    doc["id"] = "warm-tables"
    doc["screen"]["block"] = 60
    doc["weights"] = {"continued": {"train": {"learner": "ntuple", "layout": layout,
                                              "moves": 10_000_000, "every": 5_000_000,
                                              "init": init}}}
    doc["arms"] = {"continued-d3s7": {"play": "search", "depth": 3, "strata": 7,
                                      "leaf": {"weights": "continued"}},
                   "prior-d3s7": {"play": "search", "depth": 3, "strata": 7,
                                  "leaf": {"claim": "ntuple-line-tuples",
                                           "weights": "ntuple-A"}}}
    doc["gates"] = []
    doc["contrasts"] = {"primary": {"difference": ["continued-d3s7", "prior-d3s7"]}}
    doc["readings"] = {"primary": {"kind": "screen", "contrast": "primary"}}
    doc["verdict"] = {"rules": [], "otherwise": "mixed"}
    doc.pop("recorded", None)
    return doc


def _plan(tmp_path, doc: dict, profile: str = "pilot"):
    claims = claims_copy(tmp_path / "claims", extra={doc["id"]: doc})
    return load_plan(REPO, {"profile": profile, "claims_dir": str(claims)}), \
        claims / f"{doc['id']}.yaml"


def test_a_warm_start_from_another_claims_artefact(tmp_path) -> None:
    plan, _ = _plan(tmp_path, _warm_ntuple({"claim": "ntuple-line-tuples",
                                            "weights": "ntuple-A"}))
    p = plan.claims["warm-tables"]
    t = p.trained["continued"]
    assert isinstance(t.init, Artefact) and t.init.key == "ntuple-line-tuples/ntuple-A"
    source = plan.claims["ntuple-line-tuples"].arms["ntuple-A-d3s7"].artefact
    assert t.recipe()["init"] == {"path": source.dir, "record": source.record,
                                  "key": "ntuple-line-tuples/ntuple-A"}
    assert p.describe()["trained"]["continued"]["init"] == {
        "artefact": "ntuple-line-tuples/ntuple-A"}
    # the source trains first, and its pilot shrink lowers this claim's tier too
    order = plan.order()
    assert order.index("ntuple-line-tuples") < order.index("warm-tables")
    assert "ntuple-line-tuples" in plan.closure(["warm-tables"])
    assert any(s.startswith("artefact ntuple-line-tuples/ntuple-A (read by prior-d3s7, the "
                            "warm start of continued)") for s in p.shrunk)


def test_a_warm_start_promotes_the_frozen_tables_into_fill_buckets(tmp_path) -> None:
    """Layout A's frozen tables start an A+occ5 training: the plan trains five copies of the
    tables (entries, memory and seconds), and the training job's command names the layout."""
    from protocol import costs

    plan, _ = _plan(tmp_path, _warm_ntuple({"claim": "ntuple-line-tuples",
                                            "weights": "ntuple-A"}, "A+occ5"))
    t = plan.claims["warm-tables"].trained["continued"]
    a = plan.claims["ntuple-line-tuples"].trained["ntuple-A"]
    assert t.layout == "A+occ5" and t.entries == 5 * a.entries
    assert t.recipe()["layout"] == "A+occ5" and t.recipe()["init"]["key"] == \
        "ntuple-line-tuples/ntuple-A"
    assert costs.train_mem_mb(t.entries) > 4 * costs.train_mem_mb(a.entries) - 5 * 1200
    assert costs.train_seconds("A+occ5", 10**7, t.entries) > costs.train_seconds(
        "A", 10**7, a.entries)


def test_training_from_zero_keeps_its_recipe_and_description() -> None:
    plan = load_plan(REPO, {"profile": "pilot"})
    cold = 0
    for p in plan.claims.values():
        for n, t in p.trained.items():
            if "init" in shipped(p.id)["weights"][n]["train"]:  # a shipped warm start
                assert t.init is not None and "init" in t.recipe()
                continue
            assert t.init is None and "init" not in t.recipe()
            assert "init" not in p.describe()["trained"][n]
            cold += 1
    assert cold >= 5


@pytest.mark.parametrize(("init", "layout", "key", "message"), [
    ({"claim": "nobody", "weights": "ntuple-A"}, "A", "weights.continued.train.init.claim",
     "no claim 'nobody'"),
    ({"claim": "ntuple-line-tuples", "weights": "ntuple-Z"}, "A",
     "weights.continued.train.init.weights", "claim ntuple-line-tuples trains no 'ntuple-Z'"),
    ({"claim": "warm-tables", "weights": "continued"}, "A",
     "weights.continued.train.init.claim", "names this claim itself"),
    ({"claim": "ntuple-line-tuples", "weights": "ntuple-E"}, "A",
     "weights.continued.train.init", "ntuple-line-tuples/ntuple-E is ntuple layout E, these "
     "weights train ntuple layout A"),
    ({"claim": "linear-trained-leaf", "weights": "linear-trained"}, "A",
     "weights.continued.train.init", "is linear weights, these weights train ntuple layout A"),
    ({"weights": "ntuple-A"}, "A", "weights.continued.train.init", ""),
    ({"claim": "ntuple-line-tuples", "weights": "ntuple-E"}, "A+occ5",
     "weights.continued.train.init", "is ntuple layout E, these weights train ntuple layout "
     "A+occ5: a warm start continues the same learner and layout (or promotes"),
])
def test_a_warm_start_that_cannot_be_is_refused_at_the_plan(tmp_path, init, layout, key,
                                                            message) -> None:
    with pytest.raises(DeclarationError) as err:
        _plan(tmp_path, _warm_ntuple(init, layout))
    line = str(err.value)
    assert line.startswith(f"{tmp_path / 'claims' / 'warm-tables.yaml'}: ")
    assert key in line and message in line and "\n" not in line


def _warm_linear(tmp_path, file: str, sha: str) -> dict:
    doc = copy.deepcopy(shipped("linear-trained-leaf"))
    doc["weights"]["linear-trained"]["train"]["init"] = {"file": file, "sha256": sha}
    return doc


def test_a_warm_start_from_a_pinned_file(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "fair.npy", FAIR_WEIGHTS)
    digest = hashlib.sha256((tmp_path / "fair.npy").read_bytes()).hexdigest()
    claims = claims_copy(tmp_path / "claims", lambda d: d["weights"]["linear-trained"][
        "train"].update(init={"file": "fair.npy", "sha256": digest}),
        claim="linear-trained-leaf")
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    p = plan.claims["linear-trained-leaf"]
    t = p.trained["linear-trained"]
    assert t.init == Pinned("fair.npy", digest, "linear-file", 18,
                            "weights.linear-trained.train.init")
    assert t.recipe()["init"] == {"path": "fair.npy", "sha256": digest}
    assert p.pinned == {"weights.linear-trained.train.init": t.init}
    before_any_job(plan)
    cold = load_plan(REPO, {"profile": "smoke"}).claims["linear-trained-leaf"]
    assert protocol_sha256(p.describe()) != protocol_sha256(cold.describe())
    # the file changed after it was pinned: refused before any job, naming the key
    np.save(tmp_path / "fair.npy", FAIR_WEIGHTS * 2)
    with pytest.raises(DeclarationError, match=f"^{claims / 'linear-trained-leaf.yaml'}: key "
                                               "weights.linear-trained.train.init.sha256: "
                                               "fair.npy: SHA-256 .* is not the pinned"):
        before_any_job(plan)


def test_a_pinned_start_of_another_kind_or_size_is_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "fair.npy", FAIR_WEIGHTS)
    digest = hashlib.sha256((tmp_path / "fair.npy").read_bytes()).hexdigest()
    doc = _warm_ntuple({"file": "fair.npy", "sha256": digest})
    with pytest.raises(DeclarationError, match="key weights.continued.train.init.file: "
                                               "fair.npy holds a linear-file leaf of 18 "
                                               "entries; these weights train ntuple weights"):
        _plan(tmp_path, doc, "smoke")
    doc = _warm_ntuple({"file": "gone.npy", "sha256": digest})
    with pytest.raises(DeclarationError, match="key weights.continued.train.init.file: "
                                               "gone.npy: missing"):
        _plan(tmp_path, doc, "smoke")


def test_a_dry_run_freezes_the_start_before_the_warm_training(tmp_path) -> None:
    from workflow_support import snakemake

    claims = claims_copy(tmp_path / "c", extra={"warm-tables": _warm_ntuple(
        {"claim": "ntuple-line-tuples", "weights": "ntuple-A"})})
    work = tmp_path / "run"
    work.mkdir()
    result = snakemake(work, "-n", "--config", "profile=smoke", f"claims_dir={claims}",
                       "--", "warm_tables__continued", timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = (result.stdout + result.stderr).splitlines()
    record = "results/smoke/claims/ntuple-line-tuples/frozen/ntuple-A.json"
    segment = next(i for i, line in enumerate(lines) if line.strip().startswith(
        "output: results/smoke/claims/warm-tables/train/continued/step-"))
    assert lines[segment - 1].strip() == f"input: {record}"  # the first segment waits for it
    freeze = next(i for i, line in enumerate(lines) if line.strip().startswith(
        f"output: {record}"))
    assert freeze < segment
    assert not (work / "results").exists()

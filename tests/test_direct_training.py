"""Weights trained to their end by one job (protocol/parts/direct_training.py): a weight search
and the network learners planned as workflow jobs, played by the arms that name them, shrunk
by a profile, refused in one line when misnamed; the depth-native claim's DAG under smoke."""

from __future__ import annotations

import copy

import pytest
from claims_support import REPO, claims_copy, write_claim

from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError

CLAIM = "learners-direct"
SEARCH = {"depth": 2, "strata": 5}

DOC = {
    "format": "drop7-claim-v1", "id": CLAIM, "title": "four learners, one job each",
    "claim": "a test claim: every learner the workflow trains by one job",
    "weights": {
        "searched": {"train": {"learner": "cmaes", "target": "leaf-weights", "population": 8,
                               "generations": 6, "every": 3, "sigma": 0.25, "games": 4,
                               "search": SEARCH}},
        "kfsearched": {"train": {"learner": "cem", "target": "kf", "population": 6,
                                 "generations": 3, "sigma": 0.5, "games": 8, "elite": 0.3}},
        "distilled": {"train": {"learner": "nnue-distil", "teacher": {"depth": 3, "strata": 7},
                                "games": 10, "epochs": 4, "probe": {"depth": 2, "strata": 7}}},
        "evolved": {"train": {"learner": "nnue-evolve", "start": {"weights": "distilled"},
                              "population": 6, "generations": 5, "games": 4,
                              "search": {"depth": 3, "strata": 7}}},
    },
    "arms": {
        "leaf-searched": {"play": "search", **SEARCH, "leaf": {"weights": "searched"}},
        "kf-searched": {"play": "kf", "weights": "kfsearched"},
        "net-distilled": {"play": "search", **SEARCH, "leaf": {"weights": "distilled"}},
        "net-evolved": {"play": "search", **SEARCH, "leaf": {"weights": "evolved"}},
        "fair": {"play": "search", **SEARCH, "leaf": "linear"},
    },
    "screen": {"games": 16, "block": 47},
    "contrasts": {"primary": {"difference": ["leaf-searched", "fair"]}},
    "readings": {"primary": {"kind": "three-way", "contrast": "primary"}},
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


def _words(command: str, flag: str) -> str:
    words = command.split()
    return words[words.index(flag) + 1]


def test_each_learner_is_one_job_its_arms_play_and_the_opener_hashes(tmp_path) -> None:
    """Under paper (nothing shrunk) each of the four learners is one job running its own
    command at its declared size; each arm plays the frozen weights (a linear weights
    directory, a KF weights directory, two networks), waits for their record, and every record
    is an opener hash; nnue-evolve starts from the distilled network and waits for it."""
    plan = load_plan(REPO, {"profile": "paper", "claims_dir": str(_folder(tmp_path))})
    p = plan.claims[CLAIM]
    t = p.direct_trained
    assert set(t) == {"searched", "kfsearched", "distilled", "evolved"}
    assert t["searched"].command().split()[:4] == ["drop7", "weight-search", "--kind", "cmaes"]
    assert _words(t["searched"].command(), "--generations") == "6"
    assert _words(t["searched"].command(), "--depth") == "2"
    assert _words(t["kfsearched"].command(), "--elite") == "0.3"
    assert t["distilled"].command().split()[:2] == ["drop7", "nnue-distil"]
    assert _words(t["distilled"].command(), "--epochs") == "4"
    assert _words(t["distilled"].command(), "--teacher") == "search:leaf=linear,d=3,s=7"
    assert t["evolved"].command().split()[:2] == ["drop7", "nnue-evolve"]
    assert _words(t["evolved"].command(), "--start") == (
        f"trained:{t['distilled'].dir}/network")
    assert t["evolved"].after == ("distilled",) and t["searched"].after == ()
    assert all(x.command().endswith("--resume") for x in t.values())  # a killed job goes on
    assert t["searched"].record == f"{t['searched'].dir}/frozen/manifest.json"
    assert t["kfsearched"].record == f"{t['kfsearched'].dir}/frozen/frozen.json"
    assert t["distilled"].record == f"{t['distilled'].dir}/network/manifest.json"
    assert t["evolved"].record == f"{t['evolved'].dir}/frozen/manifest.json"
    arms = p.arms
    assert arms["leaf-searched"].policy == (
        f"search:leaf=linear-trained:{t['searched'].dir}/frozen,d=2,s=5")
    assert arms["kf-searched"].policy == f"kf:w=trained:{t['kfsearched'].dir}/frozen"
    assert arms["net-distilled"].policy == f"search:leaf=nnue:{t['distilled'].dir}/network,d=2,s=5"
    assert arms["net-evolved"].policy == f"search:leaf=nnue:{t['evolved'].dir}/frozen,d=2,s=5"
    for arm, name in (("leaf-searched", "searched"), ("kf-searched", "kfsearched"),
                      ("net-distilled", "distilled"), ("net-evolved", "evolved")):
        assert arms[arm].direct == (t[name].weights_file, t[name].record)
    assert arms["fair"].direct is None
    assert p.opener_records == {f"{CLAIM}/{n}": {"record": x.record, "pin": None}
                                for n, x in sorted(t.items())}
    assert p.shrunk == [] and all(x.shrinks == () for x in t.values())
    assert p.estimate()["train"] == pytest.approx(sum(x.seconds for x in t.values()))
    assert all(x.seconds > 0 for x in t.values())


def test_a_profile_shrinks_budget_sizes_and_searches_and_says_so(tmp_path) -> None:
    """The budget, the population and games, and the learner's searches shrink by the claim's
    weights settings (the search per weights, key by key in place of the caps), else by the
    caps as arms' searches are, each listed."""
    over = {"claims": {CLAIM: {"weights": {
        "searched": {"generations": 2, "population": 4, "games": 2,
                     "search": {"depth_shift": 0, "strata": 4}},
        "distilled": {"epochs": 2, "games": 5},
        "evolved": {"generations": 1, "population": 3}}}}}
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(_folder(tmp_path)), **over})
    p = plan.claims[CLAIM]
    s = p.direct_trained["searched"]
    assert [_words(s.command(), f) for f in ("--generations", "--population", "--games",
                                              "--depth", "--strata")] == ["2", "4", "2", "2", "4"]
    assert "searched: trained on 2 generations (declared: 6)" in p.shrunk
    assert "searched: population 4 (declared: 8)" in p.shrunk
    assert "searched: games 2 (declared: 4)" in p.shrunk
    assert "searched: its search d2s4 (declared: d2s5)" in p.shrunk
    assert "distilled: trained on 2 epochs (declared: 4)" in p.shrunk
    assert "distilled: games 5 (declared: 10)" in p.shrunk
    assert "evolved: trained on 1 generations (declared: 5)" in p.shrunk
    assert "evolved: population 3 (declared: 6)" in p.shrunk
    assert p.arms["leaf-searched"].policy.endswith(",d=1,s=3")  # the arms by the caps
    d, e = p.direct_trained["distilled"], p.direct_trained["evolved"]
    assert _words(d.command(), "--teacher") == "search:leaf=linear,d=2,s=3"
    assert "distilled: its teacher d2s3 (declared: d3s7)" in p.shrunk
    assert [_words(e.command(), f) for f in ("--depth", "--strata")] == ["2", "3"]
    assert s.describe()["shrunk"] == list(s.shrinks) and len(s.shrinks) == 4
    with pytest.raises(DeclarationError, match=rf"key claims\.{CLAIM}\.weights\.searched\."
                                               r"population: 9 is more than the declared 8"):
        load_plan(REPO, {"profile": "smoke", "claims_dir": str(_folder(tmp_path)), "claims": {
            CLAIM: {"weights": {"searched": {"population": 9}}}}})


@pytest.mark.parametrize(("edit", "key", "says"), [
    (lambda d: d["weights"]["evolved"]["train"].update(start={"weights": "distiled"}),
     "weights.evolved.train.start.weights", "'distiled' is not weights this claim trains"),
    (lambda d: d["weights"]["evolved"]["train"].update(start={"weights": "searched"}),
     "weights.evolved.train.start.weights", "not the nnue vector"),
    (lambda d: d["weights"].update(evolved2={"train": {
        **d["weights"]["evolved"]["train"], "start": {"weights": "evolved"}}}) or
     d["weights"]["evolved"]["train"].update(start={"weights": "evolved2"}),
     "weights.evolved.train.start.weights", "cycle (evolved -> evolved2 -> evolved)"),
    (lambda d: d["arms"]["fair"].update(leaf={"weights": "kfsearched"}),
     "arms.fair.leaf.weights", "'kfsearched' are cem weights (a searched weight vector "
     "(cross-entropy)), not a leaf: a kf arm plays them"),
    (lambda d: d["arms"]["kf-searched"].update(weights="searched"),
     "arms.kf-searched.weights", "nor kf weights this claim trains (kfsearched)"),
    (lambda d: d.update(validation={"games": 8, "search": SEARCH, "comparator": "linear"}),
     "validation", "no weights of this claim are validated"),
    (lambda d: d.update(validation={"games": 8, "search": SEARCH,
                                    "comparator": {"weights": "searched"}}),
     "validation", "no weights of this claim are validated"),
])
def test_a_misnamed_start_or_arm_is_one_line_naming_the_key(tmp_path, edit, key, says) -> None:
    with pytest.raises(DeclarationError) as err:
        load_claims(_folder(tmp_path, edit))
    text = str(err.value)
    assert "\n" not in text and f"{CLAIM}.yaml: key {key}: " in text and says in text, text


def test_the_depth_native_claim_plans_its_search_and_its_pilot() -> None:
    """The shipped depth-native claim: one CMA-ES job, its pilot 6 generations of 8 candidates
    on 8 games in d2s5 and the screen d3s5 on 64 games, each shrink said."""
    plan = load_plan(REPO, {"profile": "pilot"})
    p = plan.claims["depth-native-leaf-weights"]
    t = p.direct_trained["cmaes-d4s5"]
    assert [_words(t.command(), f) for f in ("--generations", "--population", "--games",
                                              "--depth", "--strata")] == ["6", "8", "8", "2", "5"]
    assert p.arms["evolved-d4s5"].policy == f"search:leaf=linear-trained:{t.weights_file},d=3,s=5"
    assert p.arms["evolved-d4s5"].games == 64
    assert "cmaes-d4s5: its search d2s5 (declared: d4s5)" in p.shrunk
    assert p.validation_arms == {} and p.trained == {}
    paper = load_plan(REPO, {"profile": "paper"}).claims["depth-native-leaf-weights"]
    assert paper.shrunk == [] and paper.estimate()["train"] > 50 * 3600  # cluster work


@pytest.mark.workflow
def test_the_depth_native_dag_under_smoke_is_complete(tmp_path) -> None:
    """A dry run of the claim under smoke plans the weight search's job by its named target
    (its command as the plan words it) and the claim's target, after the estimate."""
    from workflow_support import snakemake

    result = snakemake(tmp_path, "-n", "-p", "--config", "profile=smoke", "--",
                       "depth_native_leaf_weights__cmaes_d4s5", "depth_native_leaf_weights")
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert "rule direct_train_frozen_manifest:" in out
    assert "drop7 weight-search --kind cmaes --target leaf-weights --population 4" in out
    assert "depth-native-leaf-weights" in out and "estimated CPU hours" in out


def test_the_shipped_claims_other_than_depth_native_are_untouched(tmp_path) -> None:
    """kf-q and ridge-q keep their commands; the claims_copy helper copies the new claim."""
    plan = load_plan(REPO, {"profile": "smoke"})
    kf = plan.claims["kf-linear-q-transfer"].direct_trained["relearned"]
    assert kf.command().split()[:2] == ["drop7", "kf-train"] and kf.record.endswith(
        "/frozen.json")
    assert (claims_copy(tmp_path / "c") / "depth-native-leaf-weights.yaml").exists()


@pytest.mark.workflow
def test_an_evolution_from_a_distilled_network_waits_for_it_in_the_dag(tmp_path) -> None:
    """The start a claim trains is a DAG edge: a dry run of the evolved network's record plans
    the distillation first, and the evolution's command starts from its directory."""
    from workflow_support import snakemake

    folder = _folder(tmp_path)
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(folder)})
    t = plan.claims[CLAIM].direct_trained
    result = snakemake(tmp_path / "run", "-n", "-p", "--config", "profile=smoke",
                       f"claims_dir={folder}", "--", t["evolved"].record)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    distil, evolve = out.index("drop7 nnue-distil"), out.index("drop7 nnue-evolve")
    assert distil < evolve and f"--start trained:{t['distilled'].dir}/network" in out
    assert out.count("rule direct_train_") == 2

"""A weight search (cmaes, cem) that starts from weights the same claim trains by one job
(``start: {weights: NAME}``): planned after them, read from their frozen record's directory and
checked against it, the start's SHA-256 in the search's record and page, a killed run resumed
equal to a whole one; refused in one line when the name is not trained by one job, is another
vector, or makes a cycle.  And ``select`` refused where no validation selects a checkpoint."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from claims_support import REPO, claims_copy, write_claim

from analysis.report.learner_curves import LearnerCurveSection
from engines.filters.kf_weights import read_kf_trained
from engines.learners.weight_search import GENERATION, STATE
from protocol.declaration import load_claim, load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError

CLAIM = "search-starts"
D1 = {"depth": 1, "strata": 7}
LEAF = {"learner": "cmaes", "target": "leaf-weights", "population": 4, "generations": 2,
        "sigma": 0.25, "games": 2, "search": D1}
KF = {"learner": "cem", "target": "kf", "population": 4, "generations": 2, "sigma": 0.5,
      "games": 4}

DOC = {
    "format": "drop7-claim-v1", "id": CLAIM, "title": "searches that start from trained weights",
    "claim": "a test claim: weight searches starting from weights the claim trains",
    "weights": {
        "first": {"train": LEAF},
        "second": {"train": {**LEAF, "start": {"weights": "first"}}},
        "kfq": {"train": {"learner": "kf-q", "games": 100, "every": 50}},
        "kfsearch": {"train": {**KF, "start": {"weights": "kfq"}}},
        "kfagain": {"train": {**KF, "learner": "cmaes", "start": {"weights": "kfsearch"}}},
    },
    "arms": {
        "leaf-second": {"play": "search", **D1, "leaf": {"weights": "second"}},
        "kf-again": {"play": "kf", "weights": "kfagain"},
        "fair": {"play": "search", **D1, "leaf": "linear"},
    },
    "screen": {"games": 16, "block": 48},
    "contrasts": {"primary": {"difference": ["leaf-second", "fair"]}},
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


def _start(command: str) -> str:
    words = command.split()
    return words[words.index("--start") + 1]


def test_a_start_trained_by_the_claim_is_waited_for_and_read_from_its_record(tmp_path) -> None:
    """Each search that starts from weights the claim trains waits for their record (``after``)
    and reads them from its directory: another search's linear vector or KF file, kf-q's six
    weights; a search without such a start waits for nothing."""
    plan = load_plan(REPO, {"profile": "paper", "claims_dir": str(_folder(tmp_path))})
    t = plan.claims[CLAIM].direct_trained
    assert (t["first"].after, t["second"].after, t["kfsearch"].after, t["kfagain"].after) == (
        (), ("first",), ("kfq",), ("kfsearch",))
    assert _start(t["first"].command()) == "shipped"
    assert _start(t["second"].command()) == f"trained:{t['first'].dir}/frozen"
    assert _start(t["kfsearch"].command()) == f"trained:{t['kfq'].dir}"
    assert _start(t["kfagain"].command()) == f"trained:{t['kfsearch'].dir}/frozen"
    for name, start in (("second", "first"), ("kfsearch", "kfq"), ("kfagain", "kfsearch")):
        assert t[start].record.rpartition("/")[0] == t[name].planned["start"]["trained"]
        assert t[name].describe()["recipe"]["start"] == {"trained": t[start].record.rpartition(
            "/")[0]}


def _starts_from(name: str, other: str):
    return lambda d: d["weights"][name]["train"].update(start={"weights": other})


@pytest.mark.parametrize(("edit", "key", "says"), [
    (_starts_from("second", "nothing"), "weights.second.train.start.weights",
     "'nothing' is not weights this claim trains by one job"),
    (_starts_from("second", "kfq"), "weights.second.train.start.weights",
     "'kfq' are kf-q weights (a kf arm's six weights (Klein-Friedmann Q-learning), vector kf), "
     "not the leaf-weights vector"),
    (_starts_from("kfsearch", "first"), "weights.kfsearch.train.start.weights",
     "vector leaf-weights), not the kf vector"),
    (lambda d: d["weights"]["second"]["train"].update(target="leaf"),
     "weights.second.train.start.weights", "vector leaf-weights), not the leaf vector"),
    (_starts_from("first", "second"), "weights.first.train.start.weights",
     "the starts form a cycle (first -> second -> first)"),
    (_starts_from("kfsearch", "kfsearch"), "weights.kfsearch.train.start.weights",
     "the starts form a cycle (kfsearch -> kfsearch)"),
    (lambda d: d["weights"]["first"].update(select="final"), "weights.first.select",
     "learner cmaes trains them to their end in one job"),
    (lambda d: d["weights"]["kfsearch"].update(select={"step": 1}), "weights.kfsearch.select",
     "learner cem trains them"),
    (lambda d: d["weights"]["kfq"].update(select="largest-margin"), "weights.kfq.select",
     "learner kf-q trains them"),
])
def test_a_bad_start_or_select_is_one_line_naming_file_and_key(tmp_path, edit, key,
                                                               says) -> None:
    folder = _folder(tmp_path, edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(folder)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{folder / CLAIM}.yaml: key {key}: "), text
    assert says in text, text


@pytest.mark.parametrize(("name", "key", "shrinks"), [
    ("first", "every", "games, generations, population, search"),
    ("second", "moves", "games, generations, population, search"),
    ("kfq", "population", "every, games"),
])
def test_a_profile_key_the_learner_does_not_shrink_is_one_line(tmp_path, name, key,
                                                                shrinks) -> None:
    """A profile's ``claims.<id>.weights.<name>`` key that the learner never reads is refused
    in one line naming the profile and the key, not accepted and ignored."""
    over = {"claims": {CLAIM: {"weights": {name: {key: 1}}}}}
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "smoke", "claims_dir": str(_folder(tmp_path)), **over})
    text = str(err.value)
    assert "\n" not in text and text.startswith("config/profiles/smoke.yaml"), text
    assert f"key claims.{CLAIM}.weights.{name}.{key}: " in text and shrinks in text, text


def test_select_on_an_edit_is_refused_and_a_validated_learners_is_kept(tmp_path) -> None:
    """An edit selects nothing (one line naming the key); a TC-TD learner's declared select is
    kept, and every weights without one holds the default, as the schema once filled it."""
    def on_edit(doc):
        doc["weights"]["zeroed"]["select"] = "final"
    folder = claims_copy(tmp_path / "a", on_edit, claim="ntuple-fill-conditioned-leaf")
    with pytest.raises(DeclarationError) as err:
        load_claim(folder / "ntuple-fill-conditioned-leaf.yaml")
    text = str(err.value)
    assert "\n" not in text and text.startswith(
        f"{folder}/ntuple-fill-conditioned-leaf.yaml: key weights.zeroed.select: an edit is "
        "not trained"), text

    def final(doc):
        doc["weights"]["linear-trained"]["select"] = "final"
    folder = claims_copy(tmp_path / "b", final, claim="linear-trained-leaf")
    assert load_claim(folder / "linear-trained-leaf.yaml").weights["linear-trained"][
        "select"] == "final"
    shipped = load_claims(REPO / "config" / "claims")
    assert all(w["select"] == "largest-margin" for c in shipped.values()
               for w in c.doc.get("weights", {}).values())
    assert shipped["depth-native-leaf-weights"].doc["weights"]["cmaes-d4s5"]["select"] == (
        "largest-margin")


def _search(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from cli.main import main; "
            "sys.exit(main(sys.argv[1:]))", "weight-search", *args]


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(_search(*args), env=env, capture_output=True, text=True, timeout=900)


KF_FLAGS = ("--kind", "cem", "--target", "kf", "--population", "4", "--sigma", "0.5",
            "--games", "4", "--generations", "2", "--health-games", "0")


def _generation(out, g: int) -> dict:
    return json.loads((out / GENERATION.format(g=g) / "generation.json").read_text())


def test_a_kf_search_starts_from_another_runs_frozen_vector_checked_by_its_record(tmp_path):
    """A cem over the KF weights from another search's frozen file: its control is that vector,
    the start's SHA-256 is in its config, its frozen record, its curve and the page's section;
    the same file altered is refused in one line before any game."""
    a, b = tmp_path / "a", tmp_path / "b"
    assert _run(*KF_FLAGS, "--start", "zero", "--first-game", "8200000000",
                "--out", str(a)).returncode == 0
    whole = _run(*KF_FLAGS, "--start", f"trained:{a}/frozen", "--first-game", "8300000000",
                 "--out", str(b))
    assert whole.returncode == 0, whole.stderr
    first = json.loads((a / "curve.json").read_text())["frozen"]["sha256"]
    assert _generation(b, 1)["control"]["vector"] == list(read_kf_trained(a / "frozen"))
    summary = json.loads((b / "curve.json").read_text())
    assert summary["start_sha256"] == first
    assert json.loads((b / "config.json").read_text())["start_sha256"] == first
    assert json.loads((b / "frozen" / "frozen.json").read_text())["start_sha256"] == first
    training = {"name": "b", "learner": "cem", "produces": "a searched weight vector",
                "recipe": {}, "shrunk": [], "curve_kind": "search"}
    section = LearnerCurveSection.from_json(training, summary, {"sha256": "f" * 64})
    assert any(first in note for note in section.notes)
    plain = json.loads((a / "curve.json").read_text())
    assert "start_sha256" not in plain and "start_sha256" not in json.loads(
        (a / "config.json").read_text())  # a named start records as before

    (a / "frozen" / "weights.json").write_text("[1, 2, 3, 4, 5, 6]")
    bad = _run(*KF_FLAGS, "--start", f"trained:{a}/frozen", "--out", str(tmp_path / "c"))
    err = bad.stderr.strip()
    assert bad.returncode == 2 and "\n" not in err, err
    assert "--start" in err and str(a / "frozen" / "weights.json") in err, err
    assert not (tmp_path / "c").exists()


def _state(path) -> list:
    """A saved CMA-ES state as comparable values (an unpickled state pickles in other bytes:
    numpy's dtypes are then objects of their own)."""
    from engines.learners.optimizers import load

    cma = load(path.read_bytes()).cma
    values = [(k, v.tolist() if isinstance(v, np.ndarray) else v)
              for k, v in sorted(cma.__getstate__().items())]
    rng = cma._rng.get_state()
    return [*values, rng[0], rng[1].tolist(), *rng[2:]]


LEAF_FLAGS = ("--kind", "cmaes", "--target", "leaf-weights", "--population", "4", "--sigma",
              "0.25", "--games", "2", "--depth", "1", "--health-games", "2")


def test_a_leaf_search_from_a_trained_vector_resumed_after_a_kill_equals_a_whole_run(tmp_path):
    """A tiny cmaes, then a cmaes starting from its frozen linear vector: its control (its
    start) is that vector, its start's SHA-256 is the first's frozen one; killed (SIGKILL)
    once a generation is whole and resumed, it gives the generations, states (CMA-ES's
    generator's among them) and frozen vector of one uninterrupted run."""
    first = tmp_path / "first"
    done = _run(*LEAF_FLAGS, "--generations", "1", "--first-game", "8400000000",
                "--out", str(first))
    assert done.returncode == 0, done.stderr
    start = ("--start", f"trained:{first}/frozen", "--first-game", "8500000000",
             "--generations", "4")
    whole = _run(*start, *LEAF_FLAGS, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    vector = json.loads((first / "frozen.json").read_text())
    assert _generation(tmp_path / "whole", 1)["control"]["vector"] == vector
    manifest = json.loads((first / "frozen" / "manifest.json").read_text())
    summary = json.loads((tmp_path / "whole" / "curve.json").read_text())
    assert summary["start_sha256"] == manifest["sha256"]

    out = tmp_path / "killed"
    proc = subprocess.Popen(_search(*start, *LEAF_FLAGS, "--out", str(out)),
                            env={**os.environ, "PYTHONPATH": str(REPO)},
                            stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    deadline = time.time() + 900
    while not (out / GENERATION.format(g=1) / STATE).exists() and proc.poll() is None:
        assert time.time() < deadline
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (out / "curve.json").exists()
    again = _run(*start, *LEAF_FLAGS, "--out", str(out), "--resume")
    assert again.returncode == 0 and "resumed after generation" in again.stderr, again.stderr
    for g in range(1, 5):
        one, two = _generation(out, g), _generation(tmp_path / "whole", g)
        assert {k: v for k, v in one.items() if k != "wall_s"} == {
            k: v for k, v in two.items() if k != "wall_s"}
        state = f"{GENERATION.format(g=g)}/{STATE}"
        assert _state(out / state) == _state(tmp_path / "whole" / state)
    assert json.loads(again.stdout)["frozen"] == json.loads(whole.stdout)["frozen"]


@pytest.mark.workflow
def test_a_search_from_a_trained_vector_waits_for_it_in_the_dag(tmp_path) -> None:
    """A dry run of the second search's record plans the first search before it, and the
    second's command starts from the first's frozen directory."""
    from workflow_support import snakemake

    folder = _folder(tmp_path)
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(folder)})
    t = plan.claims[CLAIM].direct_trained
    result = snakemake(tmp_path / "run", "-n", "-p", "--config", "profile=smoke",
                       f"claims_dir={folder}", "--", t["second"].record, t["kfagain"].record)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert out.index(f"--out {t['first'].dir}") < out.index(f"--out {t['second'].dir}")
    assert f"--start trained:{t['first'].dir}/frozen" in out
    assert out.index("drop7 kf-train") < out.index(f"--out {t['kfsearch'].dir}") < out.index(
        f"--out {t['kfagain'].dir}")
    assert out.count("rule direct_train_") == 5

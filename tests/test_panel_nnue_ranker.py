"""A pinned network as a panel ranker: a one-ply search with the network leaf
(``play: search, depth: 1, leaf: {file, sha256}``) ranks the roots of a panel like any search
arm (docs/panels.md, The rankers; the claim config/claims/nnue-class-holds-d4-ordering.yaml
trains its network in the claim instead)."""

from __future__ import annotations

from typing import Any

import pytest
from claims_support import REPO, write_claim

from engines.leaves.kinds import LEAF_KINDS
from engines.leaves.nnue_class import Sizes
from engines.leaves.nnue_weights import write_random_network
from protocol import costs
from protocol.arms import decision_seconds
from protocol.checks import before_any_job
from protocol.plan import load_plan
from protocol.schema import DeclarationError

ID = "nnue-ranker-panel"
#: a tiny network (the kernel takes any hidden 1..512 and mid 1..64): the plan hashes the file,
#: it never evaluates it
TINY = Sizes(8, 4)


def panel_claim(pin: dict[str, str]) -> dict[str, Any]:
    """A panel-only claim: roots from fair d2s3 games, fair d3s3 the reference, the pinned
    network one ply and fair d1s3 the rankers."""
    return {
        "format": "drop7-claim-v1", "id": ID,
        "title": "A network one ply orders the moves like the fair d3 search",
        "claim": "The pinned network one ply picks fair d3's best column more often than fair d1.",
        "arms": {"fair-d3s3": {"play": "search", "depth": 3, "strata": 3, "leaf": "linear"},
                 "fair-d2s3": {"play": "search", "depth": 2, "strata": 3, "leaf": "linear"},
                 "fair-d1s3": {"play": "search", "depth": 1, "strata": 3, "leaf": "linear"},
                 "nnue-d1s3": {"play": "search", "depth": 1, "strata": 3, "leaf": pin}},
        "panel": {"block": 79,
                  "roots": {"policy": "fair-d2s3", "games": 8, "every": 4, "roots": 128},
                  "reference": "fair-d3s3",
                  "rankers": ["nnue-d1s3", "fair-d1s3"]},
        "readings": {
            "nnue-top1": {"kind": "figure-at-least", "ranker": "nnue-d1s3", "figure": "top1",
                          "threshold": 0.6, "over": "halves"},
            "nnue-over-d1": {"kind": "ranker-beats", "ranker": "nnue-d1s3",
                             "other": "fair-d1s3", "figure": "top1"}},
        "verdict": {"rules": [{"when": {"nnue-top1": ["fail", "not-run"]},
                               "then": "not-supported-as-tested"}],
                    "otherwise": "supported-as-tested"},
    }


def plan_with(tmp_path, pin: dict[str, str]):
    own = tmp_path / "mine"
    own.mkdir(exist_ok=True)
    write_claim(own, panel_claim(pin))
    return load_plan(REPO, {"profile": "smoke", "claims_dir": str(own)})


def test_a_pinned_network_one_ply_is_a_panel_ranker(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # a claim's files are relative to the run's directory
    digest = write_random_network(tmp_path / "net", 11, TINY)["sha256"]
    plan = plan_with(tmp_path, {"file": "net", "sha256": digest})
    p = plan.claims[ID]
    panel = p.panel
    assert panel.names() == ["fair-d3s3", "nnue-d1s3", "fair-d1s3"]
    ranker = panel.arms["nnue-d1s3"]
    assert ranker.policy == f"search:leaf=nnue-file:{digest}:net,d=1,s=3"
    assert ranker.spec.leaf.kind == "nnue-file" and ranker.games == panel.roots
    # priced as a search at the network's node rate, not the fair leaf's
    assert ranker.seconds_per_game == decision_seconds(ranker.spec)
    assert LEAF_KINDS["nnue-file"].node_seconds > LEAF_KINDS["linear"].node_seconds
    assert ranker.seconds_per_game > panel.arms["fair-d1s3"].seconds_per_game
    assert ranker.shards == costs.shards_for(panel.roots, ranker.seconds_per_game,
                                             plan.profile["job_minutes"])
    # the pin is the claim's, described and hashed before any job
    assert p.describe()["pinned"] == {"arms.nnue-d1s3.leaf": {
        "file": "net", "sha256": digest, "kind": "nnue-file"}}
    assert list(p.arms) == ["fair-d2s3"]  # only the roots arm plays games
    before_any_job(plan)


def test_a_network_that_is_not_its_pin_is_refused_before_any_job(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_random_network(tmp_path / "net", 11, TINY)
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan_with(tmp_path, {"file": "net", "sha256": "0" * 64}))
    message = str(err.value)
    assert "\n" not in message and "arms.nnue-d1s3.leaf" in message, message


@pytest.mark.slow  # compiles the network's search (about a minute and a half)
def test_the_pinned_network_ranks_roots_as_the_panel_job_does(tmp_path) -> None:
    """``drop7 panel rank``'s rows of the network one ply: every legal column valued, no
    fault, the choice a best-valued column, and the same rows again (seeded, no state)."""
    import math

    from engines.drop7 import core
    from engines.play.panel import game_roots, ranker_rows
    from engines.play.policy import load_policy

    digest = write_random_network(tmp_path / "net", 11, TINY)["sha256"]
    roots = game_roots(load_policy("search:leaf=linear,d=1,s=3"), [5, 6], every=3, limit=6)
    policy = f"search:leaf=nnue-file:{digest}:{tmp_path / 'net'},d=1,s=3"
    rows = ranker_rows("nnue-d1s3", load_policy(policy), roots)
    assert len(rows) == len(roots) == 6
    for root, row in zip(roots, rows, strict=True):
        values = {c: row[f"v{c}"] for c in range(7)}
        legal = {c for c in range(7) if core.is_legal(root.cols, c)}
        assert not row["fault"] and {c for c, v in values.items() if v is not None} == legal
        assert all(math.isfinite(values[c]) for c in legal)
        assert values[row["choice"]] == max(values[c] for c in legal)
    assert ranker_rows("nnue-d1s3", load_policy(policy), roots) == rows

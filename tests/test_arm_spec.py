"""One typed arm from the claim to the player: the light grammar, the registries, one parse."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from claims_support import REPO, own_claim, write_claim

from engines.leaves import kinds
from engines.leaves.kinds import LEAF_KINDS, LeafKind, register_leaf
from engines.play import policy_grammar
from engines.play.arm_specs import Arm, SearchSpec
from engines.play.games import play_game
from engines.play.policy import FACTORIES, load_policy
from engines.play.policy_grammar import ARM_KINDS, parse_arm, parse_policy
from engines.play.runner import run_shard
from engines.search import leaf as search_leaf
from protocol.arms import PLAY_KINDS, check_arm, decision_seconds
from protocol.declaration import claim_schema, load_claim


def test_the_grammar_imports_no_numba() -> None:
    """The protocol and the command line read the grammar without loading the engine."""
    code = ("import sys, engines.play.arm_specs, engines.play.policy_grammar; "
            "print(sorted(m for m in ('numba', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"


def _imports(path: Path) -> set[str]:
    """Modules of engines.play a file imports (in functions too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            out.update(n for n in names if n.startswith("engines.play."))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("engines.play."))
    return out


def test_the_players_package_has_no_import_circle() -> None:
    """policy.py (the factory) imports external_policy.py; nothing it imports imports it back."""
    files = {f"engines.play.{p.stem}": p for p in (REPO / "engines" / "play").glob("*.py")}
    graph = {m: {i for i in _imports(p) if i in files} for m, p in files.items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n}))
                   for n in graph[start])

    assert [m for m in graph if reaches(m, m, set())] == []


def test_every_kind_is_registered_once_with_all_it_needs() -> None:
    assert set(ARM_KINDS) == set(FACTORIES) == set(PLAY_KINDS)
    assert set(LEAF_KINDS) == set(search_leaf.LOADERS)
    arm = claim_schema()["properties"]["arms"]["additionalProperties"]["properties"]
    assert arm["play"]["enum"] == [p for k in PLAY_KINDS.values() for p in k.plays]
    with pytest.raises(ValueError, match="registered already"):
        register_leaf(LeafKind("zero", False, 1e-9))


def test_a_declared_arm_is_checked_by_its_kind() -> None:
    said: list[tuple[str, str]] = []
    check_arm({"play": "direct", "depth": 2}, lambda key, message: said.append((key, message)))
    assert said == [("leaf", "a direct arm needs a leaf"),
                    ("depth", "a direct arm plays one ply: no depth")]
    said.clear()
    check_arm({"play": "random", "strata": 3, "grace": 5}, lambda k, m: said.append((k, m)))
    assert said == [("strata", "the random baseline takes no strata"),
                    ("grace", "only an external arm takes grace")]


def test_a_worker_is_handed_the_spec_never_a_string(monkeypatch) -> None:
    """The runner parses ``NAME=POLICY`` once; loading and playing never parse again."""
    arms = [parse_arm("a=direct:leaf=zero,s=2"), parse_arm("b=random")]
    monkeypatch.setattr(policy_grammar, "_BY_HEAD", {})  # any parse from here on fails
    with pytest.raises(ValueError, match="unknown policy"):
        parse_policy("random")
    rows = run_shard(arms, 5, 2, progress_s=-1)
    assert [(r["arm"], r["policy"]) for r in rows] == [
        ("a", "direct:leaf=zero,s=2")] * 2 + [("b", "random")] * 2


def test_an_arm_formats_its_spec_once() -> None:
    arm = Arm("x", SearchSpec("search", kinds.LeafSpec("linear"), 2, 5))
    assert arm.policy == "search:leaf=linear,d=2,s=5" and arm.kind == "search"
    with pytest.raises(TypeError):
        Arm("x", SearchSpec("search", kinds.LeafSpec("linear")), "search:leaf=zero")


@pytest.fixture
def toy_leaf():
    """The recipe of docs/architecture.md ("a new leaf"), step by step: the kind in
    engines/leaves/kinds.py, its loader in engines/search/leaf.py; it reuses the zero
    kernel (a leaf of new arithmetic adds a kernel branch there too)."""
    register_leaf(LeafKind("toy", takes_path=False, node_seconds=123e-9))
    search_leaf.register_loader(
        "toy", lambda spec, verify: search_leaf.Leaf(search_leaf.LEAF_ZERO, spec.format()))
    yield "toy"
    del LEAF_KINDS["toy"], search_leaf.LOADERS["toy"]


def test_a_toy_leaf_registered_by_the_recipe_plays_and_is_declared(toy_leaf, tmp_path) -> None:
    spec = parse_policy("direct:s=3,leaf=toy")
    assert spec.format() == "direct:leaf=toy,s=3" and "toy" in kinds.leaf_grammar()
    toy, zero = load_policy(spec), load_policy("direct:leaf=zero,s=3")
    for seed in (1, 2):
        mine, theirs = play_game(toy, seed), play_game(zero, seed)
        assert mine["score"] == theirs["score"] and mine["moves"] == theirs["moves"]
    assert decision_seconds(spec) == pytest.approx(7 * 3 * 123e-9)
    doc = own_claim()
    doc["arms"]["toy-d1s3"] = {"play": "search", "depth": 1, "strata": 3, "leaf": "toy"}
    claim = load_claim(write_claim(tmp_path, doc))
    assert claim.arms["toy-d1s3"]["leaf"] == "toy"

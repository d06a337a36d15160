"""Claim declarations, profiles and the plan: what loads, what each profile runs, what fails."""

from __future__ import annotations

import pytest
from claims_support import CLAIMS, REPO, claims_copy, fair_depth_claim, shipped

from protocol.declaration import load_claims
from protocol.plan import build_plan, load_plan
from protocol.plan_model import PILOT, PUBLIC
from protocol.profile import load_profile
from protocol.schema import DeclarationError


def plan_of(profile: str, claims_dir=None, **over):
    overrides = {"profile": profile, **over}
    if claims_dir is not None:
        overrides["claims_dir"] = str(claims_dir)
    return load_plan(REPO, overrides)


def test_the_shipped_claims_load_and_every_profile_plans_them() -> None:
    assert sorted(load_claims(REPO / "config" / "claims")) == sorted(CLAIMS)
    for profile in ("smoke", "pilot", "paper"):
        plan = plan_of(profile)
        assert sorted(plan.claims) == sorted(CLAIMS)
        # a claim that reads another's frozen tables comes after it
        order = plan.order()
        assert order.index("ntuple-line-tuples") < order.index("fourth-ply")
    # the README's first command: the registered claim alone; every other claim by name
    assert plan_of("pilot").run == ["ntuple-line-tuples"]
    assert plan_of("paper").run == ["ntuple-line-tuples", "ntuple-line-tuples-lanes"]


def test_the_registered_claim_in_pilot_is_todays_pilot() -> None:
    """Same names, policies, seeds, budgets and block as the one-claim workflow had."""
    p = plan_of("pilot").claims["ntuple-line-tuples"]
    assert p.block == 1 and p.seeds[1] == 256 and p.validation_games == 64
    assert {n: (t.moves, t.every) for n, t in p.trained.items()} == {
        "ntuple-A": (20_000_000, 5_000_000), "ntuple-E": (20_000_000, 5_000_000)}
    root = "results/pilot/claims/ntuple-line-tuples"
    assert p.arms["ntuple-A-d3s7"].policy == f"search:leaf=ntuple:{root}/frozen/ntuple-A,d=3,s=7"
    assert p.arms["ntuple-A-direct"].policy == f"direct:leaf=ntuple:{root}/frozen/ntuple-A"
    assert p.arms["linear-d3s7"].policy == "search:leaf=linear,d=3,s=7"
    assert p.comparator == "linear-d3s7"
    assert p.validation_arms["ntuple-A-step5000000-d3s7"].policy == (
        f"search:leaf=ntuple:{root}/train/ntuple-A/step-5000000,d=3,s=7")
    assert {c.name: c.arms for c in p.contrasts.values()} == {
        "primary": ("ntuple-A-d3s7", "linear-d3s7"),
        "direct": ("ntuple-A-direct", "linear-d3s7")}
    assert p.tier == PILOT and any("ntuple-A: trained 2e7 moves" in s for s in p.shrunk)


def test_paper_shrinks_nothing_and_gives_the_public_tier() -> None:
    for p in plan_of("paper").claims.values():
        assert p.shrunk == [] and p.tier == PUBLIC
    p = plan_of("paper").claims["ntuple-line-tuples"]
    assert p.trained["ntuple-A"].steps == [2 * 10**8 * k for k in range(1, 6)]
    assert p.trained["ntuple-E"].steps == [2 * 10**8]
    assert plan_of("paper").claims["fourth-ply"].blocks == [10, 11]  # 512 games


def test_smoke_caps_every_size_and_searches_one_ply_shallower() -> None:
    plan = plan_of("smoke")
    four = plan.claims["fourth-ply"]
    assert {a.name: (a.spec.depth, a.spec.strata, a.games) for a in four.arms.values()} == {
        "tables-d3s7": (2, 3, 8), "tables-d4s7": (3, 3, 8), "fair-d3s7": (2, 3, 8),
        "fair-d4s7": (3, 3, 8)}
    assert four.block == 4010 and plan.claims["ntuple-line-tuples"].block == 4000
    assert plan.claims["linear-trained-leaf"].trained["linear-trained"].steps == [20_000]
    assert plan.claims["ntuple-line-tuples"].shrunk == [
        "ntuple-A: trained 20,000 moves, a checkpoint every 20,000 (declared: 1e9 every 2e8)",
        "ntuple-E: trained 20,000 moves, a checkpoint every 10,000 (declared: 2e8 every 2e8)",
        "validation: 8 of the declared 64 games",
        "validation search: d2s3 instead of d3s7",
        "screen: 8 of the declared 256 games",
        "arm ntuple-A-d3s7: search d2s3 instead of d3s7",
        "arm ntuple-A-direct: search s3 instead of s7",
        "arm linear-d3s7: search d2s3 instead of d3s7"]


def test_a_prefix_arm_sets_its_contrasts_n_and_says_so(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", extra={"fair-depth-prefix": fair_depth_claim()})
    p = plan_of("pilot", claims).claims["fair-depth-prefix"]
    assert p.seeds[1] == 32
    assert p.arms["fair-d2s7"].games == 16 and p.arms["fair-d3s7"].games == 32
    assert p.contrasts["depth"].games == 16 and p.contrasts["depth"].prefix_of == ("fair-d2s7",)
    small = plan_of("smoke", claims).claims["fair-depth-prefix"]
    assert any("fair-d2s7: plays the first 4" in s for s in small.shrunk)


def test_shards_depend_on_cost_not_on_results() -> None:
    few = plan_of("pilot").claims["ntuple-line-tuples"].arms["linear-d3s7"]
    many = plan_of("pilot", job_minutes=0.1).claims["ntuple-line-tuples"].arms["linear-d3s7"]
    assert many.shards > few.shards and many.policy == few.policy and many.games == few.games


@pytest.mark.parametrize(("edit", "key"), [
    (lambda d: d["arms"]["linear-d3s7"].update(deph=3), "unknown key arms.linear-d3s7.deph"),
    (lambda d: d.update(contrast={}), "unknown key contrast"),
    (lambda d: d["readings"]["primary"].update(kind="screens"), "key readings.primary.kind"),
    (lambda d: d["contrasts"]["primary"].update(difference=["ntuple-A-d3s7", "linear-d4s7"]),
     "key contrasts.primary.difference[1]: no arm 'linear-d4s7'"),
    (lambda d: d["readings"]["primary"].update(contrast="secondary"),
     "key readings.primary.contrast: no contrast 'secondary'"),
    (lambda d: d["readings"]["ablation"].update(weights="ntuple-Z"),
     "key readings.ablation.weights: no trained weights 'ntuple-Z'"),
    (lambda d: d["readings"]["primary"].update(weights="ntuple-A"),
     "key readings.primary.weights: a screen reading takes contrast"),
    (lambda d: d["arms"]["ntuple-A-d3s7"].update(leaf={"weights": "ntuple-B"}),
     "key arms.ntuple-A-d3s7.leaf.weights: 'ntuple-B' is not trained by this claim"),
    (lambda d: d.update(gates=["primary"]), "key gates[0]: reading 'primary' reads the screen"),
    (lambda d: d["verdict"]["rules"][0]["when"].update({"training-signal": "refuted"}),
     "key verdict.rules[0].when.training-signal: 'refuted' is not an outcome"),
    (lambda d: d["verdict"]["rules"][0]["when"].update({"nothing": "pass"}),
     "key verdict.rules[0].when.nothing: no reading 'nothing'"),
    (lambda d: d["weights"]["ntuple-A"]["train"].update(every=2 * 10**9),
     "key weights.ntuple-A.train.every"),
    (lambda d: d["weights"]["ntuple-A"]["train"].pop("layout"),
     "key weights.ntuple-A.train.layout: an ntuple learner needs a layout"),
    (lambda d: d["arms"]["linear-d3s7"].update(games=300), "key arms.linear-d3s7.games"),
    (lambda d: d.update(id="ntuple-lines"), "key id: 'ntuple-lines' differs from the file"),
    (lambda d: d["recorded"]["arms"].update({"linear-d5s7": {"mean": 1}}),
     "key recorded.arms.linear-d5s7: not a declared arm"),
])
def test_a_bad_declaration_is_one_line_naming_file_and_key(tmp_path, edit, key) -> None:
    claims = claims_copy(tmp_path / "claims", edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    message = str(err.value)
    assert message.startswith(str(claims / "ntuple-line-tuples.yaml") + ": ")
    assert key in message and "\n" not in message


def test_a_screen_reading_needs_a_difference(tmp_path) -> None:
    def edit(d):
        d["readings"]["interaction"] = {"kind": "screen", "contrast": "interaction"}

    with pytest.raises(DeclarationError, match="key readings.interaction.contrast: a screen "
                                               "reading needs a difference contrast"):
        load_claims(claims_copy(tmp_path / "c", edit, claim="fourth-ply"))


def test_references_to_other_claims_are_checked(tmp_path) -> None:
    def other_claim(d):
        d["arms"]["tables-d3s7"]["leaf"]["claim"] = "ntuple-lines"

    with pytest.raises(DeclarationError, match=r"fourth-ply.yaml: key arms.tables-d3s7.leaf."
                                               r"claim: no claim 'ntuple-lines'"):
        load_claims(claims_copy(tmp_path / "a", other_claim, claim="fourth-ply"))

    def other_weights(d):
        d["arms"]["tables-d3s7"]["leaf"]["weights"] = "ntuple-C"

    with pytest.raises(DeclarationError, match="claim ntuple-line-tuples trains no 'ntuple-C'"):
        load_claims(claims_copy(tmp_path / "b", other_weights, claim="fourth-ply"))

    def share(d):
        d["screen"]["block"] = {"claim": "nobody"}

    with pytest.raises(DeclarationError, match="key screen.block.claim: no claim 'nobody'"):
        load_claims(claims_copy(tmp_path / "c", share, claim="fourth-ply"))


def test_a_cycle_of_claims_is_refused(tmp_path) -> None:
    a, b = fair_depth_claim(), fair_depth_claim(31)
    a["weights"] = {"w": {"train": {"learner": "linear", "moves": 10, "every": 10}}}
    a["validation"] = {"search": {"depth": 1, "strata": 1}}
    b["id"] = "loop-b"
    b["weights"] = dict(a["weights"])
    b["validation"] = dict(a["validation"])
    a["arms"]["fair-d2s7"]["leaf"] = {"claim": "loop-b", "weights": "w"}
    b["arms"]["fair-d2s7"]["leaf"] = {"claim": "fair-depth-prefix", "weights": "w"}
    claims = claims_copy(tmp_path / "c", extra={"fair-depth-prefix": a, "loop-b": b})
    with pytest.raises(DeclarationError, match="a cycle of claims"):
        load_claims(claims)


def test_invalid_yaml_is_one_line(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c")
    (claims / "broken.yaml").write_text("id: [unclosed\n")
    with pytest.raises(DeclarationError, match=r"broken.yaml: not valid YAML at line \d"):
        load_claims(claims)


def test_a_profile_may_only_shrink(tmp_path) -> None:
    with pytest.raises(DeclarationError, match="claims.ntuple-line-tuples.weights.ntuple-E.moves:"
                                               " 400,000,000 is more than the declared"):
        plan_of("pilot", claims={"ntuple-line-tuples": {
            "weights": {"ntuple-E": {"moves": 400_000_000}}}})
    with pytest.raises(DeclarationError, match="claims.fourth-ply.arms.tables-d5s7: claim "
                                               "fourth-ply declares no such arm"):
        plan_of("pilot", claims={"fourth-ply": {"arms": {"tables-d5s7": {"games": 4}}}})
    with pytest.raises(DeclarationError, match="key run: no claim 'nobody'"):
        plan_of("pilot", run=["nobody"])


@pytest.mark.parametrize(("override", "named"), [
    ({"shrnk": {}}, "unknown key shrnk"),
    ({"shrink": {"screen_gams": 3}}, "unknown key shrink.screen_gams"),
    ({"job_minutes": 0}, "key job_minutes = 0"),
    ({"claims": {"fourth-ply": {"screen": {"games": 2}}}}, "claims.fourth-ply.screen.games"),
])
def test_a_bad_profile_override_is_named(override, named) -> None:
    with pytest.raises(DeclarationError, match=named):
        load_profile(REPO, {"profile": "pilot", **override})


def test_an_unknown_profile_is_named() -> None:
    with pytest.raises(DeclarationError, match="key profile = 'pilott': no such profile"):
        load_profile(REPO, {"profile": "pilott"})


def test_two_claims_on_one_block_are_refused_unless_shared(tmp_path) -> None:
    clash = fair_depth_claim(block=0)  # claim 1's paper block
    with pytest.raises(DeclarationError, match="claims fair-depth-prefix and ntuple-line-tuples "
                                               "both read screen block 0"):
        plan_of("paper", claims_copy(tmp_path / "a", extra={"fair-depth-prefix": clash}))
    shared = fair_depth_claim()
    shared["screen"]["block"] = {"claim": "ntuple-line-tuples"}
    p = plan_of("paper", claims_copy(tmp_path / "b", extra={"fair-depth-prefix": shared}))
    assert p.claims["fair-depth-prefix"].blocks == [0]
    assert p.claims["fair-depth-prefix"].shares_block_of == "ntuple-line-tuples"


def test_a_fourth_claim_is_a_file(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", extra={"fair-depth-prefix": fair_depth_claim()})
    p = plan_of("smoke", claims).claims["fair-depth-prefix"]
    assert p.block == 4030 and p.arms["fair-d2s7"].games == 4 and p.contrasts["depth"].games == 4
    assert p.arms["fair-d2s7"].policy == "search:leaf=linear,d=1,s=3"
    assert p.trained == {} and p.gates == []


def test_build_plan_checks_profile_names_against_claims() -> None:
    profile = load_profile(REPO, {"profile": "pilot"})
    claims = load_claims(REPO / "config" / "claims")
    del claims["fourth-ply"]
    with pytest.raises(DeclarationError, match="key claims: no claim 'fourth-ply'"):
        build_plan(profile, claims)


def test_shipped_recorded_figures_are_the_registers() -> None:
    rec = shipped("ntuple-line-tuples")["recorded"]
    assert rec["contrasts"]["primary"]["mean_delta"] == 170139
    assert rec["arms"]["ntuple-A-d3s7"]["mean"] == 484577
    assert shipped("fourth-ply")["recorded"]["contrasts"]["interaction"]["bootstrap_ub"] == 42867

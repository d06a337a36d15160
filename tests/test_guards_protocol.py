"""Guards of the protocol before any job: each family of bad input is one line naming the file
and the key, never a traceback, never a silently disabled check."""

from __future__ import annotations

import json
import re
import time

import pytest
from claims_support import REPO, claims_copy, fair_depth_claim, profile_like, write_claim

from protocol.checks import before_any_job
from protocol.declaration import load_claims
from protocol.ledger import LedgerError
from protocol.plan import load_plan
from protocol.plan_model import PILOT, PUBLIC
from protocol.profile import load_profile
from protocol.schema import DeclarationError
from protocol.verdict import decide

COMMITTED = "data/screen-ledger.json"


def plan_of(profile: str, claims_dir=None, **over):
    overrides = {"profile": profile, **over}
    if claims_dir is not None:
        overrides["claims_dir"] = str(claims_dir)
    return load_plan(REPO, overrides)


def one_line(err: pytest.ExceptionInfo, file: str, key: str) -> str:
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"{file}"), message
    assert f"key {key}" in message, message
    return message


def sharer(games: int = 32, owner: str = "ntuple-line-tuples", cid: str = "fair-depth-prefix"):
    doc = fair_depth_claim()
    doc["id"], doc["screen"] = cid, {"games": games, "block": {"claim": owner}}
    return doc


@pytest.mark.parametrize(("extra", "over", "file", "key", "says"), [
    # more games than the owner: the next block may be a third claim's
    ({"fair-depth-prefix": sharer(600)}, {}, "fair-depth-prefix.yaml", "screen.games",
     "more than the 256 of claim ntuple-line-tuples"),
    # a cycle of shared blocks (a RecursionError before)
    ({"fair-depth-prefix": sharer(owner="loop-b"),
      "loop-b": sharer(owner="fair-depth-prefix", cid="loop-b")}, {}, "fair-depth-prefix.yaml",
     "screen.block.claim", "a cycle of shared blocks"),
    # a chain: the claim named shares a block itself (the ledger would refuse it mid-run)
    ({"fair-depth-prefix": sharer(owner="loop-b"),
      "loop-b": sharer(owner="fourth-ply", cid="loop-b")}, {}, "fair-depth-prefix.yaml",
     "screen.block.claim", "itself shares the block of claim fourth-ply"),
    ({"fair-depth-prefix": sharer(owner="nobody")}, {}, "fair-depth-prefix.yaml",
     "screen.block.claim", "no claim 'nobody'"),
    # a profile's block for a sharer was silently ignored (smoke: only a profile with a
    # ledger of its own may set a block on the command line)
    ({"fair-depth-prefix": sharer()}, {"claims": {"fair-depth-prefix": {"block": 4007}}},
     "config/profiles/smoke.yaml", "claims.fair-depth-prefix.block", "set that claim's block"),
    # a profile that shrinks the owner below the sharer's blocks
    ({"fair-depth-prefix": sharer(512, owner="fourth-ply")},
     {"claims": {"fourth-ply": {"screen": {"games": 256}}}}, "config/profiles/paper.yaml",
     "claims.fair-depth-prefix.screen.games", "reads 1 in this profile: block 11"),
])
def test_a_shared_block_is_a_block_its_owner_reads(tmp_path, extra, over, file, key,
                                                   says) -> None:
    claims = claims_copy(tmp_path / "c", extra=extra)
    with pytest.raises(DeclarationError) as err:
        plan_of("smoke" if "smoke" in file else "paper", claims, **over)
    path = file if file.startswith("config/") else str(claims / file)
    assert says in one_line(err, path, key)


@pytest.mark.parametrize(("edit", "over", "file", "key"), [
    (lambda d: d["weights"]["ntuple-A"]["train"].update(every=1), {},
     "ntuple-line-tuples.yaml", "weights.ntuple-A.train.every"),
    (None, {"claims": {"ntuple-line-tuples": {"weights": {"ntuple-A": {"every": 1}}}}},
     "config/profiles/pilot.yaml", "claims.ntuple-line-tuples.weights.ntuple-A.every"),
    # the paper profile: pilot caps every screen at 256 games
    (lambda d: d["screen"].update(games=10**18), {"profile": "paper"},
     "ntuple-line-tuples.yaml", "screen.games"),
])
def test_checkpoints_and_blocks_are_bounded_before_any_list(tmp_path, edit, over, file,
                                                            key) -> None:
    """A checkpoint every move at the paper size planned forever and grew without bound."""
    claims = claims_copy(tmp_path / "c", edit)
    start = time.monotonic()
    with pytest.raises(DeclarationError) as err:
        over = dict(over)
        plan_of(over.pop("profile", "pilot"), claims, **over)
    assert time.monotonic() - start < 10
    path = file if file.startswith("config/") else str(claims / file)
    message = one_line(err, path, key)
    assert "blocks" in message or "at most 1,000" in message


@pytest.mark.parametrize(("edit", "key"), [
    (lambda d: d["screen"].update(games=256.0), "screen.games"),
    (lambda d: d["screen"].update(block=True), "screen.block"),
    (lambda d: d["validation"].update(games=64.0), "validation.games"),
    (lambda d: d["weights"]["ntuple-E"]["train"].update(moves="200000000"),
     "weights.ntuple-E.train.moves"),
    (lambda d: d["weights"]["ntuple-E"]["train"].update(first_game=False),
     "weights.ntuple-E.train.first_game"),
    (lambda d: d["weights"]["ntuple-A"].update(select={"step": 2e8}),
     "weights.ntuple-A.select"),
    (lambda d: d["arms"]["linear-d3s7"].update(games=128.0), "arms.linear-d3s7.games"),
])
def test_integer_keys_of_a_declaration_are_ints(tmp_path, edit, key) -> None:
    """``256.0`` passed every check and failed only in the play jobs; ``True`` is an int."""
    claims = claims_copy(tmp_path / "c", edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    one_line(err, str(claims / "ntuple-line-tuples.yaml"), key)


@pytest.mark.parametrize(("override", "key"), [
    ({"claims": {"fourth-ply": {"screen": {"games": 64.0}}}}, "claims.fourth-ply.screen.games"),
    ({"block_offset": True}, "block_offset"),
    ({"shrink": {"checkpoints": 2.0}}, "shrink.checkpoints"),
    ({"statistics": {"oc_sims": 1e3}}, "statistics.oc_sims"),
    ({"claims": {"ntuple-line-tuples": {"block": 2**70}}}, "claims.ntuple-line-tuples.block"),
])
def test_integer_keys_of_a_profile_are_ints(override, key) -> None:
    with pytest.raises(DeclarationError) as err:
        load_profile(REPO, {"profile": "pilot", **override})
    one_line(err, "config/profiles/pilot.yaml", key)


@pytest.mark.parametrize(("edit", "claim", "key"), [
    (lambda d: d["validation"].update(comparator={"claim": "nobody", "weights": "w"}),
     "ntuple-line-tuples", "validation.comparator.claim"),
    (lambda d: d["validation"].update(comparator={"claim": "linear-trained-leaf",
                                                  "weights": "w"}),
     "ntuple-line-tuples", "validation.comparator.weights"),
    (lambda d: d["weights"]["ntuple-E"]["train"].update(moves=2**64, every=2**63),
     "ntuple-line-tuples", "weights.ntuple-E.train.every"),
    (lambda d: d["screen"].update(games=2**64), "ntuple-line-tuples", "screen.games"),
    (lambda d: d["weights"]["ntuple-E"]["train"].update(first_game=2**60),
     "ntuple-line-tuples", "weights.ntuple-E.train.first_game"),
])
def test_bad_references_and_huge_budgets_are_one_line(tmp_path, edit, claim, key) -> None:
    """A comparator naming nothing was a KeyError; budgets beyond int64 or seeds beyond their
    role were an OverflowError or passed unnoticed."""
    claims = claims_copy(tmp_path / "c", edit, claim=claim)
    with pytest.raises(DeclarationError) as err:
        plan_of("paper", claims)
    one_line(err, str(claims / f"{claim}.yaml"), key)


def test_a_pin_under_an_unknown_profile_is_refused(tmp_path) -> None:
    """A per-profile pin keyed by a misspelt profile name was dropped silently."""
    def pin(d):
        d["arms"]["tables-d3s7"]["leaf"]["sha256"] = {"papr": "a" * 64}

    claims = claims_copy(tmp_path / "c", pin, claim="fourth-ply")
    with pytest.raises(DeclarationError) as err:
        plan_of("paper", claims)
    assert "no profile 'papr'" in one_line(err, str(claims / "fourth-ply.yaml"),
                                           "arms.tables-d3s7.leaf.sha256.papr")

    def comparator_pin(d):
        d["validation"]["comparator"] = {"claim": "linear-trained-leaf",
                                         "weights": "linear-trained", "sha256": "a" * 64}

    claims = claims_copy(tmp_path / "d", comparator_pin)
    with pytest.raises(DeclarationError) as err:  # a pin nothing would ever check
        plan_of("paper", claims)
    one_line(err, str(claims / "ntuple-line-tuples.yaml"), "validation.comparator.sha256")


@pytest.mark.parametrize(("override", "key"), [
    ({"profile": "paper", "allow_reuse": True}, "allow_reuse"),
    ({"profile": "pilot", "enforce_gates": False}, "enforce_gates"),
    ({"profile": "pilot", "ledger_new": True}, "ledger_new"),
])
def test_guards_turn_off_only_on_a_ledger_of_its_own(override, key) -> None:
    with pytest.raises(DeclarationError) as err:
        load_profile(REPO, override)
    assert "writes the committed ledger" in one_line(
        err, f"config/profiles/{override['profile']}.yaml", key)
    # another ledger on the command line does not make the profile's ledger its own (the
    # probe: ledger=OTHER ledger_new=True read an opened pilot block again as never read)
    with pytest.raises(DeclarationError) as err:
        load_profile(REPO, {**override, "ledger": "results/mine/ledger.json"})
    assert "the profile file's alone" in one_line(
        err, f"config/profiles/{override['profile']}.yaml", "ledger")
    load_profile(REPO, {"profile": "smoke", key: override[key], "ledger": "results/l.json"})


@pytest.mark.parametrize("override", [
    {"ledger": "results/other.json", "ledger_new": True},
    {"ledger_new": True}, {"enforce_gates": False}, {"allow_reuse": True},
    {"block_offset": 2000}, {"claims": {"fourth-ply": {"block": 30}}},
    {"claims": {"ntuple-line-tuples": {"block": 2}}},
])
@pytest.mark.parametrize("profile", ["pilot", "paper"])
def test_the_command_line_cannot_change_a_committed_profiles_ledger_guards_or_blocks(
        profile, override) -> None:
    key = next(iter(override))
    if key == "claims":
        claim = next(iter(override["claims"]))
        key = f"claims.{claim}.block"
    with pytest.raises(DeclarationError) as err:
        load_profile(REPO, {"profile": profile, **override})
    one_line(err, f"config/profiles/{profile}.yaml", key)
    # the same values as the file's are no change (a job reads the merged profile back)
    load_profile(REPO, {"profile": profile, "ledger": f"./{COMMITTED}", "block_offset":
                        load_profile(REPO, {"profile": profile})["block_offset"]})


def test_a_profile_with_a_ledger_of_its_own_cannot_write_the_committed_one() -> None:
    for over in ({"ledger": f"./{COMMITTED}"},
                 {"ledger": COMMITTED, "ledger_new": False, "allow_reuse": False,
                  "enforce_gates": True}):
        with pytest.raises(DeclarationError) as err:
            load_profile(REPO, {"profile": "smoke", **over})
        assert "names a ledger of its own" in one_line(err, "config/profiles/smoke.yaml",
                                                       "ledger")
    load_profile(REPO, {"profile": "smoke", "ledger": "results/other.json", "block_offset": 4001})


def test_an_override_is_blamed_on_the_file_or_the_option_that_gave_it(tmp_path) -> None:
    from protocol.profile import command_line_origins

    mine = tmp_path / "mine.yaml"
    mine.write_text("claims:\n  ntuple-line-tuples:\n    weights:\n      ntuple-A: {every: 1}\n"
                    "job_minutes: -1\n")
    over = {"claims": {"ntuple-line-tuples": {"weights": {"ntuple-A": {"every": 1}}}}}
    origins = command_line_origins([mine], {})
    with pytest.raises(DeclarationError) as err:  # the schema's check
        load_plan(REPO, {"profile": "pilot", "job_minutes": -1, **over}, origins)
    one_line(err, str(mine), "job_minutes")
    with pytest.raises(DeclarationError) as err:  # the plan's check
        load_plan(REPO, {"profile": "pilot", **over}, origins)
    one_line(err, str(mine), "claims.ntuple-line-tuples.weights.ntuple-A.every")
    with pytest.raises(DeclarationError) as err:  # --config after the file: --config is named
        load_plan(REPO, {"profile": "pilot", **over}, command_line_origins([mine], over))
    one_line(err, "--config", "claims.ntuple-line-tuples.weights.ntuple-A.every")
    with pytest.raises(DeclarationError) as err:
        load_plan(REPO, {"profile": "pilot", "enforce_gates": False},
                  command_line_origins([], {"enforce_gates": False}))
    one_line(err, "--config", "enforce_gates")
    tiny = tmp_path / "tiny.yaml"
    tiny.write_text("job_minutes: 0.000001\n")
    big = fair_depth_claim()
    big["screen"]["games"] = 4096
    claims = claims_copy(tmp_path / "c", extra={"fair-depth-prefix": big})
    with pytest.raises(DeclarationError) as err:  # the shards' check (pilot caps 4096 games)
        load_plan(REPO, {"profile": "paper", "job_minutes": 1e-6, "claims_dir": str(claims)},
                  command_line_origins([tiny], {"claims_dir": str(claims)}))
    # an arm's games or a panel ranker's roots, whichever is planned first
    assert re.search(r"cuts (arm|panel ranker) \S+ into [\d,]+ (game|root) jobs",
                     one_line(err, str(tiny), "job_minutes"))


def test_a_missing_ledger_is_refused_unless_the_profile_starts_one(tmp_path,
                                                                   monkeypatch) -> None:
    """A misspelt ledger path read as an empty ledger: every block looked unopened."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LedgerError) as err:
        before_any_job(plan_of("smoke", ledger="results/smoke/ledgr.json", ledger_new=False))
    assert "results/smoke/ledgr.json does not exist" in one_line(
        err, "config/profiles/smoke.yaml", "ledger")
    with pytest.raises(LedgerError, match=f"{COMMITTED} does not exist"):
        before_any_job(plan_of("paper"))  # a working directory without the committed ledger
    before_any_job(plan_of("smoke"))  # smoke starts its own (ledger_new: true)
    (tmp_path / "data").mkdir()
    (tmp_path / COMMITTED).write_text((REPO / COMMITTED).read_text())
    before_any_job(plan_of("paper"))


@pytest.mark.parametrize("where", ["claim", "profile"])
def test_a_key_given_twice_is_refused_with_both_lines(tmp_path, where) -> None:
    """The second of two equal keys silently replaced the first (an arm changed its player)."""
    if where == "claim":
        claims = claims_copy(tmp_path / "c")
        path = write_claim(claims, fair_depth_claim())
        path.write_text(path.read_text().replace("    play: search\n",
                                                 "    play: search\n    play: random\n", 1))
        first = path.read_text().splitlines().index("    play: search") + 1
        lines, key = (first, first + 1), "arms.fair-d3s7.play"
        with pytest.raises(DeclarationError) as err:
            load_claims(claims)
    else:
        path = tmp_path / "config" / "profiles" / "pilot.yaml"
        path.parent.mkdir(parents=True)
        text = (REPO / "config" / "profiles" / "pilot.yaml").read_text()
        path.write_text(text + "job_minutes: 30\n")
        first = next(i for i, line in enumerate(text.splitlines(), 1)
                     if line.startswith("job_minutes:"))
        lines, key = (first, len(text.splitlines()) + 1), "job_minutes"
        with pytest.raises(DeclarationError) as err:
            load_profile(tmp_path, {"profile": "pilot"})
    assert f"given twice (lines {lines[0]} and {lines[1]})" in one_line(err, str(path), key)


def test_a_file_in_the_claims_folder_that_is_not_yaml_is_refused(tmp_path) -> None:
    """A claim saved as ``.yml`` was skipped, and its screen never ran."""
    claims = claims_copy(tmp_path / "c")
    write_claim(claims, fair_depth_claim(), "fair-depth-prefix").rename(
        claims / "fair-depth-prefix.yml")
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    message = str(err.value)
    assert message.startswith(f"{claims / 'fair-depth-prefix.yml'}: not a claim declaration")
    assert "\n" not in message


def test_the_tier_counts_every_frozen_artefact_a_claim_reads(tmp_path) -> None:
    """fourth-ply at its registered size, on tables trained 2e7 instead of 1e9 moves, was
    labelled public-development."""
    plan = plan_of(profile_like(tmp_path / "a", "paper", claims={"ntuple-line-tuples": {
        "weights": {"ntuple-A": {"moves": 20_000_000, "every": 5_000_000}}}}))
    four = plan.claims["fourth-ply"]
    assert four.tier == PILOT
    assert four.shrunk == ["artefact ntuple-line-tuples/ntuple-A (read by tables-d3s7, "
                           "tables-d4s7): trained 2e7 moves, a checkpoint every 5e6 (declared: "
                           "1e9 every 2e8)"]
    assert plan.claims["linear-trained-leaf"].tier == PUBLIC  # reads nothing of it
    gated = plan_of(profile_like(tmp_path / "b", "paper",
                                 claims={"ntuple-line-tuples": {"validation": {"games": 8}}}))
    assert gated.claims["fourth-ply"].tier == PILOT
    assert "selected on 8 of the declared 64 validation games" in gated.claims[
        "fourth-ply"].shrunk[0]
    assert plan_of("paper").claims["fourth-ply"].tier == PUBLIC
    verdict = decide({"rules": [], "otherwise": "mixed"}, [], [], four.tier, four.shrunk)
    assert verdict["tier"] == PILOT and verdict["tier_lowered_by"] == four.shrunk
    assert json.loads(json.dumps(verdict))["tier_lowered_by"][0].startswith(
        "artefact ntuple-line-tuples/ntuple-A")

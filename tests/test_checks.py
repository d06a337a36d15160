"""What is refused before any job runs, and the disk and memory preflight."""

from __future__ import annotations

import json

import pytest
from claims_support import REPO, claims_copy

from protocol.checks import before_any_job, estimate_table, preflight
from protocol.ledger import Opener, open_blocks
from protocol.plan import load_plan
from protocol.schema import DeclarationError


def test_a_pinned_hash_that_differs_from_an_existing_frozen_record_is_refused(
        tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)

    def pin(d):
        d["arms"]["tables-d3s7"]["leaf"]["sha256"] = {"smoke": "b" * 64}

    claims = claims_copy(tmp_path / "claims", pin, claim="fourth-ply")
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims)})
    before_any_job(plan)  # nothing frozen yet: nothing to compare
    record = tmp_path / plan.claims["fourth-ply"].arms["tables-d3s7"].artefact.record
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"sha256": "a" * 64}))
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan)
    assert str(err.value).startswith(f"{claims / 'fourth-ply.yaml'}: key "
                                     "arms.tables-d3s7.leaf.sha256: the frozen "
                                     "ntuple-line-tuples/ntuple-A")
    record.write_text(json.dumps({"sha256": "b" * 64}))
    before_any_job(plan)


def test_a_block_another_claim_owns_is_refused_before_any_job(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = load_plan(REPO, {"profile": "smoke", "ledger": "ledger.json", "allow_reuse": False})
    block = plan.claims["fourth-ply"].block
    open_blocks("ledger.json", [block], Opener("someone-else", {}), profile="smoke",
                seeds=list(plan.claims["fourth-ply"].seeds))
    with pytest.raises(DeclarationError, match=f"ledger.json: screen block {block} was opened"
                                               " on .* by claim someone-else"):
        before_any_job(plan)


def test_preflight_names_the_shortfall() -> None:
    plan = load_plan(REPO, {"profile": "paper"})
    with pytest.raises(DeclarationError, match=r"not enough disk for the paper run: it writes "
                                               r"up to \d+\.\d GB under results/paper, 1\.0 GB"):
        preflight(plan, plan.run, free=10**9, memory=10**12)
    with pytest.raises(DeclarationError, match=r"not enough memory for the paper run: its "
                                               r"largest training job needs 7\.0 GB"):
        preflight(plan, plan.run, free=10**15, memory=4 * 10**9)
    said = preflight(plan, plan.run, free=10**15, memory=10**12)
    assert said.startswith(f"preflight: the {plan.name} run of ") and "GB free" in said


def test_the_estimate_lists_every_claim() -> None:
    text = estimate_table(load_plan(REPO, {"profile": "paper"}))
    assert "fourth-ply" in text and "(not in the default target)" in text
    assert text.splitlines()[0].startswith("estimated CPU hours of the paper profile")
    # the columns line up whatever the length of a claim's id
    rows = [line for line in text.splitlines()[1:] if line.startswith("  ")]
    assert len({len(line.split("   (")[0]) for line in rows}) == 1
    # a claim replaying the register's games costs them in its own column
    header = text.splitlines()[1].split()
    shallow = next(line.split() for line in rows if line.split()[0] == "shallow-ordering")
    assert float(shallow[header.index("replay")]) > 0


def test_disk_need_counts_two_states_at_most_and_one_for_a_single_segment(
        tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    from engines import weights_files as storage
    from engines.train.trainer import updates_per_move
    from protocol import costs
    from protocol.checks import disk_need
    plan = load_plan(REPO, {"profile": "smoke"})
    p = plan.claims["ntuple-line-tuples"]
    a, e = p.trained["ntuple-A"], p.trained["ntuple-E"]
    assert (len(a.steps), len(e.steps)) == (1, 2)
    per = costs.STEP_BYTES_PER_ENTRY
    frozen = sum(art.entries * per for art in p.artefacts.values() if art.claim == p.id)

    want = frozen + sum(
        storage.packed_bound(t.entries * per, s * updates_per_move(t.layout),
                             storage.PACKED_STEP_K)
        + storage.packed_bound(t.entries * costs.STATE_BYTES_PER_ENTRY,
                               s * updates_per_move(t.layout), storage.PACKED_STATE_K)
        for t in (a, e) for s in t.steps)  # every state: at most two per weights here
    # compressed checkpoints and states of 20,000 moves: a few MB each; frozen copies are plain
    assert disk_need(p, keep_final_state=False) == want
    assert want - frozen < 60e6

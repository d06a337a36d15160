"""``weights: {NAME: {edit: {from, rule}}}`` in a claim: the edit job as planned (command,
inputs, outputs), the edited arms' policies and hashes, the fill claim's pilot layout
listed as a shrink and its memory from the planner, and every misuse refused in one line
naming the file and the key."""

from __future__ import annotations

import copy
import shlex

import pytest
from claims_support import REPO, claims_copy, shipped

from protocol import costs
from protocol.plan import load_plan
from protocol.schema import DeclarationError

FILL = "ntuple-fill-conditioned-leaf"
#: this machine's memory: the pilot's largest job must fit it, the registered one does not
MACHINE_MB = 23_000


@pytest.fixture(scope="module")
def pilot():
    return load_plan(REPO, {"profile": "pilot"})


def test_the_edit_job_is_planned_after_the_source_freeze(pilot) -> None:
    p = pilot.claims[FILL]
    source = pilot.claims["ntuple-line-tuples"].arms["ntuple-A-d3s7"].artefact
    e = p.edits["zeroed"]
    root = f"results/pilot/claims/{FILL}/edits"
    assert shlex.split(e.command()) == [
        "drop7", "tables", "edit", source.dir, "--zero-untouched", "--out", f"{root}/zeroed",
        "--plain", "--record", f"{root}/zeroed.json", "--artefact", f"{FILL}/zeroed",
        "--source-record", source.record]
    assert "--class-mean" in shlex.split(p.edits["classmean"].command())
    assert e.inputs == [source.record, source.tables]
    assert e.outputs == {"tables": f"{root}/zeroed/tables.npy",
                         "manifest": f"{root}/zeroed/manifest.json",
                         "record": f"{root}/zeroed.json"}
    assert e.artefact.edited and e.artefact.entries == source.entries
    assert e.mem_mb == costs.edit_mem_mb(source.entries) and e.seconds > costs.JOB_OVERHEAD_S
    # its CPU is in the estimate's train column, its source's claim runs first
    assert p.estimate()["train"] > sum(
        costs.train_seconds(t.layout, end - start, t.entries)
        for t in p.trained.values() for start, end in t.segments)
    assert pilot.order().index("ntuple-line-tuples") < pilot.order().index(FILL)
    assert any(s.startswith("artefact ntuple-line-tuples/ntuple-A (read by prior-d3s7, the "
                            "warm start of fill, the warm start of control, the edit zeroed, "
                            "the edit classmean)") for s in p.shrunk)


def test_the_edited_arms_play_the_edit_and_its_hash_opens_the_block(pilot) -> None:
    p = pilot.claims[FILL]
    root = f"results/pilot/claims/{FILL}/edits"
    assert p.arms["zeroed-d3s7"].policy == f"search:leaf=ntuple:{root}/zeroed,d=3,s=7"
    assert p.arms["classmean-d3s7"].policy == f"search:leaf=ntuple:{root}/classmean,d=3,s=7"
    assert p.arms["zeroed-d3s7"].artefact.tables == f"{root}/zeroed/tables.npy"
    opener = p.opener_records
    assert opener[f"{FILL}/zeroed"] == {"record": f"{root}/zeroed.json", "pin": None}
    assert opener[f"{FILL}/classmean"] == {"record": f"{root}/classmean.json", "pin": None}
    assert "ntuple-line-tuples/ntuple-A" in opener
    # an edit has no training health of its own; its source's is shown
    assert (FILL, "zeroed") not in p.health_weights()
    assert ("ntuple-line-tuples", "ntuple-A") in p.health_weights()
    assert p.gate_claims == sorted([FILL, "ntuple-line-tuples"])
    assert p.describe()["arms"]["zeroed-d3s7"]["artefact"] == f"{FILL}/zeroed"


def test_the_pilot_keys_the_fill_tables_on_two_buckets_and_fits_the_machine(pilot) -> None:
    """The planner's memory of every training and edit job: the registered A+occ5 does not
    fit this machine, the pilot's A+occ2 does, beside the control's training."""
    paper = load_plan(REPO, {"profile": "paper"}).claims[FILL]
    p = pilot.claims[FILL]
    assert paper.trained["fill"].layout == "A+occ5"
    assert costs.train_mem_mb(paper.trained["fill"].entries) == 30_000 > MACHINE_MB
    fill, control = p.trained["fill"], p.trained["control"]
    assert fill.layout == "A+occ2" and fill.entries == 2 * control.entries
    assert fill.recipe()["layout"] == "A+occ2" and fill.recipe()["init"]["key"] == \
        "ntuple-line-tuples/ntuple-A"
    assert costs.train_mem_mb(fill.entries) == 12_720
    assert costs.train_mem_mb(fill.entries) + costs.train_mem_mb(control.entries) < MACHINE_MB
    assert max(e.mem_mb for e in p.edits.values()) < costs.train_mem_mb(control.entries)
    assert ("fill: layout A+occ2 (2 fill buckets, 960,000,000 entries) instead of A+occ5 "
            "(5 fill buckets)") in p.shrunk
    assert p.tier == "pilot"
    assert p.describe()["trained"]["fill"]["layout"] == "A+occ2"
    assert p.arms["fill-d3s7"].entries == fill.entries


def _fill(edit) -> dict:
    doc = copy.deepcopy(shipped(FILL))
    edit(doc)
    return doc


def _plan(tmp_path, doc: dict, profile: str = "pilot", overrides: dict | None = None):
    claims = claims_copy(tmp_path / "claims", extra={doc["id"]: doc})
    return load_plan(REPO, {"profile": profile, "claims_dir": str(claims),
                            **(overrides or {})})


def _set(name: str, value) -> callable:
    def edit(doc: dict) -> None:
        doc["weights"][name] = value
    return edit


@pytest.mark.parametrize(("edit", "key", "message"), [
    (_set("zeroed", {"edit": {"from": "prior", "rule": "zero-untouched"}}),
     "weights.zeroed.edit.from", "'prior' is not weights this claim declares"),
    (_set("zeroed", {"edit": {"from": "classmean", "rule": "zero-untouched"}}),
     "weights.zeroed.edit.from", "'classmean' is an edit itself: an edit reads trained or "
     "pinned tables (an edit of an edit is not supported)"),
    (_set("zeroed", {"edit": {"from": "fill", "rule": "zero-untouched"}}),
     "weights.zeroed.edit.from", "'fill' starts warm (train.init): its untouched entries do "
     "not hold the starting value 20/N that rule zero-untouched reads"),
    (_set("classmean", {"edit": {"from": {"claim": "ntuple-search-target-treestrap-leaf",
                                          "weights": "treestrap"}, "rule": "class-mean"}}),
     "weights.classmean.edit.from", "ntuple-search-target-treestrap-leaf/treestrap starts "
     "warm"),
    (_set("zeroed", {"edit": {"from": {"claim": "linear-trained-leaf",
                                       "weights": "linear-trained"}, "rule": "zero-untouched"}}),
     "weights.zeroed.edit.from", "linear-trained-leaf/linear-trained is the fair leaf's "
     "weights (learner linear), not n-tuple tables"),
    (_set("zeroed", {"edit": {"from": {"claim": "nobody", "weights": "ntuple-A"},
                              "rule": "zero-untouched"}}),
     "weights.zeroed.edit.from.claim", "no claim 'nobody'"),
    (_set("zeroed", {"edit": {"from": {"claim": "ntuple-line-tuples", "weights": "ntuple-Z"},
                              "rule": "zero-untouched"}}),
     "weights.zeroed.edit.from.weights", "claim ntuple-line-tuples trains no 'ntuple-Z'"),
    (_set("zeroed", {"edit": {"from": {"claim": FILL, "weights": "control"},
                              "rule": "zero-untouched"}}),
     "weights.zeroed.edit.from.claim", "names this claim itself"),
    (_set("zeroed", {"edit": {"from": "control", "rule": "zero-everything"}}),
     "weights.zeroed.edit.rule", ""),
    (_set("zeroed", {"edit": {"from": "control", "rule": "zero-untouched"},
                     "train": {"learner": "ntuple", "layout": "A", "moves": 10, "every": 10}}),
     "weights.zeroed", ""),
    (lambda doc: doc["validation"].update(comparator={"weights": "zeroed"}),
     "validation.comparator.weights", "'zeroed' is an edit, written after the freeze"),
])
def test_an_edit_that_cannot_be_is_refused_in_one_line(tmp_path, edit, key, message) -> None:
    with pytest.raises(DeclarationError) as err:
        _plan(tmp_path, _fill(edit))
    line = str(err.value)
    assert len(line.splitlines()) == 1
    assert line.startswith(f"{tmp_path / 'claims' / f'{FILL}.yaml'}: key {key}"), line
    assert message in line


def test_an_edit_of_a_pinned_file_that_is_not_tables_is_refused(tmp_path, monkeypatch) -> None:
    import hashlib

    import numpy as np

    from engines.leaves.linear import FAIR_WEIGHTS

    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "fair.npy", np.asarray(FAIR_WEIGHTS, dtype=np.float64))
    digest = hashlib.sha256((tmp_path / "fair.npy").read_bytes()).hexdigest()
    doc = _fill(_set("zeroed", {"edit": {"from": {"file": "fair.npy", "sha256": digest},
                                         "rule": "zero-untouched"}}))
    with pytest.raises(DeclarationError, match=r"key weights\.zeroed\.edit\.from\.file: "
                                               r"fair\.npy holds a linear-file leaf, not "
                                               "n-tuple tables"):
        _plan(tmp_path, doc)


@pytest.mark.parametrize(("layout", "message"), [
    ("A+hgt5", "A+hgt5 does not shrink the declared layout A+occ5"),
    ("A", "A does not shrink the declared layout A+occ5"),
    ("E+occ2", "E+occ2 does not shrink"),
    ("A+occ9", "unknown layout 'A+occ9'"),
])
def test_a_profile_layout_that_is_no_shrink_is_refused(tmp_path, layout, message) -> None:
    over = {"claims": {FILL: {"weights": {"fill": {"layout": layout}}}}}
    with pytest.raises(DeclarationError) as err:
        _plan(tmp_path, shipped(FILL), "smoke", over)
    line = str(err.value)
    assert len(line.splitlines()) == 1 and message in line
    assert f"key claims.{FILL}.weights.fill.layout" in line


def test_a_dry_run_plans_the_edit_after_the_source_freeze(tmp_path) -> None:
    """Under smoke, the edit job's record asked for: the freeze of the registered claim's
    tables, then one edit_tables job with its command and files."""
    from workflow_support import snakemake

    work = tmp_path / "run"
    work.mkdir()
    record = f"results/smoke/claims/{FILL}/edits/classmean.json"
    result = snakemake(work, "-n", "-p", "--config", "profile=smoke", "--", record,
                       timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    text = result.stdout + result.stderr
    assert "estimated CPU hours of the smoke profile" in text and FILL in text
    lines = [line.strip() for line in text.splitlines()]
    edit = lines.index("rule edit_tables:")
    frozen = "results/smoke/claims/ntuple-line-tuples/frozen/ntuple-A"
    assert lines[edit + 1] == f"input: {frozen}.json, {frozen}/tables.npy"
    assert lines[edit + 2] == (f"output: results/smoke/claims/{FILL}/edits/classmean/tables.npy,"
                               f" results/smoke/claims/{FILL}/edits/classmean/manifest.json, "
                               f"{record}")
    assert f"drop7 tables edit {frozen} --class-mean" in text
    assert lines.index("rule freeze:") < edit
    assert not (work / "results").exists()


def test_the_page_shows_each_edit_and_a_failed_source_gate_invalidates() -> None:
    """The edit's record (``drop7 tables edit --record``) on the claim's page, beside the
    frozen records; one whose source was frozen past failed gates is a methodological error."""
    from dataclasses import replace

    from test_report_render import run_of

    from analysis.report.page import render_claim
    from protocol.verdict import methodological_errors

    run = run_of(FILL)
    edited = {"artefact": f"{FILL}/zeroed", "out": "x", "sha256": "e" * 64, "layout": "A",
              "rule": "zero-untouched", "source": "y", "source_sha256": "a" * 64,
              "starting_value": 0.27, "untouched": 901, "changed": 901,
              "classes_without_touched": 0, "gates_passed": True}
    html = render_claim(replace(run, frozen={**run.frozen, edited["artefact"]: edited}))
    assert (f"Edited {FILL}/zeroed:</b> rule zero-untouched of tables SHA-256") in html
    assert "901 of their 901 untouched entries changed" in html
    failed = {**edited, "gates_passed": False}
    assert methodological_errors(integrity=[], gate=None, screened=True, reused=False,
                                 frozen={edited["artefact"]: failed}) == [
        f"the screen read {FILL}/zeroed, frozen although its claim's gates failed"]


def test_an_edit_of_a_pinned_directory(tmp_path, monkeypatch) -> None:
    """A pinned weights directory of n-tuple tables: the job is given its pin, waits for
    nothing, and the file is among the claim's pinned files (hashed before any job); one whose
    manifest records a warm start is refused."""
    import numpy as np

    from engines.ntuple.layouts import get_layout
    from engines.weights_files import array_chunks, save_weights

    monkeypatch.chdir(tmp_path)
    layout = get_layout("T1")
    values = np.full(layout.entries, np.float32(layout.initial_entry), dtype=np.float32)

    def pinned(name: str, **extra) -> dict:
        m = save_weights(tmp_path / name, values.shape, values.dtype, array_chunks(values),
                         {"kind": "ntuple", "layout": "T1", "entries": layout.entries, **extra})
        return {"file": name, "sha256": m["sha256"]}

    src = pinned("tables")
    doc = _fill(_set("zeroed", {"edit": {"from": src, "rule": "zero-untouched"}}))
    p = _plan(tmp_path, doc, "smoke").claims[FILL]
    e = p.edits["zeroed"]
    assert e.inputs == [] and e.artefact.entries == layout.entries
    words = shlex.split(e.command())
    assert words[3] == "tables" and words[-2:] == ["--source-sha256", src["sha256"]]
    assert p.pinned["weights.zeroed.edit.from"].sha256 == src["sha256"]
    warm = pinned("warm", init={"path": "x", "sha256": "0" * 64})
    doc = _fill(_set("zeroed", {"edit": {"from": warm, "rule": "zero-untouched"}}))
    with pytest.raises(DeclarationError, match=r"key weights\.zeroed\.edit\.from\.file: warm "
                                               "holds tables that started warm"):
        _plan(tmp_path, doc, "smoke")

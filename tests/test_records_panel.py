"""Register records of a claim with a ranking panel: the result carries the panel's figures,
readings and roots and validates against the register's formats, beside a screen or alone
(a panel-only claim has no contrasts); panel figures that are not the claim's are refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from panel_support import DECLARED, panel_plan, readings_doc
from test_records import JOBS, NOW, _records

from cli.main import main
from contracts.cli_numbers import seed_hex
from contracts.games_table import read_rows, write_rows
from contracts.hashing import file_sha256
from engines.play.policy_grammar import parse_arm
from engines.play.runner import run_shard
from protocol.ledger import FORMAT
from protocol.plan import load_plan
from protocol.records.bundle import write_bundle
from protocol.records.check import check_bundle
from protocol.records.ids import RecordError, protocol_sha256
from protocol.records.machine import machine_record
from protocol.records.metrics import panel_metrics, panel_name

ROOT = Path(__file__).resolve().parent.parent
RULES = {"rules": [{"when": {"noisy-top1": "pass", "noisy-regret": "pass"},
                    "then": "supported-as-tested"}],
         "otherwise": "not-supported-as-tested"}


@pytest.fixture(scope="module")
def smoke() -> dict:
    return load_plan(ROOT, {"profile": "smoke"}).claims["ntuple-line-tuples"].describe()


@pytest.fixture(scope="module")
def doc(smoke) -> dict:
    """The fixture's readings file, its roots from the first games of the smoke block."""
    out = json.loads(json.dumps(readings_doc()))
    out["roots"]["seeds"] = [smoke["seeds"][0], out["roots"]["games"]]
    return out


def _with_panel(plan: dict, doc: dict, *, contrasts: bool) -> dict:
    """``plan`` with the fixture's panel declared and planned; without contrasts, a
    panel-only claim whose roots arm alone plays the block."""
    out = copy.deepcopy(plan)
    declaration = out["declaration"]
    declaration["panel"] = {"roots": {"policy": "fair-d3s7", "games": doc["roots"]["games"],
                                      "every": doc["roots"]["every"]},
                            "reference": doc["reference"], "rankers": doc["rankers"]}
    declaration["readings"] = {**declaration.get("readings", {}), **DECLARED}
    out["readings"] = declaration["readings"]
    out["panel"] = panel_plan(doc)
    if not contrasts:
        declaration.pop("contrasts", None)
        declaration["verdict"] = RULES
        out.update(contrasts={}, sequential=None, verdict=RULES, arms={"fair-d3s7": {
            "policy": "random", "games": out["seeds"][1], "shards": 1, "artefact": None}})
    return out


def _verdict(doc: dict, screen: bool) -> dict:
    panel = [{**r, "numbers": {}} for r in doc["readings"].values()]
    primary = [{"name": "primary", "kind": "screen", "title": "Primary: A beats B",
                "outcome": "pass", "reason": "delta +12 (bootstrap LB +3)", "numbers": {}}]
    readings = [*primary, *panel] if screen else panel
    return {"tier": "pilot", "tier_lowered_by": ["panel: 8 of the declared 32 games"],
            "readings": readings, "outcomes": {r["name"]: r["outcome"] for r in readings},
            "methodological_errors": [], "verdict": "supported-as-tested",
            "reason": "the panel's readings passed", "rule": 1}


def _bundle(plan: dict, doc: dict, work: Path, arms: list[str], **kw) -> dict:
    start, count = plan["seeds"]
    rows = run_shard([parse_arm(a) for a in arms], start, count, progress_s=-1)
    work.mkdir(parents=True, exist_ok=True)
    write_rows(rows, work / "games.csv")
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": [start, count],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "opened", "protocol_sha256": protocol_sha256(plan)}
    done = {**entry, "status": "complete", "games": len(rows),
            "completed_utc": "2026-12-02T02:40:00Z",
            "table_sha256": file_sha256(work / "games.csv")}
    screen = bool(plan["contrasts"])
    return write_bundle(work / "records", plan, _verdict(doc, screen),
                        {"commit": "a" * 40, "dirty": False, "jobs": JOBS},
                        opened={"blocks": {block: {"entry": entry, "reused": False}}},
                        closed={"entries": {block: done},
                                "machine": machine_record("2026-12-02T02:40:00Z")},
                        table=read_rows(work / "games.csv"), table_sha256=done["table_sha256"],
                        command=["snakemake"], now=NOW, **kw)


def test_a_result_beside_a_screen_carries_the_panel_s_figures_readings_and_roots(
        smoke, doc, tmp_path) -> None:
    plan = _with_panel(smoke, doc, contrasts=True)
    block = plan["blocks"][0]
    result = _bundle(plan, doc, tmp_path, ["ntuple-A-d3s7=random", "linear-d3s7=centre-first"],
                     panel=panel_metrics(doc, block))
    directory = tmp_path / "records"
    assert check_bundle(directory) == []
    assert main(["records", "validate", str(directory)]) == 0
    panel = result["metrics"]["panel"]
    for ranker in doc["rankers"]:
        for name in ("top1", "pairwise", "tau", "regret_frac"):
            got, want = panel["figures"][ranker][panel_name(name)], doc["figures"][ranker][name]
            assert (got["estimate"], got["lower95"], got["upper95"], got["halves"]) == (
                want["estimate"], want["lower"], want["upper"], want["halves"])
    assert panel["figures"]["choice-only"]["tau"]["estimate"] is None  # no values
    assert panel["givesValues"]["choice-only"] is False
    assert panel["readings"]["choice-tau"]["outcome"] == "not-run"
    assert panel["differences"]["noisy-over-random"]["estimate"] == pytest.approx(
        doc["differences"]["noisy-over-random"]["estimate"])
    assert panel["roots"] == {"block": block, "policy": doc["roots"]["policy"],
                              "rangeStartHex": seed_hex(smoke["seeds"][0]),
                              "rangeEndExclusiveHex": seed_hex(smoke["seeds"][0] + 8),
                              "games": 8, "every": 4, "limit": 1024,
                              "count": doc["roots"]["count"]}
    assert panel["tableSha256"] == doc["table_sha256"]
    assert panel["conventions"] == doc["conventions"]  # what every figure is read under
    assert any("panel's per-root rows are not in the bundle" in x for x in result["limitations"])
    criteria = [c["criterion"] for c in result["gateChecks"]]
    assert any(c.startswith("noisy-top1: ") for c in criteria)
    experiment = _records(directory)["experiment"]
    assert experiment["metrics"]["primary"].endswith("contrast primary")
    assert "ranking panel: noisy's top1 against ref, reading noisy-top1" in \
        experiment["metrics"]["secondary"]
    method = experiment["metrics"]["uncertaintyMethod"]
    assert "whole paired games" in method  # its screen's contrasts
    assert "resamples whole games, each with all its roots (never single roots)" in method


def test_a_panel_only_claim_builds_its_records(smoke, doc, tmp_path) -> None:
    plan = _with_panel(smoke, doc, contrasts=False)
    assert "contrasts" not in plan["declaration"] and plan["contrasts"] == {}
    result = _bundle(plan, doc, tmp_path, ["fair-d3s7=random"],
                     panel=panel_metrics(doc, plan["blocks"][0]))
    directory = tmp_path / "records"
    assert check_bundle(directory) == []
    recs = _records(directory)
    experiment = recs["experiment"]
    assert experiment["candidate"]["name"] == "noisy"
    assert experiment["comparator"] == {"name": "ref", "entryPoint": "search:leaf=linear,d=4,s=7",
                                        "manifestRef": None}
    assert experiment["metrics"]["primary"] == ("ranking panel: noisy's top1 against ref, "
                                                "reading noisy-top1")
    assert any("panel table (CSV)" in a for a in experiment["expectedArtifacts"])
    # a panel pairs no games: its method is the panel's resampling alone
    method = experiment["metrics"]["uncertaintyMethod"]
    assert "paired" not in method and method.startswith("a ranking panel's figures")
    assert result["metrics"]["contrasts"] == {} and "panel" in result["metrics"]
    rows = [json.loads(line) for line in (directory / "games.jsonl").read_text().splitlines()]
    assert {r["cohortId"].rsplit("/", 1)[1] for r in rows} == {"fair-d3s7"}
    assert len(rows) == plan["seeds"][1]


def test_the_records_job_reads_the_panel_input(smoke, doc, tmp_path) -> None:
    """workflow/scripts/records.py with the optional ``panel`` input (readings.json): the
    bundle it writes and checks carries the panel's figures; without it, refused."""
    import runpy
    from types import SimpleNamespace

    class Files(dict):
        __getattr__ = dict.__getitem__

    # trained weights' figures are tests/test_records_training.py's: this plan trains none
    plan = {**_with_panel(smoke, doc, contrasts=False), "trained": {}}
    start, count = plan["seeds"]
    write_rows(run_shard([parse_arm("fair-d3s7=random")], start, count, progress_s=-1),
               tmp_path / "games.csv")
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": [start, count],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "opened", "protocol_sha256": protocol_sha256(plan)}
    closed = {"entries": {block: {**entry, "status": "complete", "games": count,
                                  "completed_utc": "2026-12-02T02:40:00Z",
                                  "table_sha256": file_sha256(tmp_path / "games.csv")}},
              "machine": machine_record("2026-12-02T02:40:00Z"),
              "played": {"commit": "a" * 40, "dirty": False, "command": ["snakemake"]}}
    files = {"verdict": _verdict(doc, False), "closed": closed, "panel": doc,
             "opened": {"blocks": {block: {"entry": entry, "reused": False}}},
             "preregistered": {"protocolSha256": protocol_sha256(plan),
                               "createdAt": "2026-12-02T02:09:00Z"}}
    inputs = Files(table=str(tmp_path / "games.csv"), curves=[])
    for key, content in files.items():
        inputs[key] = str(tmp_path / f"{key}.json")
        (tmp_path / f"{key}.json").write_text(json.dumps(content))
    # the ledger as it is when the job runs: a replay appended since the block closed
    ledger = tmp_path / "ledger.json"
    replay = {"table_sha256": "e" * 64, "utc": "2026-12-03T00:00:00Z"}
    ledger.write_text(json.dumps({"format": FORMAT, "blocks": {block: [
        {**closed["entries"][block], "replays": [replay]}]}}))
    job = SimpleNamespace(input=inputs, output=[str(tmp_path / "records")],
                          log=[str(tmp_path / "job.log")],
                          params=SimpleNamespace(plan=plan, repo=str(ROOT), ledger=str(ledger),
                                                 benchmarks=str(tmp_path / "none"), health={},
                                                 direct={}))
    script = ROOT / "workflow" / "scripts" / "records.py"
    runpy.run_path(str(script), init_globals={"snakemake": job})
    assert check_bundle(tmp_path / "records") == []
    result = _records(tmp_path / "records")["result"]
    assert result["metrics"]["panel"] == panel_metrics(doc, plan["blocks"][0])
    assert any(f"block {block} was played again after its first reading, 1 time" in x
               for x in result["limitations"])
    del inputs["panel"]
    with pytest.raises(SystemExit) as info:
        runpy.run_path(str(script), init_globals={"snakemake": job})
    assert info.value.code == 2
    assert "no panel readings were given" in (tmp_path / "job.log").read_text()


def test_panel_figures_that_are_not_the_claim_s_are_refused(smoke, doc, tmp_path) -> None:
    plan = _with_panel(smoke, doc, contrasts=False)
    plan["panel"]["rankers"] = tuple(plan["panel"]["rankers"])  # as describe() may give it
    figures = panel_metrics(doc, plan["blocks"][0])
    _bundle(plan, doc, tmp_path / "ok", ["fair-d3s7=random"], panel=figures)
    with pytest.raises(RecordError, match="its block was opened but no panel readings"):
        _bundle(plan, doc, tmp_path, ["fair-d3s7=random"])
    other = {**figures, "rankers": ["noisy"]}
    with pytest.raises(RecordError, match="the panel readings' rankers \\['noisy'\\] is not"):
        _bundle(plan, doc, tmp_path, ["fair-d3s7=random"], panel=other)
    later = {**figures, "roots": {**figures["roots"], "rangeStartHex": seed_hex(1)}}
    with pytest.raises(RecordError, match="the panel's roots come from seeds 0x0+1 to"):
        _bundle(plan, doc, tmp_path, ["fair-d3s7=random"], panel=later)
    with pytest.raises(RecordError, match="panel figures given, but the claim has no panel"):
        _bundle(smoke, doc, tmp_path, ["ntuple-A-d3s7=random", "linear-d3s7=centre-first"],
                panel=figures)
    assert not (tmp_path / "records").exists()  # refused before anything was written
    assert check_bundle(tmp_path / "ok" / "records") == []


def test_the_protocol_hash_covers_the_planned_panel_and_only_what_decides(smoke, doc) -> None:
    plan = _with_panel(smoke, doc, contrasts=False)
    base = protocol_sha256(plan)
    shards = copy.deepcopy(plan)
    shards["panel"]["arms"]["noisy"].update(shards=7, seconds_per_game=3.5)
    shards["panel"]["roots"] = 123  # the planned count of roots: an estimate
    assert protocol_sha256(shards) == base  # shards and estimates decide nothing
    for edit in (lambda p: p["panel"]["arms"]["noisy"].update(policy="direct:leaf=linear"),
                 lambda p: p["panel"].update(every=2), lambda p: p["panel"].update(limit=10)):
        changed = copy.deepcopy(plan)
        edit(changed)
        assert protocol_sha256(changed) != base
    assert "panel" not in smoke and protocol_sha256(smoke) == protocol_sha256(
        {**smoke, "panel": None})

"""Register records: a bundle written from a claim's plan, ledger entries, games table and
verdict holds the project's statement of the formats and its links; `drop7 records validate`
finds what breaks them, one line each, exit 2."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from analysis.contrast import contrast_paired
from analysis.games_table import pair_arms, read_games
from cli.main import main
from contracts.cli_numbers import seed_hex
from contracts.games_table import read_rows, write_rows
from contracts.hashing import file_sha256
from engines.play.policy_grammar import parse_arm
from engines.play.runner import run_shard
from protocol.plan import load_plan
from protocol.records.bundle import write_bundle
from protocol.records.check import bundle_files, check_bundle, check_record
from protocol.records.experiment import experiment_record
from protocol.records.ids import GAMES_FILE, RecordError, protocol_sha256
from protocol.records.machine import machine_record
from protocol.records.resources import jobs_named

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 12, 2, 3, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def plan() -> dict:
    return load_plan(ROOT, {"profile": "smoke"}).claims["ntuple-line-tuples"].describe()


def _verdict() -> dict:
    return {"tier": "pilot", "tier_lowered_by": ["screen: 8 of the declared 256 games"],
            "readings": [{"name": "primary", "kind": "screen", "title": "Primary: A beats B",
                          "outcome": "pass", "reason": "delta +12 (bootstrap LB +3)",
                          "numbers": {}},
                         {"name": "health", "kind": "training-health", "title": "Gate: health",
                          "outcome": "not-run", "reason": "skipped", "numbers": {}}],
            "outcomes": {"primary": "pass", "health": "not-run"},
            "methodological_errors": [], "verdict": "supported-as-tested",
            "reason": "the primary contrast passed", "rule": 1}


@pytest.fixture(scope="module")
def bundle(plan, tmp_path_factory) -> tuple[Path, list[dict]]:
    start, count = plan["seeds"]
    rows = run_shard([parse_arm("ntuple-A-d3s7=random"), parse_arm("linear-d3s7=centre-first")],
                     start, count, progress_s=-1)
    work = tmp_path_factory.mktemp("bundle")
    write_rows(rows, work / "games.csv")
    table = read_rows(work / "games.csv")
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {"c/w": "9" * 64},
             "seeds": [start, count], "opened_utc": "2026-12-02T02:10:00Z", "reused": False,
             "shares": None, "status": "opened", "protocol_sha256": protocol_sha256(plan)}
    done = {**entry, "status": "complete", "games": len(rows),
            "completed_utc": "2026-12-02T02:40:00Z",
            "table_sha256": file_sha256(work / "games.csv")}
    write_bundle(work / "records", plan, _verdict(),
                 {"commit": "a" * 40, "dirty": False, "jobs": JOBS},
                 opened={"blocks": {block: {"entry": entry, "reused": False}}},
                 closed={"entries": {block: done}, "machine": machine_record(
                     "2026-12-02T02:40:00Z")}, table=table,
                 table_sha256=done["table_sha256"], command=["snakemake", "--cores", "2"],
                 contrasts=_contrasts(work / "games.csv"), now=NOW)
    return work / "records", table


#: benchmark figures of the fixture's jobs: its block's games (in the reading's span), its
#: statistics (after it) and another block's games
JOBS = {"screen-4000/ntuple-A-d3s7/shard-0-of-1": {"wall_s": 5.0, "cpu_s": 4.0,
                                                   "max_rss_mb": 100.0,
                                                   "written_utc": "2026-12-02T02:30:00Z"},
        "screen-4000/linear-d3s7/shard-0-of-1": {"wall_s": 6.0, "cpu_s": 5.5,
                                                 "max_rss_mb": 120.0,
                                                 "written_utc": "2026-12-02T02:35:00Z"},
        "stats/screen-4000/primary": {"wall_s": 50.0, "cpu_s": 50.0, "max_rss_mb": 900.0,
                                      "written_utc": "2026-12-02T02:50:00Z"},
        "screen-1010/linear-d3s7/shard-0-of-1": {"wall_s": 900.0, "cpu_s": 900.0,
                                                 "max_rss_mb": 50.0,
                                                 "written_utc": "2026-12-01T02:35:00Z"}}


def _contrasts(table: Path) -> dict:
    games = read_games(table)
    return {"primary": contrast_paired(pair_arms(games, "ntuple-A-d3s7", "linear-d3s7"),
                                       n_resamples=200).to_dict()}


def _records(directory: Path) -> dict[str, dict]:
    return {p.name.split("-")[0] if not p.name.startswith("seed-lease") else "seed-lease":
            json.loads(p.read_text()) for p in directory.glob("*.json")}


def test_a_written_bundle_is_valid_and_says_what_was_played(bundle, plan) -> None:
    directory, table = bundle
    assert check_bundle(directory) == []
    recs = _records(directory)
    assert set(recs) == {"experiment", "seed-lease", "run", "machine", "result"}
    result, lease = recs["result"], recs["seed-lease"]
    assert result["assessment"] == "supported-as-tested" and result["evidenceTier"] == "pilot"
    assert result["scientificOutcome"] == "pass"
    assert result["gateChecks"][0] == {"criterion": "primary: Primary: A beats B",
                                       "passed": True,
                                       "observed": "pass: delta +12 (bootstrap LB +3)"}
    assert result["gateChecks"][1]["passed"] is None
    art = result["perGameArtifact"]
    assert art == {"path": GAMES_FILE, "sha256": file_sha256(directory / GAMES_FILE),
                   "recordCount": 2 * plan["seeds"][1]}
    assert lease["rangeStartHex"] == seed_hex(plan["seeds"][0])
    assert int(lease["rangeEndExclusiveHex"], 16) == sum(plan["seeds"])
    assert lease["state"] == "burned" and lease["runIds"] == [recs["run"]["runId"]]
    assert recs["experiment"]["protocolSha256"] == protocol_sha256(plan)
    rows = [json.loads(line) for line in (directory / GAMES_FILE).read_text().splitlines()]
    assert [r["trajectoryChecksum"] for r in rows] == [t["trajectory"] for t in table]
    assert [r["coveredReveals"] for r in rows] == [int(t["reveals"]) for t in table]
    # baselines search nothing: 0 nodes and leaves, measured; logicalWork is not measured
    assert all(r["nodesOrTransitions"] == 0 == r["modelInferences"] for r in rows)
    assert all(r["logicalWork"] is None for r in rows)
    assert "not measured per game (null): logicalWork" in result["limitations"]


def test_ids_are_stable_for_the_same_run(bundle, plan, tmp_path) -> None:
    directory, table = bundle
    again = tmp_path / "again"
    recs = _records(directory)
    lease = recs["seed-lease"]
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": plan["seeds"],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "complete", "completed_utc": "2026-12-02T02:40:00Z",
             "table_sha256": lease["cohortManifestSha256"]}
    write_bundle(again, plan, _verdict(), {"commit": "a" * 40, "dirty": False, "stages": {}},
                 opened={"blocks": {block: {"entry": entry, "reused": False}}}, table=table,
                 table_sha256=lease["cohortManifestSha256"],
                 now=datetime(2026, 12, 3, tzinfo=UTC))
    other = _records(again)
    for kind, key in (("experiment", "experimentId"), ("run", "runId"),
                      ("seed-lease", "seedLeaseId"), ("result", "resultId")):
        assert other[kind][key] == recs[kind][key], kind
    assert not any("played again" in x for x in other["result"]["limitations"])


@pytest.mark.parametrize("replayed", [{"replays": [{"table_sha256": "e" * 64},
                                                   {"table_sha256": "f" * 64}]},
                                      {"differs": "f" * 64}])  # an older ledger's one replay
def test_a_block_played_again_says_so_in_every_record_that_names_it(bundle, plan, tmp_path,
                                                                    replayed) -> None:
    directory, table = bundle
    first = _records(directory)["seed-lease"]["cohortManifestSha256"]
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": plan["seeds"],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "complete", "completed_utc": "2026-12-02T02:40:00Z",
             "table_sha256": first, **replayed}
    write_bundle(tmp_path, plan, _verdict(), {"commit": "a" * 40, "dirty": False},
                 closed={"entries": {block: entry}}, table=table, table_sha256="f" * 64,
                 now=datetime(2026, 12, 3, tzinfo=UTC))
    recs = _records(tmp_path)
    times = len(replayed.get("replays", [1]))
    said = next(x for x in recs["result"]["limitations"] if "played again" in x)
    assert said.startswith(f"block {block} was played again after its first reading, {times} "
                           "time") and f"keeps the first table {first[:16]}" in said
    assert f"the per-game rows are replay {times}'s games" in said
    assert said in recs["run"]["resourceObserved"]["measurementNotes"]
    assert recs["run"]["startedAt"] == entry["opened_utc"]
    lease = recs["seed-lease"]
    assert lease["cohortManifestSha256"] == first  # the first reading's table, not the replay's
    assert lease["notes"][-1].startswith(f"played again {times} time(s)")
    assert lease["notes"][-1].endswith("f" * 64)


def test_the_protocol_hash_ignores_titles_and_notes_but_not_arms(plan) -> None:
    renamed = copy.deepcopy(plan)
    renamed["title"] = "another title"
    renamed["declaration"]["title"] = "another title"
    for reading in renamed["declaration"]["readings"].values():
        reading["title"] = "retitled"
    renamed["declaration"]["recorded"] = {}
    assert protocol_sha256(renamed) == protocol_sha256(plan)
    changed = copy.deepcopy(plan)
    arm = next(iter(changed["arms"]))
    changed["arms"][arm]["games"] += 1
    assert protocol_sha256(changed) != protocol_sha256(plan)
    gated = copy.deepcopy(plan)
    gated["declaration"]["gates"] = []
    assert protocol_sha256(gated) != protocol_sha256(plan)


def test_a_record_breaking_its_format_is_refused_before_writing(plan) -> None:
    record = experiment_record(plan, "2026-12-02T02:10:00Z", [])
    record["experimentId"] = "EX-bad"
    with pytest.raises(RecordError, match="here: key experimentId"):
        check_record(record, "experiment", "here")
    declared = copy.deepcopy(plan)
    declared["declaration"]["experiment"] = "EX-20260905-my-claim-0123abcd"
    assert experiment_record(declared, "2026-12-02T02:10:00Z", [])["experimentId"] == \
        "EX-20260905-my-claim-0123abcd"


def _copy(directory: Path, tmp_path: Path) -> Path:
    out = tmp_path / "b"
    out.mkdir()
    for p in directory.iterdir():
        (out / p.name).write_bytes(p.read_bytes())
    return out


def test_validate_names_every_broken_link_and_hash(bundle, tmp_path, capsys) -> None:
    directory = _copy(bundle[0], tmp_path)
    (directory / ".snakemake_timestamp").touch()  # hidden files are not the bundle's
    assert main(["records", "validate", str(directory)]) == 0
    assert ".snakemake_timestamp" not in [p.name for p in bundle_files(directory)]  # the page's
    (directory / "notes.txt").write_text("x")
    assert main(["records", "validate", str(directory)]) == 2
    (directory / "notes.txt").unlink()
    lines = (directory / GAMES_FILE).read_text().splitlines()
    row = json.loads(lines[0])
    row["score"] += 1
    (directory / GAMES_FILE).write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    run = next(directory.glob("run-*.json"))
    run.unlink()
    result = next(directory.glob("result-*.json"))
    data = json.loads(result.read_text())
    del data["summary"]
    result.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["records", "validate", str(directory)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert any("perGameArtifact.sha256" in e and result.name in e for e in err)
    assert any("'summary' is a required property" in e for e in err)
    missing = [e for e in err if "names no run record" in e]
    assert any("seed-lease-" in e and "runIds[0]" in e for e in missing)
    assert any(f"{GAMES_FILE}: line 1" in e for e in missing)
    assert all(e.startswith("drop7 records: ") for e in err)


def test_validate_refuses_what_is_not_a_bundle(tmp_path, capsys) -> None:
    assert main(["records", "validate", str(tmp_path / "nowhere")]) == 2
    (tmp_path / "x.json").write_text('{"format": "drop7-theory-v1"}')
    assert check_bundle(tmp_path)[0].endswith("x.json: key format: not a record kind of a "
                                              "bundle (drop7-experiment-v1, drop7-seed-lease-v1,"
                                              " drop7-run-v1, drop7-machine-v1, drop7-result-v1)")


def test_a_claim_never_screened_gets_a_valid_bundle_without_games(plan, tmp_path) -> None:
    verdict = {**_verdict(), "readings": [], "verdict": "not-supported-as-tested",
               "reason": "a gate failed: the screen was not opened"}
    decided = "2026-12-02T02:59:49Z"
    result = write_bundle(tmp_path, plan, verdict, {"commit": None, "dirty": None}, now=NOW,
                          decided_utc=decided)
    assert check_bundle(tmp_path) == []
    assert result["perGameArtifact"] == {"path": None, "sha256": None, "recordCount": None}
    assert result["gateChecks"] == [{"criterion": "the declared verdict rules", "passed": None,
                                     "observed": verdict["reason"]}]
    assert not list(tmp_path.glob("seed-lease-*")) and not (tmp_path / GAMES_FILE).exists()
    # its ids: the experiment the declared theory's date, the run and result the time the
    # verdict was decided (not a midnight, not the day the records are written)
    later = write_bundle(tmp_path / "later", plan, verdict, {"commit": None, "dirty": None},
                         now=datetime(2027, 1, 5, tzinfo=UTC), decided_utc=decided)
    assert later["experimentId"] == result["experimentId"]
    assert later["resultId"] == result["resultId"] and later["runIds"] == result["runIds"]
    assert later["experimentId"].startswith("EX-" + plan["theory"][3:11])
    assert result["resultId"].startswith("RS-20261202T025949Z-")
    assert result["runIds"][0].startswith("RUN-20261202T025949Z-")
    recs = _records(tmp_path)
    run = recs["run"]
    # a run never started: planned, no times, no resources; no games expected
    assert run["lifecycle"] == "planned" and run["startedAt"] is None is run["endedAt"]
    # a planned run is not a valid one: its cohort was never played
    assert run["runValidity"] == "pending" and result["runValidity"] == "partial"
    assert run["resourceObserved"]["wallSeconds"] is None
    assert run["stopReason"] == "the screen was never opened: " + verdict["reason"]
    assert GAMES_FILE not in recs["experiment"]["expectedArtifacts"]
    assert recs["experiment"]["gate"]["fixedBeforeControlledData"] is False


def test_the_bundle_keeps_the_preregistration_and_refuses_another_protocol(plan,
                                                                           tmp_path) -> None:
    early = experiment_record(plan, "2026-12-01T00:00:00Z", [])
    verdict = {**_verdict(), "readings": []}
    write_bundle(tmp_path / "a", plan, verdict, {}, preregistered=early, now=NOW)
    experiment = json.loads(next((tmp_path / "a").glob("experiment-*.json")).read_text())
    assert experiment["createdAt"] == "2026-12-01T00:00:00Z"
    assert experiment["lifecycle"] == "completed"
    edited = copy.deepcopy(plan)
    edited["declaration"]["gates"] = []
    with pytest.raises(RecordError, match="preregistered protocol hash .* differs"):
        write_bundle(tmp_path / "b", edited, verdict, {}, preregistered=early, now=NOW)
    assert not (tmp_path / "b").exists()  # nothing written


def test_a_sequential_screen_stopped_early_leases_its_unread_rest_as_never_opened(
        plan, tmp_path) -> None:
    start, count = plan["seeds"]
    half = count // 2
    rows = run_shard([parse_arm("ntuple-A-d3s7=random"), parse_arm("linear-d3s7=centre-first")],
                     start, half, progress_s=-1)
    write_rows(rows, tmp_path / "games.csv")
    table = read_rows(tmp_path / "games.csv")
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": [start, count],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "opened"}
    looks = [{"look": 1, "seeds": [start, half], "statistic": 9.0, "efficacy_bound": 2.8,
              "futility_bound": None, "decision": "stop-efficacy", "utc": "2026-12-02T02:30:00Z"}]
    done = {**entry, "status": "complete", "games": len(rows), "looks": looks,
            "unread": [start + half, count - half], "completed_utc": "2026-12-02T02:40:00Z",
            "table_sha256": file_sha256(tmp_path / "games.csv")}
    write_bundle(tmp_path / "records", plan, _verdict(), {"commit": "a" * 40, "dirty": False},
                 opened={"blocks": {block: {"entry": entry, "reused": False}}},
                 closed={"entries": {block: done}}, table=table,
                 table_sha256=done["table_sha256"], now=NOW)
    assert check_bundle(tmp_path / "records") == []
    files = (tmp_path / "records").glob("seed-lease*")
    leases = sorted((json.loads(p.read_text()) for p in files),
                    key=lambda r: int(r["rangeStartHex"], 16))
    assert [r["state"] for r in leases] == ["burned", "cancelled-unopened"]
    assert [int(r["rangeStartHex"], 16) for r in leases] == [start, start + half]
    assert [int(r["rangeEndExclusiveHex"], 16) for r in leases] == [start + half, start + count]
    assert leases[1]["openedAt"] is None and leases[1]["runIds"] == []
    note = leases[1]["notes"][0]
    assert "never read" in note and "look 1 (stop-efficacy)" in note
    experiment = json.loads(next((tmp_path / "records").glob("experiment*")).read_text())
    refs = experiment["data"]["seedLeaseRefs"]
    assert sorted(refs) == sorted(r["seedLeaseId"] for r in leases)
    rows = [json.loads(line) for line in (tmp_path / "records" / GAMES_FILE).read_text().split()]
    assert {r["seedLeaseId"] for r in rows} == {leases[0]["seedLeaseId"]}


def test_a_sequential_design_is_part_of_the_protocol_and_named_in_the_experiment() -> None:
    seq = load_plan(ROOT, {"profile": "smoke"}).claims["fourth-ply"].describe()
    assert seq["sequential"]["looks"] == [4, 6, 8]
    method = experiment_record(seq, "2026-12-02T02:10:00Z", [])["metrics"]["uncertaintyMethod"]
    assert "group-sequential" in method and "looks at 4, 6, 8 games" in method
    other = copy.deepcopy(seq)
    other["sequential"]["looks"] = [2, 6, 8]
    assert protocol_sha256(other) != protocol_sha256(seq)


def test_the_run_command_names_no_path_of_this_machine() -> None:
    from protocol.provenance import snakemake_words

    started = ["/home/x/.venv/bin/python3", "/home/x/.venv/bin/snakemake", "--cores", "all"]
    assert snakemake_words(started) == ["snakemake", "--cores", "all"]
    assert snakemake_words(["/usr/bin/snakemake", "-n"]) == ["snakemake", "-n"]
    assert snakemake_words(["python3", "-m", "pytest"]) is None


def test_preregistration_is_claimed_only_with_the_hash_kept_at_opening(bundle, plan,
                                                                       tmp_path) -> None:
    assert _records(bundle[0])["experiment"]["gate"]["fixedBeforeControlledData"] is True
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": plan["seeds"],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "complete", "completed_utc": "2026-12-02T02:40:00Z",
             "table_sha256": "c" * 64, "commit": "b" * 40}  # opened before hashes were kept
    write_bundle(tmp_path, plan, _verdict(), {"commit": "a" * 40, "dirty": False},
                 closed={"entries": {block: entry}}, table=bundle[1], table_sha256="c" * 64,
                 opened_in={int(block): "d" * 40}, now=NOW)
    recs = _records(tmp_path)
    assert recs["experiment"]["gate"]["fixedBeforeControlledData"] is False
    said = [x for x in recs["result"]["limitations"] if "preregistration not proven" in x]
    assert said == [f"preregistration not proven for block {block}: it was opened on "
                    f"2026-12-02T02:10:00Z (recorded in the ledger by commit {'d' * 40}, source "
                    f"commit {'b' * 40}) before the ledger kept protocol hashes, so "
                    "protocolSha256 is the hash of the declaration when these records were "
                    "written, not one recorded at opening"]
    with pytest.raises(RecordError, match="kept protocol hash 000000000000 at opening"):
        write_bundle(tmp_path / "x", plan, _verdict(), {},
                     closed={"entries": {block: {**entry, "protocol_sha256": "0" * 64}}},
                     table=bundle[1], table_sha256="c" * 64, now=NOW)


def test_the_run_resources_are_its_own_block_s_jobs_in_its_span(bundle, plan,
                                                                 tmp_path) -> None:
    run = _records(bundle[0])["run"]
    observed = run["resourceObserved"]
    # the span 02:10-02:40; the two game jobs of block 4000, not its statistics, not block 1010
    assert observed["wallSeconds"] == 1800.0 and observed["cpuSeconds"] == 9.5
    assert observed["peakHostBytes"] == 120 * 2**20
    assert "of the block's 2 game jobs" in observed["measurementNotes"]
    assert "captured at the run" in observed["measurementNotes"]
    machine = _records(bundle[0])["machine"]
    assert machine["capturedAt"] == "2026-12-02T02:40:00Z"
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": plan["seeds"],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "complete", "completed_utc": "2026-12-02T02:40:00Z",
             "table_sha256": "c" * 64}
    rewritten = {k: {**j, "written_utc": "2026-12-02T09:00:00Z"} for k, j in JOBS.items()}
    for jobs, why in ((rewritten, "written outside its first reading's span"),
                      (None, "benchmark files were not available"),
                      ({k: {**j, "cpu_s": 1e6} for k, j in JOBS.items()}, "cores times")):
        out = tmp_path / str(len(why))
        write_bundle(out, plan, _verdict(), {"commit": "a" * 40, "dirty": False, "jobs": jobs},
                     closed={"entries": {block: entry}}, table=bundle[1],
                     table_sha256="c" * 64, now=NOW)
        recs = _records(out)
        got = recs["run"]["resourceObserved"]
        assert got["cpuSeconds"] is None and got["wallSeconds"] == 1800.0, why
        assert why in got["measurementNotes"]
        # no machine captured at the run: said so, with when it was captured
        assert recs["machine"]["notes"][-1] == (
            "captured at 2026-12-02T03:00:00Z, when the records were written, not at the run: "
            "the run's machine was not recorded")


def test_the_result_holds_the_contrasts_figures_and_the_frozen_hashes(bundle) -> None:
    directory, _ = bundle
    metrics = _records(directory)["result"]["metrics"]
    games = read_games(directory.parent / "games.csv")
    want = _contrasts(directory.parent / "games.csv")["primary"]
    got = metrics["contrasts"]["primary"]
    assert got["n"] == want["n"] == len(games) // 2
    assert got["meanDelta"] == want["mean_delta"] and got["halves"] == want["halves"]
    assert got["bootstrapLower95"] == want["bootstrap_lb"]
    assert got["studentTLower95"] == want["t_lb"] and got["q25Baseline"] == want["q25_baseline"]
    assert metrics["frozenWeightsSha256"] == {"c/w": "9" * 64}
    assert metrics["rule"] == 2  # the verdict's rule 1 counted from 0 is the page's rule 2


def test_a_sequential_screen_s_figures_are_in_the_result() -> None:
    from protocol.records.metrics import result_metrics

    look = {"look": 1, "seeds": [0, 8], "n": 8, "mean_delta": -3.0, "sd_delta": 9.0,
            "statistic": -0.3, "efficacy_bound": 7.2, "futility_bound": None,
            "decision": "stop"}
    seq = {"design": {"looks": [8], "alpha": 0.025, "spending": "obrien-fleming",
                      "alpha_spent": [0.025], "delta_min": None, "sd_plan": None},
           "looks": [look], "stop": look, "level": 0.04, "bootstrap_lb": -90.0,
           "criteria": {"efficacy": "fail"}, "failed": ["efficacy"],
           "estimate": {"look": 1, "n": 8, "decision": "stop", "naive_mean": -3.0,
                        "median_unbiased": -2.5, "lower": -50.0, "upper": 40.0,
                        "level": 0.95, "p_value": 0.6, "futility_followed": False},
           "effect": 5.0, "effect_source": "observed",
           "operating": [{"at": "null", "shift": 0.0, "n_sims": 100, "seed": 1,
                          "futility_followed": False, "rejection_rate": 0.02, "mc_se": 0.01,
                          "expected_games": 8.0, "expected_games_se": 0.0,
                          "futility_rate": 0.0, "stop_fraction": [1.0],
                          "fixed_rejection_rate": 0.03, "fixed_mc_se": 0.01,
                          "fixed_games": 8}]}
    got = result_metrics({"rule": None}, {"primary": {"n": 8, "sequential": seq}}, {})
    s = got["sequential"]
    assert got["rule"] is None and s["contrast"] == "primary" and s["decision"] == "stop"
    assert s["looks"] == [{"look": 1, "n": 8, "meanDelta": -3.0, "statistic": -0.3,
                           "efficacyBound": 7.2, "futilityBound": None, "decision": "stop"}]
    assert s["estimate"] == {"naiveMean": -3.0, "medianUnbiased": -2.5, "lower": -50.0,
                             "upper": 40.0, "level": 0.95, "stagewisePValue": 0.6}
    assert s["operating"][0]["rejectionRate"] == 0.02 and s["alphaSpent"] == [0.025]


def test_passed_is_null_only_for_a_reading_not_run() -> None:
    from protocol.records.bundle import gate_checks

    readings = [("screen", "pass", True), ("screen", "fail", False),
                ("upper-below-zero", "refuted", True), ("upper-below-zero", "not-refuted", False),
                ("three-way", "supported", True), ("three-way", "refuted", False),
                ("three-way", "inconclusive", False), ("screen", "not-run", None)]
    checks = gate_checks({"readings": [{"name": f"r{i}", "kind": k, "title": "t",
                                        "outcome": o, "reason": "why"}
                                       for i, (k, o, _) in enumerate(readings)]})
    assert [c["passed"] for c in checks] == [p for _, _, p in readings]


def test_the_contribution_resolves_and_a_foreign_one_is_named(bundle, tmp_path) -> None:
    recs = _records(bundle[0])
    assert recs["run"]["contributionIds"] == recs["result"]["contributionIds"]
    directory = _copy(bundle[0], tmp_path)
    run = next(directory.glob("run-*.json"))
    data = json.loads(run.read_text())
    data["contributionIds"] = ["CT-20260101T000000Z-00000000"]
    run.write_text(json.dumps(data))
    assert check_bundle(directory) == [
        f"{run}: key contributionIds[0]: 'CT-20260101T000000Z-00000000' is not the bundle's "
        "contribution (derived from its result id)"]


def test_a_dirty_tree_s_diff_hash_is_kept_or_said_unknown(bundle, plan, tmp_path) -> None:
    block = str(plan["blocks"][0])
    entry = {"claim": plan["id"], "profile": "smoke", "hashes": {}, "seeds": plan["seeds"],
             "opened_utc": "2026-12-02T02:10:00Z", "reused": False, "shares": None,
             "status": "complete", "completed_utc": "2026-12-02T02:40:00Z",
             "table_sha256": "c" * 64}
    for diff in ("d" * 64, None):
        out = tmp_path / str(diff)
        write_bundle(out, plan, _verdict(), {"commit": "a" * 40, "dirty": True,
                                             "diff_sha256": diff},
                     closed={"entries": {block: entry}}, table=bundle[1],
                     table_sha256="c" * 64, now=NOW)
        recs = _records(out)
        assert recs["run"]["sourceState"]["diffSha256"] == diff
        unknown = "the tree was dirty and its diff was not recorded: diffSha256 unknown"
        assert (unknown in recs["result"]["limitations"]) is (diff is None)
        assert "no source archive is made" in recs["run"]["resourceObserved"]["measurementNotes"]


def test_cohort_ordinals_are_unique_across_a_sequential_screen_s_looks(bundle, plan) -> None:
    rows = [json.loads(x) for x in (bundle[0] / GAMES_FILE).read_text().splitlines()]
    pairs = [(r["cohortId"], r["cohortOrdinal"]) for r in rows]
    assert len(set(pairs)) == len(pairs)
    assert sorted({r["cohortOrdinal"] for r in rows}) == list(range(plan["seeds"][1]))
    assert all(int(r["seedHex"], 16) - plan["seeds"][0] == r["cohortOrdinal"] for r in rows)


def test_no_committed_bundle_holds_a_hidden_file() -> None:
    import subprocess

    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "reports"],
                            capture_output=True, text=True)
    if listed.returncode:
        pytest.skip("not a git checkout")
    files = [f for f in listed.stdout.split() if "/records/" in f]
    assert files and not [f for f in files if Path(f).name.startswith(".")]


@pytest.mark.parametrize(("flip", "says"), [
    # the probe: a flipped verdict passed validation
    ({"assessment": "not-supported-as-tested"}, "key scientificOutcome"),
    ({"scientificOutcome": "fail"}, "key scientificOutcome"),
    ({"runValidity": "invalid"}, "key runValidity"),
    ({"assessment": "invalidated-by-methodological-error",
      "scientificOutcome": "not-applicable"}, "key assessment"),
])
def test_validate_cross_checks_the_assessment(bundle, tmp_path, capsys, flip, says) -> None:
    directory = _copy(bundle[0], tmp_path)
    result = next(directory.glob("result-*.json"))
    data = json.loads(result.read_text())
    assert main(["records", "validate", str(directory)]) == 0
    assert data["assessment"] == "supported-as-tested" and data["runValidity"] == "valid"
    data.update(flip)
    result.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["records", "validate", str(directory)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert any(result.name in e and says in e for e in err), err


def test_validate_cross_checks_the_gate_checks(bundle, tmp_path, capsys) -> None:
    directory = _copy(bundle[0], tmp_path)
    result = next(directory.glob("result-*.json"))
    data = json.loads(result.read_text())
    name = next(iter(data["metrics"]["outcomes"]))
    i = next(i for i, c in enumerate(data["gateChecks"]) if c["criterion"].startswith(name))
    data["gateChecks"][i]["passed"] = not data["gateChecks"][i]["passed"]
    result.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["records", "validate", str(directory)]) == 2
    assert f"key gateChecks[{i}].passed" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["latin-1", "directory"])
def test_validate_names_a_games_file_it_cannot_read(bundle, tmp_path, capsys, bad) -> None:
    directory = _copy(bundle[0], tmp_path)
    games = directory / GAMES_FILE
    if bad == "directory":
        games.unlink()
        games.mkdir()
    else:
        games.write_bytes(games.read_bytes() + "caf\xe9\n".encode("latin-1"))
    capsys.readouterr()
    assert main(["records", "validate", str(directory)]) == 2
    err = capsys.readouterr().err.splitlines()
    want = "is a directory, not a file" if bad == "directory" else "not UTF-8 text"
    assert any(f"{games}: {want}" in e for e in err), err


def test_a_panel_s_jobs_are_named_panel_jobs() -> None:
    assert jobs_named(["screen-7/fair-d3s7/shard-1-of-2", "screen-7/panel/roots",
                       "screen-7/panel/fair-d2s7/shard-1-of-1"]) == "1 game job and 2 panel jobs"
    assert jobs_named(["screen-7/panel/roots"]) == "1 panel job"


def test_validate_refuses_a_valid_run_without_games(plan, tmp_path, capsys) -> None:
    verdict = {**_verdict(), "readings": [], "verdict": "not-supported-as-tested",
               "reason": "a gate failed: the screen was not opened"}
    write_bundle(tmp_path, plan, verdict, {"commit": None, "dirty": None}, now=NOW,
                 decided_utc="2026-12-02T02:59:49Z")
    result = next(tmp_path.glob("result-*.json"))
    data = json.loads(result.read_text())
    data["runValidity"] = "valid"
    result.write_text(json.dumps(data))
    assert main(["records", "validate", str(tmp_path)]) == 2
    assert "key runValidity: 'valid' contradicts" in capsys.readouterr().err

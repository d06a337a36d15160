"""The research register's records of a claim's screen, in the register's own formats.

A bundle (docs/records.md) is one directory per claim and profile holding
``experiment-<EX>.json`` (``drop7-experiment-v1``), ``seed-lease-<SL>.json``
for every block read, ``run-<RUN>.json``, ``machine-<MACH>.json``,
``result-<RS>.json`` and the per-game rows ``games.jsonl``
(``drop7-game-result-v1``, one line per game and arm).  This module builds
them from a claim's plan, ledger entries, games table and verdict and writes
the bundle (:func:`write_bundle`); the ids and hashes are
:mod:`protocol.records_ids`'s, the machine record :mod:`protocol.records_machine`'s,
and every record is checked against its format (:mod:`protocol.records_check`)
before anything is written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from analysis.games_table import DEFAULT_METRIC
from analysis.reading_kinds import panel_readings, passed
from contracts.atomic import atomic_write
from contracts.cli_numbers import seed_hex
from contracts.json_file import write_json
from protocol.ledger import replays
from protocol.paths import screen_label
from protocol.records_check import OUTCOME, check_record
from protocol.records_ids import (
    FORMATS,
    GAMES_FILE,
    ID_FIELDS,
    SCHEMA_URI,
    THEORY_ID,
    RecordError,
    compact,
    contribution_id,
    decision_sha256,
    declared_date,
    experiment_id,
    lease_id,
    protocol_sha256,
    record_file,
    result_id,
    run_id,
    stamp,
    theory_id,
)
from protocol.records_machine import machine_at
from protocol.records_metrics import result_metrics

#: who writes the records
CREATED_BY = {"platform": "drop7-harness", "model": "snakemake workflow", "agentId": None}
#: the per-game work figures this harness does not measure (null in every row)
NOT_MEASURED = ("logicalWork",)
#: a row's work figures from the games table's columns (empty: the player did not report it)
WORK_COLUMNS = {"nodesOrTransitions": "nodes", "modelInferences": "leaves"}
#: the games-table columns the register's per-game rows need beyond the statistics' own
_PER_GAME = ("reveals", "chain_max", "chain_mean", "trajectory")
#: how a ranking panel's figures are bounded, for the experiment's uncertainty method
PANEL_METHOD = ("; a ranking panel's figures: means over its roots with the 0.05 and 0.95 "
                "quantiles of a bootstrap of whole games (never of roots) and halves by games "
                "in seed order (docs/panels.md)")
#: what a result with a ranking panel cannot hold
PANEL_ROWS = ("the ranking panel's per-root rows are not in the bundle: its table is named by "
              "metrics.panel.tableSha256")
#: what a ranking panel leaves besides the games
PANEL_ARTIFACTS = ["panel roots (JSON), panel table (CSV) and panel readings (JSON)"]


def _policy(plan: Mapping[str, Any], arm: str) -> dict[str, Any]:
    """An arm as the register names a policy: a screen arm, else a panel's ranker or
    reference (by its table name)."""
    planned = plan["arms"].get(arm) or (plan.get("panel") or {}).get("arms", {})[arm]
    return {"name": arm, "entryPoint": planned["policy"],
            "manifestRef": planned.get("artefact") or planned.get("pinned", {}).get("file")}


def _panel_metric(doc: Mapping[str, Any], panel: Mapping[str, Any], reading: str | None) -> str:
    """What a panel reading reads, in words (None: the panel as a whole)."""
    if reading is None:
        return f"ranking panel: the rankers' orderings against {panel['reference']}"
    r = doc["readings"][reading]
    other = f" minus {r['other']}'s" if r.get("other") else ""
    return (f"ranking panel: {r['ranker']}'s {r['figure']}{other} against "
            f"{panel['reference']}, reading {reading}")


def _sequential_method(seq: Mapping[str, Any] | None) -> str:
    """How a sequential screen decides, for the experiment's uncertainty method ('' if fixed)."""
    if not seq:
        return ""
    spending = seq["screen"].get("spending", "the declared spending function")
    return (f"; a group-sequential screen on the paired t statistic of contrast "
            f"{seq['contrast']}, looks at {', '.join(map(str, seq['looks']))} games, the "
            f"one-sided error spent {spending}"
            + (f", futility at {seq['screen']['futility']}" if seq["screen"].get("futility")
               else "") + " (docs/statistics.md)")


def read_span(entry: Mapping[str, Any]) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """A ledger entry's seeds ``(first, count)`` that were read, and the unread rest of its
    block (None unless a sequential screen stopped before its last look)."""
    lo, count = (int(x) for x in entry["seeds"])
    unread = entry.get("unread")
    if not unread or int(unread[1]) == 0:
        return (lo, count), None
    first, rest = int(unread[0]), int(unread[1])
    if first + rest != lo + count or not lo <= first:
        raise RecordError(f"ledger entry's unread seeds {unread} are not the tail of its "
                          f"seeds {entry['seeds']}")
    return (lo, first - lo), (first, rest)


def _metric(doc: Mapping[str, Any], contrast: str) -> str:
    """What a declared contrast compares (score unless it declares a metric)."""
    return str(doc.get("contrasts", {}).get(contrast, {}).get("metric", DEFAULT_METRIC))


def experiment_record(plan: Mapping[str, Any], opened_utc: str, leases: Sequence[str],
                      lifecycle: str = "preregistered", updated_utc: str | None = None,
                      reused: bool = False, id_date: str | None = None,
                      screened: bool = True) -> dict[str, Any]:
    """The claim's ``drop7-experiment-v1`` (``opened_utc``: when its first block opened;
    ``id_date``, the time whose date the derived ids carry, default ``opened_utc``;
    ``screened``: whether its screen was opened, else no games are expected)."""
    protocol = protocol_sha256(plan)
    date = compact(id_date or opened_utc)[:8]
    doc = plan["declaration"]
    contrasts, panel = plan.get("contrasts") or {}, plan.get("panel")
    first = next(iter(contrasts.values()), None)
    arms = (first["arms"] if first else
            [*panel["rankers"][:1], panel["reference"]] if panel else list(plan["arms"]))
    readings = doc.get("readings", {})
    criteria = [f"{name}: {r.get('title', r.get('kind'))}" for name, r in readings.items()]
    metrics = [f"paired mean {_metric(doc, c)} delta, contrast {c}" for c in contrasts]
    if panel:
        read = list(panel_readings(doc.get("readings", {}))) or [None]
        metrics += [_panel_metric(doc, panel, r) for r in read]
    record = {
        "$schema": SCHEMA_URI.format(kind="experiment"), "format": FORMATS["experiment"],
        "experimentId": experiment_id(plan, date, protocol),
        "theoryIds": [theory_id(plan, date)], "title": plan["title"],
        "classification": "algorithmic", "hypothesis": plan["claim"],
        "candidate": _policy(plan, arms[0]),
        "comparator": _policy(plan, arms[1] if len(arms) > 1 else arms[0]),
        "informationBoundary": "seed-free",
        "benchmarkTier": "PILOT" if plan["tier"] == "pilot" else "SCREEN",
        "data": {"role": "previously-evaluated-development" if reused else "fresh-development",
                 "seedLeaseRefs": list(leases), "datasetRefs": [], "wholeOriginSplit": True,
                 "reuseDisclosure": ("the block was read before by another opener (ledger)"
                                     if reused else "never-read screen blocks, opened once "
                                     "through the screen ledger")},
        "metrics": {"primary": metrics[0] if metrics else (
                        f"paired mean {_metric(doc, 'none')} delta, contrast none"),
                    "secondary": metrics[1:],
                    "statisticalUnit": "whole-game",
                    "uncertaintyMethod": "bootstrap of whole paired games and a Student-t "
                                         "lower bound (docs/statistics.md)"
                                         + _sequential_method(plan.get("sequential"))
                                         + (PANEL_METHOD if panel else "")},
        "gate": {"fixedBeforeControlledData": True,
                 "passCriteria": criteria or ["the declared verdict rules"],
                 "failureAction": "the first declared verdict rule that holds decides "
                                  "(docs/claims.md)",
                 "passAction": "the first declared verdict rule that holds decides "
                               "(docs/claims.md)"},
        "resources": {"wallSeconds": None, "cpuThreads": None, "maxHostBytes": None,
                      "maxGpuBytes": None, "gpuDevices": []},
        "stopConditions": ["every game of every arm is in (the block is closed in the ledger)",
                           "illegal or unfinished decisions invalidate the verdict"],
        "expectedArtifacts": (["games table (CSV) of the screen", GAMES_FILE]
                              if screened else [])
                             + (PANEL_ARTIFACTS if panel and screened else [])
                             + ["verdict and report page"],
        "lifecycle": lifecycle, "protocolSha256": protocol, "amendments": [],
        "createdBy": dict(CREATED_BY), "createdAt": opened_utc,
        "updatedAt": updated_utc or opened_utc,
    }
    check_record(record, "experiment", f"experiment record of claim {plan['id']}")
    return record


def game_rows(rows: Sequence[Mapping[str, str]], plan: Mapping[str, Any], experiment: str,
              run: str, leases: Mapping[int, tuple[int, int, str]]) -> list[dict[str, Any]]:
    """``drop7-game-result-v1`` rows of a games table (values as text, the runner's columns).

    ``leases`` maps each block to ``(first seed, end seed, lease id)``; a game's
    ``cohortOrdinal`` is its seed's place in the block (unique in its arm's cohort, whatever
    look played it).
    """
    first = {sl: lo for lo, _, sl in leases.values()}
    out = []
    for i, row in enumerate(rows):
        missing = [c for c in _PER_GAME if not row.get(c)]
        if missing:
            raise RecordError(f"games table row {i + 2}: no {', '.join(missing)} (a table "
                              "written before the games carried them: play the screen "
                              "again, docs/records.md)")
        seed = int(row["seed"])
        lease = next((sl for lo, hi, sl in leases.values() if lo <= seed < hi), None)
        if lease is None:
            raise RecordError(f"games table row {i + 2}: seed {seed_hex(seed)} is in no "
                              "block the claim read")
        record = {
            "format": FORMATS["game-result"], "experimentId": experiment, "runId": run,
            "policyId": row["policy"], "cohortId": f"{plan['id']}/{plan['label']}/{row['arm']}",
            "seedLeaseId": lease, "cohortOrdinal": seed - first[lease],
            "seedHex": seed_hex(seed),
            "score": int(float(row["score"])), "moves": int(row["moves"]),
            "censored": row["censored"] in ("1", "True", "true"),
            "numberedClears": int(row["popped"]), "coveredReveals": int(row["reveals"]),
            "meanChainDepth": float(row["chain_mean"]), "maximumChainDepth": int(row["chain_max"]),
            "illegalDecisions": int(row["illegal"]), "incompleteDecisions": int(row["unfinished"]),
            "runnerFailures": 0, **dict.fromkeys(NOT_MEASURED),
            **{key: int(row[col]) if row.get(col) else None
               for key, col in WORK_COLUMNS.items()},
            "wallSeconds": float(row["wall_s"]), "trajectoryChecksum": row["trajectory"],
        }
        check_record(record, "game-result", f"games table row {i + 2}")
        out.append(record)
    return out


def gate_checks(verdict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The readings as the register's gate checks: criterion, passed (whether the reading's
    criterion held, :func:`analysis.reading_kinds.passed`; None only for a reading not run)
    and what was observed."""
    checks = []
    for r in verdict["readings"]:
        checks.append({"criterion": f"{r['name']}: {r['title']}",
                       "passed": passed(r.get("kind"), r["outcome"]),
                       "observed": f"{r['outcome']}: {r['reason']}"})
    return checks or [{"criterion": "the declared verdict rules", "passed": None,
                       "observed": verdict["reason"]}]


def games_text(rows: Sequence[Mapping[str, Any]]) -> str:
    """The per-game rows as JSON lines (compact, one row a line: ``games.jsonl``)."""
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)


def _seconds(start: str, end: str) -> float:
    parse = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def replay_note(entries: Mapping[int, Mapping[str, Any]],
                table_sha256: str | None) -> str | None:
    """What the records say of blocks played again after their first reading (None if none):
    which tables the replays wrote, and which table the per-game rows are from."""
    parts = []
    for b, e in sorted(entries.items()):
        again = replays(e)
        if not again:
            continue
        tables = ", ".join(str(r.get("table_sha256", "not closed"))[:16] for r in again)
        rows = ("the first reading's" if table_sha256 == e.get("table_sha256") else
                "replay " + str(1 + [r.get("table_sha256") for r in again].index(table_sha256))
                + "'s" if table_sha256 in [r.get("table_sha256") for r in again] else
                "a table the ledger does not name")
        parts.append(f"block {b} was played again after its first reading, {len(again)} "
                     f"time{'s' if len(again) > 1 else ''} (games tables {tables}; the ledger "
                     f"appends them under replays and keeps the first table "
                     f"{str(e.get('table_sha256'))[:16]}, the seed lease's): the per-game rows "
                     f"are {rows} games; startedAt and endedAt are the first reading's, the "
                     "command, commit and source state those of the run that wrote the rows")
    return "; ".join(parts) or None


def preregistration(entries: Mapping[int, Mapping[str, Any]], protocol: str,
                    opened_in: Mapping[int, str] | None = None) -> list[str]:
    """The limitations of blocks whose ledger entry kept no protocol hash at opening (empty
    when every block's opening kept this protocol's hash): the commit that opened each."""
    out = []
    for b, e in sorted(entries.items()):
        kept = e.get("protocol_sha256")
        if kept == protocol:
            continue
        if kept is not None:
            raise RecordError(f"block {b}: the ledger kept protocol hash {kept[:12]} at "
                              f"opening, the plan's is {protocol[:12]}")
        where = (f"recorded in the ledger by commit {opened_in[b]}, "
                 if opened_in and b in opened_in else "")
        out.append(f"preregistration not proven for block {b}: it was opened on "
                   f"{e['opened_utc']} ({where}source commit {e.get('commit') or 'unknown'}) "
                   "before the ledger kept protocol hashes, so protocolSha256 is the hash of "
                   "the declaration when these records were written, not one recorded at "
                   "opening")
    return out


def run_resources(entries: Mapping[int, Mapping[str, Any]],
                  jobs: Mapping[str, Mapping[str, Any]] | None, cores: int | None,
                  ) -> tuple[dict[str, Any], str]:
    """``resourceObserved`` of the run that first read ``entries``' blocks, and what it says.

    Wall is the first reading's span (opening to completion); CPU and peak memory
    the blocks' game jobs (benchmark names under ``screen-<block>/``) whose
    benchmark files were written in that span.  Null, with the reason, when the
    benchmark files are not available, a job was rewritten after the span (a
    replay), or the CPU exceeds the cores times the span.
    """
    started = min(e["opened_utc"] for e in entries.values())
    ended = max(e.get("completed_utc") or started for e in entries.values())
    wall = _seconds(started, ended)
    labels = {screen_label(b) for b in entries}
    out = {"wallSeconds": wall, "cpuSeconds": None, "peakHostBytes": None, "peakGpuBytes": None}
    note = (f"wallSeconds: the first reading's span, from the opening ({started}) to the "
            f"completion ({ended}) of the block in the ledger; ")
    mine = {k: j for k, j in (jobs or {}).items() if k.split("/")[0] in labels}
    late = sorted(k for k, j in mine.items()
                  if not started <= str(j.get("written_utc")) <= ended)
    if jobs is None:
        return out, note + ("CPU and peak memory unknown: the run's benchmark files were not "
                            "available to these records")
    if not mine or late:
        return out, note + ("CPU and peak memory unknown: " + (
            f"the benchmark files of {len(late)} of the block's game jobs were written outside "
            "its first reading's span (a later run replaced them)" if late else
            "no benchmark file of the block's game jobs"))
    cpu = round(sum(float(j.get("cpu_s") or 0) for j in mine.values()), 3)
    if cores is not None and cpu > cores * wall:
        return out, note + (f"CPU unknown: the game jobs' benchmark files sum {cpu} s, more "
                            f"than {cores} cores times the span; peak memory unknown")
    peak = max(float(j.get("max_rss_mb") or 0) for j in mine.values())
    out.update(cpuSeconds=cpu, peakHostBytes=int(peak * 2**20) if peak else None)
    return out, note + (f"cpuSeconds and peakHostBytes: the sum and the largest of the "
                        f"block's {len(mine)} game jobs' benchmark files, all written in the "
                        "span (the claim's training, gates and statistics are not counted)")


@dataclass(frozen=True)
class _Blocks:
    """The screen blocks a bundle records: the ledger's entries by block (a closed entry
    replaces the opened one), their leases, and the span of their first reading."""

    opened: Mapping[str, Any]  # opened.json's ``blocks`` (owner, reused) by block as text
    entries: dict[int, Mapping[str, Any]]
    leases: dict[int, str]
    unread: dict[int, tuple[int, int]]  # a sequential screen's unread rest, by block
    unread_leases: dict[int, str]
    first_open: str
    ended: str

    @property
    def screened(self) -> bool:
        """True when a block was opened."""
        return bool(self.entries)

    @property
    def reused(self) -> bool:
        """True when a block had been read before by another opener."""
        return any(a.get("reused") for a in self.opened.values())


def _blocks(claim: str, opened: Mapping[str, Any] | None, closed: Mapping[str, Any] | None,
            decided: str, now_utc: str) -> _Blocks:
    """The blocks of ``opened.json`` and ``closed.json``, their leases and their span (from
    the first opening to the last completion; ``decided`` when none was opened)."""
    blocks = (opened or {}).get("blocks", {})
    entries = {int(b): a["entry"] for b, a in blocks.items()}
    entries.update({int(b): e for b, e in (closed or {}).get("entries", {}).items()})
    unread = {b: u for b, e in entries.items() if (u := read_span(e)[1]) is not None}
    return _Blocks(
        opened=blocks, entries=entries,
        leases={b: lease_id(claim, b, e) for b, e in entries.items()}, unread=unread,
        unread_leases={b: lease_id(claim, b, {**e, "seeds": list(unread[b])})
                       for b, e in entries.items() if b in unread},
        first_open=min((e["opened_utc"] for e in entries.values()), default=decided),
        ended=max((e.get("completed_utc") or now_utc for e in entries.values()),
                  default=decided))


def _experiment(plan: Mapping[str, Any], blocks: _Blocks, decided: str, now_utc: str,
                preregistered: Mapping[str, Any] | None,
                opened_in: Mapping[int, str] | None) -> tuple[dict[str, Any], list[str]]:
    """The experiment record, completed (its creation time the preregistered one's, whose
    protocol hash must be the plan's), and the blocks' unproven preregistrations."""
    experiment = experiment_record(
        plan, blocks.first_open, [*blocks.leases.values(), *blocks.unread_leases.values()],
        "completed", now_utc, blocks.reused, screened=blocks.screened,
        id_date=None if blocks.screened else declared_date(plan) or decided)
    protocol = experiment["protocolSha256"]
    if preregistered is not None:
        if preregistered.get("protocolSha256") != protocol:
            raise RecordError(f"claim {plan['id']}: the preregistered protocol hash "
                              f"{str(preregistered.get('protocolSha256'))[:12]} differs from "
                              f"the plan's {protocol[:12]}")
        experiment["createdAt"] = min(preregistered["createdAt"], experiment["createdAt"])
    unproven = preregistration(blocks.entries, protocol, opened_in)
    experiment["gate"]["fixedBeforeControlledData"] = blocks.screened and not unproven
    return experiment, unproven


def _source_notes(provenance: Mapping[str, Any]) -> list[str]:
    """What the run's source state cannot say (the last note: no source archive)."""
    dirty, diff = provenance.get("dirty"), provenance.get("diff_sha256")
    notes = ([] if not dirty or diff else
             ["the tree was dirty and its diff was not recorded: diffSha256 unknown"])
    return [*notes, "sourceArchiveSha256: no source archive is made (null)"]


def _run(plan: Mapping[str, Any], verdict: Mapping[str, Any], provenance: Mapping[str, Any],
         blocks: _Blocks, experiment: Mapping[str, Any], machine: Mapping[str, Any], *,
         run: str, contribution: str, command: Sequence[str] | None, replayed: str | None,
         has_rows: bool) -> dict[str, Any]:
    """The run record (checked): its source state, command, times and resources."""
    screened = blocks.screened
    cores = machine["cpu"].get("affinityLogicalCpus") or machine["cpu"].get("logicalCpus")
    if screened:
        observed, resource_note = run_resources(blocks.entries, provenance.get("jobs"), cores)
    else:
        observed = {"wallSeconds": None, "cpuSeconds": None, "peakHostBytes": None,
                    "peakGpuBytes": None}
        resource_note = "no screen was run: its block was never opened"
    dirty, diff = provenance.get("dirty"), provenance.get("diff_sha256")
    record = {
        "$schema": SCHEMA_URI.format(kind="run"), "format": FORMATS["run"], "runId": run,
        "experimentId": experiment["experimentId"],
        "lifecycle": "completed" if screened else "planned",
        "runValidity": ("invalid" if verdict.get("methodological_errors") else
                        "valid" if screened else "pending"),
        "startedAt": blocks.first_open if screened else None,
        "endedAt": blocks.ended if screened else None,
        "protocolSha256": experiment["protocolSha256"],
        "machineProfileRef": machine["machineProfileId"],
        "sourceState": {"gitCommit": provenance.get("commit"), "dirty": dirty,
                        "diffSha256": diff if dirty else None, "sourceArchiveSha256": None},
        "command": list(command or ["snakemake"]),
        "seedLeaseRefs": list(blocks.leases.values()),
        "resourceLimits": {"wallSeconds": None, "cpuThreads": None, "maxHostBytes": None,
                           "maxGpuBytes": None},
        "resourceObserved": {
            **observed,
            "measurementNotes": "; ".join(
                [resource_note, f"machine {machine['notes'][-1]}", *_source_notes(provenance)]
                + ([] if command else ["the invoking command line was not visible to the "
                                       "records job"])
                + ([replayed] if replayed else []))},
        "exitCode": None,
        "stopReason": ("the records are written by a job of the run, before it ends: its exit "
                       "code is not known to them") if screened else
                      f"the screen was never opened: {verdict['reason']}",
        "artifactRefs": [GAMES_FILE] if has_rows else [], "contributionIds": [contribution],
    }
    check_record(record, "run", f"run record of claim {plan['id']}")
    return record


def _leases(plan: Mapping[str, Any], blocks: _Blocks, experiment: Mapping[str, Any],
            run: str) -> list[dict[str, Any]]:
    """The seed lease of every block read (checked), and of a sequential screen's unread
    rest, never opened."""
    out = []
    for b, e in blocks.entries.items():
        lo, count = read_span(e)[0]
        again = replays(e)
        lease = {
            "$schema": SCHEMA_URI.format(kind="seed-lease"), "format": FORMATS["seed-lease"],
            "seedLeaseId": blocks.leases[b], "experimentId": experiment["experimentId"],
            "rngAlgorithm": "drop7 counter-based SplitMix64 streams (docs/rng.md)",
            "domain": "environment", "role": "fresh-development",
            "rangeStartHex": seed_hex(lo), "rangeEndExclusiveHex": seed_hex(lo + count),
            "cohortManifestSha256": e.get("table_sha256"),
            "state": "burned" if e.get("status") == "complete" else "opened",
            "reservedAt": e["opened_utc"], "openedAt": e["opened_utc"],
            "closedAt": e.get("completed_utc"), "protocolSha256": experiment["protocolSha256"],
            "runIds": [run],
            "notes": [f"screen block {b} of the seed bank, opened for claim {plan['id']} "
                      f"({e['profile']} profile) through the screen ledger"]
                     + (["read before by another opener (reused)"]
                        if blocks.opened.get(str(b), {}).get("reused") or e.get("reused")
                        else [])
                     + ([f"played again {len(again)} time(s) after its first reading: "
                         "cohortManifestSha256 is the first reading's games table; the "
                         "replays' tables: " + ", ".join(
                             str(r.get("table_sha256", "not closed")) for r in again)]
                        if again else []),
        }
        check_record(lease, "seed-lease", f"seed lease of block {b}")
        out.append(lease)
        if b in blocks.unread:  # a sequential screen's unread rest: never opened
            first, rest = blocks.unread[b]
            looks = e.get("looks") or []
            out.append({
                **lease, "seedLeaseId": blocks.unread_leases[b],
                "rangeStartHex": seed_hex(first), "rangeEndExclusiveHex": seed_hex(first + rest),
                "cohortManifestSha256": None, "state": "cancelled-unopened", "openedAt": None,
                "runIds": [],
                "notes": [f"the unread rest of screen block {b}: the sequential screen stopped "
                          f"at look {len(looks)} ({looks[-1]['decision'] if looks else '?'}), "
                          "so these seeds were never read; the ledger keeps them out of "
                          "every other claim's screens"]})
            check_record(out[-1], "seed-lease", f"unread seed lease of block {b}")
    return out


def _spans(blocks: _Blocks) -> dict[int, tuple[int, int, str]]:
    """``(first seed, end seed, lease id)`` of each block's read seeds."""
    out = {}
    for b, e in blocks.entries.items():
        lo, count = read_span(e)[0]
        out[b] = (lo, lo + count, blocks.leases[b])
    return out


def _limitations(plan: Mapping[str, Any], verdict: Mapping[str, Any],
                 rows: Sequence[Mapping[str, Any]], unproven: Sequence[str],
                 provenance: Mapping[str, Any], replayed: str | None) -> list[str]:
    """What the result cannot claim: what lowered the tier, what is not measured or not
    known, unproven preregistrations, a theory id derived from a short one."""
    out = [*verdict.get("tier_lowered_by", []),
           "not measured per game (null): " + ", ".join(
               [*NOT_MEASURED, *(k for k in WORK_COLUMNS if any(r[k] is None for r in rows))]),
           "run exit code unknown to the records (written during the run)",
           *unproven, *_source_notes(provenance)[:-1], *([replayed] if replayed else [])]
    if plan.get("theory") and not THEORY_ID.match(str(plan["theory"])):
        out.append(f"theory id derived from the declared {plan['theory']!r}: declare "
                   "the register's full id")
    return out


def _check_panel(plan: Mapping[str, Any], panel: Mapping[str, Any] | None,
                 screened: bool) -> None:
    """Refuse panel figures that are not this claim's panel's: figures without a panel,
    none for a panel whose block was opened, another reference, other rankers, roots from
    other seeds than the planned ones."""
    planned = plan.get("panel")
    if planned is None:
        if panel is not None:
            raise RecordError(f"claim {plan['id']}: panel figures given, but the claim has no "
                              "panel")
        return
    if panel is None:
        if screened:
            raise RecordError(f"claim {plan['id']}: its block was opened but no panel readings "
                              "were given to the records")
        return
    for key, read in (("reference", str), ("rankers", list)):
        if read(panel[key]) != read(planned[key]):  # the plan's may hold a tuple
            raise RecordError(f"claim {plan['id']}: the panel readings' {key} {panel[key]!r} "
                              f"is not the plan's {read(planned[key])!r}")
    start, count = (int(x) for x in planned["seeds"])
    roots = panel["roots"]
    if (roots["rangeStartHex"], roots["rangeEndExclusiveHex"]) != (
            seed_hex(start), seed_hex(start + count)):
        raise RecordError(f"claim {plan['id']}: the panel's roots come from seeds "
                          f"{roots['rangeStartHex']} to {roots['rangeEndExclusiveHex']}, the "
                          f"plan's are {seed_hex(start)}:{count}")


def write_bundle(directory: str | Path, plan: Mapping[str, Any], verdict: Mapping[str, Any],
                 provenance: Mapping[str, Any], *, opened: Mapping[str, Any] | None = None,
                 closed: Mapping[str, Any] | None = None,
                 preregistered: Mapping[str, Any] | None = None,
                 table: Sequence[Mapping[str, str]] = (), table_sha256: str | None = None,
                 command: Sequence[str] | None = None,
                 contrasts: Mapping[str, Mapping[str, Any]] | None = None,
                 machine: Mapping[str, Any] | None = None, decided_utc: str | None = None,
                 opened_in: Mapping[int, str] | None = None,
                 panel: Mapping[str, Any] | None = None,
                 now: datetime | None = None) -> dict[str, Any]:
    """Write a claim's bundle into ``directory``; returns the result record.

    ``opened`` and ``closed`` are the screen's ``opened.json`` and ``closed.json``
    (None when the block was never opened or not closed; a closed entry
    replaces the opened one; ``closed["machine"]`` is the machine captured at
    the run), ``preregistered`` the experiment record written before the block
    was opened (its creation time is kept; a protocol hash that differs from
    the plan's is refused), ``table`` the rows of its games table,
    ``command`` the invoking command line (None: not visible to the job,
    written as ``["snakemake"]`` and said in the measurement notes).
    ``provenance``: ``commit``, ``dirty``, ``diff_sha256`` and ``jobs`` (each
    job's benchmark figures and ``written_utc``; None: not available).
    ``contrasts``: the contrasts' JSON (the result's figures); ``machine``: a
    machine record to use when none was captured at the run; ``decided_utc``:
    when the verdict was decided (the time of a claim never screened);
    ``opened_in``: the ledger commit that recorded each block's opening;
    ``panel``: a ranking panel's figures (:func:`~protocol.records_metrics.panel_metrics`
    of its readings file), required when the claim has a panel and its block was
    opened, refused otherwise.
    Every record is checked against its format before anything is written.
    """
    now_utc = stamp(now or datetime.now(UTC))
    decided = decided_utc or now_utc
    blocks = _blocks(plan["id"], opened, closed, decided, now_utc)
    _check_panel(plan, panel, blocks.screened)
    experiment, unproven = _experiment(plan, blocks, decided, now_utc, preregistered, opened_in)
    machine_rec = machine_at(closed, machine, now_utc)
    check_record(machine_rec, "machine", "machine record")
    decision = decision_sha256(verdict)
    run = run_id(plan["id"], blocks.first_open, provenance.get("commit"),
                 experiment["protocolSha256"], list(blocks.leases.values()), decision)
    result_ref = result_id(blocks.ended, run, decision, table_sha256)
    contribution = contribution_id(result_ref, blocks.ended)
    replayed = replay_note(blocks.entries, table_sha256)
    run_rec = _run(plan, verdict, provenance, blocks, experiment, machine_rec, run=run,
                   contribution=contribution, command=command, replayed=replayed,
                   has_rows=bool(table))
    leases = _leases(plan, blocks, experiment, run)
    rows = game_rows(table, plan, experiment["experimentId"], run, _spans(blocks))
    games = games_text(rows)
    frozen = {k: v for e in blocks.entries.values() for k, v in e.get("hashes", {}).items()}
    result = {
        "$schema": SCHEMA_URI.format(kind="result"), "format": FORMATS["result"],
        "resultId": result_ref, "theoryIds": experiment["theoryIds"],
        "experimentId": experiment["experimentId"], "runIds": [run],
        "runValidity": "invalid" if verdict.get("methodological_errors") else "valid",
        "scientificOutcome": OUTCOME[verdict["verdict"]], "assessment": verdict["verdict"],
        "evidenceTier": verdict["tier"], "summary": verdict["reason"],
        "metrics": {**result_metrics(verdict, contrasts or {}, frozen),
                    **({"panel": dict(panel)} if panel is not None else {})},
        "gateChecks": gate_checks(verdict),
        "perGameArtifact": {"path": GAMES_FILE if rows else None,
                            "sha256": hashlib.sha256(games.encode()).hexdigest() if rows else None,
                            "recordCount": len(rows) if rows else None},
        "machineProfileRefs": [machine_rec["machineProfileId"]], "artifactManifestRef": None,
        "limitations": _limitations(plan, verdict, rows, unproven, provenance, replayed)
                       + ([PANEL_ROWS] if panel is not None else []),
        "contributionIds": [contribution], "recordedAt": now_utc,
    }
    check_record(result, "result", f"result record of claim {plan['id']}")
    records = [("experiment", experiment), ("machine", machine_rec), ("run", run_rec),
               *(("seed-lease", lease) for lease in leases), ("result", result)]
    _write(Path(directory), records, games if rows else None)
    return result


def _write(directory: Path, records: Sequence[tuple[str, Mapping[str, Any]]],
           games: str | None) -> None:
    """Write a bundle whole: its old records and rows removed, the per-game rows (if any)
    and every record written (each file atomically)."""
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.iterdir():
        if old.suffix in (".json", ".jsonl") or old.name.startswith("."):
            old.unlink()
    if games is not None:
        atomic_write(directory / GAMES_FILE, games)
    for kind, record in records:
        write_json(directory / record_file(kind, record[ID_FIELDS[kind]]), record)

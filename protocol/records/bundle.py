"""The research register's records of a claim's screen, in the register's own formats.

A bundle (docs/records.md) is one directory per claim and profile holding
``experiment-<EX>.json`` (``drop7-experiment-v1``), ``seed-lease-<SL>.json``
for every block read, ``run-<RUN>.json``, ``machine-<MACH>.json``,
``result-<RS>.json`` and the per-game rows ``games.jsonl``
(``drop7-game-result-v1``, one line per game and arm).  This module builds
the leases, run and result records from a claim's plan, ledger entries,
games table and verdict and writes the bundle (:func:`write_bundle`); the
experiment record is :mod:`protocol.records.experiment`'s, the rows
:mod:`protocol.records.rows`'s, the ids and hashes :mod:`protocol.records.ids`'s,
the machine record :mod:`protocol.records.machine`'s, and every record is
checked against its format (:mod:`protocol.records.check`) before anything
is written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from analysis.reading_kinds import passed
from contracts.atomic import atomic_write
from contracts.cli_numbers import seed_hex
from contracts.json_file import write_json
from protocol.ledger_readings import replays
from protocol.records.check import OUTCOME, check_record, result_validity
from protocol.records.experiment import experiment_record, preregistration, read_span, replay_note
from protocol.records.ids import (
    FORMATS,
    GAMES_FILE,
    ID_FIELDS,
    SCHEMA_URI,
    THEORY_ID,
    RecordError,
    contribution_id,
    decision_sha256,
    declared_date,
    lease_id,
    record_file,
    result_id,
    run_id,
    stamp,
)
from protocol.records.machine import machine_at
from protocol.records.metrics import check_panel, result_metrics
from protocol.records.resources import run_resources, source_notes
from protocol.records.rows import NOT_MEASURED, WORK_COLUMNS, game_rows, games_text
from protocol.records.training import check_training, with_frozen

#: what a result with a ranking panel cannot hold
PANEL_ROWS = ("the ranking panel's per-root rows are not in the bundle: its table is named by "
              "metrics.panel.tableSha256")


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
                [resource_note, f"machine {machine['notes'][-1]}", *source_notes(provenance)]
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
                 provenance: Mapping[str, Any], replayed: str | None,
                 theory: str) -> list[str]:
    """What the result cannot claim: what lowered the tier, what is not measured or not
    known, unproven preregistrations, a theory id of the harness's own (:func:`derived_theory`)."""
    out = [*verdict.get("tier_lowered_by", []),
           "not measured per game (null): " + ", ".join(
               [*NOT_MEASURED, *(k for k in WORK_COLUMNS if any(r[k] is None for r in rows))]),
           "run exit code unknown to the records (written during the run)",
           *unproven, *source_notes(provenance)[:-1], *([replayed] if replayed else [])]
    return out + derived_theory(plan, theory)


def derived_theory(plan: Mapping[str, Any], theory: str) -> list[str]:
    """The limitation marking ``theory`` (the records' theory id) as the harness's own when it
    is not a register id the claim declares: a proxy screen's (:func:`~protocol.records.ids.
    theory_id`), derived from a short declared id or from the claim, or declared with
    ``derived_from`` (the register theory it derives from, named)."""
    source = plan["declaration"].get("derived_from")
    declared = plan.get("theory")
    if plan.get("proxy"):
        return [f"a proxy screen, not a test of the claim's theory: the profile plays "
                f"{'; '.join(plan['proxy'])}, so this result assesses those arms under the "
                f"proxy's theory id {theory}, derived from "
                f"{source or declared or 'the claim'}, and does not assess that theory"]
    if source is None and declared and THEORY_ID.match(str(declared)):
        return []
    made = (f"from the declared {declared!r} and the claim's text" if declared
            and not THEORY_ID.match(str(declared)) else "as declared" if declared
            else "from the claim's id and text")
    return [f"theory id {theory} is derived ({made}), not a theory of the register"
            + (f": it derives from the register theory {source}" if source else
               ": it names no register theory")]


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
                 training: Mapping[str, Mapping[str, Any]] | None = None,
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
    ``panel``: a ranking panel's figures (:func:`~protocol.records.metrics.panel_metrics`
    of its readings file), required when the claim has a panel and its block was
    opened, refused otherwise; ``training``: the trained weights' figures
    (:func:`~protocol.records.training.training_metrics`; none: the claim trains nothing).
    Every record is checked against its format before anything is written.
    """
    now_utc = stamp(now or datetime.now(UTC))
    decided = decided_utc or now_utc
    blocks = _blocks(plan["id"], opened, closed, decided, now_utc)
    check_panel(plan, panel, blocks.screened)
    check_training(plan, training)
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
        "runValidity": result_validity(verdict, blocks.screened),
        "scientificOutcome": OUTCOME[verdict["verdict"]], "assessment": verdict["verdict"],
        "evidenceTier": verdict["tier"], "summary": verdict["reason"],
        "metrics": {**result_metrics(verdict, contrasts or {}, frozen),
                    **({"panel": dict(panel)} if panel is not None else {}),
                    **({"training": with_frozen(training, frozen, plan["id"])}
                       if training else {})},
        "gateChecks": gate_checks(verdict),
        "perGameArtifact": {"path": GAMES_FILE if rows else None,
                            "sha256": hashlib.sha256(games.encode()).hexdigest() if rows else None,
                            "recordCount": len(rows) if rows else None},
        "machineProfileRefs": [machine_rec["machineProfileId"]], "artifactManifestRef": None,
        "limitations": _limitations(plan, verdict, rows, unproven, provenance, replayed,
                                    experiment["theoryIds"][0])
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

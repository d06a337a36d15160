"""The research register's records of a claim's screen, in the register's own formats.

A bundle (docs/records.md) is one directory per claim and profile holding
``experiment-<EX>.json`` (``drop7-experiment-v1``), ``seed-lease-<SL>.json``
for every block read, ``run-<RUN>.json``, ``machine-<MACH>.json``,
``result-<RS>.json`` and the per-game rows ``games.jsonl``
(``drop7-game-result-v1``, one line per game and arm).  The formats are
restated in ``protocol/schemas/records/`` and every record is checked
against them before it is written; :func:`check_bundle` checks a written
bundle's records and the links between them, one line per problem.

Ids follow the register's patterns.  The theory and experiment ids are the
declaration's (``theory``, ``experiment``) when they match; otherwise they
are derived from the claim, the date its first block was opened and a hash
(the theory id from the claim's text, the experiment id from the protocol
hash), so the same declaration always gets the same ids.  Run, seed-lease,
machine and result ids are a timestamp of what they record and a hash of
their content, so the same run never gets two ids.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from analysis.games_table import DEFAULT_METRIC
from contracts.atomic import atomic_write
from contracts.cli_numbers import seed_hex
from contracts.hashing import file_sha256
from contracts.input_file import decode_utf8, read_input_bytes
from protocol.ledger import replays
from protocol.paths import screen_label
from protocol.records_metrics import result_metrics
from protocol.schema import key_path, load_schema

#: record kind -> format identifier (the schema file is ``records/<kind>-v1``)
FORMATS = {"experiment": "drop7-experiment-v1", "seed-lease": "drop7-seed-lease-v1",
           "run": "drop7-run-v1", "machine": "drop7-machine-v1",
           "game-result": "drop7-game-result-v1", "result": "drop7-result-v1"}
#: the id field of each record kind written as its own file
ID_FIELDS = {"experiment": "experimentId", "seed-lease": "seedLeaseId", "run": "runId",
             "machine": "machineProfileId", "result": "resultId"}
#: what of a verdict the run and result ids hash: the decision, not the readings' numbers
VERDICT_KEY = ("verdict", "tier", "reason", "outcomes", "methodological_errors")
#: the per-game rows' file in a bundle
GAMES_FILE = "games.jsonl"
#: the register's schema URI of a format (the records' ``$schema``)
SCHEMA_URI = "https://drop7-research.invalid/schemas/{kind}-v1.schema.json"
#: who writes the records
CREATED_BY = {"platform": "drop7-harness", "model": "snakemake workflow", "agentId": None}
#: per-game work figures the harness does not measure (null in every row)
#: the per-game work figures this harness does not measure (null in every row)
NOT_MEASURED = ("logicalWork",)
#: a row's work figures from the games table's columns (empty: the player did not report it)
WORK_COLUMNS = {"nodesOrTransitions": "nodes", "modelInferences": "leaves"}

_ID_TIME = re.compile(r"^[A-Z]+-[0-9]{8}T[0-9]{6}Z-[a-f0-9]{8}$")
_THEORY = re.compile(r"^TH-[0-9]{8}-[a-z0-9]+(?:-[a-z0-9]+)*-[a-f0-9]{8}$")
_EXPERIMENT = re.compile(r"^EX-[0-9]{8}-[a-z0-9]+(?:-[a-z0-9]+)*-[a-f0-9]{8}$")
#: keys that never decide a verdict: names, texts, notes and the register's figures
_NOT_DECIDING = frozenset({"id", "format", "theory", "experiment", "title", "claim", "note",
                           "notes", "recorded", "description"})


class RecordError(ValueError):
    """A record that does not hold its format: one line naming the record and the key."""


def sha8(*parts: Any) -> str:
    """The first 8 hex digits of the SHA-256 of ``parts`` as canonical JSON."""
    return canonical_sha256(list(parts))[:8]


def canonical_sha256(value: Any) -> str:
    """SHA-256 of ``value`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def stamp(when: datetime) -> str:
    """An RFC 3339 UTC time of whole seconds: ``2026-12-01T16:35:58Z``."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _compact(utc: str) -> str:
    """``2026-12-01T16:35:58Z`` -> ``20261201T163558Z`` (the ids' time part)."""
    return utc.replace("-", "").replace(":", "")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "claim"


def _deciding(value: Any) -> Any:
    """``value`` without the keys that never decide a verdict (at any depth)."""
    if isinstance(value, Mapping):
        return {k: _deciding(v) for k, v in value.items() if k not in _NOT_DECIDING}
    if isinstance(value, list | tuple):
        return [_deciding(v) for v in value]
    return value


def protocol_document(plan: Mapping[str, Any]) -> dict[str, Any]:
    """What decides a claim's verdict, as merged with the profile (``ClaimPlan.describe()``).

    The declaration's arms, weights and their recipes, gates, validation, screen,
    contrasts, readings and verdict rules, and the sizes the profile gave them
    (trained moves and checkpoints, arms' policies and games, the screen's seeds
    and blocks); not titles, ids, the claim's text, notes or recorded figures.
    """
    return _deciding({
        "declaration": plan["declaration"],
        "seeds": plan["seeds"], "blocks": plan["blocks"], "validation": plan["validation"],
        "trained": plan["trained"],
        "arms": {n: {"policy": a["policy"], "games": a["games"]} for n, a in plan["arms"].items()},
        "contrasts": plan["contrasts"], "sequential": plan.get("sequential"),
    })


def protocol_sha256(plan: Mapping[str, Any]) -> str:
    """The experiment's ``protocolSha256``: the hash of :func:`protocol_document`."""
    return canonical_sha256(protocol_document(plan))


def theory_id(plan: Mapping[str, Any], date: str) -> str:
    """The declared theory id when it has the register's pattern, else one derived from it
    (or from the claim) and the claim's text; ``date`` is ``YYYYMMDD``."""
    declared = plan.get("theory")
    if declared and _THEORY.match(declared):
        return str(declared)
    if declared and re.fullmatch(r"TH-[0-9]{8}-[a-z0-9]+(?:-[a-z0-9]+)*", declared):
        return f"{declared}-{sha8(declared, plan['claim'])}"
    return f"TH-{date}-{_slug(plan['id'])}-{sha8(plan['id'], plan['claim'])}"


def _declared_date(plan: Mapping[str, Any]) -> str | None:
    """Midnight UTC of the declared theory id's date (``TH-YYYYMMDD-...``), or None: the date
    of a claim that never opened a block, so its derived ids do not change from day to day."""
    found = re.match(r"TH-([0-9]{4})([0-9]{2})([0-9]{2})-", str(plan.get("theory") or ""))
    return f"{found[1]}-{found[2]}-{found[3]}T00:00:00Z" if found else None


def experiment_id(plan: Mapping[str, Any], date: str, protocol: str) -> str:
    """The declared experiment id, else ``EX-<date>-<claim>-<protocol hash's first 8>``."""
    declared = plan["declaration"].get("experiment")
    if declared:
        return str(declared)
    return f"EX-{date}-{_slug(plan['id'])}-{protocol[:8]}"


def check_record(record: Mapping[str, Any], kind: str, where: str) -> None:
    """Raise :class:`RecordError` (naming ``where`` and the key) unless ``record`` holds
    its format's schema."""
    for problem in record_problems(record, kind):
        raise RecordError(f"{where}: {problem}")


@cache
def _validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(f"records/{kind}-v1"),
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def record_problems(record: Any, kind: str) -> list[str]:
    """Every way ``record`` breaks the ``kind`` format's schema, one line each."""
    errors = sorted(_validator(kind).iter_errors(record),
                    key=lambda e: list(map(str, e.absolute_path)))
    return [f"key {key_path(list(e.absolute_path))}: {e.message}" for e in errors]


def _policy(plan: Mapping[str, Any], arm: str) -> dict[str, Any]:
    return {"name": arm, "entryPoint": plan["arms"][arm]["policy"],
            "manifestRef": plan["arms"][arm].get("artefact") or plan["arms"][arm].get(
                "pinned", {}).get("file")}


def lease_id(claim: str, block: int, entry: Mapping[str, Any]) -> str:
    """A block's seed-lease id: its opening time and a hash of claim, block and seeds."""
    return f"SL-{_compact(entry['opened_utc'])}-{sha8(claim, block, entry['seeds'])}"


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
    return str(doc["contrasts"].get(contrast, {}).get("metric", DEFAULT_METRIC))


def experiment_record(plan: Mapping[str, Any], opened_utc: str, leases: Sequence[str],
                      lifecycle: str = "preregistered", updated_utc: str | None = None,
                      reused: bool = False, id_date: str | None = None,
                      screened: bool = True) -> dict[str, Any]:
    """The claim's ``drop7-experiment-v1`` (``opened_utc``: when its first block opened;
    ``id_date``, the time whose date the derived ids carry, default ``opened_utc``;
    ``screened``: whether its screen was opened, else no games are expected)."""
    protocol = protocol_sha256(plan)
    date = _compact(id_date or opened_utc)[:8]
    doc = plan["declaration"]
    first = next(iter(plan["contrasts"].values()), None)
    arms = first["arms"] if first else list(plan["arms"])
    readings = doc.get("readings", {})
    primary = next(iter(plan["contrasts"]), "none")
    criteria = [f"{name}: {r.get('title', r.get('kind'))}" for name, r in readings.items()]
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
        "metrics": {"primary": f"paired mean {_metric(doc, primary)} delta, contrast {primary}",
                    "secondary": [f"paired mean {_metric(doc, c)} delta, contrast {c}"
                                  for c in list(plan["contrasts"])[1:]],
                    "statisticalUnit": "whole-game",
                    "uncertaintyMethod": "bootstrap of whole paired games and a Student-t "
                                         "lower bound (docs/statistics.md)"
                                         + _sequential_method(plan.get("sequential"))},
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
                              if screened else []) + ["verdict and report page"],
        "lifecycle": lifecycle, "protocolSha256": protocol, "amendments": [],
        "createdBy": dict(CREATED_BY), "createdAt": opened_utc,
        "updatedAt": updated_utc or opened_utc,
    }
    check_record(record, "experiment", f"experiment record of claim {plan['id']}")
    return record


def machine_record(captured_utc: str) -> dict[str, Any]:
    """The ``drop7-machine-v1`` of this machine (null where it is not read)."""
    uname = platform.uname()
    cpus = os.cpu_count() or 1
    facts = {
        "operatingSystem": {"system": uname.system, "release": uname.release,
                            "version": uname.version, "architecture": uname.machine,
                            "distribution": _os_release(), "container": None},
        "cpu": {"model": _cpu_model(), "physicalCores": None, "logicalCpus": cpus,
                "affinityLogicalCpus": len(os.sched_getaffinity(0))
                if hasattr(os, "sched_getaffinity") else None,
                "numaNodes": None, "governor": None},
        "memory": {"totalBytes": _meminfo("MemTotal"), "availableBytes": _meminfo("MemAvailable"),
                   "swapTotalBytes": _meminfo("SwapTotal"),
                   "pageSizeBytes": os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else None},
        "limits": {"cgroupVersion": None, "memoryMaxBytes": None, "cpuQuota": None,
                   "cpuAffinity": None},
        "gpu": {"devices": [], "rocmVersion": None, "hipVersion": None,
                "sharedSystemMemory": None, "detectionNotes": "no GPU is used or probed"},
        "toolchain": {"python": platform.python_version()}, "profilers": {},
        "notes": ["null: not read by the harness"],
    }
    stable = {k: v for k, v in facts.items() if k != "memory"}
    record = {"$schema": SCHEMA_URI.format(kind="machine"), "format": FORMATS["machine"],
              "machineProfileId": f"MACH-{_compact(captured_utc)}-{sha8(stable)}",
              "capturedAt": captured_utc, **facts}
    check_record(record, "machine", "machine record")
    return record


def _os_release() -> str | None:
    try:
        text = Path("/etc/os-release").read_text()
    except OSError:
        return None
    found = re.search(r'^PRETTY_NAME="?([^"\n]*)"?$', text, re.M)
    return found[1] if found else None


def _cpu_model() -> str | None:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    found = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    return found[1].strip() if found else None


def _meminfo(key: str) -> int | None:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError:
        return None
    found = re.search(rf"^{key}:\s*(\d+) kB$", text, re.M)
    return int(found[1]) * 1024 if found else None


#: the games-table columns the register's per-game rows need beyond the statistics' own
_PER_GAME = ("reveals", "chain_max", "chain_mean", "trajectory")


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


_OUTCOME = {"supported-as-tested": "pass", "not-supported-as-tested": "fail",
            "mixed": "inconclusive", "invalidated-by-methodological-error": "not-applicable"}


#: whether a reading's criterion, as its title states it, held: by outcome, and where the
#: kind reads an outcome otherwise, by (kind, outcome); ``not-run`` is None
PASSED = {"pass": True, "fail": False, "supported": True, "inconclusive": False,
          "refuted": False, "not-refuted": False,
          ("upper-below-zero", "refuted"): True}


#: outcomes whose ``passed`` depends on the reading's kind
_KIND_DEPENDENT = {key[1] for key in PASSED if isinstance(key, tuple)}


def gate_checks(verdict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The readings as the register's gate checks: criterion, passed (whether the reading's
    criterion held, :data:`PASSED`; None only for a reading not run) and what was observed."""
    checks = []
    for r in verdict["readings"]:
        passed = PASSED.get((r.get("kind"), r["outcome"]), PASSED.get(r["outcome"]))
        checks.append({"criterion": f"{r['name']}: {r['title']}", "passed": passed,
                       "observed": f"{r['outcome']}: {r['reason']}"})
    return checks or [{"criterion": "the declared verdict rules", "passed": None,
                       "observed": verdict["reason"]}]


def write_json_record(path: Path, record: Mapping[str, Any]) -> None:
    """One record as pretty JSON (written atomically)."""
    atomic_write(path, json.dumps(record, indent=2) + "\n")


def write_games(path: Path, rows: Sequence[Mapping[str, Any]]) -> tuple[str, int]:
    """The per-game rows as JSON lines; returns their file's SHA-256 and count."""
    atomic_write(path, "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    return file_sha256(path), len(rows)


def record_file(kind: str, record_id: str) -> str:
    """The file name of a record in a bundle."""
    return f"{kind}-{record_id}.json"


def bundle_files(directory: str | Path) -> list[Path]:
    """A bundle's files, sorted: every file but the hidden ones (Snakemake's directory
    timestamp ``.snakemake_timestamp`` is not a record; it is never listed nor committed)."""
    return sorted(p for p in Path(directory).iterdir() if not p.name.startswith("."))


def check_bundle(directory: str | Path) -> list[str]:
    """Every problem of a bundle, one line each naming the file and the key: a record that
    breaks its schema, a file named for another id, an id named but absent, a protocol
    hash that differs from the experiment's, a per-game file whose hash or count differs."""
    root = Path(directory)
    if not root.is_dir():
        return [f"{root}: not a directory"]
    problems: list[str] = []
    records: dict[str, list[tuple[str, dict[str, Any]]]] = {k: [] for k in FORMATS}
    for path in bundle_files(root):
        if path.name == GAMES_FILE:
            continue
        if path.suffix != ".json":
            problems.append(f"{path}: not a record of a bundle (*.json or {GAMES_FILE})")
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(f"{path}: not readable JSON ({exc})")
            continue
        kind = next((k for k, f in FORMATS.items()
                     if isinstance(record, dict) and record.get("format") == f), None)
        if kind is None or kind == "game-result":
            problems.append(f"{path}: key format: not a record kind of a bundle "
                            f"({', '.join(f for k, f in FORMATS.items() if k != 'game-result')})")
            continue
        problems += [f"{path}: {p}" for p in record_problems(record, kind)]
        rid = record.get(ID_FIELDS[kind])
        if path.name != record_file(kind, str(rid)):
            problems.append(f"{path}: key {ID_FIELDS[kind]}: {rid!r} is not the file's name")
        records[kind].append((path.name, record))
    games = _read_games(root / GAMES_FILE, problems)
    ids = {k: {r.get(ID_FIELDS[k]) for _, r in rs} for k, rs in records.items() if k in ID_FIELDS}
    if len(records["experiment"]) != 1:
        problems.append(f"{root}: {len(records['experiment'])} experiment records, not one")
    protocol = {r.get("protocolSha256") for _, r in records["experiment"]}

    def need(name: str, key: str, value: Any, kind: str) -> None:
        if value not in ids[kind]:
            problems.append(f"{root / name}: key {key}: {value!r} names no {kind} record of "
                            "the bundle")

    for kind in ("seed-lease", "run", "result"):
        for name, r in records[kind]:
            need(name, "experimentId", r.get("experimentId"), "experiment")
    for name, r in records["seed-lease"]:
        for i, run in enumerate(r.get("runIds") or []):
            need(name, f"runIds[{i}]", run, "run")
        if r.get("protocolSha256") not in protocol:
            problems.append(f"{root / name}: key protocolSha256: differs from the experiment's")
    for name, r in records["run"]:
        need(name, "machineProfileRef", r.get("machineProfileRef"), "machine")
        for i, lease in enumerate(r.get("seedLeaseRefs") or []):
            need(name, f"seedLeaseRefs[{i}]", lease, "seed-lease")
        if r.get("protocolSha256") not in protocol:
            problems.append(f"{root / name}: key protocolSha256: differs from the experiment's")
    for name, r in records["experiment"]:
        for i, lease in enumerate(r.get("data", {}).get("seedLeaseRefs") or []):
            need(name, f"data.seedLeaseRefs[{i}]", lease, "seed-lease")
    for name, r in records["result"]:
        for i, run in enumerate(r.get("runIds") or []):
            need(name, f"runIds[{i}]", run, "run")
        for i, mach in enumerate(r.get("machineProfileRefs") or []):
            need(name, f"machineProfileRefs[{i}]", mach, "machine")
        problems += _check_artifact(root, name, r.get("perGameArtifact") or {})
        problems += [f"{root / name}: {p}" for p in result_contradictions(r)]
    for line, row in games:
        for key, kind in (("experimentId", "experiment"), ("runId", "run"),
                          ("seedLeaseId", "seed-lease")):
            need(f"{GAMES_FILE}: line {line}", key, row.get(key), kind)
    if not records["result"]:
        problems.append(f"{root}: no result record")
    problems += _check_contributions(root, records)
    return problems


def _check_contributions(root: Path, records: Mapping[str, list[tuple[str, dict[str, Any]]]],
                         ) -> list[str]:
    """Every contribution id a run or result names is the bundle's own: the one derived from
    its result (:func:`contribution_id`)."""
    own = {contribution_id(str(r.get("resultId")), str(r.get("resultId"))[3:19])
           for _, r in records["result"] if _ID_TIME.match(str(r.get("resultId")))}
    return [f"{root / name}: key contributionIds[{i}]: {ct!r} is not the bundle's contribution "
            f"(derived from its result id)"
            for kind in ("run", "result") for name, r in records[kind]
            for i, ct in enumerate(r.get("contributionIds") or []) if ct not in own]


def _text(path: Path, problems: list[str]) -> str | None:
    """A bundle file's UTF-8 text, or None with one problem naming it (a directory, unreadable,
    not UTF-8)."""
    try:
        return decode_utf8(read_input_bytes(path, str(path), RecordError), str(path),
                           RecordError)
    except RecordError as exc:
        problems.append(str(exc))
        return None


def _read_games(path: Path, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    if not path.exists():
        return []
    whole = _text(path, problems)
    rows: list[tuple[int, dict[str, Any]]] = []
    for line, text in enumerate((whole or "").splitlines(), start=1):
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}: line {line}: not JSON ({exc.msg})")
            continue
        problems += [f"{path}: line {line}: {p}" for p in record_problems(row, "game-result")]
        if isinstance(row, dict):
            rows.append((line, row))
    return rows


def result_contradictions(result: Mapping[str, Any]) -> list[str]:
    """Where a result record contradicts itself: its ``assessment`` against its
    ``scientificOutcome``, its ``runValidity`` and methodological errors, and its gate checks
    against the readings' outcomes (a hand-flipped verdict)."""
    out: list[str] = []
    verdict, metrics = result.get("assessment"), result.get("metrics") or {}
    if verdict in _OUTCOME and result.get("scientificOutcome") != _OUTCOME[verdict]:
        out.append(f"key scientificOutcome: {result.get('scientificOutcome')!r} contradicts "
                   f"the assessment {verdict!r} (its outcome is {_OUTCOME[verdict]!r})")
    errors = list(metrics.get("methodologicalErrors") or [])
    invalidated = verdict == "invalidated-by-methodological-error"
    if invalidated != bool(errors):
        out.append(f"key assessment: {verdict!r} contradicts metrics.methodologicalErrors "
                   f"({len(errors)} error(s)): a verdict is invalidated exactly when there is one")
    if result.get("runValidity") != ("invalid" if errors else "valid"):
        out.append(f"key runValidity: {result.get('runValidity')!r} contradicts "
                   f"metrics.methodologicalErrors ({len(errors)} error(s))")
    outcomes = metrics.get("outcomes") or {}
    for i, check in enumerate(result.get("gateChecks") or []):
        name = str(check.get("criterion", "")).split(":", 1)[0]
        observed = str(check.get("observed", "")).split(":", 1)[0]
        if name not in outcomes:
            continue
        if observed != outcomes[name]:
            out.append(f"key gateChecks[{i}].observed: {observed!r} contradicts "
                       f"metrics.outcomes.{name} {outcomes[name]!r}")
        outcome = outcomes[name]
        allowed = ((True, False) if outcome in _KIND_DEPENDENT  # the kind is not in the record
                   else (PASSED.get(outcome),))
        if check.get("passed") not in allowed:
            out.append(f"key gateChecks[{i}].passed: {check.get('passed')!r} contradicts "
                       f"the reading's outcome {outcome!r}")
    return out


def _check_artifact(root: Path, name: str, art: Mapping[str, Any]) -> list[str]:
    """The result's per-game artefact: the file it names exists with that hash and count."""
    if art.get("path") is None:
        return ([f"{root / name}: key perGameArtifact.path: null, but {GAMES_FILE} exists"]
                if (root / GAMES_FILE).exists() else [])
    target = root / str(art["path"])
    if Path(str(art["path"])).is_absolute() or ".." in Path(str(art["path"])).parts:
        return [f"{root / name}: key perGameArtifact.path: {art['path']!r} is not a file of "
                "the bundle"]
    if not target.is_file():
        return [f"{root / name}: key perGameArtifact.path: {art['path']!r} does not exist"]
    out: list[str] = []
    text = _text(target, out)
    if text is None:
        return out
    if file_sha256(target) != art.get("sha256"):
        out.append(f"{root / name}: key perGameArtifact.sha256: differs from {art['path']}'s "
                   f"SHA-256 {file_sha256(target)}")
    count = sum(1 for line in text.splitlines() if line.strip())
    if count != art.get("recordCount"):
        out.append(f"{root / name}: key perGameArtifact.recordCount: {art.get('recordCount')} "
                   f"but {art['path']} holds {count} rows")
    return out


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


_AT_RUN = ("captured at the run, by the job that closed the block (the run that wrote the "
           "per-game rows)")


def _machine_at(closed: Mapping[str, Any] | None, machine: Mapping[str, Any] | None,
                now_utc: str) -> dict[str, Any]:
    """The machine record: the one the closing job captured, else ``machine`` or this machine
    now, saying that it was not captured at the run."""
    if closed and closed.get("machine"):
        record = dict(closed["machine"])
        record["notes"] = [*record.get("notes", []), _AT_RUN]
        return record
    record = dict(machine) if machine is not None else machine_record(now_utc)
    said = (f"captured at {record['capturedAt']}, when the records were written, not at the "
            "run: the run's machine was not recorded")
    if said not in record.get("notes", []):
        record["notes"] = [*record.get("notes", []), said]
    return record


def contribution_id(result_id: str, when: str) -> str:
    """The bundle's contribution (the result it adds to the register): ``when`` (RFC 3339 or
    compact) and a hash of the result id; the run and the result name it."""
    return f"CT-{_compact(when)}-{sha8('contribution', result_id)}"


def write_bundle(directory: str | Path, plan: Mapping[str, Any], verdict: Mapping[str, Any],
                 provenance: Mapping[str, Any], *, opened: Mapping[str, Any] | None = None,
                 closed: Mapping[str, Any] | None = None,
                 preregistered: Mapping[str, Any] | None = None,
                 table: Sequence[Mapping[str, str]] = (), table_sha256: str | None = None,
                 command: Sequence[str] | None = None,
                 contrasts: Mapping[str, Mapping[str, Any]] | None = None,
                 machine: Mapping[str, Any] | None = None, decided_utc: str | None = None,
                 opened_in: Mapping[int, str] | None = None,
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
    ``opened_in``: the ledger commit that recorded each block's opening.
    Every record is checked against its format before anything is written.
    """
    now_utc = stamp(now or datetime.now(UTC))
    blocks = (opened or {}).get("blocks", {})
    entries = {int(b): a["entry"] for b, a in blocks.items()}
    entries.update({int(b): e for b, e in (closed or {}).get("entries", {}).items()})
    screened = bool(entries)
    decided = decided_utc or now_utc
    first_open = min((e["opened_utc"] for e in entries.values()), default=decided)
    ended = max((e.get("completed_utc") or now_utc for e in entries.values()), default=decided)

    leases = {b: lease_id(plan["id"], b, e) for b, e in entries.items()}
    unread = {b: u for b, e in entries.items() if (u := read_span(e)[1]) is not None}
    unread_leases = {b: lease_id(plan["id"], b, {**e, "seeds": list(unread[b])})
                     for b, e in entries.items() if b in unread}
    reused = any(a.get("reused") for a in blocks.values())
    experiment = experiment_record(plan, first_open,
                                   [*leases.values(), *unread_leases.values()], "completed",
                                   now_utc, reused, screened=screened,
                                   id_date=None if screened else _declared_date(plan) or decided)
    protocol = experiment["protocolSha256"]
    if preregistered is not None:
        if preregistered.get("protocolSha256") != protocol:
            raise RecordError(f"claim {plan['id']}: the preregistered protocol hash "
                              f"{str(preregistered.get('protocolSha256'))[:12]} differs from "
                              f"the plan's {protocol[:12]}")
        experiment["createdAt"] = min(preregistered["createdAt"], experiment["createdAt"])
    unproven = preregistration(entries, protocol, opened_in)
    experiment["gate"]["fixedBeforeControlledData"] = screened and not unproven
    machine_rec = _machine_at(closed, machine, now_utc)
    check_record(machine_rec, "machine", "machine record")
    decision = canonical_sha256({k: verdict.get(k) for k in VERDICT_KEY})
    run_content = {"claim": plan["id"], "commit": provenance.get("commit"),
                   "protocol": protocol, "leases": sorted(leases.values()),
                   "verdict": decision}
    run_id = f"RUN-{_compact(first_open)}-{sha8(run_content)}"
    invalid = bool(verdict.get("methodological_errors"))
    replayed = replay_note(entries, table_sha256)
    cores = machine_rec["cpu"].get("affinityLogicalCpus") or machine_rec["cpu"].get("logicalCpus")
    if screened:
        observed, resource_note = run_resources(entries, provenance.get("jobs"), cores)
    else:
        observed = {"wallSeconds": None, "cpuSeconds": None, "peakHostBytes": None,
                    "peakGpuBytes": None}
        resource_note = "no screen was run: its block was never opened"
    dirty, diff = provenance.get("dirty"), provenance.get("diff_sha256")
    source_notes = ([] if not dirty or diff else
                    ["the tree was dirty and its diff was not recorded: diffSha256 unknown"])
    source_notes.append("sourceArchiveSha256: no source archive is made (null)")
    result_id = f"RS-{_compact(ended)}-{sha8(run_id, decision, table_sha256)}"
    contribution = contribution_id(result_id, ended)
    run = {
        "$schema": SCHEMA_URI.format(kind="run"), "format": FORMATS["run"], "runId": run_id,
        "experimentId": experiment["experimentId"],
        "lifecycle": "completed" if screened else "planned",
        "runValidity": "invalid" if invalid else "valid" if screened else "pending",
        "startedAt": first_open if screened else None, "endedAt": ended if screened else None,
        "protocolSha256": protocol, "machineProfileRef": machine_rec["machineProfileId"],
        "sourceState": {"gitCommit": provenance.get("commit"), "dirty": dirty,
                        "diffSha256": diff if dirty else None, "sourceArchiveSha256": None},
        "command": list(command or ["snakemake"]), "seedLeaseRefs": list(leases.values()),
        "resourceLimits": {"wallSeconds": None, "cpuThreads": None, "maxHostBytes": None,
                           "maxGpuBytes": None},
        "resourceObserved": {
            **observed,
            "measurementNotes": "; ".join(
                [resource_note, f"machine {machine_rec['notes'][-1]}", *source_notes]
                + ([] if command else ["the invoking command line was not visible to the "
                                       "records job"])
                + ([replayed] if replayed else []))},
        "exitCode": None,
        "stopReason": ("the records are written by a job of the run, before it ends: its exit "
                       "code is not known to them") if screened else
                      f"the screen was never opened: {verdict['reason']}",
        "artifactRefs": [GAMES_FILE] if table else [], "contributionIds": [contribution],
    }
    check_record(run, "run", f"run record of claim {plan['id']}")
    records: list[tuple[str, dict[str, Any]]] = [("experiment", experiment),
                                                 ("machine", machine_rec), ("run", run)]
    spans = {}
    for b, e in entries.items():
        (lo, count), rest = read_span(e)
        spans[b] = (lo, lo + count, leases[b])
        again = replays(e)
        lease = {
            "$schema": SCHEMA_URI.format(kind="seed-lease"), "format": FORMATS["seed-lease"],
            "seedLeaseId": leases[b], "experimentId": experiment["experimentId"],
            "rngAlgorithm": "drop7 counter-based SplitMix64 streams (docs/rng.md)",
            "domain": "environment", "role": "fresh-development",
            "rangeStartHex": seed_hex(lo), "rangeEndExclusiveHex": seed_hex(lo + count),
            "cohortManifestSha256": e.get("table_sha256"),
            "state": "burned" if e.get("status") == "complete" else "opened",
            "reservedAt": e["opened_utc"], "openedAt": e["opened_utc"],
            "closedAt": e.get("completed_utc"), "protocolSha256": protocol,
            "runIds": [run_id],
            "notes": [f"screen block {b} of the seed bank, opened for claim {plan['id']} "
                      f"({e['profile']} profile) through the screen ledger"]
                     + (["read before by another opener (reused)"]
                        if blocks.get(str(b), {}).get("reused") or e.get("reused") else [])
                     + ([f"played again {len(again)} time(s) after its first reading: "
                         "cohortManifestSha256 is the first reading's games table; the "
                         "replays' tables: " + ", ".join(
                             str(r.get("table_sha256", "not closed")) for r in again)]
                        if again else []),
        }
        check_record(lease, "seed-lease", f"seed lease of block {b}")
        records.append(("seed-lease", lease))
        if rest is not None:  # a sequential screen's unread rest: never opened
            looks = e.get("looks") or []
            records.append(("seed-lease", {
                **lease, "seedLeaseId": unread_leases[b],
                "rangeStartHex": seed_hex(rest[0]),
                "rangeEndExclusiveHex": seed_hex(rest[0] + rest[1]),
                "cohortManifestSha256": None, "state": "cancelled-unopened", "openedAt": None,
                "runIds": [],
                "notes": [f"the unread rest of screen block {b}: the sequential screen stopped "
                          f"at look {len(looks)} ({looks[-1]['decision'] if looks else '?'}), "
                          "so these seeds were never read; the ledger keeps them out of "
                          "every other claim's screens"]}))
            check_record(records[-1][1], "seed-lease", f"unread seed lease of block {b}")
    rows = game_rows(table, plan, experiment["experimentId"], run_id, spans)
    limitations = [*verdict.get("tier_lowered_by", []),
                   "not measured per game (null): " + ", ".join(
                       [*NOT_MEASURED, *(k for k in WORK_COLUMNS
                                         if any(r[k] is None for r in rows))]),
                   "run exit code unknown to the records (written during the run)",
                   *unproven, *source_notes[:-1], *([replayed] if replayed else [])]
    if plan.get("theory") and not _THEORY.match(str(plan["theory"])):
        limitations.append(f"theory id derived from the declared {plan['theory']!r}: declare "
                           "the register's full id")
    frozen = {k: v for e in entries.values() for k, v in e.get("hashes", {}).items()}
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.iterdir():  # a bundle is rewritten whole
        if old.suffix in (".json", ".jsonl") or old.name.startswith("."):
            old.unlink()
    games_sha, count = write_games(directory / GAMES_FILE, rows) if rows else (None, None)
    result = {
        "$schema": SCHEMA_URI.format(kind="result"), "format": FORMATS["result"],
        "resultId": result_id, "theoryIds": experiment["theoryIds"],
        "experimentId": experiment["experimentId"], "runIds": [run_id],
        "runValidity": "invalid" if invalid else "valid",
        "scientificOutcome": _OUTCOME[verdict["verdict"]], "assessment": verdict["verdict"],
        "evidenceTier": verdict["tier"], "summary": verdict["reason"],
        "metrics": result_metrics(verdict, contrasts or {}, frozen),
        "gateChecks": gate_checks(verdict),
        "perGameArtifact": {"path": GAMES_FILE if rows else None, "sha256": games_sha,
                            "recordCount": count},
        "machineProfileRefs": [machine_rec["machineProfileId"]], "artifactManifestRef": None,
        "limitations": limitations, "contributionIds": [contribution],
        "recordedAt": now_utc,
    }
    check_record(result, "result", f"result record of claim {plan['id']}")
    for kind, record in [*records, ("result", result)]:
        write_json_record(directory / record_file(kind, record[ID_FIELDS[kind]]), record)
    return result

"""The check of a claim's record bundle: every record against its format, and their links.

:func:`check_record` refuses a record that breaks its format's schema
(``protocol/schemas/records/``) before it is written; :func:`check_bundle`
checks a written bundle's records, the links between them, its per-game rows
and the result's agreement with itself, one line per problem naming the file
and the key (``drop7 records validate``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from analysis.reading_kinds import passed_by_outcome
from contracts.hashing import file_sha256
from contracts.input_file import decode_utf8, read_input_bytes
from protocol.records.ids import (
    FORMATS,
    GAMES_FILE,
    ID_FIELDS,
    ID_TIME,
    RecordError,
    contribution_id,
    record_file,
)
from protocol.schema import key_path, load_schema

#: a verdict's ``scientificOutcome`` in the result record
OUTCOME = {"supported-as-tested": "pass", "not-supported-as-tested": "fail",
           "mixed": "inconclusive", "invalidated-by-methodological-error": "not-applicable"}


def result_validity(verdict: Mapping[str, Any], screened: bool) -> str:
    """A result's ``runValidity``: ``invalid`` with a methodological error, ``valid`` for a
    run that played its screen, else ``partial``: a run whose screen was never opened (its
    run record is ``planned``) ran its training and gates but not the cohort it planned."""
    if verdict.get("methodological_errors"):
        return "invalid"
    return "valid" if screened else "partial"


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
           for _, r in records["result"] if ID_TIME.match(str(r.get("resultId")))}
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
    if verdict in OUTCOME and result.get("scientificOutcome") != OUTCOME[verdict]:
        out.append(f"key scientificOutcome: {result.get('scientificOutcome')!r} contradicts "
                   f"the assessment {verdict!r} (its outcome is {OUTCOME[verdict]!r})")
    errors = list(metrics.get("methodologicalErrors") or [])
    invalidated = verdict == "invalidated-by-methodological-error"
    if invalidated != bool(errors):
        out.append(f"key assessment: {verdict!r} contradicts metrics.methodologicalErrors "
                   f"({len(errors)} error(s)): a verdict is invalidated exactly when there is one")
    screened = (result.get("perGameArtifact") or {}).get("path") is not None
    if result.get("runValidity") != result_validity({"methodological_errors": errors}, screened):
        out.append(f"key runValidity: {result.get('runValidity')!r} contradicts "
                   f"metrics.methodologicalErrors ({len(errors)} error(s)) and a run "
                   f"{'with' if screened else 'without'} games")
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
        allowed = passed_by_outcome(outcome) or {None}  # the kind is not in the record
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

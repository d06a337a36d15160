"""The register's ids and hashes of a claim's records, and the formats they name.

Ids follow the register's patterns.  The theory and experiment ids are the
declaration's (``theory``, ``experiment``) when they match; otherwise they
are derived from the claim, the date its first block was opened and a hash
(the theory id from the claim's text, the experiment id from the protocol
hash), so the same declaration always gets the same ids.  Run, seed-lease,
machine and result ids are a timestamp of what they record and a hash of
their content, so the same run never gets two ids.  Every hash is of
canonical JSON (:func:`contracts.hashing.canonical_sha256`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from analysis.panel_conventions import DEFAULT as DEFAULT_CONVENTIONS
from contracts.hashing import canonical_sha256

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

#: a run, seed-lease, machine, result or contribution id: kind, compact time, hash
ID_TIME = re.compile(r"^[A-Z]+-[0-9]{8}T[0-9]{6}Z-[a-f0-9]{8}$")
#: a theory id of the register's full pattern
THEORY_ID = re.compile(r"^TH-[0-9]{8}-[a-z0-9]+(?:-[a-z0-9]+)*-[a-f0-9]{8}$")
#: keys that never decide a verdict: names, texts, notes and the register's figures
_NOT_DECIDING = frozenset({"id", "format", "theory", "derived_from", "experiment", "title",
                           "claim", "note", "notes", "recorded", "description"})


class RecordError(ValueError):
    """A record that does not hold its format: one line naming the record and the key."""


def sha8(*parts: Any) -> str:
    """The first 8 hex digits of the SHA-256 of ``parts`` as canonical JSON."""
    return canonical_sha256(list(parts))[:8]


def stamp(when: datetime) -> str:
    """An RFC 3339 UTC time of whole seconds: ``2026-12-01T16:35:58Z``."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def compact(utc: str) -> str:
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
    contrasts, panel, readings and verdict rules, and the sizes the profile gave them
    (trained moves and checkpoints, arms' policies and games, the screen's seeds
    and blocks, a ranking panel's roots, reference and rankers as planned); not
    titles, ids, the claim's text, notes or recorded figures.  A claim without a panel
    hashes as it did before panels.
    """
    panel = plan.get("panel")
    return _deciding({
        "declaration": plan["declaration"],
        "seeds": plan["seeds"], "blocks": plan["blocks"], "validation": plan["validation"],
        "trained": plan["trained"],
        "arms": {n: {"policy": a["policy"], "games": a["games"]} for n, a in plan["arms"].items()},
        "contrasts": plan.get("contrasts", {}), "sequential": plan.get("sequential"),
        **({"panel": _panel_document(panel)} if panel else {}),
    })


#: the parts of a planned panel that decide its readings (not its shards, CPU or root-count
#: estimates)
PANEL_DECIDING = ("roots_arm", "games", "seeds", "every", "limit", "reference",
                  "outcome", "rankers", "work", "recall")


def _panel_document(panel: Mapping[str, Any]) -> dict[str, Any]:
    """A planned panel's deciding parts: :data:`PANEL_DECIDING`, each of its arms' policy, its
    outcome rankers' labellers when it has some, and its conventions when they are not
    ``harness`` (a panel hashed without them was read under
    ``harness``, the only rules before they could be declared, so its hash stands)."""
    conventions = panel.get("conventions", DEFAULT_CONVENTIONS)
    return {**{k: panel.get(k) for k in PANEL_DECIDING},
            "arms": {n: a["policy"] for n, a in panel.get("arms", {}).items()},
            **({"conventions": conventions} if conventions != DEFAULT_CONVENTIONS else {}),
            # a panel's outcome rankers as planned (a panel without them hashes as before)
            **({"ranker_outcomes": panel["ranker_outcomes"]}
               if panel.get("ranker_outcomes") else {})}


def protocol_sha256(plan: Mapping[str, Any]) -> str:
    """The experiment's ``protocolSha256``: the hash of :func:`protocol_document`."""
    return canonical_sha256(protocol_document(plan))


def theory_id(plan: Mapping[str, Any], date: str) -> str:
    """The records' theory id: :func:`claim_theory_id`, or, for a proxy screen (the profile
    plays arms as other searches than declared: ``proxy``), the proxy's own, derived from it
    and the arms it changes (``<its stem>-proxy-<8 hex>``), so the result does not assess
    the claim's theory."""
    own = claim_theory_id(plan, date)
    if not plan.get("proxy"):
        return own
    return f"{own.rsplit('-', 1)[0]}-proxy-{sha8(own, list(plan['proxy']))}"


def claim_theory_id(plan: Mapping[str, Any], date: str) -> str:
    """The declared theory id when it has the register's pattern, else one derived from it
    (or from the claim) and the claim's text; ``date`` is ``YYYYMMDD``."""
    declared = plan.get("theory")
    if declared and THEORY_ID.match(declared):
        return str(declared)
    if declared and re.fullmatch(r"TH-[0-9]{8}-[a-z0-9]+(?:-[a-z0-9]+)*", declared):
        return f"{declared}-{sha8(declared, plan['claim'])}"
    return f"TH-{date}-{_slug(plan['id'])}-{sha8(plan['id'], plan['claim'])}"


def declared_date(plan: Mapping[str, Any]) -> str | None:
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


def lease_id(claim: str, block: int, entry: Mapping[str, Any]) -> str:
    """A block's seed-lease id: its opening time and a hash of claim, block and seeds."""
    return f"SL-{compact(entry['opened_utc'])}-{sha8(claim, block, entry['seeds'])}"


def decision_sha256(verdict: Mapping[str, Any]) -> str:
    """The hash of a verdict's decision (:data:`VERDICT_KEY`), what run and result ids take."""
    return canonical_sha256({k: verdict.get(k) for k in VERDICT_KEY})


def run_id(claim: str, first_open: str, commit: str | None, protocol: str,
           leases: list[str], decision: str) -> str:
    """The run's id: when its first block opened, and a hash of the claim, commit, protocol
    hash, seed leases and decision."""
    content = {"claim": claim, "commit": commit, "protocol": protocol,
               "leases": sorted(leases), "verdict": decision}
    return f"RUN-{compact(first_open)}-{sha8(content)}"


def result_id(ended: str, run: str, decision: str, table_sha256: str | None) -> str:
    """The result's id: when its reading ended, and a hash of run, decision and games table."""
    return f"RS-{compact(ended)}-{sha8(run, decision, table_sha256)}"


def contribution_id(result_id: str, when: str) -> str:
    """The bundle's contribution (the result it adds to the register): ``when`` (RFC 3339 or
    compact) and a hash of the result id; the run and the result name it."""
    return f"CT-{compact(when)}-{sha8('contribution', result_id)}"


def record_file(kind: str, record_id: str) -> str:
    """The file name of a record in a bundle."""
    return f"{kind}-{record_id}.json"


def seconds_between(start: str, end: str) -> float:
    """Seconds from one UTC stamp (``YYYY-MM-DDTHH:MM:SSZ``) to another."""
    parse = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()

"""A claim's experiment record: what it tests, with which arms and readings; its preregistration.

:func:`experiment_record` builds ``experiment-<EX>.json`` (``drop7-experiment-v1``)
from a claim's plan when its first screen block opens (and again when its
bundle is written); :func:`preregistration` and :func:`replay_note` say from
the ledger when the protocol was fixed and which games tables were read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from analysis.games_table import DEFAULT_METRIC
from analysis.reading_kinds import panel_readings
from protocol.ledger_readings import replays
from protocol.records.check import check_record
from protocol.records.ids import (
    FORMATS,
    GAMES_FILE,
    SCHEMA_URI,
    RecordError,
    compact,
    experiment_id,
    protocol_sha256,
    theory_id,
)

#: who writes the records
CREATED_BY = {"platform": "drop7-harness", "model": "snakemake workflow", "agentId": None}


#: what a ranking panel leaves besides the games
PANEL_ARTIFACTS = ["panel roots (JSON), panel table (CSV) and panel readings (JSON)"]
#: how a ranking panel's figures are bounded, for the experiment's uncertainty method
PANEL_METHOD = ("a ranking panel's figures: means over its roots with the 0.05 and 0.95 "
                "quantiles of a bootstrap that resamples whole games, each with all its roots "
                "(never single roots), and halves by games in seed order (docs/panels.md)")
#: how a screen's paired contrasts are bounded
CONTRAST_METHOD = ("bootstrap of whole paired games and a Student-t lower bound "
                   "(docs/statistics.md)")


def _uncertainty(plan: Mapping[str, Any]) -> str:
    """The experiment's ``uncertaintyMethod``: the paired games' bounds when the claim has
    contrasts (and how a sequential screen decides), the panel's resampling when it has a
    panel; a panel-only claim pairs no games, so its method names only the panel's."""
    parts = ([CONTRAST_METHOD + _sequential_method(plan.get("sequential"))]
             if plan.get("contrasts") or not plan.get("panel") else [])
    return "; ".join(parts + ([PANEL_METHOD] if plan.get("panel") else []))


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
                    "uncertaintyMethod": _uncertainty(plan)},
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

"""Write a committed bundle again from what a checkout holds (``drop7 records rebuild DIR``).

The ``records`` job writes a bundle from the run's ``results/``, which a
checkout does not keep.  A committed bundle can still be written again, with
its games unchanged, from what is committed: its own records and per-game
rows, the ledger and its git history, and the declaration (docs/records.md,
"Writing a committed bundle again"):

* the plan is the declaration at this checkout, refused unless its protocol
  hash is the bundle's;
* the per-game rows give the games table back (every column the statistics
  read); the table they came from is the one the ledger named last when the
  rows were committed (the first reading's, or a replay's);
* the contrasts are computed again from those games (the same seeded
  bootstrap and simulations), and every reading they decide must give the
  outcome and reason the bundle recorded, else nothing is written;
* the verdict is the bundle's (readings, outcomes, errors, tier, summary);
  its rule the first declared rule that holds for those outcomes; what lowered
  its tier is what the plan shrank and, from the contrasts computed again, a
  simulated type I error above the declared alpha;
* a ranking panel's figures are the bundle's (``metrics.panel``): its table
  and readings file are not committed, so they are kept, not computed again;
  so are a root filter's counts (``filterCandidate``, ``filterBaseline``): the
  per-game rows are the register's format, which has no field for them; and so are
  the trained weights' figures (``metrics.training``): their validation curves,
  health files, learners' curves and frozen records are not committed;
* the run's commit, dirtiness and command are the bundle's; its diff hash and
  CPU are unknown (said so); its wall the ledger's span; the machine record is
  the bundle's, said to be captured when the records were written;
* the opening commit of each block is the first ledger commit holding it.

The claim's report page beside the bundle gets its register-records list
and its ledger line written again (:func:`analysis.report.page.refresh_page`).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from analysis.block_contrast import block_contrast
from analysis.games_table import pair_arms, read_games
from analysis.reading_kinds import ARM, CONTRAST, kinds_of
from analysis.readings import evaluate_all
from analysis.report.page import record_link, refresh_page, write_public
from analysis.sequential.screen import exceeded_errors, look_record
from contracts.games_table import GAMES_COLUMNS, write_rows
from protocol.ledger import COMMITTED, read_ledger
from protocol.ledger_readings import replays
from protocol.plan import load_plan
from protocol.records.bundle import write_bundle
from protocol.records.check import bundle_files, check_bundle
from protocol.records.ids import FORMATS, GAMES_FILE, RecordError, protocol_sha256
from protocol.records.metrics import FILTER_FIGURES
from protocol.verdict import INVALIDATED


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                         check=False)
    if out.returncode:
        raise RecordError(f"git {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def _old_records(directory: Path) -> dict[str, dict[str, Any]]:
    kinds = {f: k for k, f in FORMATS.items()}
    out: dict[str, dict[str, Any]] = {}
    for path in bundle_files(directory):
        if path.suffix == ".json":
            record = json.loads(path.read_text(encoding="utf-8"))
            kind = kinds.get(record.get("format"))
            if kind in ("experiment", "run", "result", "machine"):
                if kind in out:
                    raise RecordError(f"{directory}: more than one {kind} record")
                out[kind] = record
    missing = {"experiment", "run", "result", "machine"} - set(out)
    if missing:
        raise RecordError(f"{directory}: no {', '.join(sorted(missing))} record")
    return out


def table_rows(path: Path) -> list[dict[str, str]]:
    """A games table's rows (as text) from a bundle's per-game rows."""
    rows = []
    for text in path.read_text(encoding="utf-8").splitlines():
        g = json.loads(text)
        seed = int(g["seedHex"], 16)
        rows.append({
            "arm": g["cohortId"].rsplit("/", 1)[1], "policy": g["policyId"], "seed": str(seed),
            "game": str(g["cohortOrdinal"]), "score": str(g["score"]), "moves": str(g["moves"]),
            "levels": "", "clears": "", "censored": "1" if g["censored"] else "0",
            "popped": str(g["numberedClears"]), "reveals": str(g["coveredReveals"]),
            "chain_max": str(g["maximumChainDepth"]), "chain_mean": repr(g["meanChainDepth"]),
            "decisions": "",
            "nodes": "" if g["nodesOrTransitions"] is None else str(g["nodesOrTransitions"]),
            "leaves": "" if g["modelInferences"] is None else str(g["modelInferences"]),
            "filter_applied": "", "filter_changed": "",
            "illegal": str(g["illegalDecisions"]), "unfinished": str(g["incompleteDecisions"]),
            "wall_s": repr(g["wallSeconds"]), "trajectory": g["trajectoryChecksum"]})
    return [{c: r[c] for c in GAMES_COLUMNS} for r in rows]


def _first_commit(repo: Path, text: str, ledger: str) -> str | None:
    """The first commit whose ledger holds ``text`` (an entry's opening time)."""
    found = _git(repo, "log", "--all", "--reverse", "--format=%H", "-S", text, "--", ledger)
    return (found.split() or [None])[0]


def _rows_table(repo: Path, directory: Path, entry: Mapping[str, Any], block: int,
                ledger: str) -> str:
    """The games table the committed rows came from: the last the ledger named (first
    reading or replay) in the commit that last changed them."""
    commit = _git(repo, "log", "-1", "--format=%H", "--",
                  str(directory / GAMES_FILE)).strip()
    if not commit:
        raise RecordError(f"{directory / GAMES_FILE}: not committed: no ledger to name its table")
    then = json.loads(_git(repo, "show", f"{commit}:{ledger}"))
    mine = next(e for e in then["blocks"][str(block)]
                if e["claim"] == entry["claim"] and e["profile"] == entry["profile"])
    again = replays(mine)
    return str(again[-1]["table_sha256"] if again else mine["table_sha256"])


def _verdict(old: Mapping[str, Any], plan: Any) -> dict[str, Any]:
    """The bundle's verdict as the records job read it, its rule found again."""
    result = old["result"]
    declared = plan.readings
    readings = []
    for check in result["gateChecks"]:
        name, _, title = check["criterion"].partition(": ")
        outcome, _, reason = check["observed"].partition(": ")
        if name in declared:
            readings.append({"name": name, "kind": declared[name]["kind"], "title": title,
                             "outcome": outcome, "reason": reason})
    outcomes = dict(result["metrics"]["outcomes"])
    errors = list(result["metrics"].get("methodologicalErrors", []))
    rule = None
    if not errors:
        rules = plan.claim.doc["verdict"]["rules"]
        rule = next((i for i, r in enumerate(rules) if all(
            outcomes[k] in ([v] if isinstance(v, str) else v) for k, v in r["when"].items())),
            None)
        then = rules[rule]["then"] if rule is not None else plan.claim.doc["verdict"]["otherwise"]
        if then != result["assessment"]:
            raise RecordError(f"the declared verdict rules give {then} for outcomes {outcomes}, "
                              f"the bundle says {result['assessment']}")
    elif result["assessment"] != INVALIDATED:
        raise RecordError("methodological errors recorded but the verdict is not invalidated")
    return {"tier": result["evidenceTier"], "tier_lowered_by": list(plan.shrunk),
            "readings": readings, "outcomes": outcomes, "methodological_errors": errors,
            "verdict": result["assessment"], "reason": result["summary"], "rule": rule}


def _contrasts(plan: Any, profile: Mapping[str, Any], table: Path,
               entry: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every contrast computed again from the games, as the contrast jobs did."""
    games = read_games(table)
    start = plan.seeds[0]
    stats = profile["statistics"]
    looks = None
    if plan.sequential is not None:
        seq = plan.sequential
        design = seq.design
        a, b = plan.contrasts[seq.contrast].arms[:2]
        pair = pair_arms(games, a, b)
        d = pair.candidate_scores - pair.baseline_scores
        made = [look_record(d[:design.looks[x["look"] - 1]], x["look"], design, start)
                for x in entry.get("looks", [])]
        if not made:
            raise RecordError(f"block {plan.blocks[0]}: a sequential screen with no look in "
                              "the ledger")
        looks = {"design": seq.spec(), "looks": made, "stop": made[-1]}
    return {name: block_contrast(
        games, kind=c.kind, arms=list(c.arms), start=start, count=c.games, hashes=None,
        resamples=stats["bootstrap_resamples"],
        oc_sims=stats["oc_sims"] if name in plan.screened_contrasts() else 0, looks=looks,
        stops_on=looks is not None and name == plan.sequential.contrast,
        effect=plan.sequential_effect() if plan.sequential else None, metric=c.metric,
        design=plan.sequential.design if plan.sequential else None)
        for name, c in plan.contrasts.items()}


def _check_readings(plan: Any, contrasts: Mapping[str, Any],
                    verdict: Mapping[str, Any]) -> None:
    """Every reading the contrasts decide (a kind whose source is a contrast, or an arm's
    figures, which the contrasts carry) gives again what the bundle recorded."""
    wanted, decided = {r["name"]: r for r in verdict["readings"]}, kinds_of(CONTRAST, ARM)
    for r in evaluate_all(plan.readings, contrasts, {}, {}):
        if r.kind not in decided or r.name not in wanted:
            continue
        old = wanted[r.name]
        if (r.outcome, r.reason) != (old["outcome"], old["reason"]):
            raise RecordError(f"reading {r.name}: the games give {r.outcome}: {r.reason}; the "
                              f"bundle recorded {old['outcome']}: {old['reason']}")


def rebuild(directory: str | Path, repo: str | Path = ".", ledger: str = COMMITTED,
            now: datetime | None = None, out: str | Path | None = None) -> dict[str, Any]:
    """Write the committed bundle ``directory`` (``reports/<profile>/records/<claim>``) again,
    in place or into ``out``; returns the new result record.  Refuses (:class:`RecordError`)
    before writing anything when the declaration's protocol hash, a reading or the verdict
    rule disagrees with it."""
    directory, repo = Path(directory), Path(repo)
    target = Path(out) if out is not None else directory
    if directory.parent.name != "records":
        raise RecordError(f"{directory}: not a bundle directory reports/<profile>/records/<claim>")
    profile, claim = directory.parent.parent.name, directory.name
    loaded = load_plan(repo, {"profile": profile})
    if claim not in loaded.claims:
        raise RecordError(f"{directory}: no claim {claim!r} in profile {profile}")
    plan = loaded.claims[claim]
    described = plan.describe()
    old = _old_records(directory)
    protocol = protocol_sha256(described)
    if old["experiment"]["protocolSha256"] != protocol:
        raise RecordError(f"{directory}: the declaration's protocol hash {protocol[:12]} is not "
                          f"the bundle's {old['experiment']['protocolSha256'][:12]}")
    blocks = read_ledger(repo / ledger)["blocks"]
    entries = {b: e for b in plan.blocks for e in blocks.get(str(b), [])
               if e["claim"] == claim and e["profile"] == profile}
    verdict = _verdict(old, plan)
    source = old["run"]["sourceState"]
    provenance = {"commit": source["gitCommit"], "dirty": source["dirty"],
                  "diff_sha256": source.get("diffSha256"), "jobs": None}
    machine = {**old["machine"], "notes": [n for n in old["machine"]["notes"]
                                           if not n.startswith("captured ")]}
    common = dict(command=old["run"]["command"], machine=machine, now=now,
                  training=old["result"]["metrics"].get("training"),
                  preregistered={"protocolSha256": protocol,
                                 "createdAt": old["experiment"]["createdAt"]})
    if not entries:  # never screened: the verdict's time is the one the records kept
        run = old["run"]
        decided = (run["runId"][4:19] if run["lifecycle"] == "planned"
                   else old["result"]["recordedAt"])
        if "T" in decided and "-" not in decided:
            decided = (f"{decided[:4]}-{decided[4:6]}-{decided[6:8]}T{decided[9:11]}:"
                       f"{decided[11:13]}:{decided[13:15]}Z")
        common.pop("preregistered")
        return write_bundle(target, described, verdict, provenance, decided_utc=decided,
                            **common)
    if len(entries) != 1:
        raise RecordError(f"{directory}: {len(entries)} blocks in the ledger, one expected")
    (block, entry), = entries.items()
    rows = table_rows(directory / GAMES_FILE)
    work = target.parent / f".{claim}.rebuild.csv"
    try:
        write_rows(rows, work)
        contrasts = _contrasts(plan, loaded.profile, work, entry)
    finally:
        work.unlink(missing_ok=True)
    kept = old["result"]["metrics"].get("contrasts", {})
    for name, c in contrasts.items():
        c.update({key: kept[name][figure] for figure, key in FILTER_FIGURES.items()
                  if figure in kept.get(name, {})})
    _check_readings(plan, contrasts, verdict)
    verdict["tier_lowered_by"] += exceeded_errors(contrasts)
    first = _first_commit(repo, entry["opened_utc"], ledger)
    result = write_bundle(
        target, described, verdict, provenance,
        closed={"entries": {str(block): entry}}, table=rows,
        table_sha256=_rows_table(repo, directory, entry, block, ledger), contrasts=contrasts,
        opened_in={block: first} if first else None,
        panel=old["result"]["metrics"].get("panel"), **common)
    problems = check_bundle(target)
    if problems:
        raise RecordError("; ".join(problems))
    return result


def refresh_claim_page(directory: str | Path, repo: str | Path = ".",
                       ledger: str = COMMITTED) -> Path | None:
    """The claim's committed page beside the bundle (``reports/<profile>/<claim>.html``) with
    its register records and ledger line written again; None when there is no page."""
    directory, repo = Path(directory), Path(repo)
    page = directory.parent.parent / f"{directory.name}.html"
    if not page.exists():
        return None
    profile, claim = directory.parent.parent.name, directory.name
    plan = load_plan(repo, {"profile": profile}).claims[claim]
    blocks = read_ledger(repo / ledger)["blocks"]
    entries = {b: e for b in plan.blocks for e in blocks.get(str(b), [])
               if e["claim"] == claim and e["profile"] == profile}
    closed = None
    if entries:
        (block, entry), = entries.items()
        closed = {"games": entry["games"], "entries": {str(block): entry},
                  "table_sha256": _rows_table(repo, directory, entry, block, ledger)}
    html = refresh_page(page.read_text(encoding="utf-8"),
                        [record_link(f) for f in bundle_files(directory)], closed)
    write_public(page, html)
    return page

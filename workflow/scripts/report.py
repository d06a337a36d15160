"""Adapter: render one claim's report, its figures, summary and provenance."""

import json
from pathlib import Path

from analysis.contrast import Contrast
from analysis.games_table import read_games
from analysis.health import TrainingHealth
from analysis.report.kf_q_model import KfQSection, RidgeFitSection
from analysis.report.learner_curves import LearnerCurveSection
from analysis.report.model import ClaimDescription, Verdict
from analysis.report.page import (
    ClaimRun,
    build_figures,
    record_link,
    render_claim,
    run_summary,
    write_public,
)
from analysis.report.panel_model import PanelSection
from analysis.report.replay_model import ReplaySection
from contracts.json_file import json_text, load_json, write_json
from protocol.disclosure import declaration_notes
from protocol.jobs import log_to, run
from protocol.ledger import entries_now
from protocol.provenance import collect
from protocol.records.check import bundle_files

S = snakemake  # noqa: F821


def main() -> None:
    inputs, plan = dict(S.input.items()), S.params.plan
    direct = S.params.direct  # weights trained by one job: their records are inputs
    opened = "table" in inputs
    manifests = {w: [{**load_json(p), "path": str(Path(p).parent)} for p in paths]
                 for w, paths in S.params.manifests.items()}
    frozen = {r["artefact"]: r for r in map(load_json, inputs.get("frozen", []))}
    seeds = {"screen": {"blocks": plan["blocks"], "start": plan["seeds"][0],
                        "count": plan["seeds"][1]}}
    if plan["validation"]["games"]:
        seeds["validation"] = dict(zip(("start", "count"), plan["validation"]["seeds"],
                                       strict=True))
    if plan.get("panel"):  # the panel's roots: the first games of the block
        seeds["panel roots"] = dict(zip(("start", "count"), plan["panel"]["seeds"], strict=True))
    prov = collect(repo=S.params.repo, profile=S.params.profile, declaration=plan["declaration"],
                   seed_blocks=seeds, manifests=[m for ms in manifests.values() for m in ms],
                   frozen=frozen, games=[S.input.table] if opened else [],
                   benchmarks=S.params.benchmarks, pinned=plan.get("pinned"))
    write_json(S.output.provenance, prov)
    claim_run = ClaimRun(
        plan=ClaimDescription.from_json(plan), profile=json.loads(json.dumps(S.params.profile)),
        gate=load_json(S.input.gates), verdict=Verdict.from_json(load_json(S.input.verdict)),
        provenance=prov,
        curves={c["weights"]: c for c in map(load_json, S.input.curves)}, manifests=manifests,
        health={name: TrainingHealth.from_json(load_json(path))
                for name, path in S.params.health.items()},
        frozen=frozen, opened=load_json(S.input.opened) if opened else None,
        closed=(entries_now(load_json(S.input.closed), S.params.ledger, plan["id"])
                if opened else None),
        hashes=load_json(S.input.hashes) if opened else {},
        contrasts={Path(p).stem: Contrast.from_dict(load_json(p))
                   for p in inputs.get("contrasts", [])},
        games=read_games(S.input.table) if opened else None,
        records=[record_link(f) for f in bundle_files(S.input.records)],
        panel=(PanelSection.from_json(load_json(S.input.panel), S.input.panel)
               if "panel" in inputs else None),
        replay=(ReplaySection.from_json(load_json(S.input.register_replay),
                                        plan["recorded"]["replay"])
                if "register_replay" in inputs else None),
        kf_q=[KfQSection.from_json(n, load_json(d["curve"]), load_json(d["record"]))
              for n, d in direct.items() if d["curve_kind"] == "kf-q"],
        fits=[RidgeFitSection(n, load_json(d["record"]))
              for n, d in direct.items() if d["curve_kind"] == "ridge-q"],
        learners=[LearnerCurveSection.from_json(d, load_json(d["curve"]), load_json(d["record"]))
                  for d in direct.values() if d["curve_kind"] in ("search", "distil")],
        notes=declaration_notes(plan["declaration"], load_json(S.input.opened) if opened
                                else None, S.params.declared_in, S.params.replaces),
    )
    figures = build_figures(claim_run)
    for name in figures:
        write_public(S.output[name], figures[name])
    page = Path(S.output.page)
    write_public(page, render_claim(claim_run, figures))
    write_public(S.output.summary, json_text(run_summary(claim_run, page.name)))


with log_to(S.log[0]):
    run(main)

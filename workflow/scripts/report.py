"""Adapter: render this profile's screen report, its figures, summary and provenance."""

import json
from pathlib import Path

from adapter import log_to, run
from protocol import load_json, write_json

from analysis.games_table import read_games
from analysis.provenance import collect
from analysis.report.page import (
    ScreenRun,
    build_figures,
    render_screen,
    run_summary,
    write_public,
)

S = snakemake  # noqa: F821


def main() -> None:
    inputs = dict(S.input.items())
    passed = "games" in inputs
    manifests = {Path(path).parent.name: load_json(path)["checkpoints"]
                 for path in S.input.trained}
    frozen = load_json(S.input.frozen) if passed else None
    prov = collect(repo=S.params.repo, cfg=S.config, seed_blocks=S.params.seed_blocks,
                   manifests=[m for ms in manifests.values() for m in ms], frozen=frozen,
                   games=[S.input.games] if passed else [], benchmarks=S.params.benchmarks)
    write_json(S.output.provenance, prov)
    curves = {c["weights"]: c for c in map(load_json, S.input.curves)}
    run_ = ScreenRun(
        config=json.loads(json.dumps(S.config)), gate=load_json(S.input.gate), curves=curves,
        verdict=load_json(S.input.verdict), provenance=prov, manifests=manifests,
        frozen=frozen, opened=load_json(S.input.opened) if passed else None,
        contrasts={Path(p).stem: load_json(p) for p in S.input.stats} if passed else {},
        games=read_games(S.input.games) if passed else None,
        arms=S.params.arms,
    )
    if run_.games is not None:  # keep the table's arm order (read_games sorts by arm)
        order = {arm: i for i, arm in enumerate(S.params.arms)}
        run_.games = run_.games.sort_values(["arm", "seed"], key=lambda c: c.map(order)
                                            if c.name == "arm" else c, kind="stable")
    figures = build_figures(run_)
    for name in S.params.figures:
        write_public(S.output[name], figures[name])
    page = Path(S.output.page)
    write_public(page, render_screen(run_, figures))
    write_public(S.output.summary, json.dumps(run_summary(run_, page.name), indent=2) + "\n")


with log_to(S.log[0]):
    run(main)

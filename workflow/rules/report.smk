# Stage 6: the report page of this profile's screen (self-contained HTML with its
# figures embedded; also written as PNGs for `snakemake --report`), its provenance,
# and reports/index.html listing every screen run with its verdict.

FIGURE_OUTPUTS = {
    name: report(PLAN.figure(name), caption=f"../report/{name}.rst", category="Figures",
                 labels={"profile": PLAN.profile, "figure": name})
    for name in PLAN.FIGURES
}


rule report:
    input:
        unpack(screen_report_inputs),
        verdict=PLAN.verdict,
        gate=PLAN.gate,
        curves=[PLAN.curve(w) for w in PLAN.weights],
        trained=[PLAN.trained(w) for w in PLAN.weights],
    output:
        page=report(PLAN.page, caption="../report/screen.rst", category="Screen report",
                    labels={"profile": PLAN.profile, "block": str(PLAN.block)}),
        summary=PLAN.summary,
        provenance=PLAN.provenance,
        **FIGURE_OUTPUTS,
    log:
        f"{LOGS}/screen-{PLAN.block}/report.log",
    localrule: True
    params:
        seed_blocks=PLAN.seed_blocks(),
        arms=SCREEN_ARMS,
        repo=workflow.basedir,
        benchmarks=BENCH,
        figures=list(PLAN.FIGURES),
    script:
        "../scripts/report.py"


rule index:
    input:
        PLAN.summary,
    output:
        PLAN.INDEX,
    log:
        f"{LOGS}/index.log",
    localrule: True
    params:
        ledgers=sorted({config["ledger"], "data/screen-ledger.json"}),
    script:
        "../scripts/index.py"

# Stage 6: the research register's record bundle of each claim (docs/records.md), written
# after the verdict under reports/<profile>/records/<claim>/ and linked from the report.
def records_inputs(wc):
    """The verdict, the claim's own trained weights' curves, health and records
    (``metrics.training``), and the screen's ledger answers, games table, preregistration and
    contrasts (the result's figures) when its block was opened."""
    p = CLAIMS[wc.claim]
    files = {"verdict": PATHS.path("verdict", claim=wc.claim),
             **training_files(wc.claim, others=False)}
    if screen_opens(wc.claim):
        files.update(opened=PATHS.path("opened", claim=wc.claim, block=p.label),
                     closed=PATHS.path("closed", claim=wc.claim, block=p.label),
                     preregistered=PATHS.path("preregistered", claim=wc.claim, block=p.label),
                     table=PATHS.path("table", claim=wc.claim, block=p.label),
                     contrasts=[PATHS.path("contrast", claim=wc.claim, block=p.label,
                                           contrast=c) for c in p.contrasts],
                     **panel_files(wc.claim))
    return files


rule records:
    input:
        unpack(records_inputs),
    output:
        directory(PATHS.pattern("records")),
    log:
        log("records"),
    localrule: True
    params:
        plan=lambda wc: CLAIMS[wc.claim].describe(),
        repo=workflow.basedir,
        ledger=PLAN.profile["ledger"],
        benchmarks=lambda wc: PATHS.path("benchmarks", claim=wc.claim),
        health=lambda wc: health_files(wc.claim, others=False),
        direct=lambda wc: direct_described(wc.claim),
    script:
        "../scripts/records.py"

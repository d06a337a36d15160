# Stage 4: each declared contrast over its games of the block (a prefix when an arm plays
# one), its weights-hash criterion from the block's hashes; then the claim's readings and
# its verdict rule.  Without an open screen the verdict is decided from the gates alone.


def contrast_seeds(wc):
    """``(start, count)`` of the seeds a contrast reads."""
    p = CLAIMS[wc.claim]
    return (p.seeds[0], p.contrasts[wc.contrast].games)


def contrast_inputs(wc):
    """The block's table and hashes; a sequential screen's looks."""
    files = {"table": PATHS.path("table", claim=wc.claim, block=wc.block),
             "hashes": PATHS.path("hashes", claim=wc.claim, block=wc.block)}
    if CLAIMS[wc.claim].sequential is not None:
        files["looks"] = PATHS.path("looks", claim=wc.claim, block=wc.block)
    return files


rule contrast:
    input:
        unpack(contrast_inputs),
    output:
        PATHS.pattern("contrast"),
    log:
        log("{block}/contrast-{contrast}"),
    benchmark:
        bench("stats/{block}/{contrast}")
    threads: 1
    resources:
        mem_mb=500,
        runtime=15,
    params:
        kind=lambda wc: CLAIMS[wc.claim].contrasts[wc.contrast].kind,
        metric=lambda wc: CLAIMS[wc.claim].contrasts[wc.contrast].metric,
        arms=lambda wc: list(CLAIMS[wc.claim].contrasts[wc.contrast].arms),
        seeds=contrast_seeds,
        artefacts=lambda wc: CLAIMS[wc.claim].contrast_artefacts(wc.contrast),
        resamples=PLAN.profile["statistics"]["bootstrap_resamples"],
        oc_sims=lambda wc: PLAN.profile["statistics"]["oc_sims"]
        if wc.contrast in CLAIMS[wc.claim].screened_contrasts() else 0,
        effect=lambda wc: CLAIMS[wc.claim].sequential_effect()
        if CLAIMS[wc.claim].sequential else None,
        design=lambda wc: CLAIMS[wc.claim].sequential.design
        if CLAIMS[wc.claim].sequential else None,
    script:
        "../scripts/contrast.py"


def verdict_inputs(wc):
    """The gates, curves, training health and the records of learners a reading reads; the
    screen's files only when its block was opened."""
    p = CLAIMS[wc.claim]
    files = {"gates": PATHS.path("gates", claim=wc.claim),
             "curves": [PATHS.path("curve", claim=wc.claim, weights=w)
                        for w in p.curve_weights()],
             "health": [PATHS.path("health", claim=wc.claim, weights=w) for w in p.trained],
             "learners": learner_records(wc.claim)}
    if screen_opens(wc.claim):
        files["opened"] = PATHS.path("opened", claim=wc.claim, block=p.label)
        # the ledger's entries as the block was closed: a replay whose games differ
        files["closed"] = PATHS.path("closed", claim=wc.claim, block=p.label)
        # a warm start's source too: weights continued from an artefact whose claim's gates
        # failed invalidate the verdict as reading that artefact would
        files["frozen"] = sorted({a.record for a in p.reads()})
        files["contrasts"] = [PATHS.path("contrast", claim=wc.claim, block=p.label, contrast=c)
                              for c in p.contrasts]
        files.update(panel_files(wc.claim))
    return files


rule verdict:
    input:
        unpack(verdict_inputs),
    output:
        PATHS.pattern("verdict"),
    log:
        log("verdict"),
    localrule: True
    params:
        readings=lambda wc: CLAIMS[wc.claim].readings,
        rule=lambda wc: CLAIMS[wc.claim].claim.doc["verdict"],
        tier=lambda wc: CLAIMS[wc.claim].tier,
        lowered_by=lambda wc: CLAIMS[wc.claim].lowered_by,
        learners=lambda wc: direct_described(wc.claim, gates=False),
    script:
        "../scripts/verdict.py"

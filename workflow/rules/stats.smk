# Stage 5: statistics of each screen contrast (paired over the block's seeds) and
# the claim's verdict from its four criteria.  The verdict's inputs depend on the
# gate: without a training signal it is decided from the validation curves alone.


rule contrast:
    input:
        games=lambda wc: [PLAN.games_csv("screen", arm) for arm in CONTRASTS[wc.contrast]],
        frozen=PLAN.frozen_record,
        tables=f"{PLAN.frozen_dir}/tables.npy",
    output:
        PLAN.stats("{contrast}"),
    log:
        f"{LOGS}/screen-{PLAN.block}/stats-{{contrast}}.log",
    wildcard_constraints:
        contrast="|".join(CONTRASTS),
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        candidate=lambda wc: CONTRASTS[wc.contrast][0],
        baseline=lambda wc: CONTRASTS[wc.contrast][1],
        candidate_weights=lambda wc: SCREEN_ARMS[CONTRASTS[wc.contrast][0]]["weights"],
        resamples=config["statistics"]["bootstrap_resamples"],
        oc_sims=lambda wc: config["statistics"]["oc_sims"] if wc.contrast == "primary" else 0,
    script:
        "../scripts/contrast.py"


rule stats:
    localrule: True
    input:
        lambda wc: [PLAN.stats(c) for c in CONTRASTS] if screen_opens() else [],


rule verdict:
    input:
        unpack(screen_verdict_inputs),
        gate=PLAN.gate,
        candidate=PLAN.curve(PLAN.candidate),
        ablation=PLAN.curve(PLAN.ablation),
    output:
        PLAN.verdict,
    log:
        f"{LOGS}/screen-{PLAN.block}/verdict.log",
    localrule: True
    params:
        registered=config["registered_budget"],
        screen_games=config["screen"]["games"],
        search=PLAN.dtag,
    script:
        "../scripts/verdict.py"

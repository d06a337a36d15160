# Stage 2: every checkpoint in search against the fair leaf in the same search on
# the validation block (the fair arm is played once), in shards; then one
# validation curve (paired margin per checkpoint) per trained arm.


rule play_validation:
    input:
        validation_inputs,
    output:
        f"{PLAN.root}/validation/shards/{{arm}}/shard-{{k}}-of-{PLAN.shards('validation')}.csv",
    log:
        f"{LOGS}/validation/{{arm}}/shard-{{k}}.log",
    benchmark:
        f"{BENCH}/validation/{{arm}}/shard-{{k}}.tsv"
    wildcard_constraints:
        arm=arm_regex(VALIDATION_ARMS),
        k=r"\d+",
    threads: 1
    priority: lambda wc: 5 if VALIDATION_ARMS[wc.arm]["weights"] in (PLAN.candidate, None) else 0
    resources:
        mem_mb=lambda wc: PLAN.play_mem_mb(VALIDATION_ARMS[wc.arm]["weights"]),
        runtime=lambda wc: play_runtime("validation", wc.arm, VALIDATION_ARMS),
    params:
        policy=lambda wc: VALIDATION_ARMS[wc.arm]["policy"],
        seeds="{}:{}".format(*PLAN.seeds("validation")),
        shards=PLAN.shards("validation"),
    shell:
        "drop7 run-arms --arm '{wildcards.arm}={params.policy}' --seeds {params.seeds}"
        " --shard {wildcards.k}/{params.shards} --progress-s 60 --out {output} 2> {log}"


rule merge_validation:
    input:
        lambda wc: PLAN.shard_csvs("validation", wc.arm),
    output:
        f"{PLAN.root}/validation/games/{{arm}}.csv",
    log:
        f"{LOGS}/validation/{{arm}}/merge.log",
    localrule: True
    wildcard_constraints:
        arm=arm_regex(VALIDATION_ARMS),
    params:
        seeds="{}:{}".format(*PLAN.seeds("validation")),
    shell:
        "drop7 run-arms --merge {input} --seeds {params.seeds} --out {output} 2> {log}"


rule validation_curve:
    input:
        games=lambda wc: [c["games"] for c in curve_checkpoints(wc.weights)],
        fair=PLAN.games_csv("validation", PLAN.fair_arm),
    output:
        PLAN.curve("{weights}"),
    log:
        f"{LOGS}/validation/curve-{{weights}}.log",
    localrule: True
    wildcard_constraints:
        weights=arm_regex(PLAN.weights),
    params:
        checkpoints=lambda wc: curve_checkpoints(wc.weights),
        fair_arm=PLAN.fair_arm,
        resamples=config["statistics"]["bootstrap_resamples"],
    script:
        "../scripts/validation_curve.py"


# Named targets: one trained arm with its validation curve, e.g. `-- ntuple_E`,
# and the mechanism ablation, e.g. `-- ablation_E`.
for _w in PLAN.weights.values():

    rule:
        name:
            _w.rule
        localrule: True
        input:
            PLAN.curve(_w.name),


rule:
    name:
        f"ablation_{config['training']['ablation']}"
    localrule: True
    input:
        PLAN.curve(PLAN.ablation),
        PLAN.curve(PLAN.candidate),


rule validation:
    localrule: True
    input:
        [PLAN.curve(w) for w in PLAN.weights],

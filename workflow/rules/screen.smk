# Stage 4: the held-out screen.  Every arm plays the same seeds of the opened block,
# in shards (one job each; the merged table is the same for any shard count).
# Every shard needs the ledger's answer (opened.json) first.


rule play_screen:
    input:
        screen_inputs,
    output:
        f"{PLAN.screen_dir}/shards/{{arm}}/shard-{{k}}-of-{PLAN.shards('screen')}.csv",
    log:
        f"{LOGS}/screen-{PLAN.block}/{{arm}}/shard-{{k}}.log",
    benchmark:
        f"{BENCH}/screen-{PLAN.block}/{{arm}}/shard-{{k}}.tsv"
    wildcard_constraints:
        arm=arm_regex(SCREEN_ARMS),
        k=r"\d+",
    threads: 1
    resources:
        mem_mb=lambda wc: PLAN.play_mem_mb(SCREEN_ARMS[wc.arm]["weights"]),
        runtime=lambda wc: play_runtime("screen", wc.arm, SCREEN_ARMS),
    params:
        policy=lambda wc: SCREEN_ARMS[wc.arm]["policy"],
        seeds="{}:{}".format(*PLAN.seeds("screen")),
        shards=PLAN.shards("screen"),
    shell:
        "drop7 run-arms --arm '{wildcards.arm}={params.policy}' --seeds {params.seeds}"
        " --shard {wildcards.k}/{params.shards} --progress-s 60 --out {output} 2> {log}"


rule merge_screen:
    input:
        lambda wc: PLAN.shard_csvs("screen", wc.arm),
    output:
        f"{PLAN.screen_dir}/games/{{arm}}.csv",
    log:
        f"{LOGS}/screen-{PLAN.block}/{{arm}}/merge.log",
    localrule: True
    wildcard_constraints:
        arm=arm_regex(SCREEN_ARMS),
    params:
        seeds="{}:{}".format(*PLAN.seeds("screen")),
    shell:
        "drop7 run-arms --merge {input} --seeds {params.seeds} --out {output} 2> {log}"


rule screen_table:
    input:
        [PLAN.games_csv("screen", arm) for arm in SCREEN_ARMS],
    output:
        PLAN.screen_table,
    log:
        f"{LOGS}/screen-{PLAN.block}/games.log",
    localrule: True
    script:
        "../scripts/screen_table.py"


rule screen:
    localrule: True
    input:
        lambda wc: [PLAN.screen_table] if screen_opens() else [],

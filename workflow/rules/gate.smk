# Stage 3: the training-signal gate (criterion 1) is a checkpoint: the jobs after
# it are only created once it has run, and only if it passed, so a failed gate
# never creates a screen job and the block is never opened.  Then the best
# checkpoint is frozen (SHA-256 recorded) and the ledger opens the screen block.


checkpoint gate:
    input:
        PLAN.curve(PLAN.candidate),
    output:
        PLAN.gate,
    log:
        f"{LOGS}/gate.log",
    localrule: True
    script:
        "../scripts/gate.py"


rule freeze:
    input:
        gate=PLAN.gate,
        curve=PLAN.curve(PLAN.candidate),
        trained=PLAN.trained(PLAN.candidate),
    output:
        record=PLAN.frozen_record,
        tables=f"{PLAN.frozen_dir}/tables.npy",
        manifest=f"{PLAN.frozen_dir}/manifest.json",
    log:
        f"{LOGS}/freeze.log",
    localrule: True
    params:
        frozen_dir=lambda wildcards, output: os.path.dirname(output.tables),
        require_gate=config["screen"]["require_training_signal"],
    script:
        "../scripts/freeze.py"


rule open_screen:
    input:
        PLAN.frozen_record,
    output:
        PLAN.opened,
    log:
        f"{LOGS}/open-screen-{PLAN.block}.log",
    localrule: True
    params:
        ledger=config["ledger"],
        block=PLAN.block,
        seeds=PLAN.seeds("screen"),
        reuse=config["screen"]["reuse_blocks"],
        profile=PLAN.profile,
        candidate=PLAN.candidate,
        repo=workflow.basedir,
    script:
        "../scripts/open_screen.py"

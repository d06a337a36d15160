# Stage 3b: a ranking panel (docs/panels.md).  Its roots are the states before every
# `every`-th decision of the roots arm's games on the claim's held-out block, replayed and
# checked against the games the block's table holds (so they exist only once the ledger opened
# the block); the reference and every ranker answer at each root in shards over the roots
# (shard k of K takes roots k-1, k-1+K, ...: the same table for any K); the table is
# closed in the ledger with the block (its SHA-256 beside the games'), then read once.
import shlex

from contracts.panel_table import OUTCOME_REFERENCE


def panel_of(claim):
    """A claim's planned panel (an error for a claim without one)."""
    p = CLAIMS[claim].panel
    if p is None:
        raise ValueError(f"claim {claim} declares no panel")
    return p


def roots_arm(claim):
    """The planned arm whose games give a claim's panel its roots."""
    return CLAIMS[claim].arms[panel_of(claim).roots_arm]


def panel_roots_inputs(wc):
    """The ledger's answer and the roots arm's games of the block (the replay is checked
    against them)."""
    return {"opened": PATHS.path("opened", claim=wc.claim, block=wc.block),
            "games": screen_games(wc.claim, [panel_of(wc.claim).roots_arm]),
            "reads": arm_reads(roots_arm(wc.claim))}


rule panel_roots:
    input:
        unpack(panel_roots_inputs),
    output:
        PATHS.pattern("panel_roots"),
    log:
        log("{block}/panel/roots"),
    benchmark:
        bench("{block}/panel/roots")
    threads: 1
    resources:
        mem_mb=lambda wc: costs.play_mem_mb(roots_arm(wc.claim).entries),
        runtime=lambda wc: costs.runtime_minutes(
            costs.JOB_OVERHEAD_S + panel_of(wc.claim).games
            * roots_arm(wc.claim).seconds_per_game),
    params:
        policy=lambda wc: shlex.quote(roots_arm(wc.claim).policy),
        seeds=lambda wc: "{}:{}".format(*panel_of(wc.claim).seeds),
        every=lambda wc: panel_of(wc.claim).every,
        limit=lambda wc: "" if panel_of(wc.claim).limit is None
        else f"--limit {panel_of(wc.claim).limit}",
    shell:
        "drop7 panel roots --policy {params.policy} --seeds {params.seeds}"
        " --every {params.every} {params.limit} --games {input.games} --out {output} 2> {log}"


def panel_command(claim, name):
    """The ``drop7 panel`` subcommand and options that answer for table name ``name``."""
    panel = panel_of(claim)
    arm = panel.arms[name]
    if name == OUTCOME_REFERENCE:
        o = panel.outcome
        return (f"label --name {name} --policy {shlex.quote(arm.policy)}"
                f" --continuations {o['continuations']} --horizon {o['horizon']}"
                f" --target {o['target']} --seed {o['seed']} --work {panel.work}")
    return f"rank --ranker {shlex.quote(f'{name}={arm.policy}')} --work {panel.work}"


def panel_shards(claim, block):
    """Every shard of every table name of a claim's panel, in table order."""
    panel = panel_of(claim)
    return [PATHS.path("panel_shard", claim=claim, block=block, ranker=n, k=k, K=a.shards)
            for n in panel.names() for a in [panel.arms[n]] for k in range(1, a.shards + 1)]


rule panel_rank:
    input:
        roots=PATHS.pattern("panel_roots"),
        reads=lambda wc: arm_reads(panel_of(wc.claim).arms[wc.ranker]),
    output:
        PATHS.pattern("panel_shard"),
    log:
        log("{block}/panel/{ranker}/shard-{k}-of-{K}"),
    benchmark:
        bench("{block}/panel/{ranker}/shard-{k}-of-{K}")
    threads: 1
    priority: 5
    resources:
        mem_mb=lambda wc: costs.play_mem_mb(panel_of(wc.claim).arms[wc.ranker].entries),
        runtime=lambda wc: costs.runtime_minutes(
            costs.JOB_OVERHEAD_S + panel_of(wc.claim).arms[wc.ranker].seconds_per_game
            * panel_of(wc.claim).arms[wc.ranker].games / int(wc.K)),
    params:
        command=lambda wc: panel_command(wc.claim, wc.ranker),
    shell:
        "drop7 panel {params.command} --roots {input.roots}"
        " --shard {wildcards.k}/{wildcards.K} --out {output} 2> {log}"


rule panel_table:
    input:
        shards=lambda wc: panel_shards(wc.claim, wc.block),
        roots=PATHS.pattern("panel_roots"),
    output:
        PATHS.pattern("panel_table"),
    log:
        log("{block}/panel/table"),
    localrule: True
    params:
        names=lambda wc: ",".join(panel_of(wc.claim).names()),
    shell:
        "drop7 panel merge --rankers {params.names} --roots {input.roots} --out {output}"
        " {input.shards} 2> {log}"


rule panel_readings:
    input:
        table=PATHS.pattern("panel_table"),
        roots=PATHS.pattern("panel_roots"),
        # read once the ledger holds the table's hash: the block's readings are of this table
        closed=PATHS.pattern("closed"),
    output:
        PATHS.pattern("panel_readings"),
    log:
        log("{block}/panel/readings"),
    benchmark:
        bench("stats/{block}/panel")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=15,
    params:
        declaration=lambda wc: CLAIMS[wc.claim].panel_declaration(),
        resamples=PLAN.profile["statistics"]["bootstrap_resamples"],
    script:
        "../scripts/panel_readings.py"


def public_inputs(wc):
    """The roots, table and readings of a claim's panel (on its block)."""
    block = CLAIMS[wc.claim].label
    return {key: PATHS.path(f"panel_{key}", claim=wc.claim, block=block)
            for key in ("table", "roots", "readings")}


rule panel_public:
    input:
        unpack(public_inputs),
    output:
        directory(PATHS.pattern("panel_public")),
    log:
        log("panel-public"),
    localrule: True
    script:
        "../scripts/panel_public.py"


def panel_files(claim):
    """The panel's readings, as the verdict, page and records read them (none without a
    panel)."""
    p = CLAIMS[claim]
    if p.panel is None:
        return {}
    return {"panel": PATHS.path("panel_readings", claim=claim, block=p.label)}

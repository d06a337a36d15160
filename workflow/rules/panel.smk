# Stage 3b: a ranking panel (docs/panels.md).  Its roots are the states before every
# `every`-th decision of the roots arm's games on the claim's held-out block, replayed and
# checked against the games the block's table holds (so they exist only once the ledger opened
# the block); the reference and every ranker answer at each root in shards over the roots
# (shard k of K takes roots k-1, k-1+K, ...: the same table for any K); the table is
# closed in the ledger with the block (its SHA-256 beside the games'), then read once.


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
        command=lambda wc: commands.panel_roots(
            roots_arm(wc.claim).policy, "{}:{}".format(*panel_of(wc.claim).seeds),
            panel_of(wc.claim).every, panel_of(wc.claim).limit),
    shell:
        "{params.command} --games {input.games:q} --out {output:q} 2> {log:q}"


def panel_command(claim, name):
    """The ``drop7 panel`` command that answers for table name ``name`` (``label`` for an
    outcome reference or ranker, ``rank`` for an arm)."""
    panel = panel_of(claim)
    return commands.panel_answer(name, panel.arms[name].policy, panel.work,
                                 panel.outcome_of(name))


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
        "{params.command} --roots {input.roots:q} --shard {wildcards.k}/{wildcards.K}"
        " --out {output:q} 2> {log:q}"


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
        command=lambda wc: commands.panel_merge(panel_of(wc.claim).names()),
    shell:
        "{params.command} --roots {input.roots:q} --out {output:q} {input.shards:q} 2> {log:q}"


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

# Games: one rule plays any arm of any block in shards, one rule merges any arm's shards.
# A block is `validation` (re-read at every validation point), `screen-<b>` (held out:
# every shard waits for the ledger's answer) or `screen-<b>/look-<k>`, the games a
# sequential screen's look k adds (asked for only when look k - 1 said continue).  Each game is a pure function of (policy,
# seed) and a shard plays games i mod K == k - 1, so the merged table is the same for any
# shard count and any executor.


def play_inputs(wc):
    """The ledger's answer for a screen block; the tables the arm's leaf reads.  A sequential
    screen's look k > 1 plays only once look k - 1 said continue (its checkpoint; not a file
    dependency, so games made again of an earlier look do not replay the later looks)."""
    arm, p = arm_of(wc), CLAIMS[wc.claim]
    files = [] if wc.block == VALIDATION else [PATHS.path("opened", claim=wc.claim,
                                                          block=p.label)]
    k = p.look_of(wc.block)
    if k is not None and k > 1:
        continued(wc.claim, k - 1)
    if arm.step is not None:
        files += segment_paths(wc.claim, arm.weights, arm.step)[:2]
    return files + arm_reads(arm)


def arm_reads(arm):
    """The frozen tables (and their record) a planned arm's leaf reads, or the record of the
    weights this claim trains by one job that the arm plays (its weights or its leaf; the job
    that writes the record writes the weights)."""
    direct = list(arm.direct[1:]) if arm.direct else []
    return direct if arm.artefact is None else [arm.artefact.record, arm.artefact.tables,
                                                *direct]


def shard_files(claim, block, arm):
    """Every shard of an arm on a block."""
    a = CLAIMS[claim].block_arms(block)[arm]
    return [PATHS.path("shard", claim=claim, block=block, arm=arm, k=k, K=a.shards)
            for k in range(1, a.shards + 1)]


def seeds_of(wc):
    """``START:COUNT`` of the arm's games (its prefix of the block)."""
    start = CLAIMS[wc.claim].block_seeds(wc.block)[0]
    return f"{start}:{arm_of(wc).games}"


rule play:
    input:
        play_inputs,
    output:
        PATHS.pattern("shard"),
    log:
        log("{block}/{arm}/shard-{k}-of-{K}"),
    benchmark:
        bench("{block}/{arm}/shard-{k}-of-{K}")
    threads: 1
    priority: lambda wc: 5 if wc.block != VALIDATION else 0
    resources:
        mem_mb=lambda wc: costs.play_mem_mb(arm_of(wc).entries),
        runtime=lambda wc: costs.runtime_minutes(
            costs.JOB_OVERHEAD_S + arm_of(wc).seconds_per_game * arm_of(wc).games
            / int(wc.K)),
    params:
        command=lambda wc: commands.play(wc.arm, arm_of(wc).policy, seeds_of(wc),
                                         f"{wc.k}/{wc.K}"),
    shell:
        "{params.command} --out {output:q} 2> {log:q}"


rule merge:
    input:
        lambda wc: shard_files(wc.claim, wc.block, wc.arm),
    output:
        PATHS.pattern("games"),
    log:
        log("{block}/{arm}/merge"),
    localrule: True
    params:
        command=lambda wc: commands.merge(seeds_of(wc)),
    shell:
        "{params.command} {input:q} --out {output:q} 2> {log:q}"

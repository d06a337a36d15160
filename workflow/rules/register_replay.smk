# The register's published games of a claim's arm, replayed game for game (recorded.replay,
# docs/claims.md): its declared search with the register's sampling on the register's seeds
# and streams.  It reads no block of ours, so it runs at any time, alone; its file is an input
# of the claim's page, which says "reproduced" or names the first game that differs.


def replay_of(claim):
    """A claim's planned replay (an error for a claim without one)."""
    r = CLAIMS[claim].replay
    if r is None:
        raise ValueError(f"claim {claim} declares no replay of the register's games")
    return r


rule register_replay:
    input:
        games=lambda wc: replay_of(wc.claim).path,
    output:
        PATHS.pattern("register_replay"),
    log:
        log("register-replay"),
    benchmark:
        bench("register-replay/replay")
    threads: 1
    resources:
        mem_mb=lambda wc: costs.play_mem_mb(0),
        runtime=lambda wc: costs.runtime_minutes(
            costs.JOB_OVERHEAD_S + replay_of(wc.claim).seconds()),
    params:
        command=lambda wc: commands.register_replay(
            replay_of(wc.claim).policy, replay_of(wc.claim).sha256, replay_of(wc.claim).limit),
    shell:
        "{params.command} --games {input.games:q} --out {output:q} 2> {log:q}"

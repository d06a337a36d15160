# Training health (analysis.health): every checkpoint of every trained weights played one ply,
# beside the untrained start one ply and random legal play, on the same unseen training-role
# seeds (cheap: one ply), then one health file per trained weights: the training games' mean
# score per segment, the one-ply mean at every checkpoint, and the findings that raise the
# page's banner (a checkpoint not significantly above the better of its start and random, a
# fall beyond its interval).  A gate may read it (kind training-health).

from analysis.health import ARMS as HEALTH_ARMS


rule health_point:
    input:
        tables=lambda wc: segment_paths(wc.claim, wc.weights, wc.step)[0],
        manifest=lambda wc: segment_paths(wc.claim, wc.weights, wc.step)[1],
    output:
        PATHS.pattern("health_point"),
    log:
        log("health/{weights}/step-{step}"),
    benchmark:
        bench("health/{weights}/step-{step}")
    threads: 1
    resources:
        mem_mb=lambda wc: costs.play_mem_mb(training(wc).entries),
        runtime=5,
    params:
        command=lambda wc: commands.evaluate(
            str(Path(segment_paths(wc.claim, wc.weights, wc.step)[1]).parent),
            PLAN.profile["statistics"]["health_games"]),
        # the arms a point plays: a point played with other arms is played again
        arms=",".join(HEALTH_ARMS),
    shell:
        "{params.command} --out {output:q} > {log:q} 2>&1"


def health_points(wc):
    """Every checkpoint's health file of one trained weights."""
    return [PATHS.path("health_point", claim=wc.claim, weights=wc.weights, step=s)
            for s in training(wc).steps]


rule health:
    input:
        points=health_points,
        manifests=lambda wc: [segment_paths(wc.claim, wc.weights, s)[1]
                              for s in training(wc).steps],
    output:
        PATHS.pattern("health"),
    log:
        log("health/{weights}"),
    localrule: True
    script:
        "../scripts/health.py"


def health_files(claim, others=True):
    """``name -> health file`` of every trained weights a claim's page shows (its own by
    weights name, another claim's by ``claim/weights``; its own alone without ``others``:
    the records')."""
    return {(w if c == claim else f"{c}/{w}"): PATHS.path("health", claim=c, weights=w)
            for c, w in CLAIMS[claim].health_weights() if others or c == claim}

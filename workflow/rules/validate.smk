# Stage 2: every checkpoint in the validation search against the comparator in the same
# search, on the validation block (the comparator plays once per claim); one validation
# curve (paired margin per checkpoint) per trained weights.  Then the claim's gates: a
# Snakemake checkpoint, so the jobs after it are created only once it has run, and only if
# it lets the screen open; a failed gate never creates a screen job and never touches the
# ledger.  A gate may also read a trained weights' training health (health.smk), or the curve
# of weights trained by one job (direct.smk: a learner reading).


def curve_points(wc):
    """The points of a validation curve: step, arm, checkpoint path, games table."""
    p = CLAIMS[wc.claim]
    return [{"step": a.step, "arm": a.name, "path": p.trained[wc.weights].checkpoint(a.step),
             "games": PATHS.path("games", claim=wc.claim, block=VALIDATION, arm=a.name)}
            for a in p.checkpoint_arms(wc.weights)]


rule curve:
    input:
        games=lambda wc: [c["games"] for c in curve_points(wc)],
        comparator=lambda wc: PATHS.path("games", claim=wc.claim, block=VALIDATION,
                                         arm=CLAIMS[wc.claim].comparator),
    output:
        PATHS.pattern("curve"),
    log:
        log("validation/curve-{weights}"),
    localrule: True
    params:
        points=curve_points,
        comparator=lambda wc: CLAIMS[wc.claim].comparator,
        seeds=lambda wc: CLAIMS[wc.claim].validation_seeds,
        resamples=PLAN.profile["statistics"]["bootstrap_resamples"],
    script:
        "../scripts/curve.py"


checkpoint gates:
    input:
        curves=lambda wc: [PATHS.path("curve", claim=wc.claim, weights=w)
                           for w in CLAIMS[wc.claim].curve_weights()],
        health=lambda wc: [PATHS.path("health", claim=wc.claim, weights=w)
                           for w in CLAIMS[wc.claim].trained],
        learners=lambda wc: learner_records(wc.claim, gates=True),
    output:
        PATHS.pattern("gates"),
    log:
        log("gates"),
    localrule: True
    params:
        gates=lambda wc: CLAIMS[wc.claim].gates,
        readings=lambda wc: CLAIMS[wc.claim].readings,
        enforced=PLAN.profile["enforce_gates"],
        learners=lambda wc: direct_described(wc.claim, gates=True),
    script:
        "../scripts/gates.py"

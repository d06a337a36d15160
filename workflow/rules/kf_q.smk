# Weights of a learner an arm plays by name (protocol/parts/kf_training.py): the Klein-Friedmann
# Q-learner's (kf_train) and the ridge one-ply Q's fit (ridge_q_fit).
#
# The Klein-Friedmann Q-learner's weights (a claim's `train: {learner: kf-q}`): one job trains
# them to their last checkpoint and freezes it (weights.json beside its record, frozen.json,
# with its SHA-256), writing the learner's curve and health at every checkpoint (curve.json).
# The command resumes from the newest checkpoint in its directory, so a killed job goes on
# from there and gives the same bits (engines/learners/kf_q_train.py); a kf arm that names
# the weights waits for the record (games.smk, arm_reads).


def kf_training(wc):
    return CLAIMS[wc.claim].kf_trained[wc.weights]


_KF_TRAIN = PATHS.pattern("train")

rule kf_train:
    output:
        weights=f"{_KF_TRAIN}/weights.json",
        record=f"{_KF_TRAIN}/frozen.json",
        curve=f"{_KF_TRAIN}/curve.json",
    log:
        log("train/{weights}/kf-q"),
    benchmark:
        bench("train/{weights}/kf-q")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=lambda wc: costs.runtime_minutes(costs.JOB_OVERHEAD_S
                                                 + kf_training(wc).seconds),
    params:
        command=lambda wc: kf_training(wc).command(),
    shell:
        "{params.command} > {log:q} 2>&1"


# The ridge one-ply Q's fit (`train: {learner: ridge-q}`): one job plays the roots' games,
# labels every root with the reference search and writes the fit's weights directory (q/, its
# manifest the record with its SHA-256); a q arm that names the weights waits for it.
rule ridge_q_fit:
    output:
        record=f"{_KF_TRAIN}/q/manifest.json",
    log:
        log("train/{weights}/ridge-q"),
    benchmark:
        bench("train/{weights}/ridge-q")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=lambda wc: costs.runtime_minutes(costs.JOB_OVERHEAD_S
                                                 + kf_training(wc).seconds),
    params:
        command=lambda wc: kf_training(wc).command(),
    shell:
        "{params.command} > {log:q} 2>&1"

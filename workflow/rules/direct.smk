# Weights trained to their end by one job (protocol/parts/direct_training.py): every learner
# whose registration names its `frozen` weights and record (kf-q, ridge-q, cmaes, cem,
# nnue-distil, nnue-evolve).
#
# One rule for each record file: its output is the frozen record the learner writes (`{"sha256"}`: kf-q's
# frozen.json, ridge-q's q/manifest.json, a weight search's frozen/manifest.json or, for target
# kf, frozen/frozen.json, nnue-distil's network/manifest.json, nnue-evolve's
# frozen/manifest.json), with the frozen weights and the learner's curve beside it in the
# training directory.  The command resumes from the newest checkpoint in its directory, so a
# killed job goes on from there and gives the same bits.  An arm that plays the weights
# (`weights: NAME`, `leaf: {weights: NAME}`) waits for the record (games.smk, arm_reads), and
# so does a learner whose `start` names them, and the gates and verdict jobs of a claim whose
# learner readings (learner-at-least, learner-at-most) read their curves.


def direct_training(wc):
    return CLAIMS[wc.claim].direct_trained[wc.weights]


def direct_inputs(wc):
    """The records of the weights this training starts from."""
    p, t = CLAIMS[wc.claim], direct_training(wc)
    return [p.direct_trained[n].record for n in t.after]


def direct_described(claim, gates=None):
    """``name -> description`` (DirectTraining.describe: learner, files, curve kind, figures)
    of the weights a claim trains by one job: all of them (the report's sections), or those a
    learner reading reads (the gates' only, ``gates=True``; the verdict's, ``gates=False``)."""
    p = CLAIMS[claim]
    trainings = p.direct_trained if gates is None else p.learner_reads(gates)
    return {n: t.describe() for n, t in trainings.items()}


def learner_records(claim, gates=False):
    """The records of the weights a claim's learner readings read (their curves sit beside
    them): inputs of the gates job (``gates``) and of the verdict job."""
    return [d["record"] for d in direct_described(claim, gates).values()]


_DIRECT_TRAIN = PATHS.pattern("train")
#: every record a planned training writes (one rule each: its output, below the directory)
_DIRECT_RECORDS = sorted({t.frozen[1] for p in CLAIMS.values()
                          for t in p.direct_trained.values()})

for _record in _DIRECT_RECORDS:

    rule:
        name:
            "direct_train_" + re.sub(r"\W", "_", _record.removesuffix(".json"))
        input:
            direct_inputs,
        output:
            record=f"{_DIRECT_TRAIN}/{_record}",
        log:
            log("train/{weights}/direct"),
        benchmark:
            bench("train/{weights}/direct")
        threads: 1
        resources:
            mem_mb=1000,
            runtime=lambda wc: costs.runtime_minutes(costs.JOB_OVERHEAD_S
                                                     + direct_training(wc).seconds),
        params:
            command=lambda wc: direct_training(wc).command(),
        shell:
            "{params.command} > {log:q} 2>&1"

# Stage 1: train every configured arm (n-tuple layouts and linear-trained) with
# checkpoints every `every` moves.  One job per trained arm; all arms read the
# same training-role seeds (training.first_game onwards).  The job's output is
# its record (trained.json, written last); the checkpoint directories beside it
# are kept across an interrupted run, which then resumes (drop7 train --resume).
# The final resume state is kept too (a longer budget goes on from it) unless
# training.keep_resume is false; that key is read by the script, not passed as a
# param, since it changes no output and a changed param would retrain every arm.

for _w in PLAN.weights.values():

    rule:
        name:
            f"train_{_w.rule}"
        output:
            PLAN.trained(_w.name),
        log:
            f"{LOGS}/train/{_w.name}.log",
        benchmark:
            f"{BENCH}/train/{_w.name}.tsv"
        threads: 1
        # the candidate's training is the longest chain (gate, freeze, screen): start it first
        priority: 10 if _w.name == PLAN.candidate else 0
        resources:
            mem_mb=PLAN.train_mem_mb(_w.name),
            runtime=train_runtime(_w),
        params:
            request={"layout": _w.layout, "moves": _w.moves, "every": _w.every,
                     "first_game": PLAN.first_game},
            steps=_w.steps,
            out=lambda wildcards, output: os.path.dirname(output[0]),
        script:
            "../scripts/train.py"

# Stage 1: training, one job per segment (checkpoint to checkpoint).  A segment resumes from
# the previous segment's state (contracts.train_directory) and writes one checkpoint and its
# own state, so a checkpoint's validation starts as soon as it exists, an interrupted run
# loses at most one segment, and the tables are bit for bit those of one uninterrupted run.
# A state is deleted once the next segment has run: by that segment's job (`--discard-start`:
# Snakemake defers removing temp files while a checkpoint job is pending, and the gates are
# one, which would keep every state of a long training on disk at once), and as temp
# by Snakemake all the same.  The last one of each trained weights is kept (a longer budget
# goes on from it) unless the profile sets keep_final_state: false.  One rule body serves both: the generic segment (temp state)
# and, per trained weights, its last segment (kept state), preferred by ruleorder.
from contracts.train_directory import RESUME, STEP
from contracts.weights_dir import MANIFEST, PACKED, TABLES  # TABLES: frozen weights (screen.smk)


def training(wc):
    return CLAIMS[wc.claim].trained[wc.weights]


def segment_start(wc):
    """The moves a segment starts from (0 for the first)."""
    return dict((end, start) for start, end in training(wc).segments)[int(wc.end)]


def segment_input(wc):
    """The state a segment resumes, and a warm start's frozen artefact (its record names the
    SHA-256 the segment passes on: every segment's config holds it)."""
    start, init = segment_start(wc), training(wc).init_source()
    state = [str(Path(training(wc).dir, RESUME.format(moves=start)))] if start else []
    return state + ([init["record"]] if init and "record" in init else [])


def segment_paths(claim="{claim}", weights="{weights}", end="{end}"):
    """The outputs of a segment job: a checkpoint's two files and the state directory."""
    train = PATHS.pattern("train", claim=claim, weights=weights)
    step = f"{train}/{STEP.format(moves=end)}"
    return f"{step}/{PACKED}", f"{step}/{MANIFEST}", f"{train}/{RESUME.format(moves=end)}"


_SEGMENT_RULES = [("train_segment", segment_paths(), True)]
if PLAN.profile["keep_final_state"]:
    _SEGMENT_RULES += [
        (f"train_last_{p.rule}_{t.name.replace('-', '_')}",
         segment_paths("{claim," + re.escape(p.id) + "}", "{weights," + re.escape(t.name) + "}",
                       "{end," + str(t.moves) + "}"), False)
        for p in CLAIMS.values() for t in p.trained.values()]

for _name, (_tables, _manifest, _state), _temp in _SEGMENT_RULES:

    rule:
        name:
            _name
        input:
            segment_input,
        output:
            tables=_tables,
            manifest=_manifest,
            state=temp(directory(_state)) if _temp else directory(_state),
        log:
            log("train/{weights}/step-{end}"),
        benchmark:
            bench("train/{weights}/step-{end}")
        threads: lambda wc: training(wc).threads
        # the candidate's chain (gates, freeze, screen) is the longest: train before validating
        priority: 10
        resources:
            mem_mb=lambda wc: costs.train_mem_mb(training(wc).entries),
            runtime=lambda wc: costs.runtime_minutes(costs.train_seconds(
                training(wc).layout, int(wc.end) - segment_start(wc), training(wc).entries,
                training(wc).move_cost)),
        params:
            command=lambda wc: commands.train(training(wc).learner, training(wc).recipe(),
                                              int(wc.end), training(wc).dir,
                                              segment_start(wc)),
        shell:
            "{params.command} --threads {threads} > {log:q} 2>&1"

    if _name != "train_segment":
        workflow.ruleorder(_name, "train_segment")

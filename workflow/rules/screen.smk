# Stage 3: the held-out screen.  The selected checkpoint of each trained weights an arm
# reads is frozen (copied, SHA-256 recorded); the ledger opens the claim's screen block
# for its frozen hashes (pins checked first); every arm plays its seeds of the block
# (games.smk), a sequential screen look by look; the block is closed (every game in, the table's SHA-256 in the ledger); then
# the frozen files the arms read are hashed again.
from protocol.records.ids import protocol_sha256


def freeze_inputs(wc):
    """Only once the claim's gates let it (a failed gate never freezes)."""
    t = CLAIMS[wc.claim].trained[wc.weights]
    if not gate_of(wc.claim)["opens_screen"]:
        return []
    return {"gates": PATHS.path("gates", claim=wc.claim),
            "curve": PATHS.path("curve", claim=wc.claim, weights=wc.weights),
            "checkpoints": [f for s in t.steps for f in segment_paths(wc.claim, t.name, s)[:2]]}


rule freeze:
    input:
        unpack(freeze_inputs),
    output:
        record=PATHS.pattern("frozen_record"),
        tables=f"{PATHS.pattern('frozen')}/{TABLES}",
        manifest=f"{PATHS.pattern('frozen')}/{MANIFEST}",
    log:
        log("freeze-{weights}"),
    localrule: True
    params:
        select=lambda wc: CLAIMS[wc.claim].trained[wc.weights].select,
        frozen=lambda wc: PATHS.path("frozen", claim=wc.claim, weights=wc.weights),
    script:
        "../scripts/freeze.py"


def open_inputs(wc):
    """Every frozen artefact the claim's arms read, once the gates let the screen open."""
    if not screen_opens(wc.claim):
        return []
    return sorted(r["record"] for r in CLAIMS[wc.claim].opener_records.values())


rule open_block:
    input:
        open_inputs,
    output:
        PATHS.pattern("opened"),
        preregistered=PATHS.pattern("preregistered"),
    log:
        log("{block}/open"),
    localrule: True
    params:
        protocol=lambda wc: protocol_sha256(CLAIMS[wc.claim].describe()),
        ledger=PLAN.profile["ledger"],
        artefacts=lambda wc: CLAIMS[wc.claim].opener_records,
        blocks=lambda wc: CLAIMS[wc.claim].blocks,
        seeds=lambda wc: CLAIMS[wc.claim].seeds,
        shares=lambda wc: CLAIMS[wc.claim].shares_block_of,
        source=lambda wc: str(CLAIMS[wc.claim].claim.path),
        allow_reuse=PLAN.profile["allow_reuse"],
        repo=workflow.basedir,
    script:
        "../scripts/open_block.py"


# A sequential screen (screen.looks): look k is a checkpoint over the games of looks 1..k;
# the games of look k + 1 exist only as inputs of what asks for them after look k said
# continue, so a stopped screen plays nothing more (protocol/looks.py decides which looks
# exist; these rules ask it).  Every output is written atomically, so a run that crashed
# between looks resumes at the same look.
from protocol import looks as screen_looks


def look_decision(claim, k):
    """Look ``k``'s decision: read when made and fresh, else asked of the checkpoint (asking
    makes Snakemake run it first; protocol/looks.py says why a fresh one is read as it is)."""
    from contracts.json_file import load_json

    p = CLAIMS[claim]
    made = screen_looks.decision_on_disk(p, PATHS, k)
    if made is not None:
        return made
    done = checkpoints.look.get(claim=claim, block=p.label, look=str(k))
    return load_json(done.output[0])["decision"]


def continued(claim, k):
    """Nothing once look ``k`` said continue; an error past a stopping look."""
    screen_looks.check_continued(CLAIMS[claim], k, look_decision(claim, k))


def played_looks(claim):
    """The looks a sequential screen makes."""
    return screen_looks.played_looks(CLAIMS[claim], lambda k: look_decision(claim, k))


def screen_games(claim, arms=None):
    """The games files of a claim's screen (``arms``: all)."""
    return screen_looks.screen_games(CLAIMS[claim], PATHS, lambda k: look_decision(claim, k),
                                     arms)


def look_inputs(wc):
    """The ledger's answer and every arm's games of looks 1..k."""
    p = CLAIMS[wc.claim]
    return {"opened": PATHS.path("opened", claim=wc.claim, block=p.label),
            "games": screen_looks.look_games(p, PATHS, int(wc.look))}


checkpoint look:
    input:
        unpack(look_inputs),
    output:
        PATHS.pattern("look"),
    log:
        log("{block}/look-{look}"),
    localrule: True
    params:
        design=lambda wc: CLAIMS[wc.claim].sequential.design,
        arms=lambda wc: list(CLAIMS[wc.claim].contrasts[
            CLAIMS[wc.claim].sequential.contrast].arms),
        metric=lambda wc: CLAIMS[wc.claim].contrasts[CLAIMS[wc.claim].sequential.contrast].metric,
        start=lambda wc: CLAIMS[wc.claim].seeds[0],
        ledger=PLAN.profile["ledger"],
    script:
        "../scripts/look.py"


rule looks:
    input:
        lambda wc: [screen_looks.look_file(CLAIMS[wc.claim], PATHS, k)
                    for k in played_looks(wc.claim)],
    output:
        PATHS.pattern("looks"),
    log:
        log("{block}/looks"),
    localrule: True
    params:
        design=lambda wc: CLAIMS[wc.claim].sequential.spec(),
        seeds=lambda wc: CLAIMS[wc.claim].seeds,
    script:
        "../scripts/looks.py"


def close_inputs(wc):
    """The ledger's answer and every game played (a sequential screen's looks too, a panel's
    table)."""
    files = {"opened": PATHS.path("opened", claim=wc.claim, block=wc.block),
             "games": screen_games(wc.claim)}
    if CLAIMS[wc.claim].sequential is not None:
        files["looks"] = PATHS.path("looks", claim=wc.claim, block=wc.block)
    if CLAIMS[wc.claim].panel is not None:  # a panel's table closes with the block's games
        files["panel"] = PATHS.path("panel_table", claim=wc.claim, block=wc.block)
    return files


rule close_block:
    input:
        unpack(close_inputs),
    output:
        table=PATHS.pattern("table"),
        closed=PATHS.pattern("closed"),
    log:
        log("{block}/close"),
    localrule: True
    params:
        ledger=PLAN.profile["ledger"],
        repo=workflow.basedir,
    script:
        "../scripts/close_block.py"


rule hashes:
    input:
        closed=PATHS.pattern("closed"),
        tables=lambda wc: [a.tables for a in CLAIMS[wc.claim].artefacts.values()],
    output:
        PATHS.pattern("hashes"),
    log:
        log("{block}/hashes"),
    benchmark:
        bench("hashes/{block}")
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        artefacts=lambda wc: {k: {"record": a.record, "tables": a.tables,
                                  "pin": a.sha256}
                              for k, a in CLAIMS[wc.claim].artefacts.items()},
    script:
        "../scripts/hashes.py"

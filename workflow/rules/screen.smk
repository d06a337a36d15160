# Stage 3: the held-out screen.  The selected checkpoint of each trained weights an arm
# reads is frozen (copied, SHA-256 recorded); the ledger opens the claim's screen block
# for its frozen hashes (pins checked first); every arm plays its seeds of the block
# (games.smk), a sequential screen look by look; the block is closed (every game in, the table's SHA-256 in the ledger); then
# the frozen files the arms read are hashed again.
from protocol.records_ids import protocol_sha256


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
    return sorted(a.record for a in CLAIMS[wc.claim].artefacts.values())


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
        artefacts=lambda wc: {k: {"record": a.record, "pin": a.sha256}
                              for k, a in CLAIMS[wc.claim].artefacts.items()},
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
# continue (played_looks), so a stopped screen plays nothing more.  Every output is written
# atomically, so a run that crashed between looks resumes at the same look.


def look_file(claim, k):
    """Look ``k``'s decision file (1-based)."""
    return PATHS.path("look", claim=claim, block=CLAIMS[claim].label, look=k)


def look_decision(claim, k):
    """Look ``k``'s decision (a checkpoint: asking for it makes Snakemake run it first).

    A decision already on disk and newer than every games file it read is read as it is:
    after a crash between looks, Snakemake's first pass over the DAG does not follow a chain
    of checkpoints that were made before (look 1 present, look 2 missing: the job waiting
    for both would run with look 1's input only), so only the first look still to make goes
    through the checkpoint."""
    from contracts.json_file import load_json

    p = CLAIMS[claim]
    made = Path(look_file(claim, k))
    read = [Path(PATHS.path("games", claim=claim, block=p.look_label(j), arm=a))
            for j in range(1, k + 1) for a in p.arms]
    if made.exists() and all(g.exists() and g.stat().st_mtime <= made.stat().st_mtime
                             for g in read):
        return load_json(made)["decision"]
    done = checkpoints.look.get(claim=claim, block=p.label, look=str(k))
    return load_json(done.output[0])["decision"]


def continued(claim, k):
    """Nothing once look ``k`` said continue; a request past a stopping look is an error, never
    a game."""
    from analysis.sequential import CONTINUE

    decision = look_decision(claim, k)
    if decision != CONTINUE:
        raise ValueError(f"claim {claim}: look {k} decided {decision}; the games of look "
                         f"{k + 1} are never played")


def played_looks(claim):
    """The looks a sequential screen makes: up to the first that does not say continue."""
    from analysis.sequential import CONTINUE

    out = []
    for k in range(1, len(CLAIMS[claim].sequential.looks) + 1):
        out.append(k)
        if look_decision(claim, k) != CONTINUE:
            break
    return out


def screen_games(claim, arms=None):
    """The games files of a claim's screen (``arms``: all): one per arm, or for a sequential
    screen one per arm and look it made."""
    p = CLAIMS[claim]
    arms = list(p.arms) if arms is None else arms
    if p.sequential is None:
        return [PATHS.path("games", claim=claim, block=p.label, arm=a) for a in arms]
    return [PATHS.path("games", claim=claim, block=p.look_label(k), arm=a)
            for k in played_looks(claim) for a in arms]


def look_inputs(wc):
    """The ledger's answer and every arm's games of looks 1..k."""
    p, k = CLAIMS[wc.claim], int(wc.look)
    return {"opened": PATHS.path("opened", claim=wc.claim, block=p.label),
            "games": [PATHS.path("games", claim=wc.claim, block=p.look_label(j), arm=a)
                      for j in range(1, k + 1) for a in p.arms]}


checkpoint look:
    input:
        unpack(look_inputs),
    output:
        PATHS.pattern("look"),
    log:
        log("{block}/look-{look}"),
    localrule: True
    params:
        design=lambda wc: CLAIMS[wc.claim].sequential.spec(),
        arms=lambda wc: list(CLAIMS[wc.claim].contrasts[
            CLAIMS[wc.claim].sequential.contrast].arms),
        metric=lambda wc: CLAIMS[wc.claim].contrasts[CLAIMS[wc.claim].sequential.contrast].metric,
        start=lambda wc: CLAIMS[wc.claim].seeds[0],
        ledger=PLAN.profile["ledger"],
    script:
        "../scripts/look.py"


rule looks:
    input:
        lambda wc: [look_file(wc.claim, k) for k in played_looks(wc.claim)],
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
    """The ledger's answer and every game played (a sequential screen's looks too)."""
    files = {"opened": PATHS.path("opened", claim=wc.claim, block=wc.block),
             "games": screen_games(wc.claim)}
    if CLAIMS[wc.claim].sequential is not None:
        files["looks"] = PATHS.path("looks", claim=wc.claim, block=wc.block)
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

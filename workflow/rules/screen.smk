# Stage 3: the held-out screen.  The selected checkpoint of each trained weights an arm
# reads is frozen (copied, SHA-256 recorded); the ledger opens the claim's screen block
# for its frozen hashes (pins checked first); every arm plays its seeds of the block
# (games.smk); the block is closed (every game in, the table's SHA-256 in the ledger); then
# the frozen files the arms read are hashed again.
from protocol.records import protocol_sha256


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


rule close_block:
    input:
        opened=PATHS.pattern("opened"),
        games=lambda wc: [PATHS.path("games", claim=wc.claim, block=wc.block, arm=a)
                          for a in CLAIMS[wc.claim].arms],
    output:
        table=PATHS.pattern("table"),
        closed=PATHS.pattern("closed"),
    log:
        log("{block}/close"),
    localrule: True
    params:
        ledger=PLAN.profile["ledger"],
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

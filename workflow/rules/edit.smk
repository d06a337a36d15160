# A training-free edit of n-tuple tables (a claim's `weights: {NAME: {edit: {from, rule}}}`,
# protocol/parts/edits.py): one job runs `drop7 tables edit` on the source's frozen tables once
# their freeze wrote them (a pinned directory is checked before any job), and writes the edited
# tables plain, as frozen weights are, with their record (the SHA-256 the ledger opener and the
# hashes after the games read).  An arm that names the edit waits for both (games.smk).


def edit_of(wc):
    return CLAIMS[wc.claim].edits[wc.weights]


rule edit_tables:
    input:
        lambda wc: edit_of(wc).inputs,
    output:
        tables=f"{PATHS.pattern('edited')}/{TABLES}",
        manifest=f"{PATHS.pattern('edited')}/{MANIFEST}",
        record=PATHS.pattern("edited_record"),
    log:
        log("edit-{weights}"),
    benchmark:
        bench("edit/{weights}")
    threads: 1
    resources:
        mem_mb=lambda wc: edit_of(wc).mem_mb,
        runtime=lambda wc: costs.runtime_minutes(edit_of(wc).seconds),
    params:
        command=lambda wc: edit_of(wc).command(),
    shell:
        "{params.command} > {log:q} 2>&1"

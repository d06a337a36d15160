# Stage 5: one self-contained HTML page per claim and profile (figures embedded; also written
# as PNGs for `snakemake --report`), its provenance, and reports/index.html listing every
# claim with its verdict.
from analysis.report.page import FIGURES


def manifests_of(wc):
    """Every checkpoint manifest of the claim's trained weights, by weights."""
    return {t.name: [segment_paths(wc.claim, t.name, s)[1] for s in t.steps]
            for t in CLAIMS[wc.claim].trained.values()}


def training_files(claim, others=True):
    """The files of a claim's trained weights the page and the records read: the validation
    curves, the training health (:func:`health_files`, another claim's too unless not
    ``others``) and the records of the weights trained by one job (their curves sit beside
    them, direct.smk)."""
    p = CLAIMS[claim]
    files = {"curves": [PATHS.path("curve", claim=claim, weights=w) for w in p.curve_weights()],
             "health": list(health_files(claim, others).values())}
    if p.direct_trained:
        files["direct_records"] = [t.record for t in p.direct_trained.values()]
    return files


def report_inputs(wc):
    """Everything the page shows; the screen's files only when its block was opened."""
    p = CLAIMS[wc.claim]
    files = {"verdict": PATHS.path("verdict", claim=wc.claim),
             "records": PATHS.path("records", claim=wc.claim),
             "gates": PATHS.path("gates", claim=wc.claim),
             "manifests": [f for fs in manifests_of(wc).values() for f in fs],
             **training_files(wc.claim)}
    if screen_opens(wc.claim):
        files.update(
            opened=PATHS.path("opened", claim=wc.claim, block=p.label),
            closed=PATHS.path("closed", claim=wc.claim, block=p.label),
            hashes=PATHS.path("hashes", claim=wc.claim, block=p.label),
            table=PATHS.path("table", claim=wc.claim, block=p.label),
            frozen=sorted(a.record for a in p.artefacts.values()),
            contrasts=[PATHS.path("contrast", claim=wc.claim, block=p.label, contrast=c)
                       for c in p.contrasts],
            **panel_files(wc.claim))
        if p.panel is not None:
            files["panel_public"] = PATHS.path("panel_public", claim=wc.claim)
    if p.replay is not None:
        files["register_replay"] = PATHS.path("register_replay", claim=wc.claim)
    return files


rule report:
    input:
        unpack(report_inputs),
    output:
        page=report(PATHS.pattern("page"), caption="../report/claim.rst",
                    category="Claim reports", labels={"claim": "{claim}"}),
        summary=PATHS.pattern("summary"),
        provenance=PATHS.pattern("provenance"),
        **{name: report(PATHS.pattern("figure", figure=name),
                        caption=f"../report/{name}.rst", category="Figures",
                        labels={"claim": "{claim}", "figure": name})
           for name in FIGURES},
    log:
        log("report"),
    localrule: True
    params:
        plan=lambda wc: CLAIMS[wc.claim].describe(),
        declared_in=lambda wc: str(CLAIMS[wc.claim].claim.path),
        replaces=lambda wc: (f"{DEFAULT_CLAIMS_DIR}/{wc.claim}.yaml"
                             if wc.claim in PLAN.replaces else None),
        manifests=manifests_of,
        health=lambda wc: health_files(wc.claim),
        direct=lambda wc: direct_described(wc.claim),
        profile=PLAN.profile,
        ledger=PLAN.profile["ledger"],
        repo=workflow.basedir,
        benchmarks=lambda wc: PATHS.path("benchmarks", claim=wc.claim),
    script:
        "../scripts/report.py"


rule index:
    input:
        [PATHS.path("summary", claim=c) for c in PLAN.run],
    output:
        INDEX,
    log:
        PATHS.path("log", claim="index", job="index"),
    localrule: True
    params:
        ledgers=sorted({PLAN.profile["ledger"], "data/screen-ledger.json"}),
        claims={c: {"title": p.claim.doc["title"], "path": str(p.claim.path)}
                for c, p in CLAIMS.items()},
    script:
        "../scripts/index.py"

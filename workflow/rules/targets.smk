# Named targets (besides `all`, in the Snakefile): one rule per claim (`<claim>`: its report),
# one per arm (`<claim>__<arm>`: its screen games; a sequential screen's look by look), one
# per panel (`<claim>__panel`: its readings) and one
# per trained weights (`<claim>__<weights>`: its validation curve, or for weights trained by one
# job their frozen record).  Dashes become underscores.


for _p in CLAIMS.values():

    rule:
        name:
            _p.rule
        localrule: True
        input:
            claim_done(_p.id),

    for _arm in _p.arms:

        rule:
            name:
                f"{_p.rule}__{_arm.replace('-', '_')}"
            localrule: True
            input:
                lambda wc, _c=_p.id, _a=_arm: screen_games(_c, [_a]),

    if _p.panel is not None:

        rule:
            name:
                f"{_p.rule}__panel"
            localrule: True
            input:
                PATHS.path("panel_readings", claim=_p.id, block=_p.label),

    for _w in _p.trained:

        rule:
            name:
                f"{_p.rule}__{_w.replace('-', '_')}"
            localrule: True
            input:
                PATHS.path("curve", claim=_p.id, weights=_w),

    for _w, _t in _p.direct_trained.items():

        rule:
            name:
                f"{_p.rule}__{_w.replace('-', '_')}"
            localrule: True
            input:
                _t.record,

"""Adapter: the claim's verdict from the gate, the validation curves and the screen contrasts."""

from adapter import log_to, run
from protocol import load_json, write_json

from analysis.verdict import PUBLIC_SCREEN_N, claim_verdict

S = snakemake  # noqa: F821


def margins(path: str) -> list[float]:
    return [p["margin"] for p in load_json(path)["points"]]


def main() -> None:
    gate = load_json(S.input.gate)
    inputs = dict(S.input.items())
    opened = load_json(inputs["opened"]) if "opened" in inputs else None
    # shrunk budgets (pilot, smoke) give pilot-tier evidence whatever the screen size
    public_n = PUBLIC_SCREEN_N if S.params.registered else S.params.screen_games + 1
    verdict = claim_verdict(
        candidate_margins=margins(S.input.candidate),
        ablation_margins=margins(S.input.ablation),
        primary=load_json(inputs["primary"]) if "primary" in inputs else None,
        direct=load_json(inputs["direct"]) if "direct" in inputs else None,
        gate_failed=not gate["passed"],
        reused_block=bool(opened and opened["reused"]),
        public_n=public_n,
        search=S.params.search,
    )
    write_json(S.output[0], verdict.to_dict())


with log_to(S.log[0]):
    run(main)

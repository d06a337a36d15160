# Config loading and validation, and the plan that names every arm and file.
import json
import os
import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

sys.path.insert(0, str(Path(workflow.basedir) / "workflow" / "scripts"))
# jobs call the `drop7` console script of the environment that runs Snakemake,
# so a virtual environment works without being activated
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
from plan import ConfigError, Plan, load_config  # noqa: E402

try:
    _merged = load_config(workflow.basedir, config)
except ConfigError as _exc:
    raise WorkflowError(str(_exc)) from None
# snakemake's own validation of the same schema (and it fills any defaults)
validate(_merged, "../schemas/config.schema.yaml")
config.clear()
config.update(_merged)
PLAN = Plan(config)

VALIDATION_ARMS = PLAN.validation_arms()
SCREEN_ARMS = PLAN.screen_arms()
CONTRASTS = PLAN.contrasts()
LOGS = f"{PLAN.root}/logs"
BENCH = f"{PLAN.root}/benchmarks"
#: rough seconds per game by search depth, for cluster runtime requests (minutes)
SECONDS_PER_GAME = {2: 2, 3: 20, 4: 400}


def arm_regex(names):
    """A wildcard constraint matching exactly these arm names."""
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


def play_runtime(block, arm, policies):
    """Minutes a game job asks for on a cluster."""
    games = -(-PLAN.seeds(block)[1] // PLAN.shards(block))
    return 10 + games * SECONDS_PER_GAME.get(policies[arm]["depth"], 1) // 60


def screen_opens():
    """Whether the screen block is opened: the gate checkpoint passed (criterion 1).

    Evaluated only after the gate ran, so no screen job exists before it.  Smoke
    tests set screen.require_training_signal: false to run every stage anyway.
    """
    with open(checkpoints.gate.get().output[0], encoding="utf-8") as fh:
        passed = bool(json.load(fh)["passed"])
    return passed or not config["screen"]["require_training_signal"]


# ---- input functions and resources of the stage files -------------------------------


def train_runtime(w):
    """Minutes a training job asks for (assumes at least 30,000 moves/s, checkpoints included)."""
    return 15 + w.moves // (30_000 * 60)


def validation_inputs(wildcards):
    """A validation arm's weights (its training record); none for the fair arm."""
    arm = VALIDATION_ARMS[wildcards.arm]
    if arm["weights"] is None:
        return []
    return [PLAN.trained(arm["weights"])]


def curve_checkpoints(weights):
    """The points of a validation curve: step, arm, checkpoint path, games table."""
    return [{"step": step, "arm": PLAN.validation_arm(weights, step),
             "path": PLAN.checkpoint(weights, step),
             "games": PLAN.games_csv("validation", PLAN.validation_arm(weights, step))}
            for step in PLAN.weights[weights].steps]


def screen_inputs(wildcards):
    """A screen arm needs the ledger's answer, and the frozen tables if it uses them."""
    arm = SCREEN_ARMS[wildcards.arm]
    files = [PLAN.opened]
    if arm["weights"] is not None:
        files += [f"{PLAN.frozen_dir}/tables.npy", f"{PLAN.frozen_dir}/manifest.json"]
    return files


def screen_verdict_inputs(wildcards):
    """The screen's contrasts and ledger answer, only when the gate passed."""
    if not screen_opens():
        return {}
    return {**{c: PLAN.stats(c) for c in CONTRASTS}, "opened": PLAN.opened}


def screen_report_inputs(wildcards):
    """The screen's files, only when the gate passed (else the page says why not)."""
    if not screen_opens():
        return {}
    return {"stats": [PLAN.stats(c) for c in CONTRASTS], "opened": PLAN.opened,
            "frozen": PLAN.frozen_record, "games": PLAN.screen_table}

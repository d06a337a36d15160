# The plan (protocol.plan): profile, claim declarations, every arm and file, one name each.
# Bad input stops here, before any job: one line naming the file and the key.
import os
import re
import sys
from pathlib import Path

from protocol import checks, commands, costs
from protocol.declaration import DEFAULT_CLAIMS_DIR
from protocol.paths import INDEX, VALIDATION
from protocol.plan import load_plan
from protocol.profile import command_line_origins
from protocol.schema import DeclarationError

# jobs call the `drop7` console script of the environment that runs Snakemake,
# so a virtual environment works without being activated
os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])

try:
    # errors name the --configfile or --config that set a key, not the profile's file
    PLAN = load_plan(workflow.basedir, config, command_line_origins(
        workflow.config_settings.configfiles, workflow.config_settings.config))
    checks.before_any_job(PLAN, hash_pinned=workflow.is_main_process)
except (DeclarationError, ValueError) as _exc:
    print(f"error: {_exc}", file=sys.stderr)
    sys.exit(2)
config.clear()
config.update(PLAN.profile)
PATHS = PLAN.paths
CLAIMS = PLAN.claims
# every external arm's program is started for its trial decisions before the estimate, in a
# dry run too, so the estimate costs its games from measured seconds (docs/referee.md); a
# program that cannot play is refused by the preflight of a run of its claim
TRIALS = checks.trial_programs(PLAN) if workflow.is_main_process else {}
if workflow.is_main_process:
    print(checks.estimate_table(PLAN, TRIALS), file=sys.stderr)


def claims_to_run():
    """The claims this run's jobs touch (a single target checks only its own claim)."""
    try:
        jobs = workflow.dag.needrun_jobs()
    except AttributeError:  # another Snakemake: check every claim of the default target
        return PLAN.run
    return sorted({j.wildcards_dict.get("claim") for j in jobs} & set(CLAIMS))


onstart:
    # only a real run (not a dry run) needs the disk and the memory
    try:
        print(checks.preflight(PLAN, claims_to_run(), trials=TRIALS), file=sys.stderr)
    except DeclarationError as _exc:
        print(f"error: {_exc}", file=sys.stderr)
        sys.exit(2)


def one_of(names):
    """A wildcard constraint matching exactly these names."""
    return "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True)) or "^$"


wildcard_constraints:
    claim=one_of(CLAIMS),
    block=r"validation|screen-\d+(/look-\d+)?",
    arm=r"[A-Za-z0-9-]+",
    weights=r"[A-Za-z0-9-]+",
    contrast=r"[A-Za-z0-9-]+",
    k=r"\d+",
    K=r"\d+",
    end=r"\d+",
    step=r"\d+",
    look=r"\d+",
    ranker=r"[A-Za-z0-9-]+",


def claim_done(claim):
    """What a claim's run leaves: its verdict and its page.  The verdict is asked for too, so
    the reports committed in ``reports/`` never stand for a run in a clone with no results."""
    return [PATHS.path("verdict", claim=claim), PATHS.path("page", claim=claim)]


def log(job):
    """A job's log path (``job`` may hold wildcards)."""
    return PATHS.pattern("log", job=job)


def bench(job):
    """A job's benchmark path; its first part names the stage in the report."""
    return PATHS.pattern("benchmark", job=job)


def gate_of(claim):
    """The gate decision of a claim (only after its gates job ran: a checkpoint)."""
    from contracts.json_file import load_json

    return load_json(checkpoints.gates.get(claim=claim).output[0])


def screen_opens(claim):
    """Whether a claim's screen block is opened: its gates and those of every claim whose
    frozen artefacts it reads (directly or through an edit) let it (a profile may open past
    failed gates: smoke)."""
    return all(gate_of(c)["opens_screen"] for c in CLAIMS[claim].gate_claims)


def arm_of(wc):
    """The planned arm of a job's wildcards."""
    return CLAIMS[wc.claim].block_arms(wc.block)[wc.arm]

# Drop7 evaluation harness: every claim of config/claims/ screened by one DAG.
#
#   snakemake --cores all                          # the default profile (pilot), every claim
#   snakemake --cores all --config profile=paper   # the registered budgets
#   snakemake --cores 2 -- fourth_ply              # one claim (and what it depends on)
#   snakemake --cores 2 -- fourth_ply__tables_d4s7 # one arm's screen games
#
# Stages (one include each): train segments -> training health -> validate checkpoints -> gates (a checkpoint)
# -> freeze (-> table edits) -> open the screen block (ledger) -> play in shards -> (a ranking panel: roots,
# rankings in shards, its table) -> close the block -> hashes
# -> contrasts -> readings and verdict -> report and index.  See docs/workflow.md.
import os

from snakemake.utils import min_version

min_version("9.0")

configfile: os.path.join(workflow.basedir, "config", "config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/direct.smk"
include: "workflow/rules/edit.smk"
include: "workflow/rules/health.smk"
include: "workflow/rules/games.smk"
include: "workflow/rules/validate.smk"
include: "workflow/rules/screen.smk"
include: "workflow/rules/panel.smk"
include: "workflow/rules/register_replay.smk"
include: "workflow/rules/stats.smk"
include: "workflow/rules/records.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/targets.smk"


rule all:
    default_target: True
    localrule: True
    input:
        [f for c in PLAN.run for f in claim_done(c)],
        INDEX,

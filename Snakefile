# Drop7 evaluation harness: one command reproduces a screen of the registered n-tuple claim.
#
#   snakemake --cores all                          # the default profile (pilot)
#   snakemake --cores all --config profile=paper   # the registered budget
#   snakemake --cores 2 --config profile=pilot -- ablation_E   # one named target
#
# Stages (one include each): train -> validate -> gate (a checkpoint: criterion 1)
# -> freeze -> open the screen block (ledger) -> screen games in shards -> stats
# -> verdict -> report.  See docs/workflow.md.
import os

from snakemake.utils import min_version

min_version("9.0")

configfile: os.path.join(workflow.basedir, "config", "config.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/train.smk"
include: "workflow/rules/validate.smk"
include: "workflow/rules/gate.smk"
include: "workflow/rules/screen.smk"
include: "workflow/rules/stats.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        PLAN.page,
        PLAN.INDEX,

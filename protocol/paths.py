"""Every file a run reads or writes, as one table of path templates.

``{root}`` is ``results/<profile>``; the other fields are the wildcards of
the workflow's rules (``claim``, ``weights``, ``block``, ``arm``, ``k``,
``K``, ``contrast``, ``figure``, ``job``, ``step``, ``look``, a panel's
``ranker``).  A block is ``validation``,
``screen-<first block>`` or, for the games of a sequential screen's look ``k``,
``screen-<first block>/look-<k>``.  :meth:`Paths.pattern` gives a template with the
run's fields filled in and the rest left as ``{wildcards}`` (what a rule
declares); :meth:`Paths.path` fills every field (what a script or a test
reads).  The trainer's own directory format sits under ``train``
(:mod:`contracts.train_directory`).
"""

from __future__ import annotations

from typing import Any

TEMPLATES = {
    "train": "{root}/claims/{claim}/train/{weights}",
    "curve": "{root}/claims/{claim}/validation/curves/{weights}.json",
    "health_point": "{root}/claims/{claim}/health/{weights}/step-{step}.json",
    "health": "{root}/claims/{claim}/health/{weights}.json",
    "shard": "{root}/claims/{claim}/{block}/shards/{arm}/shard-{k}-of-{K}.csv",
    "games": "{root}/claims/{claim}/{block}/games/{arm}.csv",
    "table": "{root}/claims/{claim}/{block}/games.csv",
    "gates": "{root}/claims/{claim}/gates.json",
    "frozen": "{root}/claims/{claim}/frozen/{weights}",
    "frozen_record": "{root}/claims/{claim}/frozen/{weights}.json",
    # a training-free edit of n-tuple tables (protocol.parts.edits): plain tables and record
    "edited": "{root}/claims/{claim}/edits/{weights}",
    "edited_record": "{root}/claims/{claim}/edits/{weights}.json",
    "opened": "{root}/claims/{claim}/{block}/opened.json",
    "preregistered": "{root}/claims/{claim}/{block}/experiment.json",
    "closed": "{root}/claims/{claim}/{block}/closed.json",
    "hashes": "{root}/claims/{claim}/{block}/hashes.json",
    "contrast": "{root}/claims/{claim}/{block}/contrasts/{contrast}.json",
    "look": "{root}/claims/{claim}/{block}/looks/look-{look}.json",
    "looks": "{root}/claims/{claim}/{block}/looks.json",
    "verdict": "{root}/claims/{claim}/verdict.json",
    "provenance": "{root}/claims/{claim}/provenance.json",
    "records": "reports/{profile}/records/{claim}",
    # a ranking panel's roots, table and readings, committed beside the page: its readings
    # recompute from them (the games of a screen are in its records' games.jsonl)
    "panel_public": "reports/{profile}/panels/{claim}",
    "figure": "{root}/claims/{claim}/figures/{figure}.png",
    "page": "reports/{profile}/{claim}.html",
    "summary": "reports/{profile}/{claim}.json",
    "log": "{root}/logs/{claim}/{job}.log",
    "benchmarks": "{root}/benchmarks/{claim}",
    # a ranking panel (docs/panels.md): its roots, each ranker's shards, the merged table and
    # the readings, under the claim's screen block
    "panel_roots": "{root}/claims/{claim}/{block}/panel/roots.json",
    "panel_shard": "{root}/claims/{claim}/{block}/panel/shards/{ranker}/shard-{k}-of-{K}.csv",
    "panel_table": "{root}/claims/{claim}/{block}/panel/panel.csv",
    "panel_readings": "{root}/claims/{claim}/{block}/panel/readings.json",
    # the register's published games of an arm replayed game for game (recorded.replay): on
    # the register's seeds, not on a block of ours
    "register_replay": "{root}/claims/{claim}/register-replay.json",
}
TEMPLATES["benchmark"] = TEMPLATES["benchmarks"] + "/{job}.tsv"
INDEX = "reports/index.html"
VALIDATION = "validation"
#: a sequential screen's look ``k`` plays its games under ``<screen block>/look-<k>``
LOOK = "look"


def screen_label(block: int) -> str:
    """The block field of a screen block's files."""
    return f"screen-{block}"


class _Keep(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


class Paths:
    """The path templates of one profile's run."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.root = f"results/{profile}"

    def pattern(self, name: str, **fields: Any) -> str:
        """Template ``name`` with the run's fields (and ``fields``) filled in, the rest kept."""
        return TEMPLATES[name].format_map(_Keep(root=self.root, profile=self.profile,
                                                **fields))

    def path(self, name: str, **fields: Any) -> str:
        """Template ``name`` with every field filled in (a KeyError names a missing one)."""
        return TEMPLATES[name].format(root=self.root, profile=self.profile, **fields)

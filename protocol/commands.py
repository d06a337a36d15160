"""The engine's command lines as the workflow's rules run them, each built and quoted here.

A rule's ``shell:`` is ``{params.command}`` followed by its files (``{input:q}``,
``{output:q}``); every word that comes from a declaration (an arm's policy, which may hold
a pinned file's path with a quote or a space in it) is quoted by :func:`line`, one place,
so no path a check has accepted can break a command after its block was opened.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any


def line(*words: object) -> str:
    """``words`` as one shell command line, each quoted as the shell needs."""
    return shlex.join(str(w) for w in words)


def play(arm: str, policy: str, seeds: str, shard: str) -> str:
    """``drop7 run-arms`` playing one shard of an arm's games (``seeds``: ``START:COUNT``,
    ``shard``: ``k/K``); the rule adds ``--out``."""
    return line("drop7", "run-arms", "--arm", f"{arm}={policy}", "--seeds", seeds,
                "--shard", shard, "--progress-s", 60)


def merge(seeds: str) -> str:
    """``drop7 run-arms --merge``: an arm's shards in one table; the rule adds the shards
    and ``--out``."""
    return line("drop7", "run-arms", "--seeds", seeds, "--merge")


def panel_roots(policy: str, seeds: str, every: int, limit: int | None) -> str:
    """``drop7 panel roots``: a panel's roots from the roots arm's games."""
    return line("drop7", "panel", "roots", "--policy", policy, "--seeds", seeds,
                "--every", every, *(() if limit is None else ("--limit", limit)))


def panel_answer(name: str, policy: str, work: str,
                 outcome: Mapping[str, Any] | None) -> str:
    """``drop7 panel label`` (an outcome reference or ranker, ``outcome`` its settings) or
    ``drop7 panel rank`` (an arm's ranking) answering at a panel's roots."""
    if outcome is not None:
        return line("drop7", "panel", "label", "--name", name, "--policy", policy,
                    "--continuations", outcome["continuations"], "--horizon",
                    outcome["horizon"], "--target", outcome["target"], "--seed",
                    outcome["seed"], "--work", work)
    return line("drop7", "panel", "rank", "--ranker", f"{name}={policy}", "--work", work)


def panel_merge(names: list[str]) -> str:
    """``drop7 panel merge``: a panel's shards in one table; the rule adds ``--roots``,
    ``--out`` and the shards."""
    return line("drop7", "panel", "merge", "--rankers", ",".join(names))


def train(learner: str, recipe: Mapping[str, Any], end: int, out: str, start: int) -> str:
    """The ``drop7`` command that trains one segment of a claim's weights from ``start`` to
    ``end`` into ``out``: its learner's words
    (:attr:`engines.learners.registry.LearnerKind.command`, ``recipe`` the planned
    training's), quoted.  The rule adds ``--threads``."""
    from engines.learners import get_learner

    return line(*get_learner(learner).command(recipe, end, out, start))


def tables_edit(source: str, rule: str, out: str, record: str, artefact: str,
                check: tuple[str, str]) -> str:
    """``drop7 tables edit``: a training-free edit of n-tuple tables (``rule``, its flag
    ``--<rule>``) written plain into ``out`` with its ``record`` naming the ``artefact``;
    ``check``: the option giving the source's SHA-256 and its value (``--source-record FILE``
    or ``--source-sha256 HEX``)."""
    return line("drop7", "tables", "edit", source, f"--{rule}", "--out", out, "--plain",
                "--record", record, "--artefact", artefact, *check)


def evaluate(checkpoint: str, games: int) -> str:
    """``drop7 evaluate``: a checkpoint played one ply and at random on the health seeds; the
    rule adds ``--out``."""
    return line("drop7", "evaluate", checkpoint, "--games", games, "--no-verify")


def register_replay(policy: str, sha256: str, limit: int | None) -> str:
    """``drop7 register-replay``: the register's published games of a claim's arm replayed
    game for game by its declared policy; the rule adds ``--games`` and ``--out``."""
    return line("drop7", "register-replay", "--policy", policy, "--sha256", sha256,
                *(() if limit is None else ("--limit", limit)))


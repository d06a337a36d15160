"""The ``drop7`` console script: one dispatcher above every layer.

Each subcommand lives with its code (the engines, the statistics, the
protocol's records) and is loaded when called (:mod:`cli.commands`).  Bad
input is reported as one line on stderr with exit status 2
(:mod:`contracts.errors`): a subcommand raises :class:`InputError` (or
``ValueError`` / ``OSError``) and the dispatcher prints it; a flag that
argparse refuses is reported the same way (:mod:`contracts.cli_parser`).
Integer flags use :func:`contracts.cli_numbers.int_option` and seed blocks
:func:`contracts.cli_numbers.parse_seed_block`, so every subcommand refuses
out-of-range numbers before any work.
"""

from __future__ import annotations

import sys
from types import ModuleType

from cli.commands import Command, registrar
from contracts.cli_parser import OneLineParser
from contracts.errors import EXIT_BAD_INPUT, InputError, print_error

#: name -> its help and the loader of its module, in the order ``drop7 --help`` lists them
COMMANDS: dict[str, Command] = {}
command = registrar(COMMANDS)


@command("replay", "replay drop7-replay-v1 records (FILE or -)")
def _replay() -> ModuleType:
    from engines.drop7 import replay
    return replay


@command("play", "play whole games of a policy on a seed range")
def _play() -> ModuleType:
    from engines.play import play_cli
    return play_cli


@command("register-replay", "replay the register's published games of one arm game for game")
def _register_replay() -> ModuleType:
    from engines.play import register_replay
    return register_replay


@command("bench", "benchmarks printing JSON (drop7 bench --help lists the targets)")
def _bench() -> ModuleType:
    from cli import bench
    return bench


@command("leaf-terms", "the frozen fair leaf's 18 terms and value")
def _leaf_terms() -> ModuleType:
    from engines.leaves import cli
    return cli


@command("train", "train n-tuple or linear-trained weights by TC-TD(0)")
def _train() -> ModuleType:
    from engines.train import cli
    return cli


@command("fit-q", "fit the one-ply ridge Q to a search's column values on training roots")
def _fit_q() -> ModuleType:
    from engines.play import oneply_q_fit
    return oneply_q_fit


@command("kf-train", "train the six Klein-Friedmann weights by the register's Q-learner")
def _kf_train() -> ModuleType:
    from engines.learners import kf_q_train
    return kf_q_train


@command("weight-search", "CMA-ES or cross-entropy search of leaf or KF weights by games")
def _weight_search() -> ModuleType:
    from engines.learners import search_cli
    return search_cli


@command("nnue-distil", "distil a teacher search's column values into the network leaf")
def _nnue_distil() -> ModuleType:
    from engines.learners import distil_cli
    return distil_cli


@command("nnue-evolve", "evolve a network leaf's weights by whole games (mutation-only GA)")
def _nnue_evolve() -> ModuleType:
    from engines.learners import evolve_cli
    return evolve_cli


@command("evaluate", "one-ply play of trained weights beside their start and random play")
def _evaluate() -> ModuleType:
    from engines.train import evaluate
    return evaluate


@command("stats", "paired-screen statistics of a games table")
def _stats() -> ModuleType:
    from analysis import cli
    return cli


@command("run-arms", "play several arms on one seed block, one shard")
def _run_arms() -> ModuleType:
    from engines.play import runner_cli
    return runner_cli


@command("serve", "a policy speaking the referee protocol on stdin/stdout")
def _serve() -> ModuleType:
    from engines.play import serve
    return serve


@command("panel", "a ranking panel: roots, rank, label, merge, read")
def _panel() -> ModuleType:
    from cli import panel
    return panel


@command("records", "register record bundles: validate DIR, rebuild DIR, register-check")
def _records() -> ModuleType:
    from protocol.records import cli as records_cli
    return records_cli


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``drop7`` and ``python -m cli``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        lines = [f"  {name:<11} {c.help}" for name, c in COMMANDS.items()]
        usage = "usage: drop7 COMMAND [ARGS]\n\ncommands:\n" + "\n".join(lines)
        if argv and argv[0] not in ("-h", "--help"):
            print_error(f"unknown command {argv[0]!r}", prog="drop7")
            print(usage, file=sys.stderr)
            return EXIT_BAD_INPUT
        print(usage)
        return 0 if argv else 2
    name = argv[0]
    module = COMMANDS[name].load()
    parser = OneLineParser(prog=f"drop7 {name}", description=COMMANDS[name].help)
    module.add_arguments(parser)
    try:
        args = parser.parse_args(argv[1:])
        return int(module.run(args) or 0)
    except (InputError, ValueError, OSError) as exc:
        return print_error(exc, prog=f"drop7 {name}")
    except MemoryError:
        return print_error("out of memory (are the numbers too large?)", prog=f"drop7 {name}")
    except KeyboardInterrupt:
        return 130

"""``drop7 bench TARGET``: throughput benchmarks that print one JSON object.

Targets live with their code: ``engine`` (:mod:`engines.drop7.engine_bench`),
``train`` (:mod:`engines.train.bench`), ``search`` (:mod:`engines.search.bench`)
``leaf`` (:mod:`engines.leaves.bench`), ``memory``
(:mod:`engines.ntuple.memory_bench`) and ``referee``
(:mod:`engines.play.referee_bench`).  Each module exposes
``add_arguments(parser)`` and ``run(args) -> int``.  Every benchmark warms
numba up before it starts the clock.
"""

from __future__ import annotations

import argparse
import importlib

TARGETS = {
    "engine": ("engines.drop7.engine_bench", "random legal play on one core: moves/s"),
    "train": ("engines.train.bench", "TC-TD training moves/s and table lookups/s"),
    "search": ("engines.search.bench", "dDsS search decisions/s and nodes/s"),
    "leaf": ("engines.leaves.bench", "frozen fair leaf: ns per evaluation"),
    "memory": ("engines.ntuple.memory_bench", "latency of a random read by table footprint"),
    "referee": ("engines.play.referee_bench", "an external program's round trip per decision"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register one sub-parser per benchmark target."""
    sub = parser.add_subparsers(dest="target", required=True, metavar="TARGET")
    for name, (module_name, text) in TARGETS.items():
        p = sub.add_parser(name, help=text, description=text)
        importlib.import_module(module_name).add_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Run the chosen target."""
    return importlib.import_module(TARGETS[args.target][0]).run(args)

"""``drop7 bench TARGET``: throughput benchmarks that print one JSON object.

Targets live with their code; each module exposes ``add_arguments(parser)``
and ``run(args) -> int`` and is loaded only when its target is parsed or run
(:mod:`cli.commands`).  Every benchmark warms numba up before it starts the
clock and prints :func:`contracts.machine_facts.machine_facts` with its
figures.
"""

from __future__ import annotations

import argparse
from types import ModuleType

from cli.commands import Command, registrar

#: target -> its help and the loader of its module
TARGETS: dict[str, Command] = {}
target = registrar(TARGETS)


@target("engine", "random legal play on one core: moves/s")
def _engine() -> ModuleType:
    from engines.drop7 import engine_bench
    return engine_bench


@target("train", "TC-TD training moves/s and table lookups/s")
def _train() -> ModuleType:
    from engines.train import bench
    return bench


@target("search", "dDsS search decisions/s and nodes/s, n-tuple leaf evaluations")
def _search() -> ModuleType:
    from engines.search import bench
    return bench


@target("leaf", "a leaf evaluation (fair leaf or fresh n-tuple tables): ns")
def _leaf() -> ModuleType:
    from engines.search import leaf_bench
    return leaf_bench


@target("memory", "latency of a random read by table footprint")
def _memory() -> ModuleType:
    from engines.ntuple import memory_bench
    return memory_bench


@target("referee", "an external program's round trip per decision")
def _referee() -> ModuleType:
    from engines.play import referee_bench
    return referee_bench


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register one sub-parser per benchmark target."""
    sub = parser.add_subparsers(dest="target", required=True, metavar="TARGET")
    for name, t in TARGETS.items():
        p = sub.add_parser(name, help=t.help, description=t.help)
        t.load().add_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Run the chosen target."""
    return TARGETS[args.target].load().run(args)

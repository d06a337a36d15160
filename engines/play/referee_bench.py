"""``drop7 bench referee``: the round trip of one decision through the referee protocol.

An external policy (``--policy external[...]:COMMAND``) plays ``--games``
whole games; each decision is timed from the harness writing ``position``
and ``go`` to its reading the answer (the program's own thinking included,
so a trivial player measures the protocol).  The median, mean and 90th
percentile are reported with the machine's load average (1 minute) before
and after, since other work on the machine moves the figure.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from contracts.cli_numbers import int_option
from contracts.machine_facts import machine_facts
from engines.play.arm_specs import ExternalSpec, PolicyError
from engines.play.games import centre_first, play_policy, warm_up_driver
from engines.play.policy import load_policy
from engines.play.policy_grammar import parse_policy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 bench referee``."""
    parser.add_argument("--policy", required=True,
                        help="an external policy, e.g. 'external:python3 tests/referee_player.py'")
    parser.add_argument("--games", type=int_option(1), default=100, help="games on seeds 1..N")
    parser.add_argument("--json", action="store_true", help="print JSON (the default format)")


def run(args: argparse.Namespace) -> int:
    """Time every decision and print one JSON object."""
    spec = parse_policy(args.policy)
    if not isinstance(spec, ExternalSpec):
        raise PolicyError(f"{args.policy}: drop7 bench referee times an external policy")
    warm_up_driver()
    policy = load_policy(spec)
    policy.warm_up()
    times: list[float] = []

    def choose(state: np.ndarray, cols: np.ndarray) -> int:
        t0 = time.perf_counter()
        column = policy.choose(state, cols)
        times.append(time.perf_counter() - t0)
        return column if 0 <= column <= 6 else centre_first(cols)

    load = [os.getloadavg()[0]]
    try:
        for seed in range(1, args.games + 1):
            play_policy(policy, seed, choose)
    finally:
        policy.close()
    load.append(os.getloadavg()[0])
    us = np.array(times) * 1e6
    print(json.dumps({"benchmark": "referee", "policy": policy.name, "games": args.games,
                      "decisions": len(us), "us_median": round(float(np.median(us)), 1),
                      "us_mean": round(float(us.mean()), 1),
                      "us_p90": round(float(np.percentile(us, 90)), 1),
                      "load_1min": [round(x, 2) for x in load], "cpus": os.cpu_count(),
                      **machine_facts()}))
    return 0

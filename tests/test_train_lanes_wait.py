"""Threads waiting at a barrier sleep: they do not burn a core another thread needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import pytest

#: a parallel loop whose second thread has nothing to do: 2,000 regions, each some
#: microseconds of work on one thread.  A thread that sleeps at the barrier switches out
#: voluntarily once a region; one that spins (libgomp's default spins for milliseconds)
#: hardly ever does, however busy the machine (being preempted is an involuntary switch)
ROUNDS = 2000
_PROBE = """
import json, os, resource
import numpy as np
import engines  # noqa: F401  (sets the wait policy, as every entry point does)
import numba
from numba import njit, prange

@njit(parallel=True)
def imbalanced(rounds, work, out):
    for r in range(rounds):
        for t in prange(2):
            if t == 0:
                x = 0.0
                for i in range(work):
                    x += np.sqrt(i + r + 1.0)
                out[t] += x

out = np.zeros(2)
numba.set_num_threads(2)
imbalanced(2, 10, out)
before = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
imbalanced(ROUNDS, 5_000, out)
switches = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - before
print(json.dumps({"switches": switches, "layer": numba.threading_layer(),
                  "policy": os.environ.get("OMP_WAIT_POLICY")}))
"""


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two threads")
def test_a_waiting_thread_sleeps_instead_of_spinning() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    run = subprocess.run([sys.executable, "-c", _PROBE.replace("ROUNDS", str(ROUNDS))],
                         env=env, capture_output=True, text=True, check=True)
    probe = json.loads(run.stdout)
    if probe["layer"] != "omp":
        pytest.skip(f"numba's threading layer is {probe['layer']}, not OpenMP")
    assert probe["policy"] == "passive"
    assert probe["switches"] >= ROUNDS // 2, probe

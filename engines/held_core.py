"""A competing process that holds one core: the busy machine of ``drop7 bench train --busy``
and of the lane trainer's tests.

It is a Python loop in a child process (``yes >/dev/null`` does the same, where there is a
``yes``), reniced by ``nice`` and ending by itself after ``seconds`` (so it never outlives a
crashed caller by long); leaving the ``with`` block stops it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_LOOP = """
import os, time
os.nice({nice})
end = time.monotonic() + {seconds}
print("ready", flush=True)
while time.monotonic() < end:
    pass
"""


@contextmanager
def held_core(seconds: float, nice: int = 0) -> Iterator[subprocess.Popen]:
    """Run a busy loop in a child process for the ``with`` block (at most ``seconds``)."""
    proc = subprocess.Popen([sys.executable, "-c", _LOOP.format(nice=int(nice),
                                                               seconds=float(seconds))],
                            stdout=subprocess.PIPE, text=True)
    try:
        if proc.stdout is None or proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the competing process did not start")
        yield proc
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

"""The facts every benchmark prints about the machine it ran on (Python, architecture, CPU).

Each ``drop7 bench`` target adds them to its JSON object, so a figure read
later names where it was measured.
"""

from __future__ import annotations

import platform


def machine_facts() -> dict:
    """Facts about the machine a benchmark ran on."""
    return {"python": platform.python_version(), "machine": platform.machine(),
            "processor": platform.processor() or platform.machine()}

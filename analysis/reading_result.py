"""One reading's result (:class:`Reading`) and the outcome of a reading whose data does not exist.

Its own module, below both registries that return it: :mod:`analysis.readings`
(every reading kind, the panel's among them) and :mod:`analysis.panel_readings`
(the panel kinds' readers), so the first can take the panel kinds from the
second without an import cycle.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: the outcome of a reading whose data does not exist
NOT_RUN = "not-run"


@dataclass(frozen=True)
class Reading:
    """One reading's result."""

    name: str
    kind: str
    title: str
    outcome: str
    reason: str
    numbers: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

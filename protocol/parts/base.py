"""What every claim part's check and plan share.

:class:`KeyCheck` refuses a declaration in one line naming its file and key;
:class:`ProfileSettings` is a profile's settings for one claim (its
overrides, then the caps), which only shrink what a claim declares;
:func:`dtag` and :func:`moves_text` name a search and a budget in arm names
and in what a profile shrank.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from protocol.claim import Claim
from protocol.profile import blamer
from protocol.profile import source as profile_source
from protocol.schema import DeclarationError


class KeyCheck:
    """Raise one line naming the declaration's file and a key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> None:
        raise DeclarationError(f"{self.path}: key {key}: {message}")


def names_of(items: Mapping[str, Any]) -> str:
    """The names of ``items`` as a refusal lists them (``none`` for none)."""
    return ", ".join(items) or "none"


class ProfileSettings:
    """The profile's settings for one claim: overrides first, then the caps."""

    def __init__(self, profile: Mapping[str, Any], claim: Claim,
                 blame: Callable[[str], str] | None = None) -> None:
        self.profile = profile
        self.claim = claim
        self.caps = profile["shrink"]
        self.over = profile["claims"].get(claim.id, {})
        self.blame = blame or blamer(profile_source(profile))

    def fail(self, key: str, message: str) -> None:
        raise DeclarationError(f"{self.blame(key)}: key {key}: {message}")

    def size(self, override_key: tuple[str, ...], cap: str | None, declared: int) -> int:
        """An effective size: the override (no larger than declared), else the capped value."""
        value: Any = self.over
        for k in override_key:
            value = value.get(k, {}) if isinstance(value, Mapping) else {}
        if isinstance(value, int):
            if value > declared:
                self.fail(f"claims.{self.claim.id}.{'.'.join(override_key)}",
                          f"{value:,} is more than the declared {declared:,}: a profile may "
                          "only shrink a claim")
            return value
        return min(declared, self.caps.get(cap, declared)) if cap else declared

    def layout(self, name: str, declared: str | None) -> str | None:
        """A trained weights' layout in this profile: ``claims.<id>.weights.<name>.layout``
        when set, which may only key the declared layout's base on fewer fill buckets of the
        same measure (its cuts among the declared ones: a coarser bucketing, fewer entries),
        else the declared layout."""
        want = self.over.get("weights", {}).get(name, {}).get("layout")
        if want is None or want == declared:
            return declared
        from engines.ntuple.layouts import coarsens, get_layout

        key = f"claims.{self.claim.id}.weights.{name}.layout"
        try:
            target = get_layout(want)
        except ValueError as exc:
            self.fail(key, str(exc))
        if declared is None or not coarsens(get_layout(declared), target):
            self.fail(key, f"{want} does not shrink the declared layout {declared}: a profile "
                      "may only key its base layout on fewer fill buckets of the same measure "
                      "(cuts among the declared ones)")
        return want

    def search(self, depth: int, strata: int) -> tuple[int, int]:
        """A search's effective depth and strata: the claim's ``search`` settings, key by key
        in place of the caps (both only shrink: a shift of at most 0, strata at most these)."""
        shrink = {**self.caps, **self.over.get("search", {})}
        return (max(1, depth + shrink.get("depth_shift", 0)),
                min(strata, shrink.get("strata", strata)))

    def reveals(self, reveals: int | None) -> int | None:
        """A factored search's effective reveal samples per disc stratum (None: not one)."""
        return None if reveals is None else min(reveals, self.caps.get("reveals", reveals))


def moves_text(n: int) -> str:
    """``2e7``, ``2.5e8`` or ``20,000``."""
    if n < 10**6:
        return f"{n:,}"
    exp = len(str(n)) - 1
    return f"{n / 10**exp:g}e{exp}"


def dtag(depth: int, strata: int, reveals: int | None = None) -> str:
    """``d3s7``, or ``d3s7r6`` for a factored search with 6 reveal samples per disc stratum."""
    return f"d{depth}s{strata}" + ("" if reveals is None else f"r{reveals}")

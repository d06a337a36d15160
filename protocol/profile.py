"""Profiles: ``config/profiles/<name>.yaml`` merged with Snakemake's overrides, schema-checked.

Snakemake's ``config`` holds ``config/config.yaml`` (which names the
profile), then any ``--configfile``, then ``--config``; its ``profile`` key
picks the profile file and every other key overrides that file's (nested
mappings merge key by key).  The result is checked against
``profile.schema.yaml`` with its defaults filled in.

The keys that turn a guard off (:data:`GUARDS_OFF`: ``enforce_gates:
false``, ``allow_reuse: true``, ``ledger_new: true``) are refused on a
profile that writes the committed ledger (``data/screen-ledger.json``):
only a profile with a ledger of its own (smoke) may set them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from protocol.ledger import COMMITTED, is_committed
from protocol.schema import DeclarationError, check, plain, read_yaml

DEFAULT_PROFILE = "pilot"
PROFILES_DIR = Path("config") / "profiles"
#: profile keys, with the value that turns a guard off
GUARDS_OFF = {"enforce_gates": False, "allow_reuse": True, "ledger_new": True}


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``over``, merging nested mappings key by key."""
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def profile_names(basedir: str | Path) -> list[str]:
    """Profiles available under ``config/profiles``."""
    return sorted(p.stem for p in (Path(basedir) / PROFILES_DIR).glob("*.yaml"))


def load_profile(basedir: str | Path, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The merged, validated profile of a run (``overrides``: Snakemake's ``config``)."""
    over = plain(overrides)
    name = over.pop("profile", DEFAULT_PROFILE)
    names = profile_names(basedir)
    if not isinstance(name, str) or name not in names:
        raise DeclarationError(f"config: key profile = {name!r}: no such profile (choose from "
                               f"{', '.join(names)})")
    path = PROFILES_DIR / f"{name}.yaml"
    base = read_yaml(Path(basedir) / path) or {}
    if not isinstance(base, Mapping):
        raise DeclarationError(f"{path}: must be a mapping of keys")
    source = f"{path}" + (" (with the command line's overrides)" if over else "")
    profile = check({**deep_merge(plain(base), over), "profile": name}, "profile", source)
    check_guards(profile, source, basedir)
    return profile


def check_guards(profile: Mapping[str, Any], source: str, basedir: str | Path | None = None
                 ) -> None:
    """Refuse a key that turns a guard off on a profile that writes the committed ledger."""
    if not is_committed(profile["ledger"], basedir):
        return
    for key, off in GUARDS_OFF.items():
        if profile[key] == off:
            raise DeclarationError(
                f"{source}: key {key}: {str(off).lower()} turns a guard off, and this profile "
                f"writes the committed ledger {COMMITTED}; only a profile with a ledger of its "
                "own (smoke) may set it")

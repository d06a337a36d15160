"""Profiles: ``config/profiles/<name>.yaml`` merged with Snakemake's overrides, schema-checked.

Snakemake's ``config`` holds ``config/config.yaml`` (which names the
profile), then any ``--configfile``, then ``--config``; its ``profile`` key
picks the profile file and every other key overrides that file's (nested
mappings merge key by key).  The result is checked against
``profile.schema.yaml`` with its defaults filled in.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from protocol.schema import DeclarationError, check, plain, read_yaml

DEFAULT_PROFILE = "pilot"
PROFILES_DIR = Path("config") / "profiles"


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
    return check({**deep_merge(plain(base), over), "profile": name}, "profile", source)

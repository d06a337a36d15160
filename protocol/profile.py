"""Profiles: ``config/profiles/<name>.yaml`` merged with Snakemake's overrides, schema-checked.

Snakemake's ``config`` holds ``config/config.yaml`` (which names the
profile), then any ``--configfile``, then ``--config``; its ``profile`` key
picks the profile file and every other key overrides that file's (nested
mappings merge key by key).  The result is checked against
``profile.schema.yaml`` with its defaults filled in.  ``profile`` is the name
of a shipped profile or the path of a profile file of one's own
(``profile=my/quick.yaml``: its name is the file's stem, which must not be a
shipped profile's); ``file`` in the result is the profile file that was read,
the one every message about a profile key names.

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


def profile_file(basedir: str | Path, name: Any) -> tuple[str, Path, Path]:
    """``(name, shown, path)`` of the profile that ``profile=`` picks: a shipped profile's
    name, or the path of a ``.yaml`` profile file of one's own (relative paths from the
    working directory); ``shown`` is the file as messages name it, ``path`` where it is read."""
    names = profile_names(basedir)
    if isinstance(name, str) and name in names:
        return name, PROFILES_DIR / f"{name}.yaml", Path(basedir) / PROFILES_DIR / f"{name}.yaml"
    if isinstance(name, str) and name.endswith((".yaml", ".yml")):
        path = Path(name)
        if not path.is_file():
            raise DeclarationError(f"config: key profile = {name!r}: no such profile file")
        shipped = Path(basedir) / PROFILES_DIR / f"{path.stem}.yaml"
        if path.stem in names and path.resolve() != shipped.resolve():
            raise DeclarationError(f"{name}: key profile: its name {path.stem!r} is a shipped "
                                   "profile's (its results and reports would mix with that "
                                   "profile's): rename the file")
        return path.stem, path, path
    raise DeclarationError(f"config: key profile = {name!r}: no such profile (choose from "
                           f"{', '.join(names)}, or give the path of a .yaml profile file)")


def load_profile(basedir: str | Path, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The merged, validated profile of a run (``overrides``: Snakemake's ``config``)."""
    over = plain(overrides)
    over.pop("file", None)  # set here, never by an override
    name, path, where = profile_file(basedir, over.pop("profile", DEFAULT_PROFILE))
    base = read_yaml(where) or {}
    if not isinstance(base, Mapping):
        raise DeclarationError(f"{path}: must be a mapping of keys")
    source = f"{path}" + (" (with the command line's overrides)" if over else "")
    profile = check({**deep_merge(plain(base), over), "profile": name, "file": str(path)},
                    "profile", source)
    check_guards(profile, source, basedir)
    return profile


def evidence_limits(profile: Mapping[str, Any], basedir: str | Path | None = None
                    ) -> list[str]:
    """Why a run of this profile can prove no more than pilot evidence, whatever it shrinks:
    a ledger that is not the committed one (its blocks are recorded nowhere a later run
    checks) or a guard it turns off.  Empty for a profile that writes the committed ledger
    (which :func:`check_guards` keeps from turning a guard off)."""
    out = []
    if not is_committed(profile["ledger"], basedir):
        out.append(f"the {profile['profile']} profile keeps its own ledger "
                   f"({profile['ledger']}), not the committed {COMMITTED}: the blocks it reads "
                   "are not held out from later runs")
    out.extend(f"the {profile['profile']} profile sets {key}: {str(off).lower()} (a guard off)"
               for key, off in GUARDS_OFF.items() if profile[key] == off)
    return out


def source(profile: Mapping[str, Any]) -> str:
    """The profile file a message about one of its keys names."""
    return str(profile.get("file") or PROFILES_DIR / f"{profile['profile']}.yaml")


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

"""Profiles: ``config/profiles/<name>.yaml`` merged with Snakemake's overrides, schema-checked.

Snakemake's ``config`` holds ``config/config.yaml`` (which names the
profile), then any ``--configfile``, then ``--config``; its ``profile`` key
picks the profile file and every other key overrides that file's (nested
mappings merge key by key).  The result is checked against
``profile.schema.yaml`` with its defaults filled in.  ``profile`` is the name
of a shipped profile or the path of a profile file of one's own
(``profile=my/quick.yaml``: its name is the file's stem, which must not be a
shipped profile's); ``file`` in the result is the profile file that was read,
the one every message about a profile key names (:func:`source`).

The keys that turn a guard off (:data:`GUARDS_OFF`: ``enforce_gates:
false``, ``allow_reuse: true``, ``ledger_new: true``) are refused on a
profile that writes the committed ledger (``data/screen-ledger.json``):
only a profile with a ledger of its own (smoke) may set them.

Whether a profile writes the committed ledger is its file's to say: on a
profile whose file names the committed ledger, an override (``--config``,
``--configfile``) of a key of :data:`FILE_ONLY` or under
:data:`FILE_ONLY_TREES` (which ledger, whether its guards hold, which blocks
it reads, its sizes and searches, its statistics) that changes the file's
value is refused, and a profile whose file names a ledger of its
own cannot be pointed at the committed one.  Every error names the source
of the key: the ``--configfile`` that set it, ``--config``, or the profile's
file (:func:`blamer`).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from protocol.ledger import COMMITTED, is_committed
from protocol.schema import DeclarationError, check, plain, read_yaml

DEFAULT_PROFILE = "pilot"
#: a profile's name (its file's stem): a folder under results/ and reports/
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
PROFILES_DIR = Path("config") / "profiles"
#: profile keys, with the value that turns a guard off
GUARDS_OFF = {"enforce_gates": False, "allow_reuse": True, "ledger_new": True}
#: keys only the file of a profile writing the committed ledger sets
FILE_ONLY = ("ledger", "ledger_new", "enforce_gates", "allow_reuse", "block_offset")
#: mappings whose every key only that file sets: what a screen reads and how large it is
FILE_ONLY_TREES = ("claims", "shrink", "statistics")
#: where overrides come from, in the order they apply: (a file or "--config", its mapping)
Origins = Sequence[tuple[str, Mapping[str, Any]]]


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


def _sets(mapping: Mapping[str, Any], key: str) -> bool:
    """Whether ``mapping`` gives the dotted ``key``."""
    for part in key.split("."):
        if not isinstance(mapping, Mapping) or part not in mapping:
            return False
        mapping = mapping[part]
    return True


def command_line_origins(configfiles: Sequence[str | Path], config: Mapping[str, Any]
                         ) -> list[tuple[str, Mapping[str, Any]]]:
    """The origins of Snakemake's overrides: every ``--configfile`` (read), then ``--config``."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    for f in configfiles:
        shown = Path(f)
        shown = shown.relative_to(Path.cwd()) if shown.is_relative_to(Path.cwd()) else shown
        doc = read_yaml(f)
        out.append((str(shown), doc if isinstance(doc, Mapping) else {}))
    return [*out, ("--config", plain(config))]


def profile_file(basedir: str | Path, name: Any) -> tuple[str, Path, Path]:
    """``(name, shown, path)`` of the profile that ``profile=`` picks: a shipped profile's
    name, or the path of a ``.yaml`` profile file of one's own (relative paths from the
    working directory); ``shown`` is the file as messages name it, ``path`` where it is read."""
    names = profile_names(basedir)
    if isinstance(name, str) and name in names:
        return name, PROFILES_DIR / f"{name}.yaml", Path(basedir) / PROFILES_DIR / f"{name}.yaml"
    if isinstance(name, str) and name.endswith((".yaml", ".yml")):
        path = Path(name)
        if not NAME.fullmatch(path.stem):
            raise DeclarationError(f"config: key profile = {name!r}: the file's stem "
                                   f"{path.stem!r} names the profile's results and reports "
                                   "folders: use letters, digits, '-' and '_' (starting with a "
                                   "letter or digit)")
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


def source(profile: Mapping[str, Any]) -> str:
    """The profile file a message about one of its keys names."""
    return str(profile.get("file") or (PROFILES_DIR / f"{profile['profile']}.yaml").as_posix())


def blamer(path: str, origins: Origins | None = None) -> Callable[[str], str]:
    """The source to name for a dotted profile key: the last origin that sets it, else (or
    without ``origins``) the profile's file ``path``."""

    def source(key: str) -> str:
        for label, mapping in reversed(list(origins or [])):
            if _sets(mapping, key):
                return label
        return path

    return source


def _read(basedir: str | Path, overrides: Mapping[str, Any], origins: Origins | None
          ) -> tuple[dict[str, Any], dict[str, Any], str, Callable[[str], str]]:
    """``(own, merged, file, blame)``: the profile file's keys alone, merged with the
    overrides, the file as messages name it, and the source of each key."""
    over = plain(overrides)
    read = over.pop("file", None)  # set here, never by an override
    name = over.pop("profile", DEFAULT_PROFILE)
    if isinstance(read, str) and name == Path(read).stem and name not in profile_names(basedir):
        name = read  # a job's config: the plan's profile, named by its stem, read from its file
    name, path, where = profile_file(basedir, name)
    base = read_yaml(where) or {}
    if not isinstance(base, Mapping):
        raise DeclarationError(f"{path}: must be a mapping of keys")
    blame = blamer(path.as_posix(), origins)
    source = f"{path}" + (" (with the command line's overrides)" if over else "")
    own = check({**plain(base), "profile": name}, "profile", path)
    profile = check({**deep_merge(plain(base), over), "profile": name,
                     "file": path.as_posix()}, "profile", blame if origins is not None else source)
    return own, profile, path.as_posix(), blame


def load_profile_deferring_sizes(basedir: str | Path, overrides: Mapping[str, Any],
                                 origins: Origins | None = None
                                 ) -> tuple[dict[str, Any], Callable[[], None]]:
    """The merged, validated profile of a run, its guards and blocks checked, and the check of
    its size overrides (:func:`check_size_overrides`) for the caller to run once the claims
    are planned, so that a bad value is first named for what is wrong with it."""
    own, profile, path, blame = _read(basedir, overrides, origins)
    check_overrides(own, profile, path, blame, basedir)
    check_guards(profile, blame, basedir)
    return profile, partial(check_size_overrides, own, profile, path, blame, basedir)


def load_profile(basedir: str | Path, overrides: Mapping[str, Any],
                 origins: Origins | None = None) -> dict[str, Any]:
    """The merged, validated profile of a run (``overrides``: Snakemake's ``config``;
    ``origins``: where its overrides come from, :func:`command_line_origins`), every
    override checked."""
    profile, check_sizes = load_profile_deferring_sizes(basedir, overrides, origins)
    check_sizes()
    return profile


def check_size_overrides(own: Mapping[str, Any], merged: Mapping[str, Any], path: str,
                         blame: Callable[[str], str], basedir: str | Path | None = None
                         ) -> None:
    """Refuse an override of a key under :data:`FILE_ONLY_TREES` (a screen's size, search
    or statistics) on a profile whose file (``own``) names the committed ledger: a block
    opened under a protocol shrunk on the command line is lost to the declared one."""
    if is_committed(own["ledger"], basedir):
        _refuse_changes(_leaves_of(own), _leaves_of(merged), path, blame, basedir)


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


def _leaves(value: Any, prefix: str) -> dict[str, Any]:
    """A nested mapping's values by dotted key (none for an empty mapping)."""
    if isinstance(value, Mapping):
        return {k: v for key, sub in value.items() for k, v in _leaves(sub, f"{prefix}.{key}")
                .items()}
    return {prefix: value}


def _file_only(profile: Mapping[str, Any]) -> dict[str, Any]:
    """The values of :data:`FILE_ONLY` and every ``claims.<id>.block`` of a profile."""
    return {**{k: profile[k] for k in FILE_ONLY},
            **{f"claims.{c}.block": v["block"] for c, v in profile["claims"].items()
               if "block" in v}}


def _leaves_of(profile: Mapping[str, Any]) -> dict[str, Any]:
    """The values of every key under :data:`FILE_ONLY_TREES`, by dotted key."""
    return {k: v for tree in FILE_ONLY_TREES if tree in profile
            for k, v in _leaves(profile[tree], tree).items()}


def _refuse_changes(before: Mapping[str, Any], after: Mapping[str, Any], path: str,
                    blame: Callable[[str], str], basedir: str | Path | None = None) -> None:
    """Refuse the first key whose value ``after`` (merged) differs from ``before`` (the file
    of a profile writing the committed ledger)."""
    for key in sorted(set(before) | set(after), key=lambda k: (k != "ledger", k)):
        same = (is_committed(after[key], basedir) if key == "ledger"
                else before.get(key) == after.get(key))
        if not same:
            was = f"{before[key]!r}" if key in before else "unset"
            raise DeclarationError(
                f"{blame(key)}: key {key}: {after.get(key)!r} overrides {path} ({was}), "
                f"which writes the committed ledger {COMMITTED}: on such a profile the ledger, "
                "its guards, its blocks, its sizes and searches are the profile file's alone: "
                "try other sizes on a profile with a ledger of its own, smoke or a copy of it "
                "(docs/claims.md, Guards)")


def check_overrides(own: Mapping[str, Any], merged: Mapping[str, Any], path: str,
                    blame: Callable[[str], str], basedir: str | Path | None = None) -> None:
    """Refuse an override that changes which ledger a profile writing the committed ledger
    (by its file, ``own``) writes, whether its guards hold, which blocks it reads, or how
    large or how searched a screen is (a block opened under a shrunk protocol would be lost
    to the declared one); refuse pointing a profile whose file names a ledger of its own at
    the committed one."""
    if not is_committed(own["ledger"], basedir):
        if is_committed(merged["ledger"], basedir):
            raise DeclarationError(
                f"{blame('ledger')}: key ledger: {merged['ledger']!r} is the committed ledger; "
                f"{path} names a ledger of its own ({own['ledger']}), and only a profile whose "
                "file names the committed ledger writes it")
        return
    _refuse_changes(_file_only(own), _file_only(merged), path, blame, basedir)


def check_guards(profile: Mapping[str, Any], source: str | Callable[[str], str],
                 basedir: str | Path | None = None) -> None:
    """Refuse a key that turns a guard off on a profile that writes the committed ledger
    (``source``: the file to name, or a function of the key giving it)."""
    if not is_committed(profile["ledger"], basedir):
        return
    for key, off in GUARDS_OFF.items():
        if profile[key] == off:
            where = source(key) if callable(source) else source
            raise DeclarationError(
                f"{where}: key {key}: {str(off).lower()} turns a guard off, and this profile "
                f"writes the committed ledger {COMMITTED}; only a profile with a ledger of its "
                "own (smoke) may set it")

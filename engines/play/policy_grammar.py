"""The policy grammar: one string per player, parsed once into its typed spec (no numba).

Grammar (the same in ``drop7 play --policy``, config files, arm names in
reports and Python)::

    random | centre-first | lowest-column
    search:leaf=LEAF[,d=D][,s=S][,r=M][,f=F][,sampling=SAMPLING][,PRUNE]   (defaults d=3,
                                         s=7; r: no factored node; sampling: our own)
    direct:leaf=LEAF[,s=S][,r=M][,f=F][,sampling=SAMPLING]         (default s=7; one ply)
    external[[PARAM=VALUE,...]]:COMMAND   (another program, docs/referee.md)
    kf:w=WEIGHTS                         (the six-feature Klein-Friedmann policy; WEIGHTS a
                                          named vector, engines.filters.kf_weights,
                                          trained:DIR (drop7 kf-train's frozen weights), or
                                          SHA256:PATH, a pinned JSON file of six numbers)
    q:w=SHA256:DIR[,s=S][,r=M]           (the one-ply ridge Q, engines.filters.oneply_q: a frozen
                                          weights directory pinned by its manifest's SHA-256,
                                          or trained:DIR, a fit the claim trained)
    LEAF = linear | zero | linear-trained:PATH | ntuple:PATH
         | linear-file:SHA256:PATH | ntuple-file:SHA256:PATH   (engines.leaves.kinds)
         | linear-file[TERM+...]:SHA256:PATH   (extra terms, engines.leaves.extra_terms)
         | nnue:PATH | nnue-file:SHA256:PATH   (the network leaf, engines.leaves.nnue)
    PARAM = movetime (ms) | grace (ms, default 10000) | option.KEY (sent to the program)
          | sha256.N (the SHA-256 the file of command word N must have: checked at its start)
    F = survival                         (a root filter: engines.filters.kinds)
    SAMPLING = register | register:SEED   (the register's chance samples, its policy seed
                                           0xD7075EED or a 32-bit SEED; not with r)
    PRUNE = prune=PRIOR,k=K[,from=P][,root=pruned]   (search only: a pruned search,
                                          engines.search.prune_kinds; PRIOR = oneply
                                          | kf:WEIGHTS | q:SHA256:DIR; from defaults to 2)

Parameters may come in any order; a spec's ``format()`` writes the canonical
form (``leaf`` first; ``search`` always shows ``d`` and ``s``; ``direct``
shows ``s`` only when it is not 7; ``r``, the reveal samples per disc stratum
of the factored chance node (docs/search.md), then ``f``, the root filter, then
``sampling``, then the pruning, each only when given), and
``parse -> format`` round-trips.  ``r=1`` plays as no ``r`` does, bit for bit, and
keeps its spelling: a shipped claim (factored-chance) declares its plain arm so,
and its protocol hash and records hold ``r=1`` (docs/search.md, the factored node).
PATH is kept as written (no resolution), so an arm's name does not depend on
the working directory; it may not contain ``,`` or ``=``.  An external
COMMAND is words separated by spaces (no quoting, no shell: each word is
printable ASCII without quotes or backslashes), kept as written; its
canonical form joins the words with one space and writes ``movetime``,
``grace`` (when not the default), the options sorted by key and the pinned
command words' ``sha256.N`` by ``N`` (a claim pins every file its program's
words name: protocol/files.py).

Each arm kind is one :class:`ArmKind` in :data:`ARM_KINDS` (the words that start its
strings, its parser, its form in messages), registered here in grammar order; its spec
is in :mod:`engines.play.arm_specs`.  ``drop7 run-arms`` parses its command line once
(:func:`parse_arm`).  This module imports no numba, so the protocol and the command
line read it for nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from contracts.hashing import sha256_problem
from engines.filters.kf_weights import TRAINED, kf_weights_problem
from engines.filters.kinds import ROOT_FILTERS
from engines.leaves.kinds import LeafError, leaf_grammar, parse_leaf
from engines.play.arm_specs import (
    BASELINE_NAMES,
    DEFAULT_DEPTH,
    DEFAULT_GRACE_MS,
    DEFAULT_STRATA,
    EXTERNAL,
    KF,
    Arm,
    BaselineSpec,
    ExternalSpec,
    KfSpec,
    PolicyError,
    PolicySpec,
    Q,
    QSpec,
    SearchSpec,
    parse_sampling,
)
from engines.search.limits import MAX_DEPTH, MAX_REVEALS, MAX_STRATA
from engines.search.prune_kinds import (
    PRIOR_KINDS,
    PRUNE_KEYS,
    ROOT_PRUNED,
    PruneError,
    PruneSpec,
    parse_prune,
    prune_spec,
)

MAX_MS = 3_600_000
#: a command word: printable ASCII, no space, quote or backslash (the workflow passes the
#: policy inside single quotes)
_WORD = re.compile(r"[!#-&(-\[\]-_a-~]+")
OPTION_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
#: an option value: no space, comma, ``=``, ``]``, quote or backslash
OPTION_VALUE = re.compile(r"[A-Za-z0-9._+/:@%-]+")
#: the first word of a policy string: the arm kind's
_HEAD = re.compile(r"[a-z][a-z0-9-]*")
#: an arm's name: letters, digits and ``._+-``, starting with a letter or digit
ARM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")


@dataclass(frozen=True)
class ArmKind:
    """An arm kind of the grammar: the words that start its policy strings and the parser of
    such a string (raising :class:`PolicyError`)."""

    name: str
    heads: tuple[str, ...]
    parse: Callable[[str], PolicySpec]
    grammar: str


#: every arm kind by name, in grammar order
ARM_KINDS: dict[str, ArmKind] = {}
_BY_HEAD: dict[str, ArmKind] = {}


def register_arm_kind(kind: ArmKind) -> ArmKind:
    """Add an arm kind to the grammar (once; its heads are its own)."""
    taken = [h for h in kind.heads if h in _BY_HEAD]
    if kind.name in ARM_KINDS or taken:
        raise ValueError(f"arm kind {kind.name!r} (heads {', '.join(kind.heads)}) is "
                         "registered already")
    ARM_KINDS[kind.name] = kind
    _BY_HEAD.update(dict.fromkeys(kind.heads, kind))
    return kind


def grammar() -> str:
    """Every arm kind's form, as error messages spell it."""
    forms = [k.grammar for k in ARM_KINDS.values()]
    return f"{', '.join(forms[:-1])} or {forms[-1]}"


def _int_param(policy: str, key: str, value: str, lo: int, hi: int) -> int:
    if not value.isascii() or not value.isdigit() or not lo <= int(value) <= hi:
        raise PolicyError(f"{policy}: {key} must be an integer {lo}..{hi}, got {value!r}")
    return int(value)


def parse_policy(text: str) -> PolicySpec:
    """Parse a policy string; raises :class:`PolicyError` with one clear line."""
    if not isinstance(text, str) or not text:
        raise PolicyError(f"empty policy (expected {grammar()})")
    head = _HEAD.match(text)
    kind = _BY_HEAD.get(head.group()) if head else None
    if kind is None:
        raise PolicyError(f"unknown policy {text!r} (expected {grammar()})")
    return kind.parse(text)


def canonical_policy(text: str) -> str:
    """Parse and re-format: the one spelling of a policy."""
    return parse_policy(text).format()


def _parse_baseline(text: str) -> BaselineSpec:
    if text not in BASELINE_NAMES:
        name = text.partition(":")[0]
        if name in BASELINE_NAMES:
            raise PolicyError(f"policy {name!r} takes no parameters (got {text!r})")
        raise PolicyError(f"unknown policy {text!r} (expected {grammar()})")
    return BaselineSpec(text)


def _key_values(name: str, rest: str, allowed: tuple[str, ...]) -> dict[str, str]:
    """``KEY=VALUE,...`` of a search kind, each key allowed and given once."""
    params: dict[str, str] = {}
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        if not eq:
            raise PolicyError(f"{name}: parameter {item!r} is not KEY=VALUE "
                              "(a path may not contain ',' or '=')")
        if key not in allowed:
            raise PolicyError(f"{name}: unknown parameter {key!r} (expected "
                              f"{', '.join(allowed)})")
        if key in params:
            raise PolicyError(f"{name}: parameter {key!r} given twice")
        params[key] = value
    return params


def _search_parser(name: str, allowed: tuple[str, ...]) -> Callable[[str], SearchSpec]:
    def parse(text: str) -> SearchSpec:
        head, sep, rest = text.partition(":")
        if head != name:
            raise PolicyError(f"unknown policy {text!r} (expected {grammar()})")
        if not sep or not rest:
            raise PolicyError(f"policy {name!r} needs parameters: {name}:leaf=LEAF,...")
        params = _key_values(name, rest, allowed)
        if "leaf" not in params:
            raise PolicyError(f"{name}: missing parameter 'leaf' (leaf={leaf_grammar()})")
        try:
            leaf = parse_leaf(params["leaf"])
        except LeafError as exc:
            raise PolicyError(str(exc)) from None
        strata = (_int_param(name, "s", params["s"], 1, MAX_STRATA) if "s" in params
                  else DEFAULT_STRATA)
        depth = (_int_param(name, "d", params["d"], 1, MAX_DEPTH) if "d" in params
                 else DEFAULT_DEPTH if "d" in allowed else 1)
        reveals = (_int_param(name, "r", params["r"], 1, MAX_REVEALS) if "r" in params
                   else None)
        root_filter = params.get("f")
        if root_filter is not None and root_filter not in ROOT_FILTERS:
            raise PolicyError(f"{name}: unknown root filter f={root_filter!r} (expected "
                              f"{' or '.join(ROOT_FILTERS)})")
        sampling = parse_sampling(params["sampling"]) if "sampling" in params else None
        if sampling is not None and reveals is not None:
            raise PolicyError(f"{name}: sampling={params['sampling']} has no factored chance "
                              "node (r)")
        prune = _prune_params(name, params, depth)
        return SearchSpec(name, leaf, depth, strata, reveals, root_filter, sampling, prune)

    return parse


def _prune_params(name: str, params: dict[str, str], depth: int) -> PruneSpec | None:
    """The pruning of ``prune=PRIOR,k=K[,from=P][,root=pruned]`` (None when not given)."""
    given = [k for k in PRUNE_KEYS if k in params]
    if given and name != "search":
        raise PolicyError(f"{name}: {given[0]} is for search arms only (a pruned search)")
    try:
        return parse_prune(params, depth)
    except PruneError as exc:
        raise PolicyError(f"{name}: {exc}") from None


def prior_weights(prior: str | None) -> str | None:
    """The kind of weights a pruning prior reads (``kf``, ``q``: those an arm of that play kind
    takes), None for a prior that reads none or a name that is no prior."""
    kind = PRIOR_KINDS.get(prior) if prior is not None else None
    return None if kind is None else kind.weights


def prune_priors() -> tuple[str, ...]:
    """The pruning priors a declaration's ``prune.prior`` may name: every one (a prior's
    weights are declared as an arm of its kind takes them: :mod:`protocol.parts.prune_weights`)."""
    return tuple(PRIOR_KINDS)


def declared_prune(prune: Mapping[str, Any], depth: int) -> PruneSpec:
    """The pruning a claim declares (``prior``, ``k``, ``from``, ``root``, ``weights``) for a
    search of ``depth`` plies; raises :class:`~engines.search.prune_kinds.PruneError` (a
    ``ValueError``) in one line."""
    return prune_spec(prune["prior"], prune["k"], prune.get("from"),
                      prune.get("root") == ROOT_PRUNED, depth, prune.get("weights"))


def _parse_external(text: str) -> ExternalSpec:
    """``external[PARAMS]:COMMAND`` (see the module's grammar)."""
    rest = text[len(EXTERNAL):]
    if not text.startswith(EXTERNAL) or rest[:1] not in ("", ":", "["):
        raise PolicyError(f"unknown policy {text!r} (expected {grammar()})")
    params = ""
    if rest.startswith("["):
        params, close, rest = rest[1:].partition("]")
        if not close:
            raise PolicyError(f"{EXTERNAL}: parameters {text!r} lack the closing ']'")
    if not rest.startswith(":") or not rest[1:].strip():
        raise PolicyError(f"{EXTERNAL}: expected {EXTERNAL}[PARAMS]:COMMAND, got {text!r}")
    command = tuple(rest[1:].split())
    for word in command:
        if not _WORD.fullmatch(word):
            raise PolicyError(f"{EXTERNAL}: command word {word!r} must be printable ASCII "
                              "without quotes or backslashes")
    movetime, grace, options, pins = None, DEFAULT_GRACE_MS, {}, {}
    seen: set[str] = set()
    for item in params.split(",") if params else ():
        key, eq, value = item.partition("=")
        if not eq:
            raise PolicyError(f"{EXTERNAL}: parameter {item!r} is not KEY=VALUE")
        if key in seen:
            raise PolicyError(f"{EXTERNAL}: parameter {key!r} given twice")
        seen.add(key)
        if key == "movetime":
            movetime = _int_param(EXTERNAL, key, value, 1, MAX_MS)
        elif key == "grace":
            grace = _int_param(EXTERNAL, key, value, 0, MAX_MS)
        elif key.startswith("option.") and OPTION_KEY.fullmatch(key[7:]):
            if not OPTION_VALUE.fullmatch(value):
                raise PolicyError(f"{EXTERNAL}: option {key[7:]!r}: value {value!r} must be "
                                  "letters, digits and ._+/:@%-")
            options[key[7:]] = value
        elif key.startswith("sha256."):
            word = _int_param(EXTERNAL, key, key[7:], 0, len(command) - 1)
            if key[7:] != str(word):
                raise PolicyError(f"{EXTERNAL}: parameter {key!r}: write sha256.{word}")
            if (problem := sha256_problem(value)) is not None:
                raise PolicyError(f"{EXTERNAL}: {key}: {problem}")
            pins[word] = value
        else:
            raise PolicyError(f"{EXTERNAL}: unknown parameter {key!r} (expected movetime, "
                              "grace, option.KEY with KEY letters, digits, _ and -, or "
                              "sha256.N with N a command word's index)")
    return ExternalSpec(command, movetime, grace, tuple(sorted(options.items())),
                        tuple(sorted(pins.items())))


def external_spec(command: list[str] | tuple[str, ...], options: dict | None = None,
                  movetime_ms: int | None = None, grace_ms: int | None = None,
                  pins: Mapping[int, str] | None = None) -> ExternalSpec:
    """The spec of an external program as a claim's arm declares it (checked as a policy
    string would be: command words, option keys and values, pins)."""
    spec = ExternalSpec(tuple(command), movetime_ms,
                        DEFAULT_GRACE_MS if grace_ms is None else grace_ms,
                        tuple(sorted((str(k), str(v)) for k, v in (options or {}).items())),
                        tuple(sorted((pins or {}).items())))
    return _parse_external(spec.format())


register_arm_kind(ArmKind("baseline", BASELINE_NAMES, _parse_baseline,
                          ", ".join(BASELINE_NAMES)))
register_arm_kind(ArmKind("search", ("search",),
                          _search_parser("search", ("leaf", "d", "s", "r", "f", "sampling")
                                         + PRUNE_KEYS),
                          "search:leaf=LEAF,d=D,s=S[,r=M][,f=F][,sampling=SAMPLING][,PRUNE]"))
register_arm_kind(ArmKind("direct", ("direct",),
                          _search_parser("direct", ("leaf", "s", "r", "f", "sampling")
                                         + PRUNE_KEYS),
                          "direct:leaf=LEAF[,s=S][,r=M][,f=F][,sampling=SAMPLING]"))
register_arm_kind(ArmKind(EXTERNAL, (EXTERNAL,), _parse_external, "external[PARAMS]:COMMAND"))


def _parse_kf(text: str) -> KfSpec:
    """``kf:w=WEIGHTS``: a named vector, ``SHA256:PATH`` or ``trained:DIR``."""
    head, sep, rest = text.partition(":")
    if head != KF:
        raise PolicyError(f"unknown policy {text!r} (expected {grammar()})")
    return _kf_weights((_key_values(KF, rest, ("w",)) if sep and rest else {}).get("w", ""))


def _kf_weights(w: str) -> KfSpec:
    """The KF spec of the weights ``w`` names: a named vector, ``SHA256:PATH`` or
    ``trained:DIR`` (weights the claim trains)."""
    sha, colon, path = w.partition(":")
    if sha == TRAINED:
        if not path:
            raise PolicyError(f"{KF}: w=trained:DIR needs the training directory, got {w!r}")
        return KfSpec(None, None, path)
    if (problem := kf_weights_problem(w)) is not None:
        raise PolicyError(f"{KF}: w {problem}")
    return KfSpec(None, sha, path) if colon else KfSpec(w)


register_arm_kind(ArmKind(KF, (KF,), _parse_kf, f"{KF}:w=WEIGHTS"))


def _parse_q(text: str) -> QSpec:
    """``q:w=SHA256:PATH[,s=S][,r=M]``."""
    head, sep, rest = text.partition(":")
    if head != Q or not sep or not rest:
        raise PolicyError(f"{Q}: expected {Q}:w=SHA256:PATH[,s=S][,r=M], got {text!r}")
    params = _key_values(Q, rest, ("w", "s", "r"))
    sha, colon, path = params.get("w", "").partition(":")
    problem = None if sha == TRAINED else sha256_problem(sha)
    if problem or not colon or not path:
        raise PolicyError(f"{Q}: w=SHA256:PATH needs a SHA-256 and a weights directory, got "
                          f"{params.get('w', '')!r}{f' ({problem})' if problem else ''}")
    strata = _int_param(Q, "s", params["s"], 1, MAX_STRATA) if "s" in params else DEFAULT_STRATA
    reveals = _int_param(Q, "r", params["r"], 1, MAX_REVEALS) if "r" in params else 1
    return QSpec(None if sha == TRAINED else sha, path, strata, reveals)


register_arm_kind(ArmKind(Q, (Q,), _parse_q, f"{Q}:w=SHA256:PATH[,s=S][,r=M]"))


def parse_arm(text: str) -> Arm:
    """Parse ``NAME=POLICY`` (NAME: letters, digits and ``._+-``)."""
    name, eq, policy = text.partition("=")
    if not eq:
        raise PolicyError(f"arm {text!r} is not NAME=POLICY")
    if not ARM_NAME.fullmatch(name):
        raise PolicyError(f"arm name {name!r} must be letters, digits and ._+- "
                          "(starting with a letter or digit)")
    return Arm(name, parse_policy(policy))

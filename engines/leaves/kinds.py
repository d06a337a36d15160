"""Leaf kinds: the ``LEAF`` of a policy string, each registered once (no numba).

Grammar::

    LEAF = linear | zero | linear-trained:PATH | ntuple:PATH
         | linear-file:SHA256:PATH | ntuple-file:SHA256:PATH
         | linear-file[TERM+...]:SHA256:PATH | nnue:PATH | nnue-file:SHA256:PATH

``linear`` is the frozen fair leaf, ``zero`` scores every frontier 0,
``linear-trained:PATH`` the fair leaf's :data:`N_TERMS` terms with weights
trained into ``PATH``, ``ntuple:PATH`` trained n-tuple tables and ``nnue:PATH`` a sparse
network's weights (:mod:`engines.leaves.nnue_weights`).  The ``-file`` kinds are a leaf
from a pinned file (:mod:`engines.pinned_leaf`): a linear vector, n-tuple
tables or a network made outside any claim, with the SHA-256 they must have, so the leaf's
text names what it is and not only where it lies.  PATH is kept as written.
A ``linear-file`` leaf may name extra terms after the fair leaf's 18
(:mod:`engines.leaves.extra_terms`), in brackets joined by ``+``; its vector
then holds their weights too (docs/claims.md, A leaf from a pinned file).
Each kind is one :class:`LeafKind` in :data:`LEAF_KINDS` (its grammar, its
search cost; the learner whose weights a leaf reads names it,
:mod:`engines.learners`); the search's loader
(:data:`engines.search.leaf.LOADERS`) builds the leaf of each.  The policy
grammar (:mod:`engines.play.policy_grammar`), the search's loader, its bench, the plan
and its cost model all parse, spell and price leaves here
(docs/architecture.md, "Recipe: a new leaf").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engines.leaves.extra_terms import TERM_SEPARATOR, TermError, check_terms

#: terms of the fair leaf (and weights of a ``linear-trained`` leaf)
N_TERMS = 18
#: index of the next-disc term, the last one
NEXT_DISC_TERM = N_TERMS - 1
#: seconds a d3s7 node visit takes with the network leaf: the linear leaf's modelled 530e-9
#: times the two leaves' ratio of d3s7 nodes per second measured side by side on an idle
#: machine (``drop7 bench search --leaf nnue|linear --depth 3 --strata 7``: 6.35;
#: docs/leaf.md, The network leaf ``nnue``, Cost)
NNUE_NODE_SECONDS = 3.4e-6
#: a pinned file's SHA-256 as a leaf spells it (lower-case hex)
SHA256_HEX = re.compile(r"[0-9a-f]{64}")


class LeafError(ValueError):
    """A leaf that does not parse."""


@dataclass(frozen=True)
class LeafKind:
    """A leaf kind: its name, whether it reads weights from a ``PATH``, and the seconds one
    search node visit takes with it (``drop7 bench search`` nodes/s at d3s7 and d4s7, one
    core) and its factored search's growth, which the plan's cost model reads."""

    name: str
    takes_path: bool
    node_seconds: float
    #: ``q`` of a factored search's growth ``(1 + q (M - 1))^D`` over the plain one
    #: (``drop7 bench search --reveals M``, M = 1, 2, 6 at d3 and d4): nodes grow with
    #: q = 0.27-0.36 and so does the time of the leaves without a cache; the linear leaf's
    #: cache hits more of its boards as M grows, and its time grows with q = 0.17-0.26
    reveal_share: float = 0.3
    #: a pinned file (``KIND:SHA256:PATH``, :mod:`engines.pinned_leaf`), read by a claim
    #: from ``{file, sha256}``
    pinned: bool = False
    #: it may name extra terms (``KIND[TERM+...]``, :mod:`engines.leaves.extra_terms`)
    takes_terms: bool = False

    def grammar(self) -> str:
        """How the grammar spells it."""
        if self.pinned:
            return f"{self.name}:SHA256:PATH"
        return f"{self.name}:PATH" if self.takes_path else self.name


#: every leaf kind by name, in grammar order
LEAF_KINDS: dict[str, LeafKind] = {}


def register_leaf(kind: LeafKind) -> LeafKind:
    """Add a leaf kind (once: a name given twice is an error)."""
    if kind.name in LEAF_KINDS:
        raise ValueError(f"leaf kind {kind.name!r} is registered already")
    if not kind.name or any(c in kind.name for c in ":,=[] "):
        raise ValueError(f"leaf kind {kind.name!r}: a name without ':,=[] '")
    LEAF_KINDS[kind.name] = kind
    return kind


register_leaf(LeafKind("linear", False, 530e-9, reveal_share=0.2))
register_leaf(LeafKind("zero", False, 160e-9))
register_leaf(LeafKind("linear-trained", True, 530e-9, reveal_share=0.2))
register_leaf(LeafKind("ntuple", True, 300e-9))
register_leaf(LeafKind("linear-file", True, 530e-9, reveal_share=0.2, pinned=True,
                       takes_terms=True))
register_leaf(LeafKind("ntuple-file", True, 300e-9, pinned=True))
#: the sparse network (docs/leaf.md, The network leaf ``nnue``): no leaf cache, the first
#: layer summed once per frontier board and the rest once per sample's next disc
register_leaf(LeafKind("nnue", True, NNUE_NODE_SECONDS))
register_leaf(LeafKind("nnue-file", True, NNUE_NODE_SECONDS, pinned=True))


def leaf_grammar() -> str:
    """The grammar, as error messages spell it (``linear, zero, ... or ntuple:PATH``)."""
    names = [k.grammar() for k in LEAF_KINDS.values()]
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]


#: the grammar of the shipped kinds (for help texts built at import)
LEAF_GRAMMAR = leaf_grammar()


@dataclass(frozen=True)
class LeafSpec:
    """A leaf named in a policy string: ``kind`` and, for table leaves, ``path`` (and for a
    pinned file its ``sha256``; for a linear one its extra ``terms``, in declared order)."""

    kind: str
    path: str | None = None
    sha256: str | None = None
    terms: tuple[str, ...] = ()

    def format(self) -> str:
        """The leaf's canonical text (``KIND[TERM+...]`` when it names terms)."""
        kind = (f"{self.kind}[{TERM_SEPARATOR.join(self.terms)}]" if self.terms
                else self.kind)
        if self.path is None:
            return kind
        return (f"{kind}:{self.path}" if self.sha256 is None
                else f"{kind}:{self.sha256}:{self.path}")


def _split_terms(head: str) -> tuple[str, tuple[str, ...]]:
    """``KIND[TERM+...]`` -> ``(KIND, terms)``; a plain ``KIND`` names none."""
    kind_name, bracket, rest = head.partition("[")
    if not bracket:
        return head, ()
    if not rest.endswith("]"):
        raise LeafError(f"leaf {head!r}: terms are written KIND[TERM+TERM]")
    kind = LEAF_KINDS.get(kind_name)
    if kind is not None and not kind.takes_terms:
        raise LeafError(f"leaf {kind_name!r} takes no extra terms (only a linear leaf from a "
                        "pinned file does: linear-file[TERM]:SHA256:PATH)")
    try:
        return kind_name, check_terms(rest[:-1].split(TERM_SEPARATOR))
    except TermError as exc:
        raise LeafError(f"leaf {head!r}: {exc}") from None


def parse_leaf(text: str) -> LeafSpec:
    """Parse ``LEAF`` (``linear``, ``zero``, ``linear-trained:PATH``, ``ntuple:PATH``,
    ``linear-file[TERM+...]:SHA256:PATH``, ``ntuple-file:SHA256:PATH``)."""
    head, sep, path = text.partition(":")
    kind_name, terms = _split_terms(head)
    kind = LEAF_KINDS.get(kind_name)
    if kind is None:
        raise LeafError(f"unknown leaf {text!r} (expected {leaf_grammar()})")
    if kind.pinned:
        sha, sep2, path = path.partition(":")
        if not SHA256_HEX.fullmatch(sha) or not sep2 or not path:
            raise LeafError(f"leaf {kind_name!r} needs a SHA-256 and a path: "
                            f"{kind_name}:SHA256:PATH (64 lower-case hex digits)")
        return LeafSpec(kind_name, path, sha, terms)
    if kind.takes_path and (not sep or not path):
        raise LeafError(f"leaf {kind_name!r} needs a path: {kind_name}:PATH")
    if not kind.takes_path and sep:
        raise LeafError(f"leaf {kind_name!r} takes no path (got {text!r})")
    return LeafSpec(kind_name, path or None)


"""Leaf kinds: the ``LEAF`` of a policy string, each registered once (no numba).

Grammar::

    LEAF = linear | zero | linear-trained:PATH | ntuple:PATH

``linear`` is the frozen fair leaf, ``zero`` scores every frontier 0,
``linear-trained:PATH`` the fair leaf's :data:`N_TERMS` terms with weights
trained into ``PATH`` and ``ntuple:PATH`` trained n-tuple tables.  PATH is
kept as written.  Each kind is one :class:`LeafKind` in :data:`LEAF_KINDS`
(its grammar, the learner whose weights it reads, its search cost); the
search's loader (:data:`engines.search.leaf.LOADERS`) builds the leaf of
each.  The policy grammar (:mod:`engines.play.spec`), the search's loader,
its bench, the plan and its cost model all parse, spell and price leaves
here (docs/architecture.md, "Recipe: a new leaf").
"""

from __future__ import annotations

from dataclasses import dataclass

#: terms of the fair leaf (and weights of a ``linear-trained`` leaf)
N_TERMS = 18
#: index of the next-disc term, the last one
NEXT_DISC_TERM = N_TERMS - 1


class LeafError(ValueError):
    """A leaf that does not parse."""


@dataclass(frozen=True)
class LeafKind:
    """A leaf kind: its name, whether it reads weights from a ``PATH``, the learner
    (``drop7 train --layout`` family) whose weights it reads, and the seconds one search node
    visit takes with it (``drop7 bench search`` nodes/s at d3s7 and d4s7, one core), which
    the plan's cost model reads."""

    name: str
    takes_path: bool
    node_seconds: float
    learner: str | None = None

    def grammar(self) -> str:
        """How the grammar spells it."""
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


register_leaf(LeafKind("linear", False, 530e-9))
register_leaf(LeafKind("zero", False, 160e-9))
register_leaf(LeafKind("linear-trained", True, 530e-9, learner="linear"))
register_leaf(LeafKind("ntuple", True, 300e-9, learner="ntuple"))


def leaf_grammar() -> str:
    """The grammar, as error messages spell it (``linear, zero, ... or ntuple:PATH``)."""
    names = [k.grammar() for k in LEAF_KINDS.values()]
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]


#: the grammar of the shipped kinds (for help texts built at import)
LEAF_GRAMMAR = leaf_grammar()


@dataclass(frozen=True)
class LeafSpec:
    """A leaf named in a policy string: ``kind`` and, for table leaves, ``path``."""

    kind: str
    path: str | None = None

    def format(self) -> str:
        """The leaf's canonical text."""
        return self.kind if self.path is None else f"{self.kind}:{self.path}"


def parse_leaf(text: str) -> LeafSpec:
    """Parse ``LEAF`` (``linear``, ``zero``, ``linear-trained:PATH``, ``ntuple:PATH``)."""
    kind_name, sep, path = text.partition(":")
    kind = LEAF_KINDS.get(kind_name)
    if kind is None:
        raise LeafError(f"unknown leaf {text!r} (expected {leaf_grammar()})")
    if kind.takes_path and (not sep or not path):
        raise LeafError(f"leaf {kind_name!r} needs a path: {kind_name}:PATH")
    if not kind.takes_path and sep:
        raise LeafError(f"leaf {kind_name!r} takes no path (got {text!r})")
    return LeafSpec(kind_name, path or None)


def learner_leaf(learner: str, path: str | None = None) -> LeafSpec:
    """The leaf of a learner's weights (in ``path`` when given)."""
    kind = next(k for k in LEAF_KINDS.values() if k.learner == learner)
    return LeafSpec(kind.name, path)

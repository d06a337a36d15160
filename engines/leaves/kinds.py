"""Leaf kinds: the ``LEAF`` of a policy string, decoded in one place (no numba).

Grammar::

    LEAF = linear | zero | linear-trained:PATH | ntuple:PATH
         | linear-file:SHA256:PATH | ntuple-file:SHA256:PATH

``linear`` is the frozen fair leaf, ``zero`` scores every frontier 0,
``linear-trained:PATH`` the fair leaf's :data:`N_TERMS` terms with weights
trained into ``PATH`` and ``ntuple:PATH`` trained n-tuple tables.  The ``-file`` kinds are a leaf
from a pinned file (:mod:`engines.pinned_leaf`): a linear vector or n-tuple
tables made outside any claim, with the SHA-256 they must have, so the leaf's
text names what it is and not only where it lies.  PATH is kept as written.
The policy grammar (:mod:`engines.play.policy`), the search's leaf loader
(:mod:`engines.search.leaf`), its bench and the plan (:mod:`protocol.plan`)
all parse and spell leaves here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: terms of the fair leaf (and weights of a ``linear-trained`` leaf)
N_TERMS = 18
#: index of the next-disc term, the last one
NEXT_DISC_TERM = N_TERMS - 1
#: leaves without a path
PLAIN_LEAVES = ("linear", "zero")
#: leaves that read weights from a directory
PATH_LEAVES = ("linear-trained", "ntuple")
#: leaves that read a pinned file: ``KIND:SHA256:PATH`` (engines.pinned_leaf)
FILE_LEAVES = ("linear-file", "ntuple-file")
#: the grammar, as error messages spell it
LEAF_GRAMMAR = ("linear, zero, linear-trained:PATH, ntuple:PATH, linear-file:SHA256:PATH or "
                "ntuple-file:SHA256:PATH")
#: a pinned file's SHA-256 as a leaf spells it (lower-case hex)
SHA256_HEX = re.compile(r"[0-9a-f]{64}")
#: learner (``drop7 train --layout``: n-tuple tables or ``linear``) -> the leaf its weights make
LEARNER_LEAVES = {"ntuple": "ntuple", "linear": "linear-trained"}


class LeafError(ValueError):
    """A leaf that does not parse."""


@dataclass(frozen=True)
class LeafSpec:
    """A leaf named in a policy string: ``kind`` and, for table leaves, ``path`` (and for a
    pinned file its ``sha256``)."""

    kind: str
    path: str | None = None
    sha256: str | None = None

    def format(self) -> str:
        """The leaf's canonical text."""
        if self.path is None:
            return self.kind
        return (f"{self.kind}:{self.path}" if self.sha256 is None
                else f"{self.kind}:{self.sha256}:{self.path}")


def parse_leaf(text: str) -> LeafSpec:
    """Parse ``LEAF`` (``linear``, ``zero``, ``linear-trained:PATH``, ``ntuple:PATH``,
    ``linear-file:SHA256:PATH``, ``ntuple-file:SHA256:PATH``)."""
    if text in PLAIN_LEAVES:
        return LeafSpec(text)
    kind, sep, path = text.partition(":")
    if kind in FILE_LEAVES:
        sha, sep2, path = path.partition(":")
        if not SHA256_HEX.fullmatch(sha) or not sep2 or not path:
            raise LeafError(f"leaf {kind!r} needs a SHA-256 and a path: {kind}:SHA256:PATH "
                            "(64 lower-case hex digits)")
        return LeafSpec(kind, path, sha)
    if kind in PATH_LEAVES:
        if not sep or not path:
            raise LeafError(f"leaf {kind!r} needs a path: {kind}:PATH")
        return LeafSpec(kind, path)
    if kind in PLAIN_LEAVES:
        raise LeafError(f"leaf {kind!r} takes no path (got {text!r})")
    raise LeafError(f"unknown leaf {text!r} (expected {LEAF_GRAMMAR})")


def learner_leaf(learner: str, path: str | None = None) -> LeafSpec:
    """The leaf of a learner's weights (in ``path`` when given)."""
    return LeafSpec(LEARNER_LEAVES[learner], path)

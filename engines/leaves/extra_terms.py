"""Extra terms a declared linear leaf may add to the fair leaf's 18 (no numba).

Each term is registered once here: its name (as a leaf and a claim spell it),
its code (the slot of its weight in a loaded leaf's vector and the branch of
:func:`engines.leaves.linear_extra.extra_term`), and the largest value it
takes on a 7 x 7 board (for the leaf's bound, docs/leaf.md, "Bounds").  A term
costs one numba module, its readable twin and a line here (docs/leaf.md,
"Extra terms").  A leaf that names no term is the fair leaf's arithmetic bit for
bit: the terms are computed only by the kernel kind that names them.
"""

from __future__ import annotations

from dataclasses import dataclass

#: how a leaf spells its terms: ``KIND[TERM+TERM]`` (``engines.leaves.kinds``)
TERM_SEPARATOR = "+"


class TermError(ValueError):
    """A term name that is not registered, or given twice."""


@dataclass(frozen=True)
class ExtraTerm:
    """An extra term: ``name``, ``code`` (its weight's slot after the intercept) and
    ``bound``, its largest value on any board (every term is >= 0)."""

    name: str
    code: int
    bound: float
    says: str


#: every extra term by name, in code order
EXTRA_TERMS: dict[str, ExtraTerm] = {}


def register_term(term: ExtraTerm) -> ExtraTerm:
    """Add a term (once; codes are 0, 1, ... in registration order)."""
    if term.name in EXTRA_TERMS or term.code != len(EXTRA_TERMS):
        raise ValueError(f"extra term {term.name!r}: registered already, or code "
                         f"{term.code} is not the next one ({len(EXTRA_TERMS)})")
    if not term.name or any(c in term.name for c in ":,=[]+ "):
        raise ValueError(f"extra term {term.name!r}: a name without ':,=[]+ '")
    EXTRA_TERMS[term.name] = term
    return term


register_term(ExtraTerm(
    "aligned_double_hit", 0, 49.0,
    "per solid grey, the best product of the supports of two of its numbered neighbours "
    "that can pop in the same wave (docs/leaf.md)"))

#: the number of registered terms (slots after the intercept in a loaded leaf's weights)
N_EXTRA = len(EXTRA_TERMS)


def check_terms(names: object) -> tuple[str, ...]:
    """Declared term names as a tuple, refused (:class:`TermError`, one line) when one is
    not registered, is given twice or the list is empty."""
    if not isinstance(names, list | tuple) or not names or not all(
            isinstance(n, str) for n in names):
        raise TermError(f"terms: a non-empty list of names ({', '.join(EXTRA_TERMS)})")
    for name in names:
        if name not in EXTRA_TERMS:
            raise TermError(f"unknown term {name!r} (registered: {', '.join(EXTRA_TERMS)})")
    if len(set(names)) != len(names):
        raise TermError(f"terms: a name is given twice ({', '.join(names)})")
    return tuple(names)

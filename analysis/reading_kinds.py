"""The one registry of reading kinds: what each kind reads, takes, may conclude, and its reader.

A reading kind is one :class:`ReadingKind` in :data:`READING_KINDS`, added by
:func:`register_reading`: its name, its outcomes (and which of them mean its criterion
held), its parameters (each key with what it names and its default or value check), its
source (a screen ``contrast``, a validation ``curve``, training ``health``, an ``arm``'s own
figures on a contrast's games, a ranking ``panel`` or a ``learner``'s curve and record),
whether it reads the paired difference of two rankers, a declaration check of its own and
its reader.
The declaration, the schema's enum of kinds, the evaluation of readings, a
panel's reader dispatch, the records and ``drop7 records rebuild`` all read
this registry, so a new kind is one entry (docs/claims.md, "A new reading
kind").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from analysis import readers
from analysis.arm_figures import ARM_FIGURES, figure_problem
from analysis.learner_readings import read_learner_threshold
from analysis.panel_criteria import read_beats, read_non_inferior, read_threshold
from contracts import learner_figures

#: the sources a reading reads (``arm``: an arm's figures, which its contrasts carry;
#: ``learner``: the curve and record of weights trained by one job)
CONTRAST, CURVE, HEALTH, PANEL, ARM, LEARNER = (
    "contrast", "curve", "health", "panel", "arm", "learner")
SOURCES = (CONTRAST, CURVE, HEALTH, PANEL, ARM, LEARNER)
#: the sources that exist before a screen block opens: a gate may read them
GATE_SOURCES = (CURVE, HEALTH, LEARNER)
#: what a parameter names: a declared contrast, trained weights (a validation curve or its
#: health), a ranker of the panel's table (a ranker or the reference), a figure of the panel,
#: a screen arm, the panel ranker whose values a panel reading is judged by, weights the claim
#: trains by one job (a learner's curve and record); or it carries a value
ROLES = ("contrast", "weights", "ranker", "figure", "arm", "judge", "learner", "value")
#: a parameter without a default must be declared
REQUIRED = object()
#: a parameter that may be left out, and then is absent (not filled in: a declaration without
#: it plans, reads and hashes as before it existed)
OPTIONAL = object()

#: a declaration check: (the reading's declaration, the claim's, fail(key, message))
Check = Callable[[Mapping[str, Any], Mapping[str, Any], Callable[[str, str], None]], None]


@dataclass(frozen=True)
class Parameter:
    """One key a reading kind takes besides ``kind`` and ``title``."""

    key: str
    role: str
    #: the value a declaration that leaves the key out reads (filled in at load time)
    default: Any = REQUIRED
    #: why a declared value cannot be (None: it can); for a ``value`` parameter
    problem: Callable[[Any], str | None] | None = None


@dataclass(frozen=True)
class ReadingKind:
    """One reading kind.  A reader of a contrast, curve or health source is called with its
    parameters in order, each name resolved to what it names, and returns ``(outcome, reason,
    numbers)``; a panel kind's reader is called ``(name, spec, figure)`` with the figure of
    its first ranker (or, ``paired``, the paired difference of its two rankers) and returns a
    :class:`~analysis.reading_result.Reading`."""

    name: str
    outcomes: tuple[str, ...]
    parameters: tuple[Parameter, ...]
    source: str
    reader: Callable[..., Any]
    #: reads the paired difference of its two ranker parameters, which must differ
    paired: bool = False
    #: a check of the declaration beyond its keys, names and values
    check: Check | None = None
    #: the outcomes that mean the criterion its title states held (the rest: it did not)
    held: tuple[str, ...] = ("pass", "supported")

    @property
    def keys(self) -> tuple[str, ...]:
        """The parameters' keys, in the reader's order."""
        return tuple(p.key for p in self.parameters)

    def of_role(self, role: str) -> list[Parameter]:
        """The parameters that name ``role`` (or carry a ``value``)."""
        return [p for p in self.parameters if p.role == role]

    @property
    def gate(self) -> bool:
        """Whether a gate may name it: it reads what exists before a screen block opens."""
        return self.source in GATE_SOURCES


#: every reading kind by name, in registration order
READING_KINDS: dict[str, ReadingKind] = {}


def register_reading(kind: ReadingKind) -> ReadingKind:
    """Add ``kind`` to :data:`READING_KINDS` (refused: a name taken, an unknown source or
    role, a panel kind without its ranker and figure, a paired kind without two rankers)."""
    if kind.name in READING_KINDS:
        raise ValueError(f"reading kind {kind.name!r} is registered already")
    if kind.source not in SOURCES:
        raise ValueError(f"{kind.name}: unknown source {kind.source!r} ({', '.join(SOURCES)})")
    for p in kind.parameters:
        if p.role not in ROLES:
            raise ValueError(f"{kind.name}.{p.key}: unknown role {p.role!r}")
    rankers = len(kind.of_role("ranker"))
    if kind.source == PANEL and (not rankers or len(kind.of_role("figure")) != 1):
        raise ValueError(f"{kind.name}: a panel kind names a ranker and one figure")
    if kind.paired and rankers != 2:
        raise ValueError(f"{kind.name}: a paired kind names two rankers")
    READING_KINDS[kind.name] = kind
    return kind


def reading_kind(name: str) -> ReadingKind:
    """The registered kind ``name``."""
    return READING_KINDS[name]


def kinds_of(*sources: str) -> tuple[str, ...]:
    """The names of the kinds that read any of ``sources``, in registration order."""
    return tuple(k.name for k in READING_KINDS.values() if k.source in sources)


def gate_kinds() -> tuple[str, ...]:
    """The kinds a gate may name."""
    return tuple(k.name for k in READING_KINDS.values() if k.gate)


def panel_readings(readings: Mapping[str, Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The declared readings a panel reads (its kinds), in declaration order."""
    return {name: r for name, r in readings.items()
            if r.get("kind") in READING_KINDS and READING_KINDS[r["kind"]].source == PANEL}


def passed(kind: str | None, outcome: str) -> bool | None:
    """Whether a reading's criterion held: by its kind, or for a kind not known by what every
    kind giving that outcome says (None: ``not-run``, or kinds that disagree)."""
    k = READING_KINDS.get(kind or "")
    if k is not None and outcome in k.outcomes:
        return outcome in k.held
    said = passed_by_outcome(outcome)
    return said.pop() if len(said) == 1 else None


def passed_by_outcome(outcome: str) -> set[bool]:
    """What ``passed`` an outcome gives over every kind that can give it (a record that does
    not name its kind is checked against these)."""
    return {o in k.held for k in READING_KINDS.values() for o in k.outcomes if o == outcome}


def _difference_contrasts(spec: Mapping[str, Any], doc: Mapping[str, Any],
                          fail: Callable[[str, str], None]) -> None:
    """The contrasts read are differences: the kind reads their per-arm quartiles."""
    for p in reading_kind(spec["kind"]).of_role("contrast"):
        if "difference" not in doc.get("contrasts", {})[spec[p.key]]:
            fail(p.key, f"a {spec['kind']} reading needs a difference contrast (per-arm "
                 f"quartiles); {spec[p.key]!r} is an interaction")


def _arm_read(spec: Mapping[str, Any], doc: Mapping[str, Any],
              fail: Callable[[str, str], None]) -> None:
    """The arm is read by a contrast (its figures are computed on a contrast's games), and a
    bound is read only of a figure that has one (a mean)."""
    contrasts = doc.get("contrasts", {})
    reading = [n for n, c in contrasts.items() if spec["arm"] in _contrast_arms(c)]
    if not reading:
        fail("arm", f"{spec['arm']!r} is in no contrast: an arm's figures are computed on a "
             f"contrast's games (contrasts: {', '.join(contrasts) or 'none'})")
    if spec["on"] == "bound" and spec["figure"] in ARM_FIGURES and not ARM_FIGURES[
            spec["figure"]][2]:
        bounded = ", ".join(f for f, (_, _, b) in ARM_FIGURES.items() if b)
        fail("over", f"{spec['figure']} has no bootstrap bound (only {bounded}): read it on "
             "estimate or halves")


def _contrast_arms(c: Mapping[str, Any]) -> list[str]:
    """The arms a declared contrast reads."""
    return list(c["difference"]) if "difference" in c else [a for p in c["interaction"]
                                                            for a in p]


def _threshold_of(reader: Callable[..., Any], at_least: bool) -> Callable[..., Any]:
    """A kind's reader of a figure against its threshold (an arm's or a learner's):
    ``reader(at_least, source, figure, threshold, extra)``, ``extra`` the kind's last key
    (an arm's ``on``, a learner's ``last``)."""
    def read(source: Mapping[str, Any], figure: str, threshold: float, extra: Any) -> Any:
        return reader(at_least, source, figure, float(threshold), extra)
    return read


def _filtered_candidate(spec: Mapping[str, Any], doc: Mapping[str, Any],
                        fail: Callable[[str, str], None]) -> None:
    """The contrast read is a difference whose candidate arm declares a root filter."""
    contrast = doc.get("contrasts", {})[spec["contrast"]]
    if "difference" not in contrast:
        fail("contrast", f"a {spec['kind']} reading reads the candidate arm of a difference; "
             f"{spec['contrast']!r} is an interaction")
    elif "filter" not in doc["arms"].get(contrast["difference"][0], {}):
        fail("contrast", f"the candidate arm {contrast['difference'][0]!r} of "
             f"{spec['contrast']!r} declares no root filter")


def _threshold(kind: str) -> Callable[..., Any]:
    def read(name: str, spec: Mapping[str, Any], fig: Any) -> Any:
        return read_threshold(name, kind, spec["ranker"], spec["figure"], fig,
                              float(spec["threshold"]), spec.get("on", "bound"),
                              spec.get("title"))
    return read


def _beats(name: str, spec: Mapping[str, Any], diff: Any) -> Any:
    return read_beats(name, spec["ranker"], spec["other"], spec["figure"], diff,
                      spec.get("title"))


def _non_inferior(name: str, spec: Mapping[str, Any], diff: Any) -> Any:
    return read_non_inferior(name, spec["ranker"], spec["other"], spec["figure"], diff,
                             float(spec["margin"]), spec.get("on", "bound"), spec.get("title"))


_PF = ("pass", "fail")
_CONTRAST = Parameter("contrast", "contrast")
_WEIGHTS = Parameter("weights", "weights")
_RANKER, _FIGURE = Parameter("ranker", "ranker"), Parameter("figure", "figure")
_OTHER = Parameter("other", "ranker")
#: a panel reading's figures read against this ranker's values instead of the reference's
_JUDGE = Parameter("judge", "judge", OPTIONAL)
_ON = Parameter("on", "value", "bound", readers.on_problem)
_THRESHOLD = (_RANKER, _FIGURE, Parameter("threshold", "value", problem=readers.threshold_problem),
              _ON)
_PANEL_THRESHOLD = (*_THRESHOLD, _JUDGE)
_ARM_THRESHOLD = (Parameter("arm", "arm"), Parameter("figure", "value", problem=figure_problem),
                  *_THRESHOLD[2:])
#: a learner's figure (the weights' learner must give it: protocol.parts.readings checks it)
_LEARNER_THRESHOLD = (
    Parameter("weights", "learner"),
    Parameter("figure", "value", problem=learner_figures.figure_problem), _THRESHOLD[2],
    Parameter("last", "value", OPTIONAL, learner_figures.last_problem))

for _kind in (
    ReadingKind("screen", _PF, (_CONTRAST,), CONTRAST, readers.read_screen,
                check=_difference_contrasts),
    ReadingKind("upper-below-zero", ("refuted", "not-refuted"), (_CONTRAST,), CONTRAST,
                readers.read_upper_below_zero, held=("refuted",)),
    ReadingKind("lower-above-zero", _PF, (_CONTRAST,), CONTRAST, readers.read_lower_above_zero),
    ReadingKind("three-way", ("supported", "refuted", "inconclusive"), (_CONTRAST,), CONTRAST,
                readers.read_three_way),
    ReadingKind("passes-while-not", _PF, (_CONTRAST, Parameter("while_not", "contrast")),
                CONTRAST, readers.read_passes_while_not, check=_difference_contrasts),
    ReadingKind("non-inferior", _PF,
                (_CONTRAST, Parameter("margin", "value", problem=readers.margin_problem)),
                CONTRAST, readers.read_non_inferior),
    ReadingKind("arm-at-most", _PF, _ARM_THRESHOLD, ARM,
                _threshold_of(readers.read_arm_threshold, False), check=_arm_read),
    ReadingKind("arm-at-least", _PF, _ARM_THRESHOLD, ARM,
                _threshold_of(readers.read_arm_threshold, True), check=_arm_read),
    ReadingKind("filter-rate-at-least", _PF,
                (_CONTRAST, Parameter("threshold", "value", problem=readers.rate_problem)),
                CONTRAST, readers.read_filter_rate, check=_filtered_candidate),
    ReadingKind("margin-positive", _PF, (_WEIGHTS,), CURVE, readers.read_margin_positive),
    ReadingKind("margin-below", _PF, (_WEIGHTS, Parameter("reference", "weights")), CURVE,
                readers.read_margin_below),
    ReadingKind("training-health", _PF, (_WEIGHTS,), HEALTH, readers.read_training_health),
    ReadingKind("learner-at-least", _PF, _LEARNER_THRESHOLD, LEARNER,
                _threshold_of(read_learner_threshold, True)),
    ReadingKind("learner-at-most", _PF, _LEARNER_THRESHOLD, LEARNER,
                _threshold_of(read_learner_threshold, False)),
    ReadingKind("figure-at-least", _PF, _PANEL_THRESHOLD, PANEL,
                _threshold("figure-at-least")),
    ReadingKind("figure-at-most", _PF, _PANEL_THRESHOLD, PANEL, _threshold("figure-at-most")),
    ReadingKind("ranker-beats", _PF, (_RANKER, _OTHER, _FIGURE, _JUDGE), PANEL, _beats,
                paired=True),
    ReadingKind("ranker-non-inferior", _PF,
                (_RANKER, _OTHER, _FIGURE,
                 Parameter("margin", "value", problem=readers.loss_margin_problem),
                 _ON, _JUDGE), PANEL, _non_inferior, paired=True),
):
    register_reading(_kind)

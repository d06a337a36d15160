"""A claim's ranking panel as the page shows it: :class:`PanelSection`, read from readings.json.

The panel's readings file (``drop7-panel-readings-v1``, docs/panels.md) is
written by ``drop7 panel read``; the report job reads it back here once,
checks its shape (one line naming the file and the key), and the page reads
the section by attribute: how the roots were drawn, every ranker's figures
(:class:`~analysis.panel_bootstrap.Figure`), the panel readings, the rankers'
agreement and the roots shown as boards; the conventions they were read under, and the
figures and readings under the other convention (:class:`SideReading`, a display that
decides nothing).  The one-line summary per ranker
(:meth:`PanelSection.summary`) is what answers "does d2 order the moves like
d4?" at the top of the section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analysis.panel_bootstrap import Figure
from analysis.panel_conventions import CONVENTIONS, DEFAULT, RULES
from analysis.panel_readings import VALUE_FIGURES
from analysis.readings import Reading
from contracts.panel_table import FAULTS

#: the readings file's format
READINGS_FORMAT = "drop7-panel-readings-v1"
#: the figures of the summary line, in order, with their words (values needed: pairwise, tau)
SUMMARY = {"top1": "top-1", "pairwise": "pairwise", "tau": "tau",
           "regret_frac": "regret fraction"}
#: a board cell's character -> its CSS class (``'1'``-``'7'``: a numbered disc)
CELLS = {".": "empty", "#": "grey", "+": "cracked"}
BOARD_SIZE = 7


def needs_values(name: str) -> bool:
    """Whether a figure needs the ranker's values (pairwise, tau, recall@k)."""
    return name in VALUE_FIGURES or name.startswith("recall@")


class PanelReadingsError(ValueError):
    """A readings file that is not the panel's (one line: the file and the key)."""


@dataclass(frozen=True)
class RootsDrawn:
    """How the roots were drawn: the policy's games on ``seeds`` (``[start, count]``), every
    ``every``-th decision, at most ``limit`` (None: no cap); ``count`` roots of ``games``
    games."""

    policy: str
    seeds: list[int]
    every: int
    limit: int | None
    count: int
    games: int


@dataclass(frozen=True)
class ShownRoot:
    """One root shown as a board: the 7 rows top first (``.`` empty, ``1``-``7`` a number,
    ``#`` a grey disc, ``+`` a cracked one), the next disc, the reference's value of each
    column (None: illegal) and each ranker's choice."""

    game: int
    root: int
    board: list[str]
    next: int
    moves_remaining: int
    level: int
    score: int
    reference: list[float | None]
    choices: dict[str, int]

    @property
    def cells(self) -> list[list[tuple[str, str]]]:
        """Each row's cells as ``(text, css class)``, top row first."""
        return [[("" if ch == "." else ch, CELLS.get(ch, "disc")) for ch in row]
                for row in self.board]

    @property
    def best(self) -> list[int]:
        """The columns the reference values highest."""
        legal = [v for v in self.reference if v is not None]
        top = max(legal) if legal else None
        return [c for c, v in enumerate(self.reference) if v is not None and v == top]

    def chosen_by(self, column: int) -> list[str]:
        """The rankers that chose ``column`` here, in the panel's order."""
        return [name for name, c in self.choices.items() if c == column]


def _key(doc: Mapping[str, Any], key: str, source: str, kind: type | tuple[type, ...]) -> Any:
    if key not in doc:
        raise PanelReadingsError(f"{source}: {key}: missing")
    value = doc[key]
    if not isinstance(value, kind):
        raise PanelReadingsError(f"{source}: {key}: expected "
                                 f"{getattr(kind, '__name__', 'a value of another type')}, got "
                                 f"{type(value).__name__}")
    return value


def _figure(doc: Any, source: str, key: str) -> Figure:
    try:
        return Figure(**{**doc, "halves": tuple(doc["halves"])})
    except (TypeError, KeyError) as exc:
        raise PanelReadingsError(f"{source}: {key}: not a figure ({exc})") from None


def _shown(doc: Any, source: str, key: str) -> ShownRoot:
    try:
        root = ShownRoot(**{**doc, "board": list(doc["board"]),
                            "reference": list(doc["reference"]), "choices": dict(doc["choices"])})
    except (TypeError, KeyError) as exc:
        raise PanelReadingsError(f"{source}: {key}: not a shown root ({exc})") from None
    if len(root.board) != BOARD_SIZE or any(len(r) != BOARD_SIZE for r in root.board):
        raise PanelReadingsError(f"{source}: {key}.board: expected {BOARD_SIZE} rows of "
                                 f"{BOARD_SIZE} cells")
    if len(root.reference) != BOARD_SIZE:
        raise PanelReadingsError(f"{source}: {key}.reference: expected {BOARD_SIZE} values")
    return root


def _figures(doc: Mapping[str, Any], rankers: list[str], source: str, prefix: str = ""
             ) -> dict[str, dict[str, Figure]]:
    figures_doc = _key(doc, "figures", source, dict)
    figures = {}
    for name in rankers:
        if not isinstance(figures_doc.get(name), Mapping):
            raise PanelReadingsError(f"{source}: {prefix}figures.{name}: missing")
        figures[name] = {f: _figure(d, source, f"{prefix}figures.{name}.{f}")
                         for f, d in figures_doc[name].items()}
    return figures


def _readings(doc: Mapping[str, Any], source: str, prefix: str = "") -> dict[str, Reading]:
    readings = {}
    for name, r in _key(doc, "readings", source, dict).items():
        try:
            readings[str(name)] = Reading(**r)
        except TypeError as exc:
            raise PanelReadingsError(f"{source}: {prefix}readings.{name}: {exc}") from None
    return readings


def _conventions(doc: Mapping[str, Any], source: str, key: str) -> str:
    name = doc.get("conventions", DEFAULT)
    if name not in CONVENTIONS:
        raise PanelReadingsError(f"{source}: {key}: {name!r} is not one of "
                                 f"{', '.join(CONVENTIONS)}")
    return str(name)


@dataclass(frozen=True)
class SideReading:
    """The panel read under the convention it was not declared with: every ranker's figures,
    the paired readings' differences and the readings' outcomes, shown beside the deciding
    ones (they decide nothing)."""

    conventions: str
    figures: dict[str, dict[str, Figure]]
    differences: dict[str, Figure]
    readings: dict[str, Reading]

    @classmethod
    def from_json(cls, doc: Any, rankers: list[str], source: str) -> SideReading:
        """The readings file's ``side``; refused in one line naming ``source`` and the key."""
        if not isinstance(doc, Mapping):
            raise PanelReadingsError(f"{source}: side: expected an object")
        return cls(conventions=_conventions(doc, source, "side.conventions"),
                   figures=_figures(doc, rankers, source, "side."),
                   differences={n: _figure(d, source, f"side.differences.{n}")
                                for n, d in doc.get("differences", {}).items()},
                   readings=_readings(doc, source, "side."))


@dataclass(frozen=True)
class PanelSection:
    """A panel's readings file, typed: the reference and the rankers (table names), who gives
    values, the roots, every ranker's figures and the reference's own, the differences of
    paired readings (``ranker-beats``, ``ranker-non-inferior``), the panel readings, the
    agreement of choices, the roots shown."""

    reference: str
    rankers: list[str]
    values: dict[str, bool]
    work: str
    recall: list[int]
    roots: RootsDrawn
    figures: dict[str, dict[str, Figure]]
    reference_figures: dict[str, Figure]
    differences: dict[str, Figure]
    readings: dict[str, Reading]
    agreement_names: list[str]
    agreement: list[list[float]]
    shown: list[ShownRoot]
    table_sha256: str
    #: each faulted ranker's counts of ``illegal`` and ``unfinished`` answers (:func:`faults_of`)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the rules the figures and readings above were read under (analysis.panel_conventions)
    conventions: str = DEFAULT
    #: the same panel read under the other convention (None: a file written before it had one)
    side: SideReading | None = None
    #: ``judge -> ranker -> figures`` of the rankers a reading with a judge names
    judged: dict[str, dict[str, dict[str, Figure]]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, doc: Any, source: str = "readings.json") -> PanelSection:
        """The section of a ``drop7-panel-readings-v1`` document; refused in one line naming
        ``source`` and the key: another format, a missing or mistyped key, a ranker without
        figures, a figure that is not one."""
        if not isinstance(doc, Mapping):
            raise PanelReadingsError(f"{source}: expected a JSON object")
        if doc.get("format") != READINGS_FORMAT:
            raise PanelReadingsError(f"{source}: format: expected {READINGS_FORMAT}, got "
                                     f"{doc.get('format')!r}")
        rankers = [str(r) for r in _key(doc, "rankers", source, list)]
        reference = str(_key(doc, "reference", source, str))
        values = {str(k): bool(v) for k, v in _key(doc, "values", source, dict).items()}
        figures = _figures(doc, rankers, source)
        roots = _key(doc, "roots", source, dict)
        try:
            drawn = RootsDrawn(policy=str(roots["policy"]), seeds=[int(x) for x in roots["seeds"]],
                               every=int(roots["every"]),
                               limit=None if roots.get("limit") is None else int(roots["limit"]),
                               count=int(roots["count"]), games=int(roots["games"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise PanelReadingsError(f"{source}: roots: {exc}") from None
        agreement = _key(doc, "agreement", source, dict)
        names = [str(n) for n in agreement.get("names", [])]
        matrix = [[float(x) for x in row] for row in agreement.get("matrix", [])]
        if np.shape(matrix) != (len(names), len(names)):
            raise PanelReadingsError(f"{source}: agreement.matrix: expected {len(names)} x "
                                     f"{len(names)}, one row and column per name")
        readings = _readings(doc, source)
        side = doc.get("side")
        return cls(
            reference=reference, rankers=rankers, values=values,
            work=str(doc.get("work", "nodes")), recall=[int(k) for k in doc.get("recall", [])],
            roots=drawn, figures=figures,
            reference_figures={f: _figure(d, source, f"reference_figures.{f}")
                               for f, d in doc.get("reference_figures", {}).items()},
            differences={n: _figure(d, source, f"differences.{n}")
                         for n, d in doc.get("differences", {}).items()},
            readings=readings, agreement_names=names, agreement=matrix,
            shown=[_shown(d, source, f"shown[{i}]")
                   for i, d in enumerate(_key(doc, "shown", source, list))],
            table_sha256=str(doc.get("table_sha256", "")), faults=faults_of(doc, source),
            conventions=_conventions(doc, source, "conventions"),
            side=None if side is None else SideReading.from_json(side, rankers, source),
            judged={str(j): {str(n): {f: _figure(d, source, f"judged.{j}.{n}.{f}")
                                      for f, d in figs.items()} for n, figs in by.items()}
                    for j, by in doc.get("judged", {}).items()})

    @property
    def figure_names(self) -> list[str]:
        """Every figure the rankers were read on, in the readings file's order."""
        names: list[str] = []
        for figs in self.figures.values():
            names += [n for n in figs if n not in names]
        return names

    @property
    def without_values(self) -> list[str]:
        """The rankers that give their choice alone (read on top-1 and regret only); not one
        whose values are missing for its faults."""
        return [name for name in self.rankers
                if not self.values.get(name, False) and name not in self.faults]

    def fault_lines(self) -> list[str]:
        """One line per faulted ranker (the reference among them): its counts of faults."""
        return [f"{name}: {c.get(FAULTS[0], 0)} illegal and {c.get(FAULTS[1], 0)} unfinished "
                "answers" for name, c in self.faults.items()]

    def gives_values(self, ranker: str) -> bool:
        """Whether ``ranker`` values every column (else its value figures are "no values")."""
        return self.values.get(ranker, False)

    def missing(self, ranker: str, name: str) -> str:
        """What the page shows for a figure ``ranker`` does not have: "faults" (a value figure
        of a ranker with faults and no values), "no values" (a value figure of a ranker giving
        its choice alone), "not reported" (work), else "undefined" (defined at no root)."""
        if needs_values(name) and not self.gives_values(ranker):
            return "faults" if ranker in self.faults else "no values"
        return "not reported" if name in ("work", "work_ratio") else "undefined"

    @property
    def n_resamples(self) -> int | None:
        """The bootstrap's resamples (every figure's)."""
        return next((f.n_resamples for figs in self.figures.values() for f in figs.values()),
                    None)

    @property
    def register_rules(self) -> bool:
        """Whether the deciding figures were read under the register's rules."""
        return self.conventions != DEFAULT

    def convention_lines(self) -> dict[str, str]:
        """Each convention's rules in words, by name (the page's conventions table)."""
        words = {}
        for name, rule in RULES.items():
            pick = ("the first column of the ranker's highest value" if rule.pick_by_values
                    else "the ranker's played choice")
            top1 = ("the reference's first best column" if rule.pick_by_values
                    else "any column the reference values best")
            halves = ("a hash of the game seed (mix32 of its low 32 bits, bit 0)"
                      if rule.halves == "origin-hash" else "the games in seed order")
            roots = (f"roots with fewer than {rule.min_legal} legal columns left out"
                     if rule.min_legal > 1 else "every root")
            words[name] = (f"pick: {pick}; top-1: the pick is {top1}; a ranker tie in "
                           f"pairwise scores {rule.tie_credit:g}; {roots}; halves: {halves}")
        return words

    def summary(self, ranker: str) -> str:
        """One line of the ranker's orderings against the reference: each :data:`SUMMARY`
        figure's estimate and 90% interval, "no values" where it has none."""
        parts = []
        for name, words in SUMMARY.items():
            f = self.figures[ranker].get(name)
            if f is None or f.estimate is None:
                parts.append(f"{words} {self.missing(ranker, name)}")
            else:
                parts.append(f"{words} {f.estimate:.2f} ({f.lower:.2f} to {f.upper:.2f})")
        return f"{ranker} against {self.reference}: " + ", ".join(parts)

    def reading_figures(self, figure_name: str, ranker: str | None = None
                        ) -> dict[str, dict[str, Any]]:
        """Every ranker's ``figure_name`` as dicts (:func:`~analysis.report.panel_figures.
        ranker_figure`'s input), and the reference's when ``ranker`` is the reference."""
        out = {name: figs[figure_name].to_dict() for name, figs in self.figures.items()
               if figure_name in figs}
        if ranker == self.reference and figure_name in self.reference_figures:
            out[self.reference] = self.reference_figures[figure_name].to_dict()
        return out


def faults_of(doc: Mapping[str, Any], source: str) -> dict[str, dict[str, int]]:
    """A readings file's ``faults`` (absent: none), ``ranker -> {fault: count}``."""
    faults = doc.get("faults") or {}
    try:
        return {str(name): {str(k): int(v) for k, v in c.items()} for name, c in faults.items()}
    except (AttributeError, TypeError, ValueError) as exc:
        raise PanelReadingsError(f"{source}: faults: not counts by ranker ({exc})") from None


def reading_plots(section: PanelSection, declared: Mapping[str, Mapping[str, Any]]
                  ) -> dict[str, tuple[str, str | None, float | None]]:
    """``reading -> (figure, its ranker, threshold)`` for every panel reading of the section
    whose declaration names a figure (``declared``: the claim's readings, as declared)."""
    out = {}
    for name in section.readings:
        d = declared.get(name, {})
        if "figure" in d:
            threshold = d.get("threshold")
            out[name] = (str(d["figure"]), d.get("ranker"),
                         None if threshold is None else float(threshold))
    return out


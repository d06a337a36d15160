"""A panel's readings file: every figure, every declared reading and the shown roots, in one JSON.

:func:`read_panel` reads a panel table (:mod:`contracts.panel_table`) with
its roots file (:mod:`contracts.panel_roots`) and the panel's declaration
(``{"reference", "rankers", "recall", "work", "conventions", "readings"}``, the panel
kinds' readings only) and gives the readings file (format
:data:`READINGS_FORMAT`, docs/panels.md, "Commands and files") that the
page, the verdict and the records read:

* ``figures``: every figure (:func:`analysis.panel_readings.figure_names`)
  of every ranker against the reference, and ``reference_figures``, the
  reference read against itself (top-1 1, regret 0, tau 1: a check that the
  table is read the right way round);
* ``differences``: one per reading of a paired kind (``ranker-beats``,
  ``ranker-non-inferior``), the paired difference it reads; ``readings``: every declared
  reading through its kind's reader (:mod:`analysis.reading_kinds`), in declaration order;
* ``judged`` (only when a reading names a ``judge``): ``judge -> ranker -> figures``, each
  ranker such a reading names read against the judge's values at the judge's roots, its
  ``work_ratio`` still over the reference's work (:func:`judged_roots`);
* ``conventions``: the rules every figure and reading above is read under (the
  declaration's, :mod:`analysis.panel_conventions`), and ``side``: the figures, differences
  and readings under the other convention, shown beside on the page and deciding nothing;
* ``agreement``: how often each two rankers choose alike;
* ``faults`` (only when some ranker has one): each faulted ranker's count of
  ``illegal`` and ``unfinished`` answers (:func:`analysis.panel_faults.ranker_faults`),
  which make the claim's verdict invalid (:func:`analysis.panel_faults.fault_errors`);
* ``shown``: up to :data:`SHOWN` roots from different games, drawn as
  boards: in each game the root where the most rankers lose reference value
  (the earliest of equals), and of those the games where most do (the
  earliest of equals), in game order, so the page shows where the rankers
  differ rather than the opening board every game shares.

The table must hold exactly the roots of the roots file and the declared rankers.  ``drop7 panel
read`` (:data:`ACTIONS`) runs it on files and writes the result atomically.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from analysis.bootstrap import BOOTSTRAP_RESAMPLES
from analysis.panel_bootstrap import Figure
from analysis.panel_conventions import CONVENTIONS, DEFAULT, other
from analysis.panel_faults import faulted, ranker_faults
from analysis.panel_readings import (
    DEFAULT_KS,
    PanelError,
    PanelRoots,
    choice_agreement,
    difference,
    figure_names,
    panel_roots,
    read_ranker,
)
from analysis.reading_kinds import PANEL, READING_KINDS, REQUIRED, kinds_of
from contracts.cli_numbers import int_option
from contracts.errors import InputError
from contracts.hashing import file_sha256
from contracts.input_file import decode_utf8, read_input_bytes
from contracts.json_file import json_text, write_json
from contracts.panel_roots import board_rows, read_roots
from contracts.panel_table import N_COLUMNS, VALUE_COLUMNS, WORK, read_rows, table_text

#: the ``format`` of a readings file
READINGS_FORMAT = "drop7-panel-readings-v1"
#: the most roots a readings file shows as boards
SHOWN = 3
#: the most bootstrap resamples ``drop7 panel read`` accepts
MAX_RESAMPLES = 1_000_000


def check_declaration(declaration: Any) -> None:
    """Refuse a panel declaration that :func:`read_panel` cannot read, in one line naming the
    key (:class:`PanelError`)."""
    if not isinstance(declaration, Mapping):
        raise PanelError("the declaration must be a JSON object")
    for key in ("reference", "rankers", "readings"):
        if key not in declaration:
            raise PanelError(f"{key}: missing")
    reference, rankers = declaration["reference"], declaration["rankers"]
    if not isinstance(reference, str) or not reference:
        raise PanelError("reference: must be a ranker's name")
    if (not isinstance(rankers, list) or not rankers
            or not all(isinstance(r, str) and r for r in rankers)):
        raise PanelError("rankers: must be a non-empty list of names")
    if len(set(rankers)) != len(rankers) or reference in rankers:
        raise PanelError("rankers: must be distinct and not the reference")
    recall = declaration.get("recall", list(DEFAULT_KS))
    if (not isinstance(recall, list) or len(set(recall)) != len(recall)
            or not all(isinstance(k, int) and not isinstance(k, bool) and 1 <= k < N_COLUMNS
                       for k in recall)):
        raise PanelError(f"recall: must be distinct whole numbers 1..{N_COLUMNS - 1}")
    if declaration.get("work", WORK[0]) not in WORK:
        raise PanelError(f"work: must be one of {', '.join(WORK)}")
    if declaration.get("conventions", DEFAULT) not in CONVENTIONS:
        raise PanelError(f"conventions: {declaration['conventions']!r} is not one of "
                         f"{', '.join(CONVENTIONS)}")
    readings = declaration["readings"]
    if not isinstance(readings, Mapping):
        raise PanelError("readings: must be an object of readings by name")
    names, figures = [reference, *rankers], figure_names(recall)
    for name, spec in readings.items():
        _check_reading(f"readings.{name}", spec, names, figures)


def _check_reading(where: str, spec: Any, names: list[str], figures: Sequence[str]) -> None:
    """A reading of a panel kind (:mod:`analysis.reading_kinds`) whose rankers, figure and
    values hold."""
    if not isinstance(spec, Mapping):
        raise PanelError(f"{where}: must be an object")
    kind = READING_KINDS.get(spec.get("kind"))
    if kind is None or kind.source != PANEL:
        raise PanelError(f"{where}.kind: {spec.get('kind')!r} is not a panel reading kind "
                         f"({', '.join(kinds_of(PANEL))})")
    rankers = kind.of_role("ranker")
    for p in rankers:
        if spec.get(p.key) not in names:
            raise PanelError(f"{where}.{p.key}: {spec.get(p.key)!r} is not a ranker of the "
                             f"panel ({', '.join(names)})")
    if kind.paired and spec[rankers[0].key] == spec[rankers[1].key]:
        raise PanelError(f"{where}.{rankers[1].key}: a ranker cannot be read against itself")
    if "judge" in spec and spec["judge"] not in names:
        raise PanelError(f"{where}.judge: {spec['judge']!r} is not a ranker of the panel "
                         f"({', '.join(names)})")
    if "judge" in spec and spec["judge"] == spec[rankers[0].key]:
        raise PanelError(f"{where}.judge: a ranker cannot be judged by its own values")
    for p in kind.of_role("figure"):
        if spec.get(p.key) not in figures:
            raise PanelError(f"{where}.{p.key}: {spec.get(p.key)!r} is not a figure of the "
                             f"panel ({', '.join(figures)})")
    for p in kind.of_role("value"):
        why = p.problem(spec.get(p.key, None if p.default is REQUIRED else p.default))
        if why:
            raise PanelError(f"{where}.{p.key}: {why}")


def _float(text: str) -> float | None:
    return float(text) if text else None


def _check_table(rows: Sequence[Mapping[str, str]], roots_doc: Mapping[str, Any],
                 names: Sequence[str]) -> None:
    """The table holds the declared rankers alone, at the roots of the roots file."""
    extra_names = sorted({r["ranker"] for r in rows} - set(names))
    if extra_names:
        raise PanelError(f"ranker {extra_names[0]!r} is in the table but not in the "
                         f"declaration ({', '.join(names)})")
    reference = names[0]
    table = {(int(r["game"]), int(r["root"])) for r in rows if r["ranker"] == reference}
    roots = {(e["game"], e["root"]) for e in roots_doc["roots"]}
    for a, b, what in ((table, roots, "the roots file lacks it"),
                       (roots, table, f"the reference {reference} has no row there")):
        extra = sorted(a - b)
        if extra:
            raise PanelError(f"game {extra[0][0]} root {extra[0][1]}: {what} ({len(extra)} "
                             "roots differ)")


def _shown(rows: Sequence[Mapping[str, str]], roots_doc: Mapping[str, Any],
           names: list[str]) -> list[dict[str, Any]]:
    """Up to :data:`SHOWN` roots of different games (see the module's docstring)."""
    at: dict[tuple[int, int], dict[str, Mapping[str, str]]] = {}
    for row in rows:
        at.setdefault((int(row["game"]), int(row["root"])), {})[row["ranker"]] = row
    best: dict[int, tuple[int, dict[str, Any]]] = {}
    for entry in roots_doc["roots"]:
        here = at[entry["game"], entry["root"]]
        if faulted(here[names[0]]):  # the reference has no values here
            continue
        ref = [_float(here[names[0]][k]) for k in VALUE_COLUMNS]
        top = max(v for v in ref if v is not None)
        choices = {name: int(here[name]["choice"]) for name in names}
        losing = sum(ref[c] != top for c in choices.values())
        if entry["game"] not in best or losing > best[entry["game"]][0]:
            state = entry["state"]
            best[entry["game"]] = (losing, {
                "game": entry["game"], "root": entry["root"], "board": board_rows(entry["cols"]),
                "next": state["next_disc"], "moves_remaining": state["moves_remaining"],
                "level": state["level"], "score": state["score"], "reference": ref,
                "choices": choices})
    games = sorted(best, key=lambda g: (-best[g][0], g))[:SHOWN]
    return [best[g][1] for g in sorted(games)]


def _faults(rows: Sequence[Mapping[str, str]], names: Sequence[str]) -> dict[str, Any]:
    """``{"faults": {ranker: {fault: count}}}`` for the rankers with faults (the reference
    among them), or nothing when none has one (a readings file of a panel without faults
    is the same as before faults were recorded)."""
    faults = ranker_faults(rows, names)
    return {"faults": faults} if faults else {}


def judged_roots(rows: Sequence[Mapping[str, str]], reference: str, judge: str, name: str
                 ) -> PanelRoots:
    """Ranker ``name`` read against ``judge``'s values (at the judge's roots), its work still
    over the panel ``reference``'s: the roots a reading with a ``judge`` reads."""
    mine = panel_roots(rows, judge, name)
    ref = mine if name == reference else panel_roots(rows, judge, reference)
    return replace(mine, reference_work=ref.work)


def _judged_figures(rows: Sequence[Mapping[str, str]], declaration: Mapping[str, Any],
                    recall: Sequence[int], n_resamples: int, conventions: str
                    ) -> dict[str, dict[str, dict[str, Figure]]]:
    """``judge -> ranker -> figures`` of every ranker a reading with a judge names (the
    figures against the judge's values), by judge in declaration order."""
    out: dict[str, dict[str, Any]] = {}
    for spec in declaration["readings"].values():
        if "judge" not in spec:
            continue
        kind = READING_KINDS[spec["kind"]]
        for p in kind.of_role("ranker"):
            roots = judged_roots(rows, declaration["reference"], spec["judge"], spec[p.key])
            out.setdefault(spec["judge"], {}).setdefault(spec[p.key], read_ranker(
                roots, recall, n_resamples, conventions=conventions))
    return out


def _read_under(conventions: str, aligned: Mapping[str, Any], declaration: Mapping[str, Any],
                recall: Sequence[int], n_resamples: int,
                rows: Sequence[Mapping[str, str]] = ()) -> dict[str, Any]:
    """``figures``, ``reference_figures``, ``differences`` and ``readings`` of the readings
    file, every figure read under ``conventions`` (and ``judged``, the figures against a
    judge's values, when a reading names one)."""
    reference, rankers = declaration["reference"], declaration["rankers"]
    read = {name: read_ranker(aligned[name], recall, n_resamples, conventions=conventions)
            for name in aligned}
    judged = _judged_figures(rows, declaration, recall, n_resamples, conventions)
    differences, readings = {}, {}
    for name, spec in declaration["readings"].items():
        kind = READING_KINDS[spec["kind"]]
        ranker, figure = spec[kind.of_role("ranker")[0].key], spec[kind.of_role("figure")[0].key]
        judge = spec.get("judge")

        def roots_of(n: str, judge: str | None = judge) -> PanelRoots:
            return aligned[n] if judge is None else judged_roots(rows, reference, judge, n)

        if kind.paired:
            against = spec[kind.of_role("ranker")[1].key]
            diff = difference(roots_of(ranker), roots_of(against), figure, recall, n_resamples,
                              conventions=conventions)
            differences[name] = diff.to_dict()
            reading = kind.reader(name, spec, diff)
        else:
            reading = kind.reader(name, spec, (read if judge is None else judged[judge])[
                ranker][figure])
        readings[name] = reading.to_dict()
        if judge is not None:
            readings[name]["numbers"]["judge"] = judge
            readings[name]["reason"] += f" (against {judge}'s values, work over {reference}'s)"
    return {"figures": {name: {f: fig.to_dict() for f, fig in read[name].items()}
                        for name in rankers},
            "reference_figures": {f: fig.to_dict() for f, fig in read[reference].items()},
            "differences": differences, "readings": readings,
            **({"judged": {j: {n: {f: fig.to_dict() for f, fig in figs.items()}
                                for n, figs in by.items()} for j, by in judged.items()}}
               if judged else {})}


def read_panel(rows: Sequence[Mapping[str, str]], roots_doc: Mapping[str, Any],
               declaration: Mapping[str, Any], n_resamples: int = BOOTSTRAP_RESAMPLES,
               table_sha256: str | None = None) -> dict[str, Any]:
    """The readings file's content (see the module's docstring); ``rows`` as
    :func:`contracts.panel_table.read_rows` gives them, ``roots_doc`` as
    :func:`contracts.panel_roots.read_roots` does.  ``table_sha256`` defaults to the SHA-256
    of the rows written as a table (the file's, for a table the merge wrote).  Refused in one
    line (:class:`PanelError`): a bad declaration, a table whose roots are not the roots
    file's or with a ranker not declared, a ranker the table does not align with the
    reference."""
    check_declaration(declaration)
    reference, rankers = declaration["reference"], list(declaration["rankers"])
    recall = tuple(declaration.get("recall", DEFAULT_KS))
    conventions = declaration.get("conventions", DEFAULT)
    names = [reference, *rankers]
    _check_table(rows, roots_doc, names)
    aligned = {name: panel_roots(rows, reference, name) for name in names}
    read = _read_under(conventions, aligned, declaration, recall, n_resamples, rows)
    side = _read_under(other(conventions), aligned, declaration, recall, n_resamples, rows)
    roots = roots_doc["roots"]
    sha = table_sha256 or hashlib.sha256(table_text(rows).encode("utf-8")).hexdigest()
    out = {
        "format": READINGS_FORMAT, "reference": reference, "rankers": rankers,
        "values": {name: aligned[name].values is not None for name in names},
        "work": declaration.get("work", WORK[0]), "recall": list(recall),
        "roots": {"policy": roots_doc["policy"], "seeds": list(roots_doc["seeds"]),
                  "every": roots_doc["every"], "limit": roots_doc["limit"],
                  "count": len(roots), "games": len({e["game"] for e in roots})},
        **read, "conventions": conventions, "side": {"conventions": other(conventions), **side},
        "agreement": {"names": names, "matrix": choice_agreement(rows, names).tolist()},
        "shown": _shown(rows, roots_doc, names),
        "table_sha256": sha,
        **_faults(rows, names),
    }
    return json.loads(json_text(out))  # exactly what the file holds (lists, no NaN)


def _read_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", required=True, metavar="PANEL_CSV", help="the panel table")
    parser.add_argument("--roots", required=True, metavar="ROOTS_JSON", help="its roots file")
    parser.add_argument("--declaration", required=True, metavar="PANEL_JSON",
                        help='{"reference", "rankers", "recall", "work", "conventions", '
                             '"readings"}')
    parser.add_argument("--resamples", type=int_option(1, MAX_RESAMPLES),
                        default=BOOTSTRAP_RESAMPLES, metavar="N",
                        help=f"bootstrap resamples (default {BOOTSTRAP_RESAMPLES:,})")
    parser.add_argument("--out", required=True, metavar="READINGS_JSON",
                        help="the readings file (JSON, written atomically)")


def _read(args: argparse.Namespace) -> int:
    text = decode_utf8(read_input_bytes(args.declaration, args.declaration), args.declaration)
    try:
        declaration = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{args.declaration}: not JSON (line {exc.lineno}: {exc.msg})"
                         ) from None
    try:
        check_declaration(declaration)
    except PanelError as exc:
        raise InputError(f"{args.declaration}: {exc}") from None
    rows = read_rows(args.table)
    roots_doc = read_roots(args.roots)
    try:
        out = read_panel(rows, roots_doc, declaration, args.resamples,
                         file_sha256(args.table))
    except PanelError as exc:
        raise InputError(f"{args.table}: {exc}") from None
    write_json(args.out, out)
    return 0


#: action -> (its help, its arguments, its run), as :mod:`engines.play.panel_cli`'s
ACTIONS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None],
                         Callable[[argparse.Namespace], int]]] = {
    "read": ("the panel's readings file: figures, readings, agreement, shown roots",
             _read_arguments, _read),
}

"""Check the register's figures a claim quotes (its ``recorded`` block) against a local
checkout of the register.

The register keeps one JSON file per record: ``research/results/RS-*.json``,
``research/theories/TH-*.json`` and ``research/experiments/EX-*.json``.  A result
that replaces another names it in ``metrics.supersedes`` (an id or a list of ids); the
replaced record stays committed, unedited, so the one to quote is the head of the chain:
the result no other result supersedes.

A quoted figure agrees when the record carries it: some number of the record (a
numeric field, or a number written in its text) rounds to it at the figure's own
precision (``23367`` for ``23366.8``, ``117.97`` for ``117.96875``); a win-tie-loss
triple agrees when the record writes it (``17-0-15``, or ``wins``/``ties``/``losses``).
The verdict's first word is the record's ``assessment``.  Every disagreement is one line
naming the claim file and the key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import yaml

from protocol.records.ids import THEORY_ID

#: a result id of the register's pattern (a ``recorded.result``)
RESULT_ID = re.compile(r"^RS-[0-9]{8}T[0-9]{6}Z-[a-f0-9]{8}$")
#: a number written in a record's text: ``+23,367``, ``-83,046``, ``117.97``
_TEXT_NUMBER = re.compile(r"(?<![\w.])[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?"
                          r"|(?<![\w.,])[+-]?\d+(?:\.\d+)?")
#: a win-tie-loss triple written in a record's text
_TEXT_WTL = re.compile(r"(?<!\d)(\d+)-(\d+)-(\d+)(?!\d)")


@dataclass
class Register:
    """The records of a register checkout, by id (``results`` also by what supersedes each)."""

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    theories: set[str] = field(default_factory=set)
    experiments: set[str] = field(default_factory=set)
    superseded_by: dict[str, str] = field(default_factory=dict)

    def head(self, result: str) -> str:
        """The last result of ``result``'s supersession chain (itself when none replaces it)."""
        seen = {result}
        while result in self.superseded_by:
            result = self.superseded_by[result]
            if result in seen:  # a cycle: stop where it closes
                break
            seen.add(result)
        return result


def _supersedes(record: Mapping[str, Any]) -> list[str]:
    said = (record.get("metrics") or {}).get("supersedes", record.get("supersedes"))
    if said is None:
        return []
    return [str(s) for s in (said if isinstance(said, list) else [said])]


def read_register(root: str | Path) -> Register:
    """The results, theory ids and experiment ids under ``root/research`` (a register checkout).

    A folder missing or a record that is not JSON raises ``ValueError`` naming the file."""
    base = Path(root, "research")
    if not (base / "results").is_dir():
        raise ValueError(f"{root}: not a register checkout (no research/results/)")
    reg = Register()
    for path in sorted((base / "results").glob("RS-*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: not a JSON record ({exc})") from exc
        rid = str(record.get("resultId", path.stem))
        reg.results[rid] = record
        for old in _supersedes(record):
            reg.superseded_by[old] = rid
    reg.theories = {p.stem for p in (base / "theories").glob("TH-*.json")}
    reg.experiments = {p.stem for p in (base / "experiments").glob("EX-*.json")}
    return reg


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def record_numbers(record: Mapping[str, Any]) -> list[Decimal]:
    """Every number a record carries: its numeric fields and the numbers in its text."""
    out: list[Decimal] = []
    for leaf in _leaves(record):
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, int | float):
            out.append(Decimal(repr(leaf)))
        elif isinstance(leaf, str):
            out += [Decimal(m.replace(",", "").lstrip("+")) for m in _TEXT_NUMBER.findall(leaf)]
    return out


def record_triples(record: Mapping[str, Any]) -> set[tuple[int, int, int]]:
    """Every win-tie-loss triple a record writes (``17-0-15``, or wins/ties/losses fields)."""
    out: set[tuple[int, int, int]] = set()
    stack: list[Any] = [record]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            if all(isinstance(value.get(k), int) for k in ("wins", "ties", "losses")):
                out.add((value["wins"], value["ties"], value["losses"]))
            stack += list(value.values())
        elif isinstance(value, list):
            stack += value
        elif isinstance(value, str):
            out |= {(int(a), int(b), int(c)) for a, b, c in _TEXT_WTL.findall(value)}
    return out


def _places(figure: int | float) -> int:
    """The decimal places a quoted figure is written to (``117.97``: 2, ``23367``: 0)."""
    if isinstance(figure, int):
        return 0
    text = repr(figure)
    return len(text.split(".", 1)[1]) if "." in text and "e" not in text else 0


def carries(numbers: list[Decimal], figure: int | float) -> bool:
    """Whether some record number rounds (half away from zero) to ``figure`` at its places."""
    quantum = Decimal(1).scaleb(-_places(figure))
    want = Decimal(repr(figure)).quantize(quantum)
    return any(n.quantize(quantum, rounding=ROUND_HALF_UP) == want for n in numbers)


def _figures(recorded: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(key, value)`` of every figure a ``recorded`` block quotes."""
    if "games" in recorded:
        yield "recorded.games", recorded["games"]
    for part in ("arms", "contrasts", "validation"):
        for name, figures in (recorded.get(part) or {}).items():
            for key, value in figures.items():
                yield f"recorded.{part}.{name}.{key}", value


def check_claim(doc: Mapping[str, Any], reg: Register, path: str) -> list[str]:
    """The disagreements of one claim's ``theory``, ``derived_from`` and ``recorded`` with the
    register, one line each naming ``path`` and the key (a declared ``experiment`` names the
    experiment our own run writes, not the register's: it is not checked here)."""
    out: list[str] = []
    theory, derived = doc.get("theory"), doc.get("derived_from")
    if derived is not None:
        if derived not in reg.theories:
            out.append(f"{path}: key derived_from: {derived} is not a theory of the register")
    elif theory is None or not THEORY_ID.match(str(theory)):
        out.append(f"{path}: key theory: {theory!r} is not a register theory id and the claim "
                   "does not name the register theory it derives from (derived_from)")
    elif theory not in reg.theories:
        out.append(f"{path}: key theory: {theory} is not a theory of the register (a theory "
                   "of one's own is declared with derived_from)")
    recorded = doc.get("recorded")
    replay = (recorded or {}).get("replay")
    if replay is not None and (replay["result"] not in reg.experiments
                               and replay["result"] not in reg.results):
        out.append(f"{path}: key recorded.replay.result: {replay['result']} is not an "
                   "experiment or a result of the register")
    if not recorded or set(recorded) == {"replay"}:  # a replay quotes no figure
        return out
    result_id = recorded.get("result")
    if result_id is None:
        return [*out, f"{path}: key recorded.result: missing: the register result the "
                      "figures are quoted from"]
    record = reg.results.get(result_id)
    if record is None:
        return [*out, f"{path}: key recorded.result: {result_id} is not a result of the "
                      "register"]
    head = reg.head(result_id)
    if head != result_id:
        out.append(f"{path}: key recorded.result: {result_id} is superseded by {head}: quote "
                   "the head of its chain")
    if record.get("experimentId") not in reg.experiments:
        out.append(f"{path}: key recorded.result: its experiment {record.get('experimentId')} "
                   "is not an experiment of the register")
    named = derived if derived is not None else theory
    if named not in (record.get("theoryIds") or []):
        key = "derived_from" if derived is not None else "theory"
        out.append(f"{path}: key {key}: {named} is not a theory {result_id} assesses "
                   f"({', '.join(record.get('theoryIds') or [])})")
    verdict = str(recorded.get("verdict", "")).split(" (", 1)[0]
    if verdict and verdict != record.get("assessment"):
        out.append(f"{path}: key recorded.verdict: {verdict!r} but {result_id} assesses "
                   f"{record.get('assessment')!r}")
    numbers, triples = record_numbers(record), record_triples(record)
    for key, value in _figures(recorded):
        if key.endswith(".wins_ties_losses"):
            if tuple(value) not in triples:
                out.append(f"{path}: key {key}: {'-'.join(map(str, value))} is not a "
                           f"win-tie-loss count of {result_id}")
            continue
        for i, figure in enumerate(value if isinstance(value, list) else [value]):
            if not carries(numbers, figure):
                where = f"{key}[{i}]" if isinstance(value, list) else key
                out.append(f"{path}: key {where}: {figure} is not a figure of {result_id} "
                           "(to the digit it is quoted to)")
    return out


def check_claims(claims_dir: str | Path, register: str | Path) -> list[str]:
    """Every disagreement of the claims in ``claims_dir`` (``*.yaml``) with ``register``."""
    reg = read_register(register)
    out: list[str] = []
    for path in sorted(Path(claims_dir).glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out += check_claim(doc, reg, str(path))
    return out

"""Check the register's figures a claim quotes (its ``recorded`` block) against a local
checkout of the register.

The register keeps one JSON file per record: ``research/results/RS-*.json``,
``research/theories/TH-*.json`` and ``research/experiments/EX-*.json``.  A result
that replaces another names it in ``metrics.supersedes`` (an id or a list of ids); the
replaced record stays committed, unedited, so the one to quote is the head of the chain:
the result no other result supersedes.

A quoted figure agrees when the record carries it under a key of the same meaning
(``FIGURE_KEYS``), rounded half away from zero to the figure's own places (``23367`` for
``23366.8``, ``117.97`` for ``117.96875``); a contrast's figures must all be fields of one
part of the record (its mean delta, bounds, halves and win-tie-loss count side by side).  A
figure equal only to an unrelated field, or written only in the record's prose, disagrees.
The verdict's first word is the record's ``assessment``.  Every disagreement is one line
naming the claim file and the key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
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


#: What each quoted figure means in a record: a pattern over a record field's
#: ``parent.key`` (the key of the mapping holding it, a dot, its own key).  A figure agrees
#: only with a field these name; ``halves`` is read element by element (the first half, the
#: second), ``wins_ties_losses`` from ``wins``/``ties``/``losses``, a ``winTieLoss`` string or a
#: list of three (:data:`WTL_LIST`).  ``regret_frac`` is the register's normalised regret
#: (``regret``, ``regretHalf1``), never a regret in points.
FIGURE_KEYS: dict[str, str] = {
    "games": r"[^.]*\.(?:n|games|(?!censored)[A-Za-z0-9]+Games)",
    "mean": r"score\.mean|[^.]*\.(?:meanScore(?:Candidate|Reference)?|[A-Za-z0-9]+MeanScore)"
            r"|ladderD\d+N\d+\.M\d+|(?!moves\.)[^.]*\.mean",
    "q25": r"(?!moves\.)[^.]*\.q25|[^.]*\.(?:q25Score|q25(?:Candidate|Reference))",
    "moves": r"moves\.mean|[^.]*\.(?:meanMoves|movesMean|moves(?:Candidate|Reference)"
             r"|[A-Za-z0-9]+MeanMoves)"
             r"|ladderMovesD\d+N\d+\.M\d+",
    "filter_changed": r"coverage\.overrides",
    "filter_applied": r"coverage\.triggeredDecisions",
    "filter_decisions": r"coverage\.decisions",
    "mean_delta": r"[^.]*\.(?:meanDelta|meanScoreDelta|pairedDelta)",
    "bootstrap_lb": r"[^.]*\.(?:bootstrapLower95|bootstrapLB95|lowerBound95(?:OneSided)?|lb95)",
    "bootstrap_ub": r"[^.]*\.(?:bootstrapUpper95|bootstrapUB95|upperBound95|ub95)",
    "t_lb": r"[^.]*\.(?:studentTLower95|studentTLB95)",
    "sd_delta": r"[^.]*\.(?:pairedSd|sdDelta)",
    "detection_floor": r"[^.]*\.detectionFloor",
    "halves[0]": r"[^.]*\.(?:firstHalfMeanDelta|half1)|halves\[0\]",
    "halves[1]": r"[^.]*\.(?:secondHalfMeanDelta|half2)|halves\[1\]",
    "margin": r"[^.]*\.finalMargin",
    "wins_ties_losses": r"[^.]*\.winTieLoss",
    "top1": r"[^.]*\.(?:top1|[A-Za-z0-9]*Top1)(?:Pooled|Agreement)?",
    "top1[0]": r"[^.]*\.(?:top1|[A-Za-z0-9]*Top1)Half1|[A-Za-z0-9]*Top1Halves\[0\]",
    "top1[1]": r"[^.]*\.(?:top1|[A-Za-z0-9]*Top1)Half2|[A-Za-z0-9]*Top1Halves\[1\]",
    "pairwise": r"[^.]*\.pairwise(?:Pooled)?",
    "pairwise[0]": r"[^.]*\.pairwiseHalf1",
    "pairwise[1]": r"[^.]*\.pairwiseHalf2",
    "regret_frac": r"[^.]*\.(?:regret(?:Pooled)?|meanNormalisedRegret)",
    "regret_frac[0]": r"[^.]*\.regretHalf1",
    "regret_frac[1]": r"[^.]*\.regretHalf2",
    # a ranking panel's figures (docs/panels.md): recall@k, normalised and raw regret, work
    **{f"recall@{k}": rf"[^.]*\.recall{k}" for k in range(1, 7)},
    "regret": r"[^.]*\.meanRawRegret",
    "work_ratio": r"[^.]*\.workRatioOfMeans",
}
#: a win-tie-loss count written as a list of three under this key (``wtl: [22, 0, 42]``)
WTL_LIST = "wtl"
_MEANS = {k: re.compile(v) for k, v in FIGURE_KEYS.items()}


@dataclass(frozen=True)
class Field:
    """One scalar of a record: where it is, the ``parent.key`` the table reads, and the part
    (the mapping) holding it."""

    path: str
    key: str
    part: str
    value: Any


def record_fields(record: Mapping[str, Any]) -> list[Field]:
    """Every scalar field of a record.  A list's elements are keyed ``list[i]`` and belong
    to the part holding the list (``halves: [a, b]`` beside a ``pairedDelta``)."""
    out: list[Field] = []

    def walk(value: Any, path: str, parent: str, part: str) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                sub = f"{path}.{k}" if path else str(k)
                if isinstance(v, Mapping):
                    walk(v, sub, str(k), sub)
                elif isinstance(v, list):
                    walk(v, sub, str(k), path)
                else:
                    out.append(Field(sub, f"{parent}.{k}", path, v))
            return
        for i, v in enumerate(value):
            sub = f"{path}[{i}]"
            if isinstance(v, Mapping):
                walk(v, sub, parent, sub)
            elif isinstance(v, list):
                walk(v, sub, parent, part)
            else:
                out.append(Field(sub, f"{parent}[{i}]", part, v))

    walk(record, "", "", "")
    return out


def _places(figure: int | float) -> int:
    """The decimal places a quoted figure is written to (``117.97``: 2, ``23367``: 0)."""
    if isinstance(figure, int):
        return 0
    text = repr(figure)
    return len(text.split(".", 1)[1]) if "." in text and "e" not in text else 0


def carries(value: Any, figure: int | float) -> bool:
    """Whether a record number rounds (half away from zero) to ``figure`` at its places."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return False
    quantum = Decimal(1).scaleb(-_places(figure))
    want = Decimal(repr(figure)).quantize(quantum)
    got = value if isinstance(value, Decimal) else Decimal(repr(value))
    return got.quantize(quantum, rounding=ROUND_HALF_UP) == want


def _triple(field: Field) -> tuple[int, int, int] | None:
    if isinstance(field.value, str) and _MEANS["wins_ties_losses"].fullmatch(field.key):
        m = re.fullmatch(r"(\d+)-(\d+)-(\d+)", field.value.strip())
        return (int(m[1]), int(m[2]), int(m[3])) if m else None
    return None


def _in_part(fields: list[Field], meaning: str, figure: Any) -> bool:
    """Whether these fields (one part of the record) carry ``figure`` under ``meaning``."""
    if meaning == "wins_ties_losses":
        want = tuple(figure)
        by_key = {f.key.rsplit(".", 1)[-1]: f.value for f in fields}
        if tuple(by_key.get(k) for k in ("wins", "ties", "losses")) == want:
            return True
        if tuple(by_key.get(f"{WTL_LIST}[{i}]") for i in range(3)) == want:
            return True
        return any(_triple(f) == want for f in fields)
    return any(_MEANS[meaning].fullmatch(f.key) and carries(f.value, figure) for f in fields)


def _quoted(part: str, name: str, figures: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """``(key, meaning, figure)`` of one arm's, contrast's or validation's figures."""
    out = []
    for key, value in figures.items():
        if isinstance(value, list) and key != "wins_ties_losses":  # halves, a figure's two
            out += [(f"recorded.{part}.{name}.{key}[{i}]", f"{key}[{i}]", v)
                    for i, v in enumerate(value)]
        else:
            out.append((f"recorded.{part}.{name}.{key}", key, value))
    return out


def _shown(figure: Any) -> str:
    return "-".join(map(str, figure)) if isinstance(figure, list) else str(figure)


def _why(figure: Any, meaning: str, fields: list[Field], rid: str, part: str | None) -> str:
    """Why ``figure`` is not the record's: found under its meaning in another part, only
    under an unrelated key, only in the record's prose, or nowhere."""
    if meaning == "wins_ties_losses":
        return f"{_shown(figure)} is not a win-tie-loss count of {rid}" + (
            f"'s part {part}" if part is not None else "")
    proper = [f for f in fields if _MEANS[meaning].fullmatch(f.key) and carries(f.value, figure)]
    if proper and part is not None:
        return (f"{figure} is {rid}'s {proper[0].path}, not in the part that carries the "
                f"contrast's other figures ({part})")
    other = [f for f in fields if carries(f.value, figure)]
    if other:
        return (f"{figure} is {rid}'s {other[0].path}, a key that is not a {meaning} "
                f"figure ({FIGURE_KEYS[meaning]})")
    texts = [f for f in fields if isinstance(f.value, str) and any(
        carries(Decimal(m.replace(",", "").lstrip("+")), figure)
        for m in _TEXT_NUMBER.findall(f.value))]
    if texts:
        return (f"{figure} is written only in {rid}'s text ({texts[0].path}), under no key "
                "of its meaning")
    return f"{figure} is not a figure of {rid} (to the digit it is quoted to)"


def _figure_problems(recorded: Mapping[str, Any], record: Mapping[str, Any], rid: str,
                     path: str) -> list[str]:
    """The disagreements of a ``recorded`` block's figures with the record ``rid``."""
    fields = record_fields(record)
    parts: dict[str, list[Field]] = {}
    for f in fields:
        parts.setdefault(f.part, []).append(f)
    out: list[str] = []

    def unknown(key: str, meaning: str) -> str:
        return (f"{path}: key {key}: no key of the register is known to carry {meaning} "
                "(FIGURE_KEYS, protocol/records/register.py)")

    quoted = [("recorded.games", "games", recorded["games"])] if "games" in recorded else []
    for part in ("arms", "validation", "rankers"):
        for name, figures in (recorded.get(part) or {}).items():
            quoted += _quoted(part, name, figures)
    for judge, by in (recorded.get("judged") or {}).items():
        for name, figures in by.items():
            quoted += _quoted(f"judged.{judge}", name, figures)
    for key, meaning, figure in quoted:  # each its own: arms name their parts unlike ours
        if meaning not in _MEANS:
            out.append(unknown(key, meaning))
        elif not _in_part(fields, meaning, figure):
            out.append(f"{path}: key {key}: {_why(figure, meaning, fields, rid, None)}")
    for name, figures in (recorded.get("contrasts") or {}).items():
        wanted = _quoted("contrasts", name, figures)
        out += [unknown(k, m) for k, m, _ in wanted if m not in _MEANS]
        wanted = [w for w in wanted if w[1] in _MEANS]
        held = {p: [k for k, m, v in wanted if _in_part(fs, m, v)] for p, fs in parts.items()}
        best = max(held, key=lambda p: len(held[p]), default="")
        for key, meaning, figure in wanted:
            if key not in held.get(best, []):
                why = _why(figure, meaning, fields, rid, best if held.get(best) else None)
                out.append(f"{path}: key {key}: {why}")
    return out


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
    return out + _figure_problems(recorded, record, result_id, path)


def check_claims(claims_dir: str | Path, register: str | Path) -> list[str]:
    """Every disagreement of the claims in ``claims_dir`` (``*.yaml``) with ``register``."""
    reg = read_register(register)
    out: list[str] = []
    for path in sorted(Path(claims_dir).glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out += check_claim(doc, reg, str(path))
    return out

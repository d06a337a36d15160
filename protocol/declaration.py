"""Claim declarations: ``config/claims/<id>.yaml``, loaded, schema-checked and cross-checked.

:func:`load_claims` reads every declaration of a directory and returns them
by id; :func:`load_claim_set` reads the shipped ones and those of a folder
of one's own beside them (``claims_dir``). A declaration is first checked
against ``claim.schema.yaml`` (a misspelt key, a bad value), then for what a
schema cannot say: the id is the file's name; an arm's leaf names weights
this claim trains or a claim and weights that exist; a contrast names
declared arms and a known metric; a reading has the keys its kind takes,
names a contrast or trained weights, and its values hold (a non-inferiority
margin finite and below 0); a gate is a validation reading; a verdict rule names
declared readings and outcomes their kinds can give; a sequential screen
(``screen.looks``) has one screen reading to stop on, no arm on a prefix and
a design that keeps its error rate; a claim trains at most
:data:`MAX_CHECKPOINTS` checkpoints (counted before any list of them is
built); a claim has a screen, a ranking panel or both, and a panel names
arms, a reference that values every column (or an outcome within the
labeller's limits), distinct rankers and the block of its own only without a
screen, and its readings name its rankers and figures (docs/panels.md).
Across claims: every claim and weights named exists, nothing is
circular, a shared block is the block of a claim that owns it and that
declares at least as many games. Every file of the directory must be a
``*.yaml`` declaration (a ``.yml`` would otherwise be skipped silently). Any
failure is one :class:`DeclarationError` line naming the file and the key.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.games_table import METRICS
from analysis.panel_readings import figure_names
from analysis.reading_kinds import PANEL, READING_KINDS, REQUIRED, gate_kinds
from analysis.reading_result import NOT_RUN
from analysis.sequential import SequentialDesign
from analysis.sequential_screen import design_key, design_of
from contracts.panel_table import OUTCOME_REFERENCE, WORK
from engines.leaves.kinds import LEAF_KINDS
from engines.play.spec import EXTERNAL
from protocol.arms import PLAY_KINDS, check_arm, play_kind
from protocol.schema import DeclarationError, check, load_schema, read_yaml

#: the claim declaration format
FORMAT = "drop7-claim-v1"
#: the folder of the shipped declarations (relative to the repository)
DEFAULT_CLAIMS_DIR = "config/claims"
#: the one suffix of a declaration file
SUFFIX = ".yaml"
#: why a sequential screen refuses an arm on a prefix (declaration and profile)
NO_PREFIX = "a sequential screen plays every arm on every look's seeds: no arm on a prefix"
#: most checkpoints of one claim, over all its trained weights, in any profile: each is a
#: training segment, a checkpoint on disk and a validation point (64 games)
MAX_CHECKPOINTS = 1_000


def checkpoint_count(moves: int, every: int) -> int:
    """How many checkpoints ``moves`` trained with one ``every`` moves give (the length of
    :func:`contracts.train_directory.checkpoint_steps`, without building it)."""
    return -(-moves // every)


def is_checkpoint(step: int, moves: int, every: int) -> bool:
    """Whether ``step`` is a checkpoint of ``moves`` trained with one every ``every`` moves."""
    return 0 < step <= moves and (step % every == 0 or step == moves)


def declared_screen(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The screen a declaration plays: its ``screen``, or for a claim with a panel and no
    screen the roots arm's games of the panel's block (``{games: roots.games, block:
    panel.block}``)."""
    if "screen" in doc:
        return doc["screen"]
    panel = doc["panel"]
    return {"games": panel["roots"]["games"], "block": panel["block"]}


def screen_arm_names(doc: Mapping[str, Any]) -> list[str]:
    """The arms that play the screen's games: every arm with a screen; without one, only the
    panel's roots arm (the others rank its roots)."""
    if "screen" in doc:
        return list(doc["arms"])
    return [doc["panel"]["roots"]["policy"]]


def reference_name(panel: Mapping[str, Any]) -> str:
    """The panel reference's name in the panel table: its arm, or
    :data:`~contracts.panel_table.OUTCOME_REFERENCE` for an outcome labeller."""
    ref = panel["reference"]
    return OUTCOME_REFERENCE if isinstance(ref, Mapping) else ref


@dataclass(frozen=True)
class Claim:
    """One validated declaration (``doc`` holds the schema's defaults filled in)."""

    id: str
    path: Path
    doc: dict[str, Any]
    #: a sequential screen's design as declared (built once, by the check; None: a fixed
    #: screen)
    design: SequentialDesign | None = None

    @property
    def weights(self) -> dict[str, Any]:
        """Trained weights: name -> {train, select}."""
        return self.doc.get("weights", {})

    @property
    def arms(self) -> dict[str, Any]:
        """Screen arms: name -> declaration."""
        return self.doc["arms"]

    @property
    def contrasts(self) -> dict[str, Any]:
        """Contrasts: name -> {difference: [a, b]} or {interaction: [[a, b], [c, d]]} (none
        declared: {})."""
        return self.doc.get("contrasts", {})

    @property
    def screen(self) -> dict[str, Any]:
        """The screen's ``games`` and ``block`` (:func:`declared_screen`)."""
        return declared_screen(self.doc)

    @property
    def screen_arms(self) -> dict[str, Any]:
        """The arms that play the screen's games (:func:`screen_arm_names`): name ->
        declaration."""
        return {name: self.arms[name] for name in screen_arm_names(self.doc)}

    @property
    def panel(self) -> dict[str, Any] | None:
        """The ranking panel as declared (None: the claim has none)."""
        return self.doc.get("panel")

    @property
    def readings(self) -> dict[str, Any]:
        """Readings: name -> {kind, ...}."""
        return self.doc["readings"]

    def imports(self) -> set[tuple[str, str]]:
        """``(claim, weights)`` of every frozen artefact of another claim the arms read or a
        training starts from."""
        return ({(leaf["claim"], leaf["weights"]) for leaf in self.leaves() if "claim" in leaf}
                | {(i["claim"], i["weights"]) for _, i in self.warm_starts() if "claim" in i})

    def warm_starts(self) -> list[tuple[str, dict[str, Any]]]:
        """``(weights, init)`` of every trained weights that starts warm."""
        return [(n, w["train"]["init"]) for n, w in self.weights.items()
                if "init" in w["train"]]

    def leaves(self) -> list[dict[str, Any]]:
        """Every leaf that names weights (trained or imported), not a pinned file."""
        leaves = [a.get("leaf") for a in self.arms.values()]
        if "validation" in self.doc:
            leaves.append(self.doc["validation"]["comparator"])
        return [leaf for leaf in leaves if isinstance(leaf, Mapping) and "weights" in leaf]

    def pinned_files(self) -> list[tuple[str, str, str]]:
        """``(key, path, sha256)`` of every pinned file the claim reads: its arms' and its
        comparator's leaves and its warm starts (:func:`pinned_path`)."""
        out = [(f"arms.{n}.leaf", a["leaf"]) for n, a in self.arms.items()]
        if "validation" in self.doc:
            out.append(("validation.comparator", self.doc["validation"]["comparator"]))
        out += [(f"weights.{n}.train.init", w["train"].get("init"))
                for n, w in self.weights.items()]
        return [(key, pinned_path(self, leaf["file"]), leaf["sha256"]) for key, leaf in out
                if is_pinned(leaf)]

    def contrast_arms(self, name: str) -> list[str]:
        """The arms of a contrast, in order (two or four)."""
        c = self.contrasts[name]
        return list(c["difference"]) if "difference" in c else [*c["interaction"][0],
                                                                  *c["interaction"][1]]


class _Check:
    """Raise one line naming the declaration's file and a key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> None:
        raise DeclarationError(f"{self.path}: key {key}: {message}")


def _names(items: Mapping[str, Any]) -> str:
    return ", ".join(items) or "none"


def _check_weights(doc: dict[str, Any], chk: _Check) -> None:
    total = 0
    for name, w in doc.get("weights", {}).items():
        t, key = w["train"], f"weights.{name}.train"
        if t["learner"] == "ntuple" and "layout" not in t:
            chk.fail(f"{key}.layout", "an ntuple learner needs a layout (A..E)")
        if t["learner"] == "linear" and "layout" in t:
            chk.fail(f"{key}.layout", "a linear learner has no layout")
        if t["every"] > t["moves"]:
            chk.fail(f"{key}.every", f"{t['every']:,} is larger than moves = {t['moves']:,}")
        lanes = t.get("lanes", 1)
        if lanes > 1 and t["learner"] != "ntuple":
            chk.fail(f"{key}.lanes", "only an ntuple learner trains in lanes")
        for field in ("moves", "every"):
            if t[field] % lanes:
                chk.fail(f"{key}.{field}", f"{t[field]:,} is not a multiple of lanes = {lanes} "
                         "(lanes train in whole rounds)")
        total += checkpoint_count(t["moves"], t["every"])
        if total > MAX_CHECKPOINTS:
            chk.fail(f"{key}.every", f"a checkpoint every {t['every']:,} of {t['moves']:,} "
                     f"moves gives the claim {total:,} checkpoints; at most "
                     f"{MAX_CHECKPOINTS:,} (each is a training segment and a validation point)")
        step = w["select"].get("step") if isinstance(w["select"], Mapping) else None
        if step is not None and not is_checkpoint(step, t["moves"], t["every"]):
            chk.fail(f"weights.{name}.select.step", f"{step:,} is not a checkpoint (every "
                     f"{t['every']:,} up to {t['moves']:,})")
    if doc.get("weights") and "validation" not in doc:
        chk.fail("validation", "a claim that trains weights must declare its validation search")


def is_pinned(leaf: Any) -> bool:
    """Whether a declared leaf (or warm start) is a pinned file ``{file, sha256}``."""
    return isinstance(leaf, Mapping) and "file" in leaf


def pinned_path(claim: Claim, file: str) -> str:
    """A pinned file's path as the run reads it: as written, normalised, relative to the
    run's working directory (the repository, as an external arm's command is; a claims folder
    holds declarations only).  The SHA-256 beside it names what the file is wherever it lies."""
    del claim  # one place to change if paths ever become relative to the declaration
    return os.path.normpath(file)


def _check_leaf(leaf: Any, key: str, doc: dict[str, Any], chk: _Check) -> None:
    if is_pinned(leaf):
        return
    if isinstance(leaf, Mapping) and "claim" not in leaf and leaf["weights"] not in doc.get(
            "weights", {}):
        chk.fail(f"{key}.weights", f"{leaf['weights']!r} is not trained by this claim "
                 f"(weights: {_names(doc.get('weights', {}))}); name another claim with "
                 "claim: ID to use its frozen weights")
    if isinstance(leaf, Mapping) and leaf.get("claim") == doc["id"]:
        chk.fail(f"{key}.claim", "names this claim itself; use {weights: NAME} alone")


def _check_arms(doc: dict[str, Any], chk: _Check) -> None:
    for name, arm in doc["arms"].items():
        key = f"arms.{name}"
        check_arm(arm, lambda sub, message, key=key: chk.fail(f"{key}.{sub}", message))
        if "leaf" in arm:
            _check_leaf(arm["leaf"], f"{key}.leaf", doc, chk)
        if name == OUTCOME_REFERENCE:
            chk.fail(key, f"{OUTCOME_REFERENCE!r} is the panel table's name of an outcome "
                     "reference: give the arm another name")
        if "games" in arm and "screen" not in doc:
            chk.fail(f"{key}.games", "a claim without a screen plays only the panel's "
                     "roots.games games of its roots arm: no prefix")
        if arm.get("games", 0) > declared_screen(doc)["games"]:
            chk.fail(f"{key}.games", f"{arm['games']} is more than the screen's "
                     f"{declared_screen(doc)['games']} games")
    if "validation" in doc:
        comparator = doc["validation"]["comparator"]
        _check_leaf(comparator, "validation.comparator", doc, chk)
        if isinstance(comparator, Mapping) and "sha256" in comparator and not is_pinned(
                comparator):
            chk.fail("validation.comparator.sha256", "a pin is checked where a screen block "
                     "opens, which the validation comparator never reaches: pin the artefact "
                     "on an arm that reads it")


def _check_contrasts(doc: dict[str, Any], chk: _Check) -> None:
    arms = doc["arms"]
    for name, c in doc.get("contrasts", {}).items():
        kind = "difference" if "difference" in c else "interaction"
        pairs = [c["difference"]] if kind == "difference" else c["interaction"]
        for i, pair in enumerate(pairs):
            for j, arm in enumerate(pair):
                where = f"contrasts.{name}.{kind}" + (f"[{i}]" if kind == "interaction" else "")
                if arm not in arms:
                    chk.fail(f"{where}[{j}]", f"no arm {arm!r} (arms: {_names(arms)})")
            if pair[0] == pair[1]:
                chk.fail(f"contrasts.{name}.{kind}", f"{pair[0]!r} against itself")
        if kind == "interaction" and sorted(pairs[0]) == sorted(pairs[1]):
            chk.fail(f"contrasts.{name}.interaction", "the two differences are the same arms")
        if "metric" in c and c["metric"] not in METRICS:
            chk.fail(f"contrasts.{name}.metric", f"unknown metric {c['metric']!r} (metrics: "
                     f"{', '.join(f'{m} ({u})' for m, u in METRICS.items())})")


#: how a refusal names what each role of a reading's parameter names
_LABELS = {"contrast": ("contrast", "contrasts"), "weights": ("trained weights",
                                                              "trained weights"),
           "ranker": ("ranker", "the panel's rankers and reference"),
           "figure": ("figure", "the panel's figures")}


def _pools(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What each role of a reading's parameter may name in this declaration."""
    panel = doc.get("panel")
    return {"contrast": doc.get("contrasts", {}), "weights": doc.get("weights", {}),
            "ranker": [reference_name(panel), *panel["rankers"]] if panel else [],
            "figure": list(figure_names(panel["recall"])) if panel else []}


def _reading_keys() -> list[str]:
    """Every key some registered reading kind takes, in registration order."""
    return list(dict.fromkeys(p.key for k in READING_KINDS.values() for p in k.parameters))


def _check_readings(doc: dict[str, Any], chk: _Check) -> None:
    """Each reading by its kind (:mod:`analysis.reading_kinds`): its keys, what they name,
    its values, its own check, and two rankers of a paired kind distinct."""
    pools, keys = _pools(doc), _reading_keys()
    for name, r in doc["readings"].items():
        kind, key = READING_KINDS[r["kind"]], f"readings.{name}"
        if kind.source == PANEL and "panel" not in doc:
            chk.fail(f"{key}.kind", f"a {kind.name} reading reads a ranking panel; this claim "
                     "declares no panel:")
        wanted = kind.keys
        for p in kind.parameters:
            if p.key not in r and p.default is not REQUIRED:
                r[p.key] = p.default
        for param in keys:
            if param in r and param not in wanted:
                chk.fail(f"{key}.{param}", f"a {kind.name} reading takes {', '.join(wanted)}")
            if param in wanted and param not in r:
                chk.fail(f"{key}.{param}", f"missing: a {kind.name} reading needs "
                         f"{', '.join(p.key for p in kind.parameters if p.default is REQUIRED)}")
        for p in kind.parameters:
            why = p.problem(r[p.key]) if p.problem else None
            if why:
                chk.fail(f"{key}.{p.key}", why)
        for p in kind.parameters:
            pool = pools.get(p.role, ())
            if p.role != "value" and r[p.key] not in pool:
                label, plural = _LABELS[p.role]
                hint = ""
                if p.role == "figure" and str(r[p.key]).startswith("recall@"):
                    hint = (f"; recall@k for the k of panel.recall "
                            f"({', '.join(map(str, doc['panel']['recall']))})")
                chk.fail(f"{key}.{p.key}", f"no {label} {r[p.key]!r} ({plural}: "
                         f"{_names(pool)}{hint})")
        if kind.check:
            kind.check(r, doc, lambda sub, message, key=key: chk.fail(f"{key}.{sub}", message))
        rankers = kind.of_role("ranker")
        if kind.paired and r[rankers[0].key] == r[rankers[1].key]:
            chk.fail(f"{key}.{rankers[1].key}", f"{r[rankers[1].key]!r} against itself")
    gates = gate_kinds()
    for i, gate in enumerate(doc["gates"]):
        if gate not in doc["readings"]:
            chk.fail(f"gates[{i}]", f"no reading {gate!r} (readings: {_names(doc['readings'])})")
        if doc["readings"][gate]["kind"] not in gates:
            chk.fail(f"gates[{i}]", f"reading {gate!r} reads the screen; a gate must be a "
                     f"validation or health reading ({', '.join(gates)})")


def sequential_contrast(doc: Mapping[str, Any]) -> str | None:
    """The contrast a sequential screen stops on (its one ``screen`` reading's); None for a
    fixed screen (or none)."""
    if "looks" not in declared_screen(doc):
        return None
    return next(r["contrast"] for r in doc["readings"].values() if r["kind"] == "screen")


def _check_screen(doc: dict[str, Any], chk: _Check) -> SequentialDesign | None:
    """A sequential screen: one screen reading to stop on, every arm on every look, a design
    that keeps its error rate (analysis.sequential_screen); the design, built once here."""
    screen = declared_screen(doc)
    if "looks" not in screen:
        for key in ("spending", "futility"):
            if key in screen:
                chk.fail(f"screen.{key}", "given without screen.looks (a screen without "
                         "looks is the fixed one)")
        return None
    screens = [n for n, r in doc["readings"].items() if r["kind"] == "screen"]
    if len(screens) != 1:
        chk.fail("screen.looks", f"a sequential screen stops on the contrast of exactly one "
                 f"screen reading; this claim has {len(screens)} ({', '.join(screens) or 'none'})")
    for name, arm in doc["arms"].items():
        if "games" in arm:
            chk.fail(f"arms.{name}.games", NO_PREFIX)
    try:
        return design_of(screen, screen["games"])
    except ValueError as exc:
        chk.fail(f"screen.{design_key(exc)}", str(exc).split(": ", 1)[-1])
        raise  # not reached: fail raises


def _check_verdict(doc: dict[str, Any], chk: _Check) -> None:
    readings = doc["readings"]
    for i, rule in enumerate(doc["verdict"]["rules"]):
        for name, wanted in rule["when"].items():
            key = f"verdict.rules[{i}].when.{name}"
            if name not in readings:
                chk.fail(key, f"no reading {name!r} (readings: {_names(readings)})")
            allowed = (*READING_KINDS[readings[name]["kind"]].outcomes, NOT_RUN)
            for outcome in [wanted] if isinstance(wanted, str) else wanted:
                if outcome not in allowed:
                    chk.fail(key, f"{outcome!r} is not an outcome of a "
                             f"{readings[name]['kind']} reading ({', '.join(allowed)})")


def _check_recorded(doc: dict[str, Any], chk: _Check) -> None:
    rec = doc.get("recorded", {})
    for part, names, label in (("arms", doc["arms"], "arm"),
                               ("contrasts", doc.get("contrasts", {}), "contrast"),
                               ("validation", doc.get("weights", {}), "trained weights")):
        for name in rec.get(part, {}):
            if name not in names:
                chk.fail(f"recorded.{part}.{name}", f"not a declared {label} ({_names(names)})")


def _check_screen_or_panel(doc: dict[str, Any], chk: _Check) -> None:
    """A claim screens games, ranks a panel's roots, or both; without a panel it has
    contrasts, without a screen none (only the roots arm plays)."""
    if "screen" not in doc and "panel" not in doc:
        chk.fail("screen", "missing: a claim declares a screen:, a panel: or both "
                 "(docs/claims.md)")
    if "panel" not in doc and "contrasts" not in doc:
        chk.fail("contrasts", "missing: a claim with a screen compares its arms in contrasts")
    if "screen" not in doc and "contrasts" in doc:
        chk.fail("contrasts", "a claim without a screen plays only its panel's roots arm: "
                 "no contrasts")


def _check_outcome(outcome: Mapping[str, Any], doc: Mapping[str, Any], chk: _Check) -> None:
    """An outcome reference: its policy an arm of ours, its target, continuations and horizon
    within the labeller's (engines.play.labeller, imported only for a claim that has one)."""
    from engines.play.labeller import MAX_CONTINUATIONS, MAX_HORIZON, TARGETS

    key = "panel.reference.outcome"
    _check_arm_name(outcome["policy"], f"{key}.policy", doc, chk)
    if play_kind(doc["arms"][outcome["policy"]]["play"]).kind == EXTERNAL:
        chk.fail(f"{key}.policy", f"arm {outcome['policy']!r} is external: a continuation has "
                 "no fallback, so its policy must be one of ours (a search, direct or a "
                 "baseline)")
    if outcome["target"] not in TARGETS:
        chk.fail(f"{key}.target", f"unknown target {outcome['target']!r} (targets: "
                 f"{', '.join(TARGETS)})")
    for field, most in (("continuations", MAX_CONTINUATIONS), ("horizon", MAX_HORIZON)):
        if not 1 <= outcome[field] <= most:
            chk.fail(f"{key}.{field}", f"{outcome[field]:,} is outside 1..{most:,}")


def _check_arm_name(name: str, key: str, doc: Mapping[str, Any], chk: _Check) -> None:
    if name not in doc["arms"]:
        chk.fail(key, f"no arm {name!r} (arms: {_names(doc['arms'])})")


def _check_panel(doc: dict[str, Any], chk: _Check) -> None:
    """A ranking panel: its block where there is no screen, its roots arm and games, its
    reference (a search or direct arm, or an outcome), its rankers, its recall."""
    panel = doc.get("panel")
    if panel is None:
        return
    if "screen" in doc and "block" in panel:
        chk.fail("panel.block", "beside a screen the roots come from the screen's block: "
                 "give no panel block")
    if "screen" not in doc and "block" not in panel:
        chk.fail("panel.block", "missing: a panel without a screen reads its roots from a "
                 "block of its own")
    if "looks" in doc.get("screen", {}):
        chk.fail("panel", "a panel beside a sequential screen (screen.looks) is not "
                 "supported: the screen may stop before the roots' games are played")
    roots = panel["roots"]
    _check_arm_name(roots["policy"], "panel.roots.policy", doc, chk)
    if "screen" in doc:
        arm = doc["arms"][roots["policy"]]
        most, what = arm.get("games", doc["screen"]["games"]), (
            f"arm {roots['policy']}'s {arm['games']}" if "games" in arm
            else f"the screen's {doc['screen']['games']}")
        if roots["games"] > most:
            chk.fail("panel.roots.games", f"{roots['games']:,} is more than {what} games: "
                     "the roots come from the roots arm's screen games")
    ref = panel["reference"]
    if isinstance(ref, Mapping):
        _check_outcome(ref["outcome"], doc, chk)
    else:
        _check_arm_name(ref, "panel.reference", doc, chk)
        if doc["arms"][ref]["play"] not in ("search", "direct"):
            chk.fail("panel.reference", f"arm {ref!r} plays {doc['arms'][ref]['play']}: a "
                     "reference values every column, so it is a search or direct arm (or an "
                     "outcome)")
    seen: set[str] = set()
    for i, name in enumerate(panel["rankers"]):
        key = f"panel.rankers[{i}]"
        _check_arm_name(name, key, doc, chk)
        if name == ref:
            chk.fail(key, f"{name!r} is the reference: it is read against itself in every "
                     "panel already")
        if name in seen:
            chk.fail(key, f"{name!r} is listed twice")
        seen.add(name)
    if len(set(panel["recall"])) != len(panel["recall"]):
        chk.fail("panel.recall", f"{panel['recall']} lists a k twice")


def claim_schema() -> dict[str, Any]:
    """``claim.schema.yaml`` with the registries' fragments: the ``play`` enum (the arm kinds'
    plays, :data:`protocol.arms.PLAY_KINDS`), the leaves named without a path (the leaf kinds
    that read no weights, :data:`engines.leaves.kinds.LEAF_KINDS`), the reading kinds
    (:data:`analysis.reading_kinds.READING_KINDS`) and a panel's work kinds
    (:data:`contracts.panel_table.WORK`): each is listed once, where it is registered."""
    schema = copy.deepcopy(load_schema("claim"))
    arm = schema["properties"]["arms"]["additionalProperties"]["properties"]
    arm["play"]["enum"] = [p for k in PLAY_KINDS.values() for p in k.plays]
    schema["$defs"]["leaf"]["oneOf"][0]["enum"] = [
        k.name for k in LEAF_KINDS.values() if not k.takes_path]
    reading = schema["properties"]["readings"]["additionalProperties"]["properties"]
    reading["kind"]["enum"] = list(READING_KINDS)
    schema["properties"]["panel"]["properties"]["work"]["enum"] = list(WORK)
    return schema


def load_claim(path: str | Path, shown: str | Path | None = None) -> Claim:
    """One declaration, schema-checked and checked within itself (``shown``: the path that
    messages and reports name, e.g. relative to the repository)."""
    path = Path(path)
    doc = check(read_yaml(path), claim_schema(), shown or path)
    path = Path(shown or path)
    chk = _Check(path)
    if doc["id"] != path.stem:
        chk.fail("id", f"{doc['id']!r} differs from the file's name {path.stem!r}")
    for part in (_check_screen_or_panel, _check_weights, _check_panel, _check_arms,
                 _check_contrasts, _check_readings):
        part(doc, chk)
    design = _check_screen(doc, chk)
    for part in (_check_verdict, _check_recorded):
        part(doc, chk)
    return Claim(doc["id"], path, doc, design)


def _leaves(claim: Claim) -> list[tuple[str, Mapping[str, Any]]]:
    """``(key, leaf)`` of every leaf given as a mapping: the arms' and the comparator's."""
    out = [(f"arms.{name}.leaf", arm["leaf"]) for name, arm in claim.arms.items()
           if isinstance(arm.get("leaf"), Mapping) and not is_pinned(arm["leaf"])]
    comparator = claim.doc.get("validation", {}).get("comparator")
    if isinstance(comparator, Mapping) and not is_pinned(comparator):
        out.append(("validation.comparator", comparator))
    return out


def _check_shared_block(claim: Claim, claims: Mapping[str, Claim], chk: _Check) -> None:
    """A shared block is the block of a claim that owns one and declares at least as many
    games (more would read the next block, which may be a third claim's)."""
    block = claim.screen["block"]
    if not isinstance(block, Mapping):
        return
    owner = claims.get(block["claim"])
    if block["claim"] == claim.id:
        chk.fail("screen.block.claim", "names this claim itself")
    if owner is None:
        chk.fail("screen.block.claim", f"no claim {block['claim']!r} (claims: "
                 f"{_names(claims)})")
    further = owner.screen["block"]
    if isinstance(further, Mapping) and further["claim"] == claim.id:
        chk.fail("screen.block.claim", f"claim {owner.id} shares this claim's block in turn (a "
                 "cycle of shared blocks): one of them must own a block")
    if isinstance(further, Mapping):
        chk.fail("screen.block.claim", f"claim {owner.id} itself shares the block of claim "
                 f"{further['claim']}: name the claim that owns the block (screen.block: "
                 f"{{claim: {further['claim']}}})")
    games, owned = claim.screen["games"], owner.screen["games"]
    if games > owned:
        chk.fail("screen.games", f"{games:,} games is more than the {owned:,} of claim "
                 f"{owner.id}, whose block this claim shares: the extra games would read the "
                 "next block, which may be another claim's")


def _check_warm_starts(claim: Claim, claims: Mapping[str, Claim], chk: _Check) -> None:
    """A warm start from another claim's artefact names a claim (not this one) that trains
    those weights with the same learner and layout (the tables must fit the run)."""
    for name, init in claim.warm_starts():
        key, t = f"weights.{name}.train.init", claim.weights[name]["train"]
        if "claim" not in init:
            continue
        if init["claim"] == claim.id:
            chk.fail(f"{key}.claim", "names this claim itself: a warm start continues the "
                     "frozen weights of another claim")
        other = claims.get(init["claim"])
        if other is None:
            chk.fail(f"{key}.claim", f"no claim {init['claim']!r} (claims: {_names(claims)})")
        if init["weights"] not in other.weights:
            chk.fail(f"{key}.weights", f"claim {other.id} trains no {init['weights']!r} (it "
                     f"trains: {_names(other.weights)})")
        theirs = other.weights[init["weights"]]["train"]
        mine_l = (t["learner"], t.get("layout"))
        their_l = (theirs["learner"], theirs.get("layout"))
        if mine_l != their_l:
            chk.fail(key, f"{other.id}/{init['weights']} is {_learner_text(*their_l)}, these "
                     f"weights train {_learner_text(*mine_l)}: a warm start continues the same "
                     "learner and layout")


def _learner_text(learner: str, layout: str | None) -> str:
    return f"ntuple layout {layout}" if learner == "ntuple" else "linear weights"


def _check_references(claims: Mapping[str, Claim]) -> None:
    """Every claim another names exists, with the weights named, and nothing is circular."""
    for claim in claims.values():
        chk = _Check(claim.path)
        for key, leaf in _leaves(claim):
            if "claim" not in leaf:
                continue
            other = claims.get(leaf["claim"])
            if other is None:
                chk.fail(f"{key}.claim", f"no claim {leaf['claim']!r} (claims: "
                         f"{_names(claims)})")
            if leaf["weights"] not in other.weights:
                chk.fail(f"{key}.weights", f"claim {other.id} trains no "
                         f"{leaf['weights']!r} (it trains: {_names(other.weights)})")
        _check_warm_starts(claim, claims, chk)
        _check_shared_block(claim, claims, chk)
    for claim in claims.values():
        seen, todo = set(), [c for c, _ in claim.imports()]
        while todo:
            other = todo.pop()
            if other == claim.id:
                _Check(claim.path).fail("arms", "its frozen artefacts depend on this claim "
                                        "itself (a cycle of claims)")
            if other not in seen:
                seen.add(other)
                todo.extend(c for c, _ in claims[other].imports())


def check_pins(claims: Mapping[str, Claim], profiles: list[str]) -> None:
    """A per-profile SHA-256 pin is keyed by a profile that exists (a misspelt name would
    leave the artefact unchecked in the profile meant)."""
    for claim in claims.values():
        for key, leaf in _leaves(claim):
            pins = leaf.get("sha256")
            for name in pins if isinstance(pins, Mapping) else ():
                if name not in profiles:
                    _Check(claim.path).fail(f"{key}.sha256.{name}", f"no profile {name!r} "
                                            f"(profiles: {', '.join(profiles)}): the pin "
                                            "would never be checked")


def _load_folder(directory: str | Path, shown: str | Path | None = None) -> dict[str, Claim]:
    """Every declaration of a folder (or the one declaration file ``directory``) by id,
    each checked within itself."""
    directory = Path(directory)
    if directory.is_file() and directory.suffix == SUFFIX:
        return {(c := load_claim(directory, shown)).id: c}
    if not directory.is_dir():
        raise DeclarationError(f"{shown or directory}: no such directory of claim declarations "
                               f"(nor a declaration file <id>{SUFFIX})")
    for entry in sorted(directory.iterdir()):
        if entry.suffix != SUFFIX or not entry.is_file():
            where = Path(shown) / entry.name if shown else entry
            raise DeclarationError(f"{where}: not a claim declaration: every file of "
                                   f"{shown or directory} must be <id>{SUFFIX} (rename it, or "
                                   "move it out)")
    paths = sorted(directory.glob(f"*{SUFFIX}"))
    if not paths:
        raise DeclarationError(f"{shown or directory}: no claim declarations (*.yaml)")
    return {c.id: c for c in (load_claim(p, Path(shown) / p.name if shown else None)
                              for p in paths)}


def load_claims(directory: str | Path, shown: str | Path | None = None) -> dict[str, Claim]:
    """Every declaration ``<directory>/*.yaml`` by id, checked within and across claims
    (``shown``: the directory as messages and reports name it).  Any other entry of the
    directory (a ``.yml``, a backup, a folder) is refused rather than skipped."""
    claims = _load_folder(directory, shown)
    _check_references(claims)
    return claims


def load_claim_set(shipped: str | Path, own: str | Path | None,
                   shown: str | Path | None = None
                   ) -> tuple[dict[str, Claim], list[str], list[str]]:
    """The claims of a run: the shipped declarations (``config/claims``) and, when ``own``
    names another folder (or one declaration file), its claims beside them, a claim of the
    same id replacing the shipped one; checked across the whole set, so one's own claim may
    read a shipped claim's frozen weights.  Returns ``(claims, ids declared in own, those of
    them that replace a shipped claim)``."""
    claims = _load_folder(shipped, DEFAULT_CLAIMS_DIR)
    mine: list[str] = []
    replaced: list[str] = []
    if own is not None and Path(own).resolve() != Path(shipped).resolve():
        extra = _load_folder(own, shown or own)
        replaced = sorted(set(extra) & set(claims))
        claims.update(extra)
        mine = sorted(extra)
    _check_references(claims)
    return claims, mine, replaced

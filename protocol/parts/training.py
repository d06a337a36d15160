"""Trained weights: their declaration's check, their training at a profile, the planned type.

A claim trains at most :data:`MAX_CHECKPOINTS` checkpoints (counted before
any list of them is built); a learner's keys agree with it (its
registration's check, :mod:`engines.learners`); a declared selection step is a checkpoint; a warm
start from another claim continues the same learner and layout, or promotes a layout's
tables into the same layout keyed on a fill rule.  A profile
shrinks the moves and the checkpoints' spacing, and may key a fill-bucketed layout on fewer
buckets (:func:`plan_training`, :func:`layout_shrink`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contracts.train_directory import checkpoint_steps, segments, step_dir
from engines.learners import get_learner, learner_leaf, td
from protocol.claim import Claim, td_weights
from protocol.parts.base import KeyCheck, ProfileSettings, moves_text, names_of
from protocol.parts.pins import Artefact, Pinned, plan_artefact, plan_pinned, table_entries
from protocol.paths import Paths
from protocol.schema import DeclarationError

#: the checkpoint a validated learner's weights freeze when ``select`` is absent
#: (:func:`protocol.stages.select_checkpoint`)
SELECT_DEFAULT = "largest-margin"
#: most checkpoints of one claim, over all its trained weights, in any profile: each is a
#: training segment, a checkpoint on disk and a validation point (64 games)
MAX_CHECKPOINTS = 1_000


def checkpoint_count(moves: int, every: int) -> int:
    """How many checkpoints ``moves`` trained with one ``every`` moves give (the length of
    :func:`contracts.train_directory.checkpoint_steps`, without building it)."""
    return td.checkpoints({"moves": moves, "every": every})


def is_checkpoint(step: int, moves: int, every: int) -> bool:
    """Whether ``step`` is a checkpoint of ``moves`` trained with one every ``every`` moves."""
    return td.is_checkpoint({"moves": moves, "every": every}, step)


def check_select(doc: dict[str, Any], chk: KeyCheck) -> None:
    """``select`` only where a validation curve selects a checkpoint (weights of a learner
    validated as a leaf): weights trained to their end by one job freeze their learner's own
    output, and an edit is not trained.  An absent ``select`` is :data:`SELECT_DEFAULT`, written
    on every weights as the schema once filled it, so a claim's protocol hash stays as it was."""
    validated = td_weights(doc)
    for name, w in doc.get("weights", {}).items():
        if "select" in w and name not in validated:
            what = (f"learner {w['train']['learner']} trains them to their end in one job "
                    "and freezes its own output" if "train" in w
                    else "an edit is not trained")
            chk.fail(f"weights.{name}.select", f"{what}: there is no checkpoint to select "
                     "(select is for weights validated as a leaf); remove the key")
        w.setdefault("select", SELECT_DEFAULT)


def check_training(doc: dict[str, Any], chk: KeyCheck) -> None:
    """The selections (:func:`check_select`), each trained weights' keys as its learner checks
    them (:attr:`engines.learners.registry.LearnerKind.check`), its checkpoints (at most
    :data:`MAX_CHECKPOINTS` in all) and its selected step."""
    check_select(doc, chk)
    total = 0
    for name, w in doc.get("weights", {}).items():
        if "train" not in w:
            continue  # an edit (protocol.parts.edits)
        t, key = w["train"], f"weights.{name}.train"
        kind = get_learner(t["learner"])
        if kind.check is not None:
            kind.check(t, lambda sub, message, key=key: chk.fail(f"{key}.{sub}", message))
        total += kind.checkpoints(t)
        if total > MAX_CHECKPOINTS:
            chk.fail(f"{key}.every" if "every" in t else key, f"these weights give the claim "
                     f"{total:,} checkpoints; at most {MAX_CHECKPOINTS:,} (each is a training "
                     "segment and a validation point)")
        step = w["select"].get("step") if isinstance(w["select"], Mapping) else None
        if step is not None and not kind.is_checkpoint(t, step):
            chk.fail(f"weights.{name}.select.step", f"{step:,} is not a checkpoint of these "
                     f"weights ({kind.checkpoints(t):,} checkpoints of learner {kind.name})")


def check_warm_starts(claim: Claim, claims: Mapping[str, Claim], chk: KeyCheck) -> None:
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
            chk.fail(f"{key}.claim", f"no claim {init['claim']!r} (claims: {names_of(claims)})")
        if init["weights"] not in other.weights:
            chk.fail(f"{key}.weights", f"claim {other.id} trains no {init['weights']!r} (it "
                     f"trains: {names_of(other.weights)})")
        theirs = other.weights[init["weights"]]["train"]
        # the same weights: learners whose warm starts read the same pinned kind (TreeStrap
        # continues TC-TD's tables), and the same layout, or a layout promoted into its buckets
        mine_l = (get_learner(t["learner"]).pinned, t.get("layout"))
        their_l = (get_learner(theirs["learner"]).pinned, theirs.get("layout"))
        if mine_l != their_l and not _promotes(their_l, mine_l):
            chk.fail(key, f"{other.id}/{init['weights']} is {_learner_text(*their_l)}, these "
                     f"weights train {_learner_text(*mine_l)}: a warm start continues the same "
                     "learner and layout (or promotes a layout into its fill buckets)")


def _promotes(source: tuple[str | None, str | None], target: tuple[str | None, str | None]
              ) -> bool:
    """Whether n-tuple tables (``(pinned kind, layout)``) of ``source``'s layout promote into
    ``target``'s (its fill buckets, :mod:`engines.ntuple.fill`)."""
    from engines.ntuple.fill import promotes
    from engines.ntuple.layouts import get_layout

    if source[0] != "ntuple-file" or target[0] != "ntuple-file" or None in (source[1], target[1]):
        return False
    return promotes(get_layout(str(source[1])), get_layout(str(target[1])))


def _learner_text(pinned: str | None, layout: str | None) -> str:
    return f"ntuple layout {layout}" if pinned == "ntuple-file" else "linear weights"


#: most threads one training job asks for
MAX_TRAIN_THREADS = 32


@dataclass(frozen=True)
class Training:
    """One trained weights of a claim, at this profile's budget."""

    claim: str
    name: str
    learner: str  # ntuple | linear
    layout: str  # A..E (or one with a fill rule, A+occ5), or "linear"
    moves: int
    every: int
    first_game: int
    alpha: float | None
    select: Any
    dir: str
    lanes: int = 1  # training games side by side (engines.train.lanes)
    #: a warm start: the frozen artefact (:class:`Artefact`) or pinned file (:class:`Pinned`)
    #: training continues from; None trains from zero
    init: Any = None
    #: the learner's own recipe keys (:meth:`engines.learners.registry.LearnerKind.recipe_extra`)
    extra: tuple[tuple[str, Any], ...] = ()
    #: the CPU of a training move in TC-TD moves (:attr:`LearnerKind.move_cost`)
    move_cost: float = 1.0

    @property
    def leaf(self) -> str:
        """The policy grammar's leaf kind of these weights."""
        return learner_leaf(self.learner).kind

    @property
    def steps(self) -> list[int]:
        """Checkpoint steps (moves trained)."""
        return checkpoint_steps(self.moves, self.every)

    @property
    def segments(self) -> list[tuple[int, int]]:
        """``(start, end)`` of every training segment."""
        return segments(self.moves, self.every)

    @property
    def entries(self) -> int:
        """Table entries (``N_TERMS`` for linear-trained)."""
        return table_entries(self.learner, self.layout)

    def checkpoint(self, step: int) -> str:
        """A checkpoint's directory."""
        return str(step_dir(self.dir, step))

    @property
    def threads(self) -> int:
        """Threads a training job asks for: one per lane, at most ``MAX_TRAIN_THREADS`` (the
        tables do not depend on them)."""
        return min(self.lanes, MAX_TRAIN_THREADS)

    def recipe(self) -> dict[str, Any]:
        """What determines the tables (the training job's params); ``lanes`` only when more
        than one, so a one-lane recipe is the sequential trainer's as it always was."""
        recipe = {"layout": self.layout, "every": self.every, "first_game": self.first_game,
                  "alpha": self.alpha}
        if self.init is not None:
            recipe["init"] = self.init_source()
        recipe.update(self.extra)
        return recipe if self.lanes == 1 else {**recipe, "lanes": self.lanes}

    def init_source(self) -> dict[str, Any] | None:
        """Where a warm start's weights are and how their SHA-256 is known: a pinned file's
        ``{path, sha256}``, or an artefact's ``{path, record, key}`` (the hash in its frozen
        record, written by the freeze this training waits for); None from zero."""
        if isinstance(self.init, Pinned):
            return {"path": self.init.path, "sha256": self.init.sha256}
        if isinstance(self.init, Artefact):
            return {"path": self.init.dir, "record": self.init.record, "key": self.init.key}
        return None


def _init(claim: Claim, name: str, claims: Mapping[str, Claim], profile: Mapping[str, Any],
          paths: Paths, layout: str | None) -> Artefact | Pinned | None:
    """A trained weights' warm start: another claim's frozen artefact or a pinned file whose
    kind is the learner's and whose size is the ``layout`` trained (its layout is checked with
    its hash, before any job)."""
    t = claim.weights[name]["train"]
    init = t.get("init")
    if init is None:
        return None
    if "claim" in init:
        return plan_artefact(init, claim, claims, profile, paths)
    key = f"weights.{name}.train.init"
    pinned = plan_pinned(claim, key, init)
    want = get_learner(t["learner"]).pinned
    if pinned.kind != want or pinned.entries != table_entries(t["learner"], layout):
        raise DeclarationError(f"{claim.path}: key {key}.file: {pinned.path} holds a "
                               f"{pinned.kind} leaf of {pinned.entries:,} entries; these weights "
                               f"train {want.replace('-file', '')} weights of "
                               f"{table_entries(t['learner'], layout):,}")
    return pinned


def layout_shrink(layout: str, declared: str | None) -> str | None:
    """What a profile's layout (:meth:`~protocol.parts.base.ProfileSettings.layout`) shrank,
    in words (None: the declared layout)."""
    if declared is None or layout == declared:
        return None
    from engines.ntuple.layouts import get_layout

    def buckets(name: str) -> str:
        return f"{get_layout(name).buckets} fill buckets"

    return (f"layout {layout} ({buckets(layout)}, {table_entries('ntuple', layout):,} "
            f"entries) instead of {declared} ({buckets(declared)})")


def _move_cost(train: Mapping[str, Any]) -> float:
    cost = get_learner(train["learner"]).move_cost
    return 1.0 if cost is None else cost(train)


def plan_training(claim: Claim, prof: ProfileSettings, paths: Paths, shrunk: list[str],
                  claims: Mapping[str, Claim]) -> dict[str, Training]:
    """Every trained weights at this profile's budget (each shrink listed in ``shrunk``)."""
    out, total = {}, 0
    for name, w in claim.weights.items():
        t = w["train"]
        if not get_learner(t["learner"]).planned:
            raise DeclarationError(
                f"{claim.path}: key weights.{name}.train.learner: the workflow does not plan "
                f"learner {t['learner']} yet (docs/training.md, Learners): run its drop7 "
                "command and pin the weights it freezes")
        lanes = t.get("lanes", 1)
        moves = prof.size(("weights", name, "moves"), "train_moves", t["moves"])
        every = prof.over.get("weights", {}).get(name, {}).get("every")
        key = f"claims.{claim.id}.weights.{name}.every"
        if moves % lanes:
            prof.fail(f"claims.{claim.id}.weights.{name}.moves", f"{moves:,} moves is not a "
                      f"multiple of the {lanes} lanes the weights train in")
        if every is None:
            every = min(t["every"], moves)
            cap = prof.caps.get("checkpoints")
            if cap and checkpoint_count(moves, every) > cap:
                every = min(math.ceil(moves / cap / lanes) * lanes, moves)
        elif every > moves:
            prof.fail(key, f"{every:,} is larger than the {moves:,} moves trained")
        elif every % lanes:
            prof.fail(key, f"{every:,} is not a multiple of the {lanes} lanes the weights "
                      "train in")
        total += checkpoint_count(moves, every)
        if total > MAX_CHECKPOINTS:
            prof.fail(key, f"a checkpoint every {every:,} of {moves:,} moves gives claim "
                      f"{claim.id} {total:,} checkpoints; at most {MAX_CHECKPOINTS:,}")
        select = w["select"]
        if isinstance(select, Mapping) and not is_checkpoint(select["step"], moves, every):
            prof.fail(f"claims.{claim.id}.weights.{name}", f"the declared select.step "
                      f"{select['step']:,} is not a checkpoint at this profile's budget")
        if (moves, every) != (t["moves"], t["every"]):
            shrunk.append(f"{name}: trained {moves_text(moves)} moves, a checkpoint every "
                          f"{moves_text(every)} (declared: {moves_text(t['moves'])} every "
                          f"{moves_text(t['every'])})")
        layout = prof.layout(name, t.get("layout"))
        if layout_shrink(layout, t.get("layout")):
            shrunk.append(f"{name}: {layout_shrink(layout, t.get('layout'))}")
        out[name] = Training(claim.id, name, t["learner"], layout or "linear", moves,
                             every, t["first_game"], t.get("alpha"), select,
                             paths.path("train", claim=claim.id, weights=name), lanes,
                             _init(claim, name, claims, prof.profile, paths, layout),
                             get_learner(t["learner"]).recipe_extra(t),
                             _move_cost(t))
    return out


def check_first_games(claim: Claim, trained: Mapping[str, Training], bank: Any,
                      health_games: int) -> None:
    """Every training starts within the seed bank's training role (``bank``), and none reads
    the training health's unseen games (``health_games`` from
    :data:`engines.train.evaluate.UNSEEN_GAME`): a training reads at most one game a move,
    and a lane's game under way, from its first game on (wrapping at the role's end)."""
    from engines.train.evaluate import UNSEEN_GAME

    count = int(bank.roles["training"]["count"])
    for name, t in trained.items():
        key = f"{claim.path}: key weights.{name}.train.first_game"
        if t.first_game >= count:
            raise DeclarationError(f"{key}: {t.first_game:,} is beyond the training role's "
                                   f"{count:,} games")
        games = min(t.moves + t.lanes, count)
        read = [(t.first_game, min(t.first_game + games, count)),
                (0, max(0, t.first_game + games - count))]  # past the end: from game 0
        if any(lo < UNSEEN_GAME + health_games and hi > UNSEEN_GAME for lo, hi in read):
            raise DeclarationError(
                f"{key}: {t.first_game:,} and {t.moves:,} moves may read games "
                f"{UNSEEN_GAME:,} to {UNSEEN_GAME + health_games - 1:,}, the training "
                "health's unseen games (a checkpoint is played one ply on them): start "
                "the training elsewhere")

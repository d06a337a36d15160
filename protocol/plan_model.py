"""The plan of a run, as data: every claim's arms, stages, blocks and files, with one name each.

:mod:`protocol.plan` builds it from a profile and the claim declarations;
the workflow's rules, its scripts, the checks, the reports and the tests read
names and paths from these classes.  Each part's planned type (its training,
arms, contrasts, sequential screen, panel, pins) is in its module of
:mod:`protocol.parts`; a :class:`ClaimPlan` holds one of each, and a
:class:`Plan` every claim's.  No Snakemake, no engine kernels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from analysis.reading_kinds import LEARNER, panel_readings, reading_kind
from analysis.report.model import (
    ArmPlan,
    ClaimDescription,
    ContrastPlan,
    TrainedPlan,
    ValidationPlan,
)
from protocol import costs
from protocol.claim import Claim
from protocol.files import shown_path
from protocol.parts.arm import PlannedArm, is_search_shrink
from protocol.parts.contrasts import PlannedContrast
from protocol.parts.direct_training import DirectTraining
from protocol.parts.edits import Edit
from protocol.parts.panel import PlannedPanel
from protocol.parts.pins import Artefact, Pinned, table_entries
from protocol.parts.replay import PlannedReplay
from protocol.parts.sequential import Sequential
from protocol.parts.training import MAX_TRAIN_THREADS, Training
from protocol.paths import LOOK, VALIDATION, Paths, screen_label
from protocol.profile import blamer
from protocol.profile import source as profile_source

__all__ = ["MAX_TRAIN_THREADS", "PILOT", "PUBLIC", "Artefact", "ClaimPlan", "Pinned", "Plan",
           "PlannedArm", "PlannedContrast", "PlannedPanel", "Sequential", "Training",
           "table_entries"]

PILOT, PUBLIC = "pilot", "public-development"


@dataclass
class ClaimPlan:
    """What one claim runs in this profile (``arms``: the arms that play the screen's games;
    a claim with a panel and no screen plays only its roots arm, on the panel's block)."""

    claim: Claim
    block: int
    blocks: list[int]
    seeds: tuple[int, int]
    shares_block_of: str | None
    trained: dict[str, Training]
    validation_games: int
    validation_seeds: tuple[int, int] | None
    validation_arms: dict[str, PlannedArm]
    comparator: str | None
    arms: dict[str, PlannedArm]
    contrasts: dict[str, PlannedContrast]
    shrunk: list[str] = field(default_factory=list)
    sequential: Sequential | None = None  # a screen with looks
    #: why the profile can give no more than pilot evidence, shrunk or not
    #: (:func:`protocol.profile.evidence_limits`)
    limits: list[str] = field(default_factory=list)
    panel: PlannedPanel | None = None  # a ranking panel
    #: the register's published games of an arm, replayed game for game (``recorded.replay``)
    replay: PlannedReplay | None = None
    #: weights trained to their end by one job (:mod:`protocol.parts.direct_training`)
    direct_trained: dict[str, DirectTraining] = field(default_factory=dict)
    #: training-free edits of n-tuple tables (:mod:`protocol.parts.edits`)
    edits: dict[str, Edit] = field(default_factory=dict)

    def all_arms(self) -> list[PlannedArm]:
        """The arms of the screen, then the panel's rankers (an arm of both once per role)."""
        return [*self.arms.values(), *(self.panel.arms.values() if self.panel else ())]

    @property
    def id(self) -> str:
        """The claim's id."""
        return self.claim.id

    @property
    def label(self) -> str:
        """The screen block's field in paths (``screen-<first block>``)."""
        return screen_label(self.block)

    def look_label(self, k: int) -> str:
        """The block field of look ``k``'s games (1-based): under the screen block's folder."""
        return f"{self.label}/{LOOK}-{k}"

    def look_of(self, block: str) -> int | None:
        """The look of a block label (None for the screen block and the validation block)."""
        head, _, tail = block.partition(f"/{LOOK}-")
        return int(tail) if head == self.label and tail.isdigit() else None

    @property
    def rule(self) -> str:
        """A Python-safe name for the claim's target rule."""
        return self.id.replace("-", "_")

    @property
    def tier(self) -> str:
        """Evidence tier: public-development only when nothing of the claim was shrunk and the
        profile keeps every guard on and writes the committed ledger."""
        return PILOT if self.lowered_by else PUBLIC

    @property
    def proxy(self) -> list[str]:
        """The arms the profile plays as other searches than the claim declares (their shrink
        lines): a screen with any is a proxy of the claim's theory, not a test of it."""
        return [s for s in self.shrunk if is_search_shrink(s)]

    @property
    def lowered_by(self) -> list[str]:
        """What lowers the tier: what the profile shrank, then what it cannot prove."""
        return [*self.shrunk, *self.limits]

    @property
    def readings(self) -> dict[str, Any]:
        """Declared readings."""
        return self.claim.readings

    @property
    def gates(self) -> list[str]:
        """Readings that must pass before the screen block is opened."""
        return list(self.claim.doc["gates"])

    @property
    def artefacts(self) -> dict[str, Artefact]:
        """Every frozen artefact the screen arms and the panel's rankers read, by key (with a
        pin if any arm pins it)."""
        out: dict[str, Artefact] = {}
        for a in self.all_arms():
            if a.artefact is not None and (a.artefact.key not in out or a.artefact.sha256):
                out[a.artefact.key] = a.artefact
        return out

    @property
    def opener_records(self) -> dict[str, dict[str, str | None]]:
        """The frozen record and pin of every trained artefact the arms read, by key: the
        frozen tables (:attr:`artefacts`) and the weights this claim trains by one job that an
        arm reads (``CLAIM/NAME``, no pin: :attr:`direct_trained`).  Their SHA-256 are the
        ledger opener's hashes, so a block opened for some weights is not read again with others
        (:class:`protocol.ledger.Opener`)."""
        out = {k: {"record": a.record, "pin": a.sha256} for k, a in self.artefacts.items()}
        read = {a.direct[1] for a in self.all_arms() if a.direct is not None}
        out.update({f"{self.id}/{n}": {"record": t.record, "pin": None}
                    for n, t in self.direct_trained.items() if t.record in read})
        return dict(sorted(out.items()))

    def reads(self) -> list[Artefact]:
        """Every frozen artefact the claim needs: its arms', its warm starts' and its edits'
        sources."""
        return [*self.artefacts.values(),
                *(t.init for t in self.trained.values() if isinstance(t.init, Artefact)),
                *(e.source for e in self.edits.values() if isinstance(e.source, Artefact))]

    @property
    def gate_claims(self) -> list[str]:
        """The claims whose gates must let this claim's screen open: itself and every claim
        whose frozen artefacts its arms read, directly or through an edit."""
        return sorted({self.id, *(a.claim for a in self.artefacts.values()),
                       *(e.source.claim for e in self.edits.values()
                         if isinstance(e.source, Artefact))})

    @property
    def pinned(self) -> dict[str, Pinned]:
        """Every pinned file the claim reads (arms, the validation comparator, warm starts,
        edits' sources), by
        the declaration's key: checked before any job, shown on the page and recorded."""
        arms = [*self.all_arms(), *self.validation_arms.values()]
        out = {a.pinned.key: a.pinned for a in arms if a.pinned is not None}
        out.update({t.init.key: t.init for t in self.trained.values()
                    if isinstance(t.init, Pinned)})
        out.update({t.pin.key: t.pin for t in self.direct_trained.values() if t.pin is not None})
        out.update({e.source.key: e.source for e in self.edits.values()
                    if isinstance(e.source, Pinned)})
        return dict(sorted(out.items()))

    def contrast_artefacts(self, contrast: str) -> list[str]:
        """Keys of the frozen artefacts a contrast's arms read (its weights-hash check)."""
        arms = [self.arms[a] for a in self.contrasts[contrast].arms]
        return sorted({a.artefact.key for a in arms if a.artefact is not None})

    def sequential_effect(self) -> tuple[float | None, str]:
        """The effect a sequential screen's simulated power is read at: the register's recorded
        mean delta of its contrast when the claim records one, else the observed (None)."""
        assert self.sequential is not None
        rec = self.claim.doc.get("recorded", {}).get("contrasts", {}).get(
            self.sequential.contrast, {})
        if "mean_delta" in rec:
            return float(rec["mean_delta"]), "recorded"
        return None, "observed"

    def panel_declaration(self) -> dict[str, Any]:
        """What a panel's readings read (``drop7 panel read --declaration``,
        :func:`analysis.panel_report.read_panel`): the table's names, the recall's k, the work
        and the claim's panel readings."""
        assert self.panel is not None
        return {"reference": self.panel.reference, "rankers": list(self.panel.rankers),
                "recall": list(self.panel.recall), "work": self.panel.work,
                "conventions": self.panel.conventions,
                "readings": panel_readings(self.readings)}

    def screened_contrasts(self) -> set[str]:
        """Contrasts a ``screen`` reading reads (they get an operating characteristic)."""
        return {r["contrast"] for r in self.readings.values() if r["kind"] == "screen"}

    def curve_weights(self) -> list[str]:
        """Trained weights with a validation curve (all of them)."""
        return list(self.trained)

    def learner_reads(self, gates: bool = False) -> dict[str, DirectTraining]:
        """The weights trained by one job whose curve and record a learner reading reads (of
        the gates only, ``gates``): the gates and verdict jobs wait for their records."""
        names = self.gates if gates else list(self.readings)
        read = [self.readings[n]["weights"] for n in names
                if reading_kind(self.readings[n]["kind"]).source == LEARNER]
        return {w: self.direct_trained[w] for w in dict.fromkeys(read)}

    def health_weights(self) -> list[tuple[str, str]]:
        """``(claim, weights)`` of every trained weights whose training health the page shows:
        this claim's own and those of the frozen artefacts it reads from other claims (an
        edit has none: its source's is shown where the source is read)."""
        own = [(self.id, w) for w in self.trained]
        return own + sorted({(a.claim, a.weights) for a in self.artefacts.values()
                             if not a.edited} - set(own))

    def checkpoint_arms(self, weights: str) -> list[PlannedArm]:
        """The validation arms of a trained weights' checkpoints, in step order."""
        return [a for a in self.validation_arms.values() if a.weights == weights]

    def block_arms(self, block: str) -> dict[str, PlannedArm]:
        """The arms of a block label (``validation`` or this claim's screen label)."""
        if block == VALIDATION:
            return self.validation_arms
        if block == self.label:
            return self.arms
        k = self.look_of(block)
        if self.sequential is not None and k is not None and 1 <= k <= len(
                self.sequential.looks):
            return self.sequential.arms[k - 1]
        raise KeyError(f"claim {self.id} has no block {block!r}")

    def block_seeds(self, block: str) -> tuple[int, int]:
        """``(start, count)`` of a block label."""
        if block == VALIDATION:
            assert self.validation_seeds is not None
            return self.validation_seeds
        k = self.look_of(block)
        if k is not None and self.sequential is not None:
            first, count = self.sequential.offsets(k)
            return self.seeds[0] + first, count
        return self.seeds

    def description(self) -> ClaimDescription:
        """The plan of this claim as the page shows it and the records hash it."""
        from protocol.stages import describe_selection

        doc = self.claim.doc
        return ClaimDescription(
            id=self.id, title=doc["title"], claim=doc["claim"], theory=doc.get("theory"),
            path=shown_path(self.claim.path), block=self.block, blocks=list(self.blocks),
            seeds=list(self.seeds), label=self.label, shares_block_of=self.shares_block_of,
            tier=self.tier, shrunk=list(self.shrunk), limits=list(self.limits),
            proxy=self.proxy,
            validation=ValidationPlan(games=self.validation_games,
                                      seeds=list(self.validation_seeds or ()),
                                      comparator=self.comparator,
                                      search=doc.get("validation", {}).get("search")),
            trained={n: TrainedPlan(learner=t.learner, layout=t.layout, moves=t.moves,
                                    every=t.every, steps=t.steps,
                                    select=describe_selection(t.select),
                                    init=(None if t.init is None else t.init.describe()
                                          if isinstance(t.init, Pinned)
                                          else {"artefact": t.init.key}))
                     for n, t in self.trained.items()},
            arms={n: ArmPlan(policy=a.policy, games=a.games, shards=a.shards,
                             artefact=a.artefact.key if a.artefact else None,
                             pinned=a.pinned.describe() if a.pinned else None)
                  for n, a in self.arms.items()},
            contrasts={n: ContrastPlan(kind=c.kind, arms=list(c.arms), games=c.games,
                                       title=c.title, prefix_of=list(c.prefix_of))
                       for n, c in self.contrasts.items()},
            sequential=self.sequential.spec() if self.sequential else None,
            readings=doc["readings"], gates=doc["gates"], verdict=doc["verdict"],
            recorded=doc.get("recorded", {}), declaration=doc,
            pinned={k: p.describe() for k, p in self.pinned.items()} or None,
            panel=self.panel.describe() if self.panel else None)

    def describe(self) -> dict[str, Any]:
        """:meth:`description` as plain JSON-ready data (what the report job and the records
        read)."""
        return self.description().to_json()

    def estimate(self, measured: Mapping[str, float] | None = None) -> dict[str, float]:
        """Estimated CPU seconds of this claim by stage (``train``, its table edits too,
        ``validation``, ``screen``, ``panel``: labelling and ranking its roots, ``replay``: the
        register's published games played again); ``measured``: seconds a decision of arms
        measured (an external program's trial decisions), in place of the model's."""
        measured = measured or {}
        train = sum(costs.train_seconds(t.layout, end - start, t.entries, t.move_cost)
                    for t in self.trained.values() for start, end in t.segments)
        train += sum(t.seconds for t in self.direct_trained.values())
        train += sum(e.seconds for e in self.edits.values())
        val = sum(a.games * a.seconds_per_game for a in self.validation_arms.values())
        screen = sum(a.games * (costs.game_seconds(measured[n]) if n in measured
                                else a.seconds_per_game) for n, a in self.arms.items())
        panel = self.panel.seconds() if self.panel else 0.0
        replay = self.replay.seconds() if self.replay else 0.0
        return {"train": train, "validation": val, "screen": screen, "panel": panel,
                "replay": replay}


@dataclass
class Plan:
    """Every claim of one profile's run."""

    profile: dict[str, Any]
    claims: dict[str, ClaimPlan]
    paths: Paths
    blame: Callable[[str], str] | None = None  # the source of a profile key (its file)
    #: the claims declared in the run's own ``claims_dir`` (none when it is the shipped one)
    own: list[str] = field(default_factory=list)
    #: those of :attr:`own` that replace a shipped claim of the same id
    replaces: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The profile's name."""
        return str(self.profile["profile"])

    def source_of(self, key: str) -> str:
        """The file (or ``--config``) to name for a profile key in an error."""
        return (self.blame or blamer(profile_source(self.profile)))(key)

    @property
    def run(self) -> list[str]:
        """The claims the default target runs, with what they depend on, in dependency order:
        the profile's ``run`` list (every claim when absent) or, with a ``claims_dir`` of one's
        own, its claims (one that replaces a shipped claim only if the profile runs that)."""
        listed = self.profile.get("run") or list(self.claims)
        wanted = ([c for c in self.own if c in listed or c not in self.replaces]
                  if self.own else listed)
        return [c for c in self.order() if c in self.closure(wanted)]

    def closure(self, ids: list[str]) -> set[str]:
        """``ids`` and every claim whose frozen artefacts they read."""
        out, todo = set(), list(ids)
        while todo:
            c = todo.pop()
            if c not in out:
                out.add(c)
                todo.extend(a.claim for a in self.claims[c].reads())
        return out

    def order(self) -> list[str]:
        """Claims with the ones they depend on first (by id otherwise)."""
        done: list[str] = []

        def visit(c: str) -> None:
            if c in done:
                return
            for a in self.claims[c].reads():
                if a.claim != c:
                    visit(a.claim)
            done.append(c)

        for c in sorted(self.claims):
            visit(c)
        return done

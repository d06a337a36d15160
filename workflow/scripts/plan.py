"""The workflow's plan: the validated config, and the one name of every arm, file and policy.

``load_config`` merges ``config/profiles/<profile>.yaml`` with the overrides
Snakemake collected (``--configfile``, ``--config``), and checks the result
against ``workflow/schemas/config.schema.yaml``: an unknown or misspelt key
or a bad value raises :class:`ConfigError` with one line naming the key.
:class:`Plan` then names everything the rules read and write, so the
Snakefile, the scripts, the reports and the tests spell each arm and path
the same way (an arm is ``ntuple-A-d3s7`` everywhere).

Layout of a run (``P`` = ``results/<profile>``)::

    P/train/<weights>/step-<moves>/{tables.npy,manifest.json}   checkpoints
    P/train/<weights>/trained.json                               the training job's record
    P/validation/shards/<arm>/shard-<k>-of-<K>.csv               games, one job each
    P/validation/games/<arm>.csv                                 merged
    P/validation/curves/<weights>.json                           margins vs fair
    P/gate.json                                                  criterion 1
    P/frozen/<candidate>/{tables.npy,manifest.json} + .json      the frozen candidate
    P/screen-<block>/opened.json                                 the ledger's answer
    P/screen-<block>/shards/<arm>/shard-<k>-of-<K>.{csv,json}    screen games
    P/screen-<block>/games.csv                                   every arm, merged
    P/screen-<block>/stats/<contrast>.json, verdict.json
    reports/<profile>/screen-<block>.{html,json}, reports/index.html

This module imports no Snakemake; the rules and the tests both use it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_PROFILE = "pilot"
PROFILES_DIR = Path("config") / "profiles"
SCHEMA = Path("workflow") / "schemas" / "config.schema.yaml"
#: working-set estimate of a training job per table entry: float32 value + two accumulators
TRAIN_BYTES_PER_ENTRY = 12
#: slack for the interpreter, numba and the engine (MB)
BASE_MEM_MB = 800


class ConfigError(ValueError):
    """A configuration that does not validate: one line naming the key."""


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``over``, merging nested mappings key by key."""
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _plain(value: Any) -> Any:
    """Mappings and sequences as plain dicts and lists (Snakemake hands OrderedDicts)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _key(path: Any) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _describe(error: Any) -> str:
    """One line for a jsonschema error, naming the key."""
    where = list(error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        keys = ", ".join(_key([*where, k]) for k in extra)
        return f"unknown key {keys} (allowed here: {', '.join(allowed)})"
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return f"missing key {', '.join(_key([*where, k]) for k in missing)}"
    return f"key {_key(where)} = {error.instance!r}: {error.message}"


def load_schema(basedir: str | Path) -> dict[str, Any]:
    """The config schema (YAML)."""
    with open(Path(basedir) / SCHEMA, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def check_schema(cfg: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    """Raise :class:`ConfigError` for the first schema violation (shallowest key first)."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(cfg),
                    key=lambda e: (len(e.absolute_path), _key(e.absolute_path)))
    if errors:
        raise ConfigError(f"config error: {_describe(errors[0])}")


def profile_names(basedir: str | Path) -> list[str]:
    """Profiles available under ``config/profiles``."""
    return sorted(p.stem for p in (Path(basedir) / PROFILES_DIR).glob("*.yaml"))


def load_config(basedir: str | Path, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The merged, validated config of a run.

    ``overrides`` is Snakemake's ``config`` (``config/config.yaml``, then any
    ``--configfile``, then ``--config``); its ``profile`` picks the profile
    file and every other key overrides that file's.
    """
    over = _plain(overrides)
    name = over.pop("profile", DEFAULT_PROFILE)
    if not isinstance(name, str) or name not in profile_names(basedir):
        raise ConfigError(f"config error: key profile = {name!r}: no such profile (choose "
                          f"from {', '.join(profile_names(basedir))})")
    with open(Path(basedir) / PROFILES_DIR / f"{name}.yaml", encoding="utf-8") as fh:
        base = yaml.safe_load(fh) or {}
    if not isinstance(base, Mapping):
        raise ConfigError(f"config error: {PROFILES_DIR / name}.yaml is not a mapping")
    cfg = deep_merge(_plain(base), over)
    cfg["profile"] = name
    check_schema(cfg, load_schema(basedir))
    check_meaning(cfg)
    return cfg


def check_meaning(cfg: Mapping[str, Any]) -> None:
    """Checks a schema cannot express (layouts named, budgets consistent)."""
    tr = cfg["training"]
    for role in ("candidate", "ablation"):
        if tr[role] not in tr["layouts"]:
            raise ConfigError(f"config error: key training.{role} = {tr[role]!r}: layout "
                              f"{tr[role]} is not in training.layouts")
    if tr["candidate"] == tr["ablation"]:
        raise ConfigError("config error: key training.ablation: must differ from "
                          "training.candidate")
    budgets = {f"training.layouts.{k}": v for k, v in tr["layouts"].items()}
    budgets["training.linear_trained"] = tr["linear_trained"]
    for key, b in budgets.items():
        if b["every"] > b["moves"]:
            raise ConfigError(f"config error: key {key}.every = {b['every']}: larger than "
                              f"{key}.moves = {b['moves']}")
    if not cfg["registered_budget"] and not cfg.get("budget_note"):
        raise ConfigError("config error: missing key budget_note (required when "
                          "registered_budget is false)")


def checkpoint_steps(moves: int, every: int) -> list[int]:
    """Checkpoints of a budget: every ``every`` moves, and the last at ``moves``."""
    steps = list(range(every, moves + 1, every))
    if not steps or steps[-1] != moves:
        steps.append(moves)
    return steps


@dataclass(frozen=True)
class Weights:
    """One trained arm: ``ntuple-<layout>`` or ``linear-trained``."""

    name: str
    layout: str  # A..E, or "linear"
    moves: int
    every: int

    @property
    def leaf(self) -> str:
        """The leaf kind of the policy grammar."""
        return "linear-trained" if self.layout == "linear" else "ntuple"

    @property
    def rule(self) -> str:
        """A Python-safe name for rules (``ntuple_A``, ``linear_trained``)."""
        return self.name.replace("-", "_")

    @property
    def steps(self) -> list[int]:
        """Checkpoint steps (moves trained)."""
        return checkpoint_steps(self.moves, self.every)

    @property
    def entries(self) -> int:
        """Table entries (18 for linear-trained)."""
        if self.layout == "linear":
            return 18
        from engines.ntuple.layouts import get_layout

        return get_layout(self.layout).entries


class Plan:
    """Names, paths, policies and resources of one profile's run."""

    def __init__(self, cfg: Mapping[str, Any]) -> None:
        self.cfg = cfg
        self.profile: str = cfg["profile"]
        self.root = f"results/{self.profile}"
        self.reports = f"reports/{self.profile}"
        self.depth, self.strata = cfg["search"]["depth"], cfg["search"]["strata"]
        self.dtag = f"d{self.depth}s{self.strata}"
        tr = cfg["training"]
        self.weights: dict[str, Weights] = {}
        for layout in sorted(tr["layouts"]):
            b = tr["layouts"][layout]
            self.weights[f"ntuple-{layout}"] = Weights(f"ntuple-{layout}", layout, b["moves"],
                                                       b["every"])
        lin = tr["linear_trained"]
        self.weights["linear-trained"] = Weights("linear-trained", "linear", lin["moves"],
                                                 lin["every"])
        self.candidate = f"ntuple-{tr['candidate']}"
        self.ablation = f"ntuple-{tr['ablation']}"
        self.first_game: int = tr["first_game"]
        self.block: int = cfg["screen"]["block"]
        self.screen_dir = f"{self.root}/screen-{self.block}"
        self.fair_arm = f"linear-{self.dtag}"

    # ---- training -------------------------------------------------------------------
    def train_dir(self, weights: str) -> str:
        """Where a trained arm's checkpoints go."""
        return f"{self.root}/train/{weights}"

    def checkpoint(self, weights: str, step: int) -> str:
        """One checkpoint directory."""
        return f"{self.train_dir(weights)}/step-{step}"

    def trained(self, weights: str) -> str:
        """The training job's record (written last): its checkpoints and their manifests.

        Checkpoint directories are not Snakemake outputs, so a rerun after an
        interruption resumes instead of starting over (see scripts/train.py).
        """
        return f"{self.train_dir(weights)}/trained.json"

    def train_mem_mb(self, weights: str) -> int:
        """Memory a training job asks for (tables with their accumulators)."""
        return BASE_MEM_MB + self.weights[weights].entries * TRAIN_BYTES_PER_ENTRY // 10**6

    def play_mem_mb(self, weights: str | None) -> int:
        """Memory a game job asks for (memory-mapped float32 tables)."""
        tables = self.weights[weights].entries * 4 // 10**6 if weights else 0
        return BASE_MEM_MB + tables

    # ---- policies and arms -------------------------------------------------------------
    def search_policy(self, leaf: str, depth: int | None = None) -> str:
        """``search:leaf=LEAF,d=D,s=S`` in canonical form."""
        from engines.play.policy import canonical_policy

        return canonical_policy(f"search:leaf={leaf},d={depth or self.depth},s={self.strata}")

    def direct_policy(self, leaf: str) -> str:
        """``direct:leaf=LEAF[,s=S]`` in canonical form."""
        from engines.play.policy import canonical_policy

        return canonical_policy(f"direct:leaf={leaf},s={self.strata}")

    def leaf_of(self, weights: str, path: str) -> str:
        """The policy grammar's leaf for a trained arm's weights at ``path``."""
        return f"{self.weights[weights].leaf}:{path}"

    def validation_arm(self, weights: str, step: int) -> str:
        """Arm name of a checkpoint in search on the validation block."""
        return f"{weights}-step{step}-{self.dtag}"

    def validation_arms(self) -> dict[str, dict[str, Any]]:
        """Every validation arm: name -> {policy, weights, step, depth}; the fair arm once."""
        arms = {self.fair_arm: {"policy": self.search_policy("linear"), "weights": None,
                                "step": None, "depth": self.depth}}
        for w in self.weights.values():
            for step in w.steps:
                leaf = self.leaf_of(w.name, self.checkpoint(w.name, step))
                arms[self.validation_arm(w.name, step)] = {
                    "policy": self.search_policy(leaf), "weights": w.name, "step": step,
                    "depth": self.depth}
        return arms

    @property
    def frozen_dir(self) -> str:
        """The frozen candidate's weights (a copy of the chosen checkpoint)."""
        return f"{self.root}/frozen/{self.candidate}"

    @property
    def frozen_record(self) -> str:
        """The freeze record: chosen step, margin, SHA-256."""
        return f"{self.root}/frozen/{self.candidate}.json"

    def screen_arms(self) -> dict[str, dict[str, Any]]:
        """Every screen arm: name -> {policy, weights, depth} (candidate arms: the frozen copy)."""
        leaf = self.leaf_of(self.candidate, self.frozen_dir)
        arms = {
            f"{self.candidate}-{self.dtag}": {"policy": self.search_policy(leaf),
                                              "weights": self.candidate, "depth": self.depth},
            f"{self.candidate}-direct": {"policy": self.direct_policy(leaf),
                                         "weights": self.candidate, "depth": 1},
            self.fair_arm: {"policy": self.search_policy("linear"), "weights": None,
                            "depth": self.depth},
        }
        if self.cfg["screen"]["deeper_fair_arm"]:
            deeper = f"linear-d{self.depth + 1}s{self.strata}"
            arms[deeper] = {"policy": self.search_policy("linear", self.depth + 1),
                            "weights": None, "depth": self.depth + 1}
        return arms

    def contrasts(self) -> dict[str, tuple[str, str]]:
        """Screen contrasts: name -> (candidate arm, comparator arm)."""
        cand = f"{self.candidate}-{self.dtag}"
        out = {"primary": (cand, self.fair_arm),
               "direct": (f"{self.candidate}-direct", self.fair_arm)}
        if self.cfg["screen"]["deeper_fair_arm"]:
            out["deeper"] = (cand, f"linear-d{self.depth + 1}s{self.strata}")
        return out

    # ---- seeds ---------------------------------------------------------------------------
    def seeds(self, block: str) -> tuple[int, int]:
        """``(start, count)`` of the ``validation`` block or the ``screen`` block."""
        from engines.seedbank import load_bank

        bank = load_bank()
        if block == "validation":
            seeds = bank.validation(self.cfg["validation"]["games"])
        else:
            seeds = bank.screen_block(self.block, self.cfg["screen"]["games"])
        return int(seeds[0]), int(seeds.size)

    def seed_blocks(self) -> dict[str, Any]:
        """The seed ranges this run reads (for provenance)."""
        from engines.seedbank import load_bank

        bank = load_bank()
        val, scr = self.seeds("validation"), self.seeds("screen")
        first_train = int(bank.training(self.first_game, 1)[0])
        return {
            "training": {"first_game": self.first_game, "first_seed": first_train},
            "validation": {"start": val[0], "count": val[1]},
            "screen": {"block": self.block, "start": scr[0], "count": scr[1]},
        }

    # ---- files -------------------------------------------------------------------------
    def shards(self, block: str) -> int:
        """Jobs per arm on ``validation`` or ``screen``."""
        return int(self.cfg["validation" if block == "validation" else "screen"]["shards"])

    def block_dir(self, block: str) -> str:
        """``P/validation`` or ``P/screen-<b>``."""
        return f"{self.root}/validation" if block == "validation" else self.screen_dir

    def shard_csv(self, block: str, arm: str, k: int) -> str:
        """One shard's games table."""
        return f"{self.block_dir(block)}/shards/{arm}/shard-{k}-of-{self.shards(block)}.csv"

    def shard_csvs(self, block: str, arm: str) -> list[str]:
        """Every shard of an arm."""
        return [self.shard_csv(block, arm, k) for k in range(1, self.shards(block) + 1)]

    def games_csv(self, block: str, arm: str) -> str:
        """An arm's merged games table."""
        return f"{self.block_dir(block)}/games/{arm}.csv"

    def curve(self, weights: str) -> str:
        """A trained arm's validation curve."""
        return f"{self.root}/validation/curves/{weights}.json"

    @property
    def gate(self) -> str:
        """The training-signal gate's decision."""
        return f"{self.root}/gate.json"

    @property
    def opened(self) -> str:
        """The ledger's answer for this run's screen block."""
        return f"{self.screen_dir}/opened.json"

    @property
    def screen_table(self) -> str:
        """Every screen arm's games in one table."""
        return f"{self.screen_dir}/games.csv"

    def stats(self, contrast: str) -> str:
        """A contrast's statistics."""
        return f"{self.screen_dir}/stats/{contrast}.json"

    @property
    def verdict(self) -> str:
        """The claim's verdict."""
        return f"{self.screen_dir}/verdict.json"

    @property
    def provenance(self) -> str:
        """Provenance of the run."""
        return f"{self.screen_dir}/provenance.json"

    @property
    def page(self) -> str:
        """The screen's HTML report."""
        return f"{self.reports}/screen-{self.block}.html"

    @property
    def summary(self) -> str:
        """The report's one-line summary (what the index lists)."""
        return f"{self.reports}/screen-{self.block}.json"

    @property
    def figures_dir(self) -> str:
        """The report's figures as PNG files (for ``snakemake --report``)."""
        return f"{self.root}/figures/screen-{self.block}"

    FIGURES = ("validation_curve", "training_throughput", "paired_deltas", "score_distributions",
               "halves", "operating_characteristic")

    def figure(self, name: str) -> str:
        """One figure's PNG."""
        return f"{self.figures_dir}/{name}.png"

    INDEX = "reports/index.html"

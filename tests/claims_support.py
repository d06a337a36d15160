"""Helpers of the claim tests: the shipped declarations, copied and edited in a scratch folder."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
CLAIMS_DIR = REPO / "config" / "claims"
CLAIMS = ("depth-five", "depth-native-leaf-weights", "evolved-nnue-leaf-d3",
          "evolved-nnue-leaf-d3-gated", "factored-chance",
          "factored-chance-ladder", "fourth-ply",
          "kf-linear-q-transfer", "kf-six-weight-cem-searched", "kf-six-weight-policy-search",
          "linear-trained-leaf",
          "m6-depth-second-order-for-ordering", "nnue-class-holds-d4-ordering",
          "ntuple-fill-conditioned-leaf",
          "ntuple-line-tuples", "ntuple-line-tuples-lanes",
          "ntuple-search-target-treestrap-leaf", "oneply-linear-q-prune-prior",
          "oneply-linear-q-pruned-search",
          "reveal-construction-leaf", "reveal-quadrature",
          "shallow-ordering", "survival-instinct", "treestrap-linear-leaf-refit")


def shipped(claim: str) -> dict[str, Any]:
    """A shipped declaration as a dict."""
    return yaml.safe_load((CLAIMS_DIR / f"{claim}.yaml").read_text())


def claims_copy(directory: Path, edit: Callable[[dict[str, Any]], None] | None = None,
                claim: str = "ntuple-line-tuples", extra: dict[str, dict] | None = None) -> Path:
    """The shipped declarations copied to ``directory``; ``edit`` changes ``claim``'s, and
    ``extra`` adds declarations (id -> dict)."""
    directory.mkdir(parents=True, exist_ok=True)
    for path in CLAIMS_DIR.glob("*.yaml"):
        shutil.copy2(path, directory / path.name)
    if edit is not None:
        doc = copy.deepcopy(shipped(claim))
        edit(doc)
        write_claim(directory, doc, claim)
    for name, doc in (extra or {}).items():
        write_claim(directory, doc, name)
    return directory


def write_claim(directory: Path, doc: dict[str, Any], name: str | None = None) -> Path:
    """Write one declaration (``<id>.yaml`` unless ``name`` is given)."""
    path = directory / f"{name or doc['id']}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def fair_depth_claim(block: int = 30) -> dict[str, Any]:
    """A fourth claim of hand-written leaves only: fair d2s7 against fair d3s7 on a prefix."""
    return {
        "format": "drop7-claim-v1", "id": "fair-depth-prefix",
        "title": "A third ply helps the fair leaf",
        "claim": "The fair leaf in d3s7 scores more than in d2s7.",
        "arms": {"fair-d3s7": {"play": "search", "depth": 3, "strata": 7, "leaf": "linear"},
                 "fair-d2s7": {"play": "search", "depth": 2, "strata": 7, "leaf": "linear",
                               "games": 16}},
        "screen": {"games": 32, "block": block},
        "contrasts": {"depth": {"difference": ["fair-d3s7", "fair-d2s7"]}},
        "readings": {"depth-screen": {"kind": "screen", "contrast": "depth"},
                     "depth-reading": {"kind": "three-way", "contrast": "depth"}},
        "verdict": {"rules": [{"when": {"depth-screen": ["fail", "not-run"]},
                               "then": "not-supported-as-tested"}],
                    "otherwise": "supported-as-tested"},
    }


def external_claim(command: list[str], block: int = 31) -> dict[str, Any]:
    """A claim with an external arm (a program speaking docs/referee.md) against fair d3s7."""
    return {
        "format": "drop7-claim-v1", "id": "external-player",
        "title": "Our own program beats the fair leaf",
        "claim": "The external program scores more than fair d3s7.",
        "arms": {"mine": {"play": "external", "command": command,
                          "options": {"side": "right"}, "movetime": 100, "grace": 2000},
                 "fair-d3s7": {"play": "search", "depth": 3, "strata": 7, "leaf": "linear"}},
        "screen": {"games": 32, "block": block},
        "contrasts": {"mine": {"difference": ["mine", "fair-d3s7"]}},
        "readings": {"mine": {"kind": "screen", "contrast": "mine"}},
        "verdict": {"rules": [{"when": {"mine": ["fail", "not-run"]},
                               "then": "not-supported-as-tested"}],
                    "otherwise": "supported-as-tested"},
    }


def sequential_claim(block: int = 32) -> dict[str, Any]:
    """A sequential claim built to stop at its first look: the fair leaf one ply against random
    play, read at 16 and 32 games (the smoke profile's cap of 8 games is lifted by the test)."""
    return {
        "format": "drop7-claim-v1", "id": "sequential-stop",
        "title": "The fair leaf one ply beats random play",
        "claim": "The fair leaf one ply scores more than random legal play.",
        "arms": {"fair-direct": {"play": "direct", "leaf": "linear"},
                 "random": {"play": "random"}},
        "screen": {"games": 32, "block": block, "looks": [16, 32],
                   "spending": "obrien-fleming"},
        "contrasts": {"skill": {"difference": ["fair-direct", "random"]}},
        "readings": {"skill": {"kind": "screen", "contrast": "skill"}},
        "verdict": {"rules": [{"when": {"skill": ["fail", "not-run"]},
                               "then": "not-supported-as-tested"}],
                    "otherwise": "supported-as-tested"},
    }


def own_claim(block: int = 60) -> dict[str, Any]:
    """A claim of one's own, cheap enough for a test under any profile: the fair leaf one ply
    (three strata) against random play, on 8 games."""
    return {
        "format": "drop7-claim-v1", "id": "my-first-claim",
        "title": "The fair leaf one ply beats random play",
        "claim": "One ply of the fair leaf scores more than random legal play.",
        "arms": {"fair-d1s3": {"play": "search", "depth": 1, "strata": 3, "leaf": "linear"},
                 "random": {"play": "random"}},
        "screen": {"games": 8, "block": block},
        "contrasts": {"ply": {"difference": ["fair-d1s3", "random"]}},
        "readings": {"ply-screen": {"kind": "screen", "contrast": "ply"}},
        "verdict": {"rules": [{"when": {"ply-screen": ["fail", "not-run"]},
                               "then": "not-supported-as-tested"}],
                    "otherwise": "supported-as-tested"},
    }


def profile_like(directory: Path, profile: str, **over: Any) -> str:
    """A profile file of one's own: the shipped ``profile``'s keys with ``over`` merged in,
    writing the same ledger (a command line may not override the sizes of a profile writing
    the committed ledger; its file may set them)."""
    from protocol.profile import deep_merge

    doc = yaml.safe_load((REPO / "config" / "profiles" / f"{profile}.yaml").read_text())
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{profile}-like.yaml"
    path.write_text(yaml.safe_dump(deep_merge(doc, over)), encoding="utf-8")
    return str(path)


def player_in(run: Path, folder: str = "p") -> list[str]:
    """The test player (``tests/referee_player.py``) copied into the folder
    ``run/folder`` (beside the claims folder, which holds declarations only), and its
    command as a claim names it: relative to the run's directory
    ``run`` (a claim may name no file outside it, protocol/files.py)."""
    (run / folder).mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "tests" / "referee_player.py", run / folder / "referee_player.py")
    return ["python3", f"{folder}/referee_player.py"]

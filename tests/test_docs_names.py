"""Every dotted name of the project's code that the docs, the README and the schemas cite
exists: a module moved or a function renamed leaves no stale pointer behind."""

from __future__ import annotations

import importlib
import re

from claims_support import REPO

NAME = re.compile(r"\b((?:engines|protocol|analysis|contracts|cli)(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
PLACES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
          *sorted((REPO / "protocol" / "schemas").rglob("*.yaml"))]


def resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_cited_name_exists() -> None:
    stale = sorted({f"{path.relative_to(REPO)}: {name}" for path in PLACES
                    for name in NAME.findall(path.read_text(encoding="utf-8"))
                    if not name.endswith((".py", ".md", ".yaml")) and not resolves(name)})
    assert not stale, "\n".join(stale)


PATH = re.compile(r"\b((?:engines|protocol|analysis|contracts|cli|workflow|tests|config|data)"
                  r"/[\w./-]*\.(?:py|smk|yaml|json|md))\b")


#: files the docs name as examples of one's own
EXAMPLES = {"config/claims/x.yaml", "config/claims/mine.yaml"}


def test_every_cited_file_exists() -> None:
    stale = sorted({f"{path.relative_to(REPO)}: {name}" for path in PLACES
                    for name in PATH.findall(path.read_text(encoding="utf-8"))
                    if name not in EXAMPLES and not (REPO / name).exists()})
    assert not stale, "\n".join(stale)

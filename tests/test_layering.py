"""The layers import only downwards: a pure ``ast`` reading of every source file.

Bottom-up: ``contracts`` < ``engines`` < ``protocol`` and ``analysis`` < ``workflow``,
with the ``drop7`` command (``cli``) above them all (docs/architecture.md).  Every
``import`` and ``from ... import`` counts, including the ones inside functions;
relative imports are resolved.  The workflow's Snakefile and rule files are not
Python, so their import lines are read line by line.  An import by name
(``importlib.import_module``, ``__import__``) would hide from this reading, so
none is allowed: there is no exemption.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the folders checked (tests may import anything)
SOURCES = ("contracts", "engines", "protocol", "analysis", "workflow", "cli")

#: (importer, forbidden import, allowed exception, why): a module under ``importer`` may not
#: import ``forbidden`` or anything under it unless it is under ``allowed``
RULES: tuple[tuple[str, str, str | None, str], ...] = (
    ("contracts", "engines", None, "contracts are the bottom layer"),
    ("contracts", "protocol", None, "contracts are the bottom layer"),
    ("contracts", "analysis", None, "contracts are the bottom layer"),
    ("contracts", "workflow", None, "contracts are the bottom layer"),
    ("contracts", "cli", None, "contracts are the bottom layer"),
    ("engines", "cli", None, "the command sits above every layer"),
    ("protocol", "cli", None, "the command sits above every layer"),
    ("analysis", "cli", None, "the command sits above every layer"),
    ("workflow", "cli", None, "the workflow runs the command, it does not import it"),
    ("engines", "protocol", None, "engines sit below the protocol"),
    ("engines", "analysis", None, "engines sit below the statistics"),
    ("engines", "workflow", None, "engines sit below the workflow"),
    ("analysis", "engines", None, "the statistics read games tables, never the engine"),
    ("analysis", "protocol", None, "the protocol reads the statistics, not the other way"),
    ("analysis", "workflow", None, "analysis sits below the workflow"),
    ("protocol", "workflow", None, "the protocol sits below the workflow"),
    ("workflow", "engines", None, "workflow adapters go through protocol or contracts"),
    ("engines.drop7", "engines", "engines.drop7", "the game engine imports no other engine part"),
    ("engines.leaves", "engines.search", None, "leaves sit below the search"),
    ("engines.leaves", "engines.play", None, "leaves sit below the players"),
    ("engines.search", "engines.play", None, "the search sits below the players"),
    ("engines.ntuple", "engines.search", None, "n-tuple tables sit below the search"),
    ("engines.ntuple", "engines.leaves", None, "the tables know no linear leaf"),
    ("engines.leaves", "engines.ntuple", None, "the fair leaf knows no tables"),
)
#: calls that import a module by name, out of this checker's sight
_BY_NAME = ("import_module", "__import__")

_SMK_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))")


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a source file (``workflow/scripts/x.py`` -> ``workflow.scripts.x``)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import in a file (relative imports resolved)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":  # Snakefile, *.smk: import lines only
        return [(n, m.group(1) or m.group(2)) for n, line in enumerate(text.splitlines(), 1)
                if (m := _SMK_IMPORT.match(line))]
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.append((node.lineno, module))
            # ``from engines import search`` imports the subpackage ``engines.search``
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def source_files(root: Path) -> list[Path]:
    """Every Python, Snakefile and rule file of the checked folders."""
    files = [p for folder in SOURCES for p in sorted((root / folder).rglob("*.py"))]
    files += sorted((root / "workflow").rglob("*.smk"))
    return files + ([root / "Snakefile"] if (root / "Snakefile").is_file() else [])


def imports_by_name(path: Path) -> list[int]:
    """Lines of a Python file that name ``importlib.import_module`` or ``__import__``."""
    if path.suffix != ".py":
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return sorted({node.lineno for node in ast.walk(tree)
                   if (isinstance(node, ast.Name) and node.id in _BY_NAME)
                   or (isinstance(node, ast.Attribute) and node.attr in _BY_NAME)
                   or (isinstance(node, ast.alias) and node.name.split(".")[-1] in _BY_NAME)})


def violations(root: Path) -> list[str]:
    """One line per import that breaks a rule: ``file:line: importer imports module (why)``."""
    out: dict[tuple[str, int, str], str] = {}
    for path in source_files(root):
        for line in imports_by_name(path):
            where = str(path.relative_to(root))
            out[where, line, "by name"] = (f"{where}:{line}: imports a module by name (the "
                                           "checker cannot see it: write the import)")
        importer = "workflow" if path.suffix == ".smk" or path.name == "Snakefile" \
            else module_name(path, root)
        for line, module in sorted(imports_of(path, root), key=lambda x: len(x[1])):
            for owner, forbidden, allowed, why in RULES:
                if (_under(importer, owner) and _under(module, forbidden)
                        and not (allowed and _under(module, allowed))):
                    where = str(path.relative_to(root))
                    out.setdefault((where, line, why), f"{where}:{line}: {importer} imports "
                                                       f"{module} ({why})")
    return sorted(out.values())


def test_every_layer_imports_only_downwards() -> None:
    assert violations(ROOT) == []


def test_every_layer_but_the_workflow_is_a_shipped_package() -> None:
    """``pip install -e .`` installs the packages pyproject.toml includes, and no others."""
    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = find["packages"]["find"]["include"]
    for layer in SOURCES:
        if layer != "workflow":
            assert (ROOT / layer / "__init__.py").is_file(), layer
            assert any(fnmatch.fnmatch(layer, p) for p in patterns), f"{layer} is not shipped"


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checker_catches_planted_violations(tmp_path) -> None:
    root = _tree(tmp_path, {
        "contracts/__init__.py": "",
        "contracts/ok.py": "import json\n",
        "contracts/bad.py": "from protocol.plan import load_plan\n",
        "analysis/__init__.py": "",
        "analysis/bad.py": "def f():\n    from engines.drop7 import core\n",
        "engines/__init__.py": "",
        "engines/drop7/__init__.py": "",
        "engines/drop7/ok.py": "from engines.drop7 import board\nfrom . import rng\n",
        "engines/drop7/bad.py": "from ..play import games\n",
        "engines/leaves/__init__.py": "",
        "engines/leaves/bad.py": "from engines import search\n",
        "engines/leaves/ok.py": "from engines.drop7.core import advance\n",
        "engines/leaves/bad2.py": "from engines.ntuple.value import ntuple_value\n",
        "engines/ntuple/__init__.py": "",
        "engines/ntuple/bad.py": "def f():\n    from engines.leaves.kinds import N_TERMS\n",
        "engines/ntuple/ok.py": "from engines.drop7 import core\n",
        "engines/search/__init__.py": "",
        "engines/search/bad.py": "import engines.play.policy as p\n",
        "engines/play/__init__.py": "",
        "engines/play/ok.py": "from engines.search.leaf import leaf\nimport contracts.atomic\n",
        "protocol/__init__.py": "",
        "protocol/ok.py": "from engines.play.policy import load_policy\nfrom analysis import x\n",
        "workflow/scripts/bad.py": "from engines.ntuple.storage import file_sha256\n",
        "workflow/scripts/ok.py": "from contracts.hashing import file_sha256\n",
        "workflow/rules/bad.smk": "# from engines import x (a comment)\nfrom engines.x import Y\n",
        "workflow/rules/ok.smk": "from protocol.plan import load_plan\n",
        "workflow/scripts/bad2.py": "from cli.main import main\n",
        "protocol/bad.py": "import importlib\nm = importlib.import_module('engines.play')\n",
        "cli/__init__.py": "",
        "cli/ok.py": "from engines.play import runner\nfrom protocol import plan\n"
                     "from analysis import cli\nimport contracts.errors\n",
        "cli/bad.py": "from importlib import import_module\n",
    })
    found = violations(root)
    bad = sorted({line.split(":")[0] for line in found})
    assert bad == ["analysis/bad.py", "cli/bad.py", "contracts/bad.py", "engines/drop7/bad.py",
                   "engines/leaves/bad.py", "engines/leaves/bad2.py", "engines/ntuple/bad.py",
                   "engines/search/bad.py", "protocol/bad.py", "workflow/rules/bad.smk",
                   "workflow/scripts/bad.py", "workflow/scripts/bad2.py"], found
    assert any(v.startswith("engines/drop7/bad.py:1: engines.drop7.bad imports engines.play ")
               for v in found)
    assert any(v.startswith("workflow/rules/bad.smk:2: ") for v in found)
    assert any(v.startswith("protocol/bad.py:2: imports a module by name") for v in found)
    assert any(v.startswith("engines/ntuple/bad.py:2: engines.ntuple.bad imports "
                            "engines.leaves.kinds (the tables know no linear leaf)") for v in found)

"""Every ``drop7`` command the README and the docs name exists, with its verbs, and the
README's command list is exactly the commands ``drop7 --help`` lists."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from claims_support import REPO

from cli.main import COMMANDS
from contracts.cli_parser import OneLineParser

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
#: ``drop7 CMD`` and its next word or ``{a,b}`` set, inside code (not "the drop7 command")
NAMED = re.compile(r"(?<!the )\bdrop7 ([a-z][a-z-]*)(?: (\{[a-z,-]+\}|[a-z][a-z-]*))?")


def verbs(name: str) -> set[str]:
    """A command's verbs (its subparsers' names); empty when it takes none."""
    parser = OneLineParser(prog=f"drop7 {name}")
    COMMANDS[name].load().add_arguments(parser)
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(subs[0].choices) if subs else set()


def code(text: str) -> str:
    """The text's code: fenced blocks and inline spans."""
    fenced = re.findall(r"```.*?```", text, flags=re.S)
    rest = re.sub(r"```.*?```", "", text, flags=re.S)
    return "\n".join([*fenced, *re.findall(r"`[^`\n]+`", rest)])


def named(path: Path) -> list[tuple[str, str | None]]:
    return [(m[1], m[2] or None) for m in NAMED.finditer(code(path.read_text()))]


def test_every_named_command_and_verb_exists() -> None:
    bad = []
    for path in DOCS:
        for cmd, word in named(path):
            if cmd not in COMMANDS:
                bad.append(f"{path.name}: drop7 {cmd}")
                continue
            known = verbs(cmd)
            said = set(word.strip("{}").split(",")) if word and word.startswith("{") else (
                {word} if word and known else set())
            if known and said - known:
                bad.append(f"{path.name}: drop7 {cmd} {word} (verbs: {sorted(known)})")
    assert not bad, bad


def test_the_readmes_command_list_is_drop7_help() -> None:
    text = (REPO / "README.md").read_text()
    block = text.split("## The `drop7` command", 1)[1].split("```")[1]
    listed = {}
    for line in block.splitlines():
        m = NAMED.match(line.strip())
        if m:
            listed.setdefault(m[1], set()).update(
                m[2].strip("{}").split(",") if m[2] and (m[2].startswith("{") or verbs(m[1]))
                else [])
    assert set(listed) == set(COMMANDS)
    for cmd, said in listed.items():
        assert said == verbs(cmd), cmd

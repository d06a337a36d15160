"""Every engine command line a rule runs is built and quoted in protocol.commands: a pinned
path with a quote or a space in it reaches the engine whole (issue 42, item 3)."""

from __future__ import annotations

import re
import shlex

import pytest
from claims_support import REPO

from protocol import commands

ODD = "search:leaf=linear-file:/tmp/it's a dir/w.json,d=1,s=3"


def test_a_policy_with_a_quote_and_spaces_reaches_the_engine_whole() -> None:
    words = shlex.split(commands.play("my-arm", ODD, "12:8", "1/2"))
    assert words[:4] == ["drop7", "run-arms", "--arm", f"my-arm={ODD}"]
    assert shlex.split(commands.panel_roots(ODD, "1:2", 3, None))[4] == ODD
    assert shlex.split(commands.panel_answer("r", ODD, "nodes", None))[4] == f"r={ODD}"
    label = shlex.split(commands.panel_answer("outcome", ODD, "nodes", {
        "continuations": 4, "horizon": 10, "target": "score", "seed": 7}))
    assert label[label.index("--policy") + 1] == ODD


def test_no_rule_writes_an_engine_command_by_hand() -> None:
    for rule in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        text = rule.read_text(encoding="utf-8")
        assert not re.search(r'^\s*"drop7 ', text, re.M), rule.name
        # every file a shell line names is quoted
        for shell in re.findall(r"shell:\n((?:\s+\".*\"\n)+)", text):
            assert not re.search(r"\{(input|output|log)(\.\w+)?\}", shell), (rule.name, shell)


def test_a_segment_discards_the_state_it_started_from(tmp_path) -> None:
    """The train rule's command: a later segment deletes the state it resumed (Snakemake keeps
    temp files while a checkpoint job is pending)."""
    from cli.main import main
    from contracts.errors import InputError
    from contracts.json_file import recorded_sha256
    from contracts.train_directory import resume_dir
    from protocol.commands import train

    out = tmp_path / "seg"
    recipe = {"layout": "T1", "every": 300, "first_game": 0, "alpha": None}
    for start, end in ((0, 300), (300, 600)):
        words = shlex.split(train("ntuple", recipe, end, str(out), start))
        assert ("--discard-start" in words) == bool(start)
        assert main([*words[1:], "--threads", "1"]) == 0
    assert not resume_dir(out, 300).exists() and resume_dir(out, 600).exists()
    bad = tmp_path / "record.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match=r"--init-record .*record.json"):
        recorded_sha256(str(bad))

"""The ``drop7`` command: one dispatcher above every layer, reaching each subcommand by an
ordinary import; the workflow reaches the engines through it alone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli.bench import TARGETS
from cli.main import COMMANDS, main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("table", [COMMANDS, TARGETS], ids=["commands", "bench targets"])
def test_every_entry_loads_a_subcommand_module(table) -> None:
    for name, command in table.items():
        module = command.load()
        assert callable(module.add_arguments) and callable(module.run), name
        assert command.help and "\n" not in command.help, name


def test_help_lists_every_command_and_an_unknown_one_is_one_line(capsys) -> None:
    assert main(["--help"]) == 0
    listed = re.findall(r"^  (\S+) ", capsys.readouterr().out, re.M)
    assert listed == list(COMMANDS) and "evaluate" in listed
    assert main(["no-such-command"]) == 2
    assert capsys.readouterr().err.splitlines()[0] == \
        "drop7: error: unknown command 'no-such-command'"


def test_a_refused_flag_is_one_line(capsys) -> None:
    assert main(["evaluate", "somewhere", "--games", "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("drop7 evaluate: error: argument --games")


def test_python_m_cli_is_the_command() -> None:
    done = subprocess.run([sys.executable, "-m", "cli", "--help"], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    assert done.returncode == 0 and "run-arms" in done.stdout


def test_the_workflow_reaches_the_engines_through_the_command_alone() -> None:
    """No ``python -m`` module run and no engine import in the workflow's rules and scripts;
    the jobs that play, train or rank are shell rules calling ``drop7``."""
    workflow = ROOT / "workflow"
    files = [*sorted(workflow.rglob("*.py")), *sorted(workflow.rglob("*.smk")), ROOT / "Snakefile"]
    text = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in files}
    assert not [name for name, body in text.items()
                if re.search(r'"-m"|python -m|\bengines\.', body)]
    # every engine job is a shell rule running a command line of protocol.commands; no
    # script runs a command
    assert not [name for name, body in text.items() if "subprocess" in body]
    shells = [first for name, body in text.items() if name.endswith(".smk")
              for first in re.findall(r'shell:\n\s+"(\S+)', body)]
    assert len(shells) >= 7 and set(shells) == {"{params.command}"}, shells


def test_the_readme_lists_every_command_and_bench_target_there_is() -> None:
    """README's command list and ``drop7 --help`` say what exists, no more and no less."""
    from cli.bench import TARGETS
    from cli.main import COMMANDS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^drop7 ([a-z-]+)", readme, re.M))
    assert listed == set(COMMANDS), listed ^ set(COMMANDS)
    [targets] = re.findall(r"^drop7 bench \{([a-z,]+)\}", readme, re.M)
    assert set(targets.split(",")) == set(TARGETS)
    records = set(re.findall(r"^drop7 records ([a-z-]+)", readme, re.M))
    assert all(r in COMMANDS["records"].help for r in records)
    assert records == {"validate", "rebuild", "register-check"}

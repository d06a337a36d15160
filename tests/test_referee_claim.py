"""An external arm in a claim: declared, checked, planned to its policy string, dry-run."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from claims_support import REPO, claims_copy, external_claim, player_in
from workflow_support import snakemake

from protocol import costs
from protocol.checks import estimate_table, external_programs, trial_programs
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.records.experiment import experiment_record
from protocol.schema import DeclarationError

#: the test player as a claim names it: in the folder ``p`` of the run's directory
COMMAND = ["python3", "p/referee_player.py"]


@pytest.fixture(autouse=True)
def _run(tmp_path, monkeypatch) -> None:
    """Each test runs in its own run's directory, the player in its folder ``p``."""
    monkeypatch.chdir(tmp_path)
    assert player_in(tmp_path) == COMMAND


def _plan(claims_dir: Path):
    return load_plan(REPO, {"profile": "smoke", "claims_dir": str(claims_dir)})


def test_an_external_arm_plans_to_its_policy_string(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", extra={"external-player": external_claim(COMMAND)})
    p = _plan(claims).claims["external-player"]
    mine = p.arms["mine"]
    pin = hashlib.sha256((tmp_path / COMMAND[1]).read_bytes()).hexdigest()
    assert mine.policy == (f"external[movetime=100,grace=2000,option.side=right,sha256.1="
                           f"{pin}]:python3 p/referee_player.py")
    assert mine.spec.command == tuple(COMMAND)
    assert mine.spec.kind == "external" and mine.games == p.arms["fair-d3s7"].games
    assert mine.seconds_per_game > 10  # 120 decisions of its declared 100 ms
    assert p.contrasts["mine"].arms == ("mine", "fair-d3s7")


def _edit(**changes):
    def edit(doc):
        for key, value in changes.items():
            if value is None:
                doc["arms"]["mine"].pop(key)
            else:
                doc["arms"]["mine"][key] = value
    return edit


@pytest.mark.parametrize(("edit", "key"), [
    (_edit(command=None), "key arms.mine.command: an external arm needs a command"),
    (_edit(leaf="linear"), "key arms.mine.leaf: an external arm takes no leaf"),
    (_edit(depth=3), "key arms.mine.depth: an external arm takes no depth"),
    (lambda d: d["arms"]["fair-d3s7"].update(command=["x"]),
     "key arms.fair-d3s7.command: only an external arm takes command"),
    (lambda d: d["arms"]["fair-d3s7"].update(options={"a": 1}),
     "key arms.fair-d3s7.options: only an external arm takes options"),
    (_edit(command=["python3", "it's.py"]), "arms.mine.command[1]"),
    (_edit(command=[]), "arms.mine.command"),
    (_edit(options={"side": "a b"}), "arms.mine.options.side"),
    (_edit(options={"1x": "a"}), "arms.mine.options"),
    (_edit(movetime=0), "arms.mine.movetime"),
    (_edit(grace=-1), "arms.mine.grace"),
])
def test_a_bad_external_arm_is_one_line_naming_file_and_key(tmp_path, edit, key) -> None:
    doc = external_claim(COMMAND)
    edit(doc)
    claims = claims_copy(tmp_path / "c", extra={"external-player": doc})
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    message = str(err.value)
    assert message.startswith(str(claims / "external-player.yaml") + ": ")
    assert key in message and "\n" not in message


def test_a_program_that_is_not_found_is_refused_before_any_job(tmp_path) -> None:
    doc = external_claim(["./no-such-player", "--fast"])
    plan = _plan(claims_copy(tmp_path / "c", extra={"external-player": doc}))
    with pytest.raises(DeclarationError, match="external-player.yaml: key arms.mine.command: "
                                               "program './no-such-player' not found"):
        external_programs(plan, ["external-player"])
    external_programs(plan, ["fourth-ply"])  # other claims' arms are not external


@pytest.mark.parametrize(("command", "options", "key", "message"), [
    (["python3", "missing.py"], {}, "command", "missing.py: no such file (a command word that "
     "names a file must exist"),
    ([*COMMAND, "--no-start"], {}, "command", "the program exited (exit status 3)"),
    ([*COMMAND, "--speaks", "1"], {}, "command",
     "the program refused: this player speaks version 1 only"),
    (COMMAND, {"side": "middle"}, "options",
     "the program refused its options: side must be left or right, not middle"),
    (COMMAND, {"depth": 3}, "options", "the program does not accept option 'depth' (it accepts: "
     "side)"),
    ([*COMMAND, "--answer", "banana"], {}, "command", "the program answered 'banana' to a trial "
     "'go id 1' on the opening board, not 'move C id 1' (C 0-6)"),
])
def test_a_program_that_cannot_play_is_refused_before_any_block_opens(tmp_path, command, options,
                                                                    key, message) -> None:
    doc = external_claim(command)
    doc["arms"]["mine"]["options"] = options
    plan = _plan(claims_copy(tmp_path / "c", extra={"external-player": doc}))
    with pytest.raises(DeclarationError) as err:
        external_programs(plan, ["external-player"])
    text = str(err.value)
    assert text.startswith(f"{tmp_path / 'c' / 'external-player.yaml'}: key arms.mine.{key}: "
                           "the program cannot play: ")
    assert message in text and "\n" not in text


def test_a_program_that_can_play_passes_the_check(tmp_path) -> None:
    plan = _plan(claims_copy(tmp_path / "c", extra={"external-player": external_claim(COMMAND)}))
    external_programs(plan, ["external-player"])


def test_a_run_refuses_the_program_before_any_job(tmp_path) -> None:
    """A real run (not a dry run) starts the program before any job: refused in one line, exit
    status 2, no ledger entry, no results."""
    doc = external_claim([*COMMAND, "--no-start"])
    claims = claims_copy(tmp_path / "c", extra={"external-player": doc})
    work = tmp_path  # the run's directory, holding the claims folder c and the player
    result = snakemake(work, "--cores", "1", "--config", "profile=smoke", f"claims_dir={claims}",
                       "--", "external_player", timeout=600)
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [f"error: {claims / 'external-player.yaml'}: key arms.mine.command: the "
                      "program cannot play: the program exited (exit status 3)"]
    assert not (work / "results").exists() and "Traceback" not in result.stderr


def test_a_dry_run_plans_the_external_arm_in_shards(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", extra={"external-player": external_claim(COMMAND)})
    work = tmp_path  # the run's directory, holding the claims folder c and the player
    result = snakemake(work, "-n", "-p", "--config", "profile=smoke", f"claims_dir={claims}",
                       "--", "external_player__mine", timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout + result.stderr
    mine = _plan(claims).claims["external-player"].arms["mine"]
    commands = [line for line in out.splitlines() if "drop7 run-arms --arm" in line]
    assert len(commands) == mine.shards > 1
    assert all(f"--arm 'mine={mine.policy}'" in line for line in commands)
    assert "external-player arm mine: " in result.stderr
    assert "ms a decision, measured (the median of its program's trial decisions)" in \
        result.stderr
    assert not (work / "results").exists()


def test_a_program_named_by_an_absolute_path_under_the_run_is_recorded_relative(tmp_path
                                                                                ) -> None:
    """No path of this machine in the policy string (the arm's identity, its records)."""
    doc = external_claim(["python3", str(tmp_path / "p" / "." / "referee_player.py")])
    p = _plan(claims_copy(tmp_path / "c", extra={"external-player": doc})).claims[
        "external-player"]
    assert p.arms["mine"].spec.command == tuple(COMMAND)
    assert str(tmp_path) not in json.dumps(p.describe())
    assert str(tmp_path) not in json.dumps(experiment_record(p.describe(), "2026-12-06T00:00:00Z",
                                                             []))


@pytest.mark.parametrize(("word", "key"), [(1, "command[1]"), (0, "command[0]")])
def test_a_program_file_outside_the_run_is_refused_in_one_line(tmp_path, word, key) -> None:
    outside = [str(REPO / "tests" / "referee_player.py"), "../elsewhere/player.py"]
    command = ["python3", outside[0]] if word else [outside[1]]
    claims = claims_copy(tmp_path / "c", extra={"external-player": external_claim(command)})
    with pytest.raises(DeclarationError) as err:
        _plan(claims)
    assert str(err.value).startswith(f"{claims / 'external-player.yaml'}: key arms.mine.{key}: "
                                     f"{command[word]} is outside the run's directory")
    assert "\n" not in str(err.value)


def test_a_program_changed_after_its_plan_does_not_start(tmp_path) -> None:
    """The policy pins the player's SHA-256: another program is refused before it plays."""
    plan = _plan(claims_copy(tmp_path / "c", extra={"external-player": external_claim(COMMAND)}))
    (tmp_path / COMMAND[1]).write_text((tmp_path / COMMAND[1]).read_text() + "\n# changed\n")
    with pytest.raises(DeclarationError, match="key arms.mine.command: the program cannot play: "
                       r"p/referee_player.py: SHA-256 [0-9a-f]{64} is not the pinned "
                       r"[0-9a-f]{64} \(they differ from hex digit \d+ on\): the program "
                       "changed since its claim was planned"):
        external_programs(plan, ["external-player"])


def test_an_external_arm_is_costed_from_its_measured_trial_decisions(tmp_path) -> None:
    """Not a flat 50 ms: the trial's seconds a decision times the decisions of its games."""
    doc = external_claim([*COMMAND, "--delay-ms", "300"])
    del doc["arms"]["mine"]["movetime"]  # the model would assume 50 ms a decision
    plan = _plan(claims_copy(tmp_path / "c", extra={"external-player": doc}))
    p = plan.claims["external-player"]
    trials = trial_programs(plan, ["external-player"])
    seconds = trials["external-player", "mine"].seconds
    assert 0.3 <= seconds < 3 and trials["external-player", "mine"].refusal is None
    want = sum(a.games * (costs.game_seconds(seconds) if n == "mine" else a.seconds_per_game)
               for n, a in p.arms.items())
    assert p.estimate({"mine": seconds})["screen"] == pytest.approx(want)
    assert p.estimate()["screen"] < want / 3  # the model's 50 ms
    text = estimate_table(plan, trials)
    row = next(line for line in text.splitlines() if line.strip().startswith("external-player"))
    assert row.split()[3] == f"{want / 3600:.2f}"
    assert f"external-player arm mine: {seconds * 1000:.1f} ms a decision, measured" in text
    assert "external-player arm mine: 50 ms a decision, assumed, not measured (its program " \
        "not started)" in estimate_table(plan)


def test_a_program_that_cannot_play_is_kept_for_the_preflight_and_not_measured(tmp_path
                                                                               ) -> None:
    doc = external_claim([*COMMAND, "--no-start"])
    plan = _plan(claims_copy(tmp_path / "c", extra={"external-player": doc}))
    trials = trial_programs(plan)
    assert trials["external-player", "mine"].seconds is None
    assert "100 ms a decision, assumed, not measured (its program cannot play)" in \
        estimate_table(plan, trials)
    with pytest.raises(DeclarationError, match="key arms.mine.command: the program cannot play: "
                       r"the program exited \(exit status 3\)"):
        external_programs(plan, ["external-player"], trials)

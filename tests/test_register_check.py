"""``drop7 records register-check``: a claim's ``recorded`` block and theory id against a
register checkout (a miniature under tests/register_fixture), and the shipped claims' keys it
reads."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from claims_support import REPO, shipped

from cli.main import main
from protocol.plan import load_plan
from protocol.records.ids import THEORY_ID
from protocol.records.register import FIGURE_KEYS, RESULT_ID, check_claims, read_register

REGISTER = Path(__file__).parent / "register_fixture"
HEAD, OLD = "RS-20260102T100000Z-aaaa0002", "RS-20260101T100000Z-aaaa0001"
THEORY = "TH-20260101-toy-depth-pays-0a1b2c3d"

#: a claim quoting the fixture's head result, every figure as the record rounds it, each
#: under a key of its meaning (the shallow arm's mean is only in the record's prose)
GOOD = {
    "id": "toy", "theory": THEORY,
    "recorded": {
        "result": HEAD, "source": "the toy register's head result", "games": 16,
        "verdict": "mixed (development tier)",
        "arms": {"deep": {"mean": 123457, "moves": 98.77}},
        "contrasts": {"primary": {"mean_delta": 5433, "bootstrap_lb": -9877,
                                  "wins_ties_losses": [9, 0, 7]},
                      "wide": {"mean_delta": 20000, "bootstrap_lb": 1500.2,
                               "wins_ties_losses": [10, 1, 5], "halves": [20000]}},
        "rankers": {"shallow": {"top1": [0.561, 0.575]}}},
}


def _check(tmp_path: Path, doc: dict) -> list[str]:
    folder = tmp_path / "claims"
    folder.mkdir(exist_ok=True)
    (folder / "toy.yaml").write_text(yaml.safe_dump(doc))
    return check_claims(folder, REGISTER)


def test_the_fixture_chain_has_one_head() -> None:
    reg = read_register(REGISTER)
    assert reg.head(OLD) == HEAD and reg.head(HEAD) == HEAD


def test_a_claim_quoting_the_head_to_the_digit_passes(tmp_path, capsys) -> None:
    assert _check(tmp_path, GOOD) == []
    assert main(["records", "register-check", "--register", str(REGISTER),
                 "--claims", str(tmp_path / "claims")]) == 0
    assert "agree with the register" in capsys.readouterr().out


def _edited(**recorded) -> dict:
    doc = copy.deepcopy(GOOD)
    doc["recorded"].update(recorded)
    return doc


@pytest.mark.parametrize(("doc", "says"), [
    (_edited(result=OLD), f"key recorded.result: {OLD} is superseded by {HEAD}"),
    (_edited(result="RS-20260103T100000Z-aaaa0003"), "is not a result of the register"),
    (_edited(contrasts={"primary": {"mean_delta": -1234}}),
     f"key recorded.contrasts.primary.mean_delta: -1234 is not a figure of {HEAD}"),
    (_edited(arms={"deep": {"moves": 98.76}}), "key recorded.arms.deep.moves: 98.76"),
    (_edited(contrasts={"primary": {"wins_ties_losses": [3, 0, 5]}}),
     "3-0-5 is not a win-tie-loss count"),
    (_edited(verdict="supported-as-tested"), "key recorded.verdict: 'supported-as-tested'"),
    ({**GOOD, "recorded": {k: v for k, v in GOOD["recorded"].items() if k != "result"}},
     "key recorded.result: missing"),
    ({**GOOD, "theory": "TH-20260101-toy-depth-pays-ffffffff"},
     "key theory: TH-20260101-toy-depth-pays-ffffffff is not a theory of the register"),
    ({**GOOD, "theory": "TH-20260101-toy-depth-pays"}, "does not name the register theory"),
    ({**GOOD, "derived_from": "TH-20260101-other-00000000"},
     "key derived_from: TH-20260101-other-00000000 is not a theory of the register"),
    (_edited(arms={"deep": {"q25": 99999}}), "key recorded.arms.deep.q25: 99999"),
    # a number the record does carry, but under a key of another meaning
    (_edited(contrasts={"primary": {"mean_delta": -9877}}),
     "key recorded.contrasts.primary.mean_delta: -9877 is "
     f"{HEAD}'s metrics.pairedDeepMinusShallow.lowerBound95, a key that is not a mean_delta"),
    (_edited(arms={"deep": {"mean": 16}}), f"16 is {HEAD}'s metrics.deepGames, a key that "
     "is not a mean figure"),
    (_edited(games=5), f"key recorded.games: 5 is {HEAD}'s metrics.pairedWideMinusNarrow.losses"),
    # a number written only in the record's prose
    (_edited(arms={"shallow": {"mean": 118000}}),
     f"key recorded.arms.shallow.mean: 118000 is written only in {HEAD}'s text (summary)"),
    # a contrast's figures from two parts of the record
    (_edited(contrasts={"wide": {"mean_delta": 20000, "halves": [20000], "bootstrap_lb": -9877}}),
     f"key recorded.contrasts.wide.bootstrap_lb: -9877 is {HEAD}'s "
     "metrics.pairedDeepMinusShallow.lowerBound95, not in the part that carries the "
     "contrast's other figures (metrics.pairedWideMinusNarrow)"),
    (_edited(contrasts={"wide": {"mean_delta": 20000, "halves": [20000],
                                 "wins_ties_losses": [9, 0, 7]}}),
     "key recorded.contrasts.wide.wins_ties_losses: 9-0-7 is not a win-tie-loss count of "
     f"{HEAD}'s part metrics.pairedWideMinusNarrow"),
    (_edited(contrasts={"wide": {"halves": [20000.4]}}),
     "key recorded.contrasts.wide.halves[0]: 20000.4 is"),
    # a figure the table has no meaning for is refused, never skipped
    (_edited(arms={"deep": {"median": 5}}),
     "key recorded.arms.deep.median: no key of the register is known to carry median"),
    (_edited(rankers={"shallow": {"top1": 16}}),
     f"key recorded.rankers.shallow.top1: 16 is {HEAD}'s metrics.deepGames, a key that is not "
     "a top1 figure"),
    (_edited(rankers={"shallow": {"top1": [0.561, 0.576]}}),
     f"key recorded.rankers.shallow.top1[1]: 0.576 is not a figure of {HEAD}"),
])
def test_each_disagreement_is_one_line_naming_the_file_and_key(tmp_path, capsys, doc,
                                                                says) -> None:
    problems = _check(tmp_path, doc)
    assert any(says in p for p in problems), problems
    assert all(p.startswith(str(tmp_path / "claims" / "toy.yaml") + ": key ")
               for p in problems)
    assert main(["records", "register-check", "--register", str(REGISTER),
                 "--claims", str(tmp_path / "claims")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err and all(e.startswith("drop7 records: ") for e in err)


def test_the_superseded_figure_is_refused_even_though_the_old_record_carries_it(
        tmp_path) -> None:
    """-1,234 is the superseded record's figure: quoting it with the old id names the head."""
    doc = _edited(result=OLD, contrasts={"primary": {"mean_delta": -1234}})
    problems = _check(tmp_path, doc)
    assert [p for p in problems if "superseded by" in p]
    assert not [p for p in problems if "mean_delta" in p]  # the old record does carry it


def test_a_folder_that_is_not_a_register_is_one_line(tmp_path, capsys) -> None:
    assert main(["records", "register-check", "--register", str(tmp_path),
                 "--claims", str(REPO / "config" / "claims")]) == 2
    assert "not a register checkout" in capsys.readouterr().err


CLAIMS = sorted(p.stem for p in (REPO / "config" / "claims").glob("*.yaml"))


@pytest.mark.parametrize("claim", CLAIMS)
def test_every_figure_a_shipped_claim_quotes_has_a_meaning_in_the_table(claim) -> None:
    """A key missing from FIGURE_KEYS would be refused against the real register: the table
    must name every kind of figure the shipped claims quote."""
    rec = shipped(claim).get("recorded") or {}
    keys = {"games"}
    for part in ("arms", "contrasts", "validation", "rankers"):
        for figures in (rec.get(part) or {}).values():
            for k, v in figures.items():
                split = isinstance(v, list) and k != "wins_ties_losses"
                keys |= {f"{k}[{i}]" for i in range(len(v))} if split else {k}
    assert keys <= set(FIGURE_KEYS), (claim, keys - set(FIGURE_KEYS))


@pytest.mark.parametrize("claim", CLAIMS)
def test_every_shipped_claim_names_a_register_theory_or_what_it_derives_from(claim) -> None:
    doc = shipped(claim)
    declared = doc.get("theory")
    assert (declared and THEORY_ID.match(declared)) or THEORY_ID.match(
        doc.get("derived_from", "")), claim
    recorded = doc.get("recorded", {})
    if set(recorded) - {"replay"}:  # figures quoted: from a result of the register
        assert RESULT_ID.match(recorded.get("result", "")), claim
    if "replay" in recorded:  # published games: of an experiment or a result
        assert re.match(r"^(EX|RS)-", recorded["replay"]["result"]), claim


EXPERIMENT = "EX-20260101-toy-depth-factorial-1a2b3c4d"


@pytest.mark.parametrize("result, problems", [
    (EXPERIMENT, []), (HEAD, []),
    ("EX-20260101-toy-other-1a2b3c4d",
     ["key recorded.replay.result: EX-20260101-toy-other-1a2b3c4d is not an experiment or a "
      "result of the register"])])
def test_a_replay_alone_is_checked_for_its_register_id_and_quotes_no_figure(
        tmp_path, result, problems) -> None:
    doc = {"id": "toy", "theory": THEORY,
           "recorded": {"replay": {"arm": "a", "games": "g.json", "sha256": "0" * 64,
                                   "result": result}}}
    assert [p.split(": ", 1)[1] for p in _check(tmp_path, doc)] == problems


def test_depth_five_quotes_the_registers_current_word() -> None:
    """The head record (n = 32, +23,367, mixed), not the one it superseded (n = 16, -1,581):
    the sequential screen's simulated operating characteristic is read at that effect."""
    doc = shipped("depth-five")
    assert doc["recorded"]["result"] == "RS-20260821T205102Z-d89df4b5"
    assert doc["recorded"]["verdict"] == "mixed"
    plan = load_plan(REPO, {"profile": "pilot"}).claims["depth-five"]
    assert plan.sequential_effect() == (23367.0, "recorded")
    assert shipped("factored-chance")["recorded"]["result"] == "RS-20260821T192140Z-189fe392"


def test_a_register_shaped_theory_id_only_needs_the_shape_to_plan(tmp_path) -> None:
    """The declaration check reads the shape; the register check resolves the id."""
    from claims_support import claims_copy

    from protocol.schema import DeclarationError

    for key, value in (("theory", "the register's depth theory"),
                       ("derived_from", "TH-20260101-no-hash")):
        def bad(doc: dict, key=key, value=value) -> None:
            doc[key] = value

        claims_copy(tmp_path / key, bad)
        with pytest.raises(DeclarationError, match=key) as err:
            load_plan(REPO, {"profile": "pilot", "claims_dir": str(tmp_path / key)})
        assert "\n" not in str(err.value)


def test_naming_the_register_theory_one_derives_from_is_no_edit_of_the_preregistration(
        ) -> None:
    """``derived_from`` follows the register, as ``recorded`` does: adding it to an opened
    claim does not make its page say the declaration was edited."""
    from protocol.disclosure import declaration_sha256

    doc = load_plan(REPO, {"profile": "pilot"}).claims["shallow-ordering"].describe()[
        "declaration"]
    assert "derived_from" in doc
    before = {k: v for k, v in doc.items() if k != "derived_from"}
    assert declaration_sha256(doc) == declaration_sha256(before)
    assert declaration_sha256({**doc, "title": "x"}) != declaration_sha256(doc)


def test_a_record_writing_its_halves_as_a_list_beside_the_delta() -> None:
    """Some register results write a comparison flat (``pairedDelta``, ``bootstrapLB95``,
    ``halves: [first, second]``, arm figures suffixed ``Candidate``/``Reference``): the list's
    elements belong to that comparison's part, in order."""
    from protocol.records.register import Register, check_claim

    rid, exp = "RS-20260103T100000Z-aaaa0003", "EX-20260101-toy-depth-factorial-1a2b3c4d"
    record = {"resultId": rid, "theoryIds": [THEORY], "experimentId": exp,
              "assessment": "mixed",
              "metrics": {"flat": {"games": 32, "meanScoreCandidate": 2000, "movesCandidate": 9.5,
                                   "pairedDelta": 300, "bootstrapLB95": -700,
                                   "halves": [900, -300], "winTieLoss": "15-2-15"}}}
    reg = Register(results={rid: record}, theories={THEORY}, experiments={exp})

    def doc(halves: list[int]) -> dict:
        return {"theory": THEORY, "recorded": {
            "result": rid, "games": 32, "verdict": "mixed",
            "arms": {"deep": {"mean": 2000, "moves": 9.5}},
            "contrasts": {"primary": {"mean_delta": 300, "bootstrap_lb": -700, "halves": halves,
                                      "wins_ties_losses": [15, 2, 15]}}}}

    assert check_claim(doc([900, -300]), reg, "toy.yaml") == []
    swapped = check_claim(doc([-300, 900]), reg, "toy.yaml")
    assert [p for p in swapped if "halves[0]: -300" in p and "metrics.flat.halves[1]" in p]
    assert [p for p in swapped if "halves[1]: 900" in p]

"""Claims as data through Snakemake: a fourth claim is a file; bad input stops before any job."""

from __future__ import annotations

import json

import pytest
from claims_support import claims_copy, fair_depth_claim
from workflow_support import failure_report, load, plan_of, snakemake

pytestmark = pytest.mark.workflow


def test_a_fourth_claim_runs_with_no_code_change(tmp_path) -> None:
    claims = claims_copy(tmp_path / "claims", extra={"fair-depth-prefix": fair_depth_claim()})
    work = tmp_path / "run"
    work.mkdir()
    result = snakemake(work, "--cores", "2", "--config", "profile=smoke",
                       f"claims_dir={claims}", "--", "fair_depth_prefix")
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    plan = plan_of("smoke", claims_dir=str(claims))
    p, paths = plan.claims["fair-depth-prefix"], plan.paths
    contrast = load(work / paths.path("contrast", claim=p.id, block=p.label, contrast="depth"))
    assert contrast["n"] == p.contrasts["depth"].games == 4  # the prefix arm's seeds
    verdict = load(work / paths.path("verdict", claim=p.id))
    assert [r["name"] for r in verdict["readings"]] == ["depth-screen", "depth-reading"]
    assert verdict["tier"] == "pilot"
    html = (work / paths.path("page", claim=p.id)).read_text()
    assert "Contrast depth reads a prefix:" in html and "fair-d2s7" in html
    # it trains nothing and depends on no other claim: no other claim's job ran
    assert not (work / paths.root / "claims" / "ntuple-line-tuples").exists()


def _bad_claims(tmp_path, kind):
    if kind == "misspelt key":
        return claims_copy(tmp_path / "c", lambda d: d["screen"].update(gams=4)), \
            "ntuple-line-tuples.yaml: unknown key screen.gams"
    if kind == "unknown arm":
        return claims_copy(tmp_path / "c", lambda d: d["contrasts"]["direct"].update(
            difference=["ntuple-A-direkt", "linear-d3s7"])), \
            "ntuple-line-tuples.yaml: key contrasts.direct.difference[0]: no arm"
    if kind == "unknown claim":
        def edit(d):
            d["arms"]["tables-d4s7"]["leaf"]["claim"] = "ntuple-line-tuple"
        return claims_copy(tmp_path / "c", edit, claim="fourth-ply"), \
            "fourth-ply.yaml: key arms.tables-d4s7.leaf.claim: no claim 'ntuple-line-tuple'"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["misspelt key", "unknown arm", "unknown claim"])
def test_bad_input_is_one_line_before_any_job(tmp_path, kind) -> None:
    claims, expected = _bad_claims(tmp_path, kind)
    work = tmp_path / "run"
    work.mkdir()
    result = snakemake(work, "--cores", "2", "--config", "profile=smoke",
                       f"claims_dir={claims}")
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and expected in errors[0], result.stderr
    assert "Traceback" not in result.stderr and not (work / "results").exists()


def test_a_frozen_artefact_whose_hash_does_not_match_stops_before_any_job(tmp_path) -> None:
    def pin(d):
        d["arms"]["tables-d4s7"]["leaf"]["sha256"] = "b" * 64

    claims = claims_copy(tmp_path / "c", pin, claim="fourth-ply")
    work = tmp_path / "run"
    plan = plan_of("smoke", claims_dir=str(claims))
    record = work / plan.claims["fourth-ply"].arms["tables-d4s7"].artefact.record
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"sha256": "a" * 64}))
    result = snakemake(work, "--cores", "2", "--config", "profile=smoke", f"claims_dir={claims}")
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert "fourth-ply.yaml: key arms.tables-d4s7.leaf.sha256: the frozen " in errors[0]
    assert not (work / plan.paths.root / "claims" / "ntuple-line-tuples" / "train").exists()


def test_committed_reports_do_not_stand_for_a_run(tmp_path) -> None:
    """A clone holds the committed pages and index but no results: the default target and a
    claim's target still plan every job up to the verdicts and render the pages again."""
    work = tmp_path / "run"
    plan = plan_of("smoke")
    for claim in plan.run:
        page = work / plan.paths.path("page", claim=claim)
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text("<html>a committed record</html>")
    (work / "reports" / "index.html").write_text("<html>a committed index</html>")
    for target in ([], ["--", "ntuple_line_tuples"]):
        result = snakemake(work, "-n", "--config", "profile=smoke", *target)
        assert result.returncode == 0, failure_report(result)
        out = result.stdout + result.stderr
        jobs = {line.split()[0] for line in out.splitlines() if line.strip()}
        assert {"train_segment", "verdict", "report"} <= jobs, out


def test_a_cycle_of_shared_blocks_is_one_line_in_a_dry_run(tmp_path) -> None:
    """Two claims sharing each other's block were a RecursionError traceback from the plan."""
    a, b = fair_depth_claim(), fair_depth_claim()
    b["id"] = "loop-b"
    a["screen"]["block"], b["screen"]["block"] = {"claim": "loop-b"}, {"claim": a["id"]}
    claims = claims_copy(tmp_path / "c", extra={a["id"]: a, "loop-b": b})
    work = tmp_path / "run"
    work.mkdir()
    result = snakemake(work, "-n", "--config", "profile=smoke", f"claims_dir={claims}")
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert "fair-depth-prefix.yaml: key screen.block.claim: claim loop-b shares" in errors[0]
    assert "Traceback" not in result.stderr and not (work / "results").exists()


def test_a_claim_with_an_external_arm_writes_its_report(tmp_path) -> None:
    """A program outside the project (tests/referee_player.py, plain Python speaking
    docs/referee.md, copied under the run's directory) plays a smoke screen end to end,
    paired with the internal fair arm."""
    from claims_support import external_claim, player_in

    work = tmp_path / "run"
    player = player_in(work)
    claims = claims_copy(tmp_path / "claims",
                         extra={"external-player": external_claim(player)})
    result = snakemake(work, "--cores", "2", "--config", "profile=smoke",
                       f"claims_dir={claims}", "--", "external_player")
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    plan = plan_of("smoke", claims_dir=str(claims))
    p, paths = plan.claims["external-player"], plan.paths
    contrast = load(work / paths.path("contrast", claim=p.id, block=p.label, contrast="mine"))
    assert contrast["n"] == p.arms["mine"].games and contrast["candidate"] == "mine"
    assert not contrast.get("illegal") and not contrast.get("unfinished")
    verdict = load(work / paths.path("verdict", claim=p.id))
    assert verdict["verdict"] != "invalidated-by-methodological-error" or verdict["reason"]
    html = (work / paths.path("page", claim=p.id)).read_text()
    assert "external[" in html and "p/referee_player.py" in html and str(work) not in html

"""``drop7 stats``: same numbers as the API, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from test_stats_support import games_frame, score_like_pairs

from analysis.contrast import contrast_games
from analysis.games_table import read_games
from cli.main import main

C, B = score_like_pairs(48, seed=5)


def _write(tmp_path, frame: pd.DataFrame, name: str = "games.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def _stats(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["stats", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_json_equals_the_api(tmp_path, capsys):
    frame = games_frame({"cand": C, "base": B, "other": B + 1}, extra=True)
    path = _write(tmp_path, frame.sample(frac=1.0, random_state=3))
    code, out, err = _stats(capsys, path, "--candidate", "cand", "--baseline", "base", "--json")
    assert code == 0 and err == ""
    api = contrast_games(read_games(path), "cand", "base").to_dict()
    assert json.loads(out) == json.loads(json.dumps(api))
    assert json.loads(out)["n_bootstrap"] == 20_000


def test_cli_accepts_minimal_columns_shards_and_writes_out(tmp_path, capsys):
    frame = games_frame({"cand": C, "base": B})[["arm", "seed", "score"]]
    a = _write(tmp_path, frame.iloc[::2], "shard-0.csv")
    b = _write(tmp_path, frame.iloc[1::2], "shard-1.csv")
    out_json = tmp_path / "stats" / "contrast.json"
    code, out, _ = _stats(capsys, a, b, "--candidate", "cand", "--baseline", "base",
                          "--out", out_json, "--resamples", "2000")
    assert code == 0
    assert "cand vs base: n = 48 pairs" in out and "criteria:" in out
    saved = json.loads(out_json.read_text())
    assert saved["n"] == 48 and saved["criteria"]["decisions"] == "not-evaluated"
    assert saved["mean_moves_candidate"] is None
    assert list(out_json.parent.iterdir()) == [out_json]  # no temporary file left


def test_cli_operating_characteristic_and_figure(tmp_path, capsys):
    path = _write(tmp_path, games_frame({"cand": C, "base": B}))
    png = tmp_path / "oc.png"
    code, out, _ = _stats(capsys, path, "--candidate", "cand", "--baseline", "base", "--json",
                          "--oc-png", png, "--oc-sims", "500", "--resamples", "500")
    assert code == 0
    oc = json.loads(out)["oc"]
    assert oc["n"] == 48 and set(oc["pass_probability"]) >= {"screen", "halves"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("mutate", "args", "message"),
    [
        (lambda f: f[~((f.arm == "base") & (f.seed == 110))], (), "one arm only"),
        (lambda f: pd.concat([f, f.iloc[[3]]]), (), "duplicate (arm, seed)"),
        (lambda f: f.assign(score=f.score.where(f.index != 7, np.nan)), (), "'score'"),
        (lambda f: f.astype({"score": object}).assign(
            score=lambda g: g.score.where(g.index != 7, "lots")), (), "non-numeric"),
        (lambda f: f[f.seed < 103], (), "too few pairs"),
        (lambda f: f, ("--baseline", "nosuch"), "unknown baseline arm 'nosuch'"),
        (lambda f: f.drop(columns="score"), (), "lacks column(s) score"),
        (lambda f: f.assign(seed=f.seed.astype(object).where(f.index != 2, "x1")), (),
         "not integers"),
        (lambda f: f.assign(seed=f.seed.astype(object).where(f.index != 2, "-4")), (), "'-4'"),
        (lambda f: f, ("--baseline", "cand"), "same arm"),
        (lambda f: f, ("--expected-hash", "ab"), "expected and the actual"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, mutate, args, message):
    frame = mutate(games_frame({"cand": C, "base": B}))
    path = _write(tmp_path, frame)
    out_json = tmp_path / "out.json"
    argv = [path, "--candidate", "cand", "--baseline", "base", "--out", out_json, *args]
    if "--baseline" in args:
        argv = [path, "--candidate", "cand", "--out", out_json, *args]
    code, out, err = _stats(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err, err
    assert not out_json.exists()


def test_missing_file_and_empty_file(tmp_path, capsys):
    code, _, err = _stats(capsys, tmp_path / "nope.csv", "--candidate", "a", "--baseline", "b")
    assert code == 2 and "nope.csv" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, _, err = _stats(capsys, empty, "--candidate", "a", "--baseline", "b")
    assert code == 2 and "empty" in err


def test_console_script_exit_status(tmp_path):
    frame = games_frame({"cand": C, "base": B})
    path = _write(tmp_path, pd.concat([frame, frame.iloc[[0]]]))
    proc = subprocess.run([sys.executable, "-m", "cli", "stats", str(path),
                           "--candidate", "cand", "--baseline", "base"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("drop7 stats: error: ") and "duplicate" in proc.stderr


def test_analysis_does_not_import_numba_or_engines():
    code = ("import sys, analysis.cli, analysis.readings, analysis.power, analysis.oc_plot; "
            "bad = [m for m in sys.modules if m == 'numba' or m.startswith('engines')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr

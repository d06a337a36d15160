"""Adapter: every screen arm's merged games in one table (arms in config order)."""

from adapter import log_to, run

from engines.play.runner import read_games, write_games

S = snakemake  # noqa: F821


def main() -> None:
    write_games([row for path in S.input for row in read_games(path)], S.output[0])


with log_to(S.log[0]):
    run(main)

"""``drop7 serve --policy P``: one of our own players speaking the referee protocol.

It reads the harness's lines on standard input and answers on standard
output (docs/referee.md), so any policy of the grammar can be played as an
external program: ``external:drop7 serve --policy search:leaf=linear,d=3,s=7``
plays the same games as the internal arm (the identity test), which checks
the protocol end to end.  The player is loaded and compiled before
``ready``.  It offers no options; a search or ``direct`` player offers the
``values`` feature and answers ``values id N`` with its root's column
values (from the search of the last ``go`` when the position is the same).
It never sees a seed: ``random`` is played with its own coin (the game's
number since the start), so it differs from the internal ``random`` arm.

A line it cannot read or a position no game reaches (the harness's fault:
a field out of range, a board with a disc that would pop, ``go`` with no
legal column) is answered ``error TEXT`` once the handshake is done, reported
in one line on standard error, and ends it with exit status 2: it never
plays on a state it cannot trust, nor answers an impossible move.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO

import numpy as np

from engines.drop7 import core
from engines.play import referee_messages as msg
from engines.play.players import Policy
from engines.play.policy import load_policy
from engines.play.rankers import offers_values, rank


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 serve``."""
    parser.add_argument("--policy", required=True,
                        help="the player to serve (any policy string of drop7 play)")


def _refuse(text: str) -> int:
    print(f"drop7 serve: error: {text}", file=sys.stderr, flush=True)
    return 2


def serve(policy: Policy, inp: IO[str], out: IO[str]) -> int:
    """Answer the harness until ``quit`` or the end of input; the exit status."""

    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    first = inp.readline()
    if msg.split(first)[0] != msg.HELLO:
        return _refuse(f"expected '{msg.hello_line()}' first, got {first.strip()!r}")
    if first.split() != msg.hello_line().split():
        say(f"{msg.ERROR} this program speaks protocol version {msg.VERSION} only")
        return _refuse(f"unsupported protocol {first.strip()!r}")
    say(f"{msg.NAME} {policy.name}")
    valued = offers_values(policy)
    if valued:
        say(msg.feature_line(msg.VALUES))
    say(msg.READY)
    position: msg.PositionMessage | None = None
    game = 0
    # the values of the last position searched (its line), kept so that 'values' after 'go'
    # on the same position reads them from that search
    last: tuple[str, np.ndarray | None] | None = None

    def refuse(text: str) -> int:
        say(f"{msg.ERROR} {text}")
        return _refuse(text)

    def unplayable(request: str) -> str | None:
        """Why ``request`` cannot be answered on the current position, or None."""
        if position is None:
            return f"'{request}' before any 'position'"
        if core.legal_mask(position.cols) == 0:
            return (f"'{request}' on a position with no legal column (every column is full: "
                    "the game is over)")
        return None

    for line in iter(inp.readline, ""):
        word, rest = msg.split(line)
        try:
            if word == msg.QUIT:
                return 0
            if word == msg.NEWGAME:
                game += 1
                policy.new_game(game)
            elif word == msg.POSITION:
                position = msg.parse_position(line)
                key = line.strip()
            elif word == msg.GO:
                go = msg.parse_go(line)
                if (why := unplayable("go")) is not None:
                    return refuse(why)
                if valued:
                    ranking = rank(policy, position.state(), position.cols)
                    last = (key, ranking.values)
                    say(msg.move_line(ranking.choice, go.decision))
                else:
                    say(msg.move_line(policy.choose(position.state(), position.cols),
                                      go.decision))
            elif word == msg.VALUES and valued:
                number = msg.parse_values_request(line)
                if (why := unplayable("values")) is not None:
                    return refuse(why)
                if last is None or last[0] != key:
                    last = (key, rank(policy, position.state(), position.cols).values)
                say(msg.values_answer(number, last[1]))
            elif word == msg.SETOPTION:
                return refuse(f"no option {rest.split()[0] if rest else ''!r} (this program "
                               "offers none)")
            elif word:
                return refuse(f"unknown message {line.strip()!r}")
        except msg.MessageError as exc:
            return refuse(str(exc))
    return 0


def run(args: argparse.Namespace) -> int:
    """Load the player, compile it, then serve."""
    policy = load_policy(args.policy)
    policy.warm_up()
    return serve(policy, sys.stdin, sys.stdout)

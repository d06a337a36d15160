"""``drop7 panel ACTION``: a ranking panel's roots, rows, table and readings (docs/panels.md).

The engine's actions (``roots``, ``rank``, ``label``, ``merge``) live in
:mod:`engines.play.panel_cli`, the readings (``read``) in
:mod:`analysis.panel_report`; each side lists its actions in ``ACTIONS``
(help, arguments, run), and this module gives each a sub-parser.
"""

from __future__ import annotations

import argparse

from analysis import panel_report
from engines.play import panel_cli


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One sub-parser per action."""
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for side in (panel_cli, panel_report):
        for name, (text, arguments, run_action) in side.ACTIONS.items():
            p = sub.add_parser(name, help=text, description=text)
            arguments(p)
            p.set_defaults(run_action=run_action)


def run(args: argparse.Namespace) -> int:
    """Run the chosen action."""
    return args.run_action(args)

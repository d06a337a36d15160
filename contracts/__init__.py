"""Contracts more than one layer shares: formats and conventions, in plain Python.

The bottom layer of the project (see docs/architecture.md): it imports
nothing from ``engines``, ``protocol``, ``analysis`` or ``workflow``, so each
of them may import it.

* :mod:`contracts.games_table` - the games table's columns, written by the
  runner and read by the statistics, and its text-level CSV reader / writer;
* :mod:`contracts.atomic` - writing a file or a directory atomically;
* :mod:`contracts.hashing` - the SHA-256 of a file, and of a value as canonical JSON;
* :mod:`contracts.json_file` - the house's JSON files, written atomically in one form;
* :mod:`contracts.errors` - the one error line a command prints (exit 2);
* :mod:`contracts.input_file` - reading a user's input file, or one line naming it;
* :mod:`contracts.cli_numbers` - integers, floats and seed blocks on a command line;
* :mod:`contracts.weights_dir` - the names in a weights directory;
* :mod:`contracts.train_directory` - the trainer's output directory.
"""

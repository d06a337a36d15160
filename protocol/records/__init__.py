"""The research register's records of a claim's screen (docs/records.md).

:mod:`~protocol.records.bundle` writes a claim's bundle from its run;
:mod:`~protocol.records.experiment` and :mod:`~protocol.records.rows` build
its experiment record and per-game rows; :mod:`~protocol.records.ids` names
and hashes them; :mod:`~protocol.records.machine` describes the machine;
:mod:`~protocol.records.metrics` gives the result's metrics;
:mod:`~protocol.records.check` checks a record and a bundle;
:mod:`~protocol.records.rebuild` writes a committed bundle again and
:mod:`~protocol.records.cli` is ``drop7 records``.
"""

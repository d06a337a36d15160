"""HTML reports of screen runs: figures (matplotlib Agg, embedded as base64), jinja2 pages.

:mod:`analysis.report.figures` draws the figures, :mod:`analysis.report.page`
renders the per-screen page and ``reports/index.html``.  Pages are
self-contained: they open from a file with no server.
"""

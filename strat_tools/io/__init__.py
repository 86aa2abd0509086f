"""Bytes in and out: input paths, folders, globs and zips (:mod:`~strat_tools.io.sources`,
:mod:`~strat_tools.io.zipdir`) and atomic, never-over-an-input outputs
(:mod:`~strat_tools.io.output`), and the staging skeleton of every streamed export
(:mod:`~strat_tools.io.staging`).

Knows which names are game records only by asking :mod:`strat_tools.core.record_formats`.
"""

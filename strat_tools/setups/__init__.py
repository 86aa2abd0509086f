"""Setups as data: a setup's identity (canonical id, mirror image), the 4x10 search patterns,
the setup grid (the owner's-view squares) and the 40-character setup strings other projects
load (Ataraxos, stratego_env, the ``owner`` encoding).

Imports only :mod:`strat_tools.core`.
"""

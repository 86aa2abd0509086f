"""The benchmark of human play (``strat-bench-move-v1``): its definition (the splits' zips
and their SHA-256), building it from a user's Gravon folder, the scorer, the baselines and
the move-policy protocol. ``docs/benchmark.md`` is its dataset card."""

"""One run over many inputs: the per-file pipeline and its process pool (local or Dask), the
per-batch work, the tally that accounts for every input, the driver that streams tables, and
game filters and selections.
"""

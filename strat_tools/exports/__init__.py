"""What a run produces for users: validation reports, format conversion, the key-events table
and the per-ply observations for learning.
"""

"""The ground floor: the board and its squares, pieces, the move, game records, the
record-format registry, rule sets, the record checks, errors and text helpers.

Nothing here reads a file, replays a game or imports pandas; every other floor may import it.
"""

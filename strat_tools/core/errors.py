"""The library's own error types: what a caller (or the CLI) may show as a plain message.

Every error the library raises on purpose, about the input or about a choice the caller
made, is a :class:`StratToolsError`; the CLI turns these (and only these, plus OS errors
about the files it was given) into ``Error: ...``; the class decides the exit status (one
table, ``strat_tools.cli.errors.exit_by_class``): a :class:`UsageError` (a choice refused
before any work), a :class:`NotationError` (text the caller wrote that does not read) or a
:class:`NothingToRead` (the paths or filters left nothing to read) is a usage error, exit 2;
the others a failed run, exit 3. Anything else is a bug and keeps its traceback. Bad games
are never errors: they are data (diagnostics).

The subclasses also derive from the builtin a caller would have caught before
(``ValueError``, ``RuntimeError``), so ``except ValueError`` keeps working.

>>> issubclass(OptionError, StratToolsError) and issubclass(OptionError, ValueError)
True
"""

from __future__ import annotations

from collections.abc import Iterable


class StratToolsError(Exception):
    """Base of every error the library raises on purpose (never a bug, never a bad game)."""


class OptionError(StratToolsError, ValueError):
    """A choice given by the caller is not one the library knows (a statistic, a grouping,
    a rule set, a numbering...); the message names the valid choices."""


class UsageError(OptionError):
    """A choice the caller made that the library refuses before any work starts (a rule-set
    name); ``option`` names the parameter it came in (``'rules'``), so the CLI can name its
    flag. The CLI's usage error: exit status 2, nothing read.

    >>> err = UsageError("unknown rule set 'x'", option="rules")
    >>> (str(err), err.option, isinstance(err, OptionError))
    ("unknown rule set 'x'", 'rules', True)
    """

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.option = option
        self.reason = message
        """What is wrong, without the option's name (a subclass may name it in ``str``)."""


class NotationError(StratToolsError, ValueError):
    """Text in one of the project's notations that does not read: a square or a move
    (``B4-B5``), a setup pattern, a StraDos3 string. The message quotes the text and says
    what is expected. A caller's mistake (the CLI's usage error, exit 2); a record's bad
    text never raises it out of a reader (that is a diagnostic).

    >>> from strat_tools.core.board import parse_square
    >>> parse_square("J4")
    Traceback (most recent call last):
    ...
    strat_tools.core.errors.NotationError: not a square name: 'J4' (expected A1..K10, no J)
    """


class InputError(StratToolsError, ValueError):
    """The inputs as a whole cannot be used (nothing readable, the wrong kind of input)."""


class NothingToRead(InputError):
    """The paths given hold nothing this work can use: no game records at all (a path or
    glob matching nothing, only broken files), an exported dataset folder where game
    records are needed, no game of the name asked for, or games the filters all left out.
    Nothing ran: the paths (or the filters) are the mistake, so every command shows it as a
    usage error (exit status 2), however far the reading got. A damaged dataset folder is
    not this (:class:`DatasetError`: the run failed, exit status 3)."""


class NothingReadable(NothingToRead):
    """Not one input held a readable game record (a missing path, no game files, only
    broken ones): nothing ran, so commands treat it as a usage error (exit 2).

    >>> str(NothingReadable(["nope/"], ["no such file or folder"]))
    'nothing readable in nope/: no such file or folder'
    """

    def __init__(self, paths: Iterable[str], reasons: Iterable[str] = ()) -> None:
        unique = list(dict.fromkeys(reasons))[:3]
        detail = "; ".join(unique) or "no game records found"
        super().__init__(f"nothing readable in {' '.join(paths)}: {detail}")


class NothingKept(NothingToRead):
    """Games were read, and the filters kept none of them; ``read`` counts them.

    >>> str(NothingKept(["g.zip"], 30, "periods 1999-01 to 1999-02"))
    '30 games read in g.zip; the filters (periods 1999-01 to 1999-02) kept none'
    """

    def __init__(self, paths: Iterable[str], read: int, filters: str = "") -> None:
        from strat_tools.core.text import count_of

        self.read = read
        which = f"the filters ({filters})" if filters else "the filters"
        super().__init__(f"{count_of(read, 'game')} read in {' '.join(paths)}; {which} kept none")


class DatasetError(InputError):
    """A dataset folder is missing a table or holds one that does not fit its schema."""


class IllegalMove(StratToolsError, ValueError):
    """A move the rules forbid; ``code`` names the rule (``'rule.lake'``), ``message`` says
    why. :meth:`Position.push <strat_tools.engine.position.position.Position.push>` raises it (the
    replay reports it as a diagnostic instead: a bad game is data)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RunError(StratToolsError, RuntimeError):
    """The machinery of a run failed (the worker pool, Dask), not a game."""


def choice(kind: str, value: object, choices: tuple[str, ...] | list[str]) -> str:
    """``value`` if it is one of ``choices``, else :class:`OptionError` naming them.

    >>> choice("numbering", "classic", ("classic", "modern"))
    'classic'
    >>> choice("numbering", "clasic", ("classic", "modern"))
    Traceback (most recent call last):
    ...
    strat_tools.core.errors.OptionError: unknown numbering 'clasic'; choose from classic, modern
    """
    if isinstance(value, str) and value in choices:
        return value
    raise OptionError(f"unknown {kind} {value!r}; choose from {', '.join(choices)}")

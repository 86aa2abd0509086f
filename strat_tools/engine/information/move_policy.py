"""A model of the move a player chooses, and its distribution over one position's legal
moves: ``pos.move_probabilities(policy)`` (docs/human-model.md).

:class:`MovePolicy` is the batch protocol any model implements, the shipped ones
(``st.policies.load("human-v1")``) and a user's own PyTorch or JAX model alike: given a
batch of truth-free observation rows as NumPy arrays (``legal_ids``, int16 ``[n, L]``, each
row's legal action ids ascending, padded with -1; ``legal_count``; and the fields it names
in ``fields``), it returns ``[n, L]`` log-probabilities aligned with ``legal_ids``. The
benchmark's predictor (``bench predict``), this API and the viewer all call it the same
way, through :func:`normalised_rows`.

This floor defines the protocol and never imports a model (the engine imports nothing above
it): the default model, when a caller names none, comes through the hook
:func:`strat_tools.core.defaults.default_model`, which the package's face fills with the
shipped registry's default (``strat_tools.benchmark.policies.DEFAULTS["move"]``).

>>> import numpy as np
>>> class Uniform:
...     name, fields = "uniform", ()
...     def log_probs(self, batch):
...         return np.zeros(batch["legal_ids"].shape)
...     def card(self):
...         return {}
>>> batch = {"legal_ids": np.array([[5, 9, -1]]), "legal_count": np.array([2])}
>>> np.exp(normalised_rows(Uniform(), batch)).round(2).tolist()
[[0.5, 0.5, 0.0]]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from strat_tools.core.board import Side
from strat_tools.core.errors import UsageError
from strat_tools.core.move import Move

__all__ = ["MovePolicy", "MoveProbabilities", "normalised_rows"]


@runtime_checkable
class MovePolicy(Protocol):
    """A model of the move a player chooses: log-probabilities over each row's legal moves.

    A user's own model implements it with a few lines around its forward pass::

        class MyModel:
            name = "my-net"
            fields = ("board_view", "last_moves")

            def log_probs(self, batch):
                logits = net(torch.from_numpy(batch["board_view"]))  # [n, 10000]
                ids = torch.from_numpy(batch["legal_ids"].clip(0).astype("int64"))
                return torch.log_softmax(logits.gather(1, ids), 1).numpy()

            def card(self):
                return {"model": "my-net", "parameters": 91_000, ...}
    """

    name: str
    """A short name (``uniform``, ``counts``, ``my-net``)."""
    fields: tuple[str, ...]
    """The truth-free fields it reads (the benchmark's ``POLICY_FIELDS``)."""

    def log_probs(self, batch: Mapping[str, Any]) -> npt.NDArray[np.floating[Any]]:
        """``[n, L]`` log-probabilities aligned with ``batch["legal_ids"]`` (padding ignored;
        each row is normalised again over its legal moves before it is used)."""
        ...

    def card(self) -> dict[str, Any]:
        """The submission card's fields (``strat_tools.benchmark.submission_files.CARD_FIELDS``)."""
        ...


def normalised_rows(policy: MovePolicy, batch: Mapping[str, Any]) -> npt.NDArray[np.float64]:
    """``policy``'s log-probabilities of ``batch``, ``[n, L]`` float64, normalised over each
    row's legal moves (-inf at the padding); a :class:`UsageError` for a shape that is not
    ``legal_ids``'s, a row with no finite value or a legal move with no probability."""
    ids, counts = batch["legal_ids"], np.asarray(batch["legal_count"])
    found = np.asarray(policy.log_probs(batch), dtype=np.float64)
    if found.shape != ids.shape:
        raise UsageError(
            f"policy {policy.name!r} gave log-probabilities of shape {found.shape} for "
            f"legal_ids of shape {ids.shape}",
            option="policy",
        )
    legal = np.arange(ids.shape[1]) < counts[:, None]
    found = np.where(legal, found, -np.inf)
    top = found.max(axis=1, keepdims=True)
    if not np.isfinite(top).all():
        raise UsageError(f"policy {policy.name!r} gave a row no finite value", option="policy")
    with np.errstate(under="ignore"):
        normal: npt.NDArray[np.float64] = (
            found - top - np.log(np.exp(found - top).sum(axis=1, keepdims=True))
        )
    if not np.isfinite(normal[legal]).all():
        raise UsageError(
            f"policy {policy.name!r} gave a legal move no probability (or not a number)",
            option="policy",
        )
    return normal


class MoveProbabilities:
    """A move policy's distribution over exactly one position's legal moves.

    ``dist[move]`` (a :class:`~strat_tools.core.move.Move` or its text), ``log_prob(move)``,
    ``top(k)``, ``entropy()``, ``sample(rng)``, ``len``, ``in`` and iteration (the moves,
    in the benchmark's order); :attr:`ids` and :attr:`probs` are the benchmark's layout:
    the legal moves' action ids (the mover's view) ascending, and their probabilities, as
    ``bench predict`` writes that ply's row.
    """

    __slots__ = ("_index", "ids", "log_probs", "moves", "policy", "probs", "side")

    def __init__(
        self,
        moves: tuple[Move, ...],
        ids: npt.NDArray[np.int16],
        log_probs: npt.NDArray[np.float64],
        policy: str,
        side: Side,
    ) -> None:
        self.moves = moves
        """The legal moves, in the order of :attr:`ids`."""
        self.ids = ids
        """Their action ids (``int16``, ascending: the benchmark's legal ids)."""
        self.log_probs = log_probs
        """Their log-probabilities (float64, normalised)."""
        self.probs = np.exp(log_probs)
        """Their probabilities (float64, summing to 1)."""
        self.policy = policy
        """The policy's name."""
        self.side = side
        """The side to move."""
        self._index = {(m.source, m.target): i for i, m in enumerate(moves)}

    def _at(self, move: object) -> int:
        found = Move.of(move)
        index = self._index.get((found.source, found.target))
        if index is None:
            raise KeyError(f"{found} is not a legal move here")
        return index

    def __getitem__(self, move: object) -> float:
        """The probability of ``move`` (a ``KeyError`` for a move that is not legal)."""
        return float(self.probs[self._at(move)])

    def log_prob(self, move: object) -> float:
        """The natural log of the probability of ``move``."""
        return float(self.log_probs[self._at(move)])

    def __contains__(self, move: object) -> bool:
        try:
            self._at(move)
        except (KeyError, ValueError):
            return False
        return True

    def __len__(self) -> int:
        return len(self.moves)

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves)

    def top(self, k: int = 5) -> list[tuple[Move, float]]:
        """The ``k`` likeliest moves with their probabilities, likeliest first (ties in
        the order of :attr:`ids`)."""
        order = np.argsort(-self.probs, kind="stable")[: max(k, 0)]
        return [(self.moves[i], float(self.probs[i])) for i in order]

    def entropy(self) -> float:
        """The distribution's entropy in nats (0 for a single legal move)."""
        p = self.probs
        return float(-(p[p > 0] * self.log_probs[p > 0]).sum())

    def sample(self, rng: np.random.Generator | int | None = None) -> Move:
        """A move drawn from the distribution (``rng`` a NumPy generator or a seed)."""
        generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        return self.moves[int(generator.choice(len(self.moves), p=self.probs / self.probs.sum()))]

    def __repr__(self) -> str:
        shown = ", ".join(f"{move} {p:.1%}" for move, p in self.top(3))
        more = ", ..." if len(self) > 3 else ""
        return (
            f"<MoveProbabilities {self.policy}, {self.side} to move, {len(self)} legal "
            f"moves: {shown}{more}>"
        )

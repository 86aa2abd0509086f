"""A trained model's two files, written and read back the one way for every shipped model.

A model is ``NAME.npz`` (float32 arrays by name) and ``NAME.json`` (its card: what it is,
the SHA-256 of the ``.npz``, its provenance). The human-move model
(:mod:`~strat_tools.benchmark.human_model`) and the learned belief model
(:mod:`~strat_tools.benchmark.belief_model`) each say what their card and arrays must be;
this module reads the files as every input is read (regular, bounded, strict JSON),
checks the weights' hash, every array's name, dtype, shape and finiteness and every
provenance field's type, and writes both files atomically.

>>> check_arrays({"w": np.zeros((2, 3), np.float32)}, {"w": (2, 3)}, "m", _fail)["w"].shape
(2, 3)
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from strat_tools.benchmark.definition import NAME, VERSION
from strat_tools.core.errors import InputError
from strat_tools.io.output import write_file_atomically
from strat_tools.io.own_files import FieldError, load_json, loads, read_own

__all__ = [
    "CONTINUED_FROM",
    "MAX_CARD_BYTES",
    "MAX_MODEL_BYTES",
    "PROVENANCE",
    "Need",
    "check_arrays",
    "check_card_head",
    "check_provenance",
    "check_trained",
    "model_bytes",
    "read_arrays",
    "read_model_files",
    "submission_card",
    "write_model_files",
]

Need = Callable[[bool, str, str], None]
"""``need(condition, where, what)``: raise the model's :class:`InputError` naming ``what``
when ``condition`` is false."""
MAX_MODEL_BYTES: Final = 1 << 26
"""A model's weights: a few hundred KB shipped, a few MB at most for a larger one; over
64 MiB is refused unread."""
MAX_CARD_BYTES: Final = 1 << 20
"""A model's card is about 2 KB; over 1 MiB is refused unread."""


def _fail(condition: bool, where: str, what: str) -> None:
    if not condition:
        raise InputError(f"{where}: {what}")


def read_model_files(
    path: str | os.PathLike[str] | None, shipped: str, what: str
) -> tuple[bytes, Any, str]:
    """The raw ``.npz`` bytes, the parsed card and a name for messages of the model at
    ``PATH.npz``/``PATH.json`` (None: the package's ``data/SHIPPED.*``); ``what`` names the
    kind of model in the error when a file cannot be read."""
    try:  # files of ours read back as every input is: regular, bounded, strict JSON
        if path is None:
            data = resources.files("strat_tools.benchmark").joinpath("data")
            raw = data.joinpath(f"{shipped}.npz").read_bytes()
            card = loads(data.joinpath(f"{shipped}.json").read_text(encoding="utf-8"))
            return raw, card, f"the shipped model {shipped}"
        where = os.fspath(path).removesuffix(".npz")
        raw = read_own(f"{where}.npz", limit=MAX_MODEL_BYTES)
        card = load_json(f"{where}.json", limit=MAX_CARD_BYTES)
    except FieldError as exc:
        raise InputError(f"cannot read the {what}: {exc}") from None
    return raw, card, where


def check_provenance(
    about: Any, fields: Mapping[str, type], where: str, need: Need
) -> dict[str, Any]:
    """``about`` a dict holding each of ``fields`` with its type (a float may be written as
    an int; a bool is never an int)."""
    need(isinstance(about, dict), where, "no provenance")
    for key, kind in fields.items():
        value = about.get(key)
        ok = isinstance(value, kind) and not isinstance(value, bool)
        if kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        need(ok, where, f"provenance {key!r} is not a {kind.__name__}")
    return dict(about)


PROVENANCE: Final = {
    "benchmark": str,
    "benchmark_version": int,
    "split": str,
    "months": list,
    "games": int,
    "rows": int,
    "rows_seen": int,
    "strat_tools": str,
    "training_seconds": float,
    "hardware": str,
    "seed": int,
    "steps": int,
    "batch_size": int,
    "val_rows": int,
    "val_nll": float,
    "val_top1": float,
    "torch": str,
}
"""The provenance a trained model's card carries, with each field's type: what it was
trained on (the benchmark's train split: calendar months, games, rows; rows seen in
training), by which strat-tools and PyTorch, how long on what, the seed, and its score on
the val rows that chose it (``val_nll``: its mean negative log-likelihood there)."""
CONTINUED_FROM: Final = {
    "name": str,
    "weights_sha256": str,
    "steps": int,
    "rows_seen": int,
    "training_seconds": float,
}
"""A continued model's start (``provenance.continued_from``, optional): its name and
weights' hash, and how much of the card's totals (steps, rows seen, seconds) it had."""


def check_card_head(
    card: Any, where: str, need: Need, kind: str, int_keys: tuple[str, ...], inputs: int
) -> None:
    """The fields every model card starts with: a JSON object of ``kind``, a name, each of
    ``int_keys`` an integer (its size, its parameters), the model's ``inputs`` version and
    its weights' SHA-256; the provenance is :func:`check_trained`'s."""
    need(isinstance(card, dict), where, "its card is not a JSON object")
    need(card.get("kind") == kind, where, f"kind is not {kind!r}")
    need(isinstance(card.get("name"), str) and bool(card["name"]), where, "no name")
    for key in int_keys:
        value = card.get(key)
        need(isinstance(value, int) and not isinstance(value, bool), where, f"{key} not an int")
    need(card.get("inputs_version") == inputs, where, "another inputs version")
    need(isinstance(card.get("weights_sha256"), str), where, "no weights_sha256")


def submission_card(name: str, card: Mapping[str, Any], seen: str) -> dict[str, Any]:
    """A trained model's submission card (``bench predict``'s ``card.json``) from its
    checked model card; ``seen`` says what training went through (``"1,024,000 rows"``)."""
    about = card["provenance"]
    return {
        "model": name,
        "parameters": int(card["parameters"]),
        "training_data": f"{about['benchmark']} v{about['benchmark_version']} train "
        f"({about['games']:,} games, {seen})",
        "training_months": list(about["months"]),
        "external_data": "none",
        "compute": f"{about['training_seconds'] / 60:.0f} minutes on {about['hardware']}",
        "seed": int(about["seed"]),
        "trained_on_val": False,
    }


def check_trained(about: Any, where: str, need: Need) -> dict[str, Any]:
    """A trained model's provenance (:data:`PROVENANCE`): every field of its type, trained
    on this benchmark's train split, counts positive, a val score."""
    found = check_provenance(about, PROVENANCE, where, need)
    need(
        found["benchmark"] == NAME
        and found["benchmark_version"] == VERSION
        and found["split"] == "train",
        where,
        f"not trained on {NAME} v{VERSION} train",
    )
    need(
        bool(found["months"]) and all(isinstance(m, str) for m in found["months"]),
        where,
        "no training months",
    )
    for key in ("games", "rows", "rows_seen", "steps", "batch_size", "val_rows"):
        need(found[key] > 0, where, f"provenance {key!r} is not positive")
    need(found["val_nll"] > 0.0 and 0.0 <= found["val_top1"] <= 1.0, where, "its val score")
    if "continued_from" in found:
        start = check_provenance(found["continued_from"], CONTINUED_FROM, where, need)
        need(
            all(0 < start[key] < found[key] for key in ("steps", "rows_seen"))
            and 0 <= start["training_seconds"] <= found["training_seconds"],
            where,
            "continued_from counts more than the model's own totals",
        )
    return found


def read_arrays(raw: bytes, sha256: Any, where: str, need: Need) -> dict[str, Any]:
    """The arrays of a ``.npz`` whose SHA-256 must be ``sha256`` (no pickles)."""
    need(isinstance(sha256, str), where, "no weights_sha256")
    need(hashlib.sha256(raw).hexdigest() == sha256, where, "weights_sha256")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            return {key: archive[key] for key in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise InputError(f"{where}: its weights cannot be read: {exc}") from None


def check_arrays(
    data: Mapping[str, Any], shapes: Mapping[str, tuple[int, ...]], where: str, need: Need
) -> dict[str, npt.NDArray[np.float32]]:
    """``data`` exactly the arrays of ``shapes``, each float32, of its shape, finite."""
    need(sorted(data) == sorted(shapes), where, "its arrays are not the architecture's")
    weights = {}
    for key, shape in shapes.items():
        array = data[key]
        need(array.dtype == np.float32, where, f"{key} is not float32")
        need(array.shape == shape, where, f"{key} has shape {array.shape}, not {shape}")
        need(bool(np.isfinite(array).all()), where, f"{key} holds a value that is not finite")
        weights[key] = array
    return weights


def model_bytes(weights: Mapping[str, npt.ArrayLike]) -> tuple[dict[str, Any], bytes]:
    """The float32 arrays and the ``.npz`` bytes of ``weights``."""
    buffer = io.BytesIO()
    arrays = {key: np.asarray(value, dtype=np.float32) for key, value in weights.items()}
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return arrays, buffer.getvalue()


def write_model_files(raw: bytes, card: Mapping[str, Any], stem: str) -> None:
    """Write ``STEM.npz`` (``raw``) and ``STEM.json`` (``card``), each atomically."""
    write_file_atomically(f"{stem}.npz", raw)
    write_file_atomically(f"{stem}.json", (json.dumps(card, indent=1) + "\n").encode())

"""A saved win model read back: every field checked before any game is read.

A model file is an input like any other (docs/security.md): it is opened as a record is
(non-blocking, ``fstat``-checked, a regular file of at most :data:`MAX_MODEL_BYTES`: a FIFO
never blocks, ``/dev/zero`` is never read), parsed as strict JSON (no ``NaN`` or
``Infinity``, no key twice, nesting bounded: :func:`strat_tools.io.own_files.load_json`, the
one reader of every file the project reads back), and then every field is checked against
what the code expects: ``variant`` one of the known variants, ``form``, ``features`` and
``material_features`` exactly
:func:`~strat_tools.stats.win_model.features_of` its variant (order too), ``coef`` and
``material_coef`` one finite number of at most :data:`~strat_tools.stats.win_model.MAX_COEF`
per feature, ``base_rate`` strictly between 0 and 1, and the ``provenance``'s fields of
their types. Anything else is refused with a message naming the field:
:class:`~strat_tools.core.errors.UsageError` for the option ``--model`` (exit 2), as a
bad ``--ids`` file is.

:func:`shipped_win_model` is the model the package ships for a variant, or ``None`` where
it ships none (too few games: docs/values.md).
"""

from __future__ import annotations

import math
import re
from importlib import resources
from pathlib import Path
from typing import Any, Final

from strat_tools.core.errors import UsageError
from strat_tools.core.records import VARIANTS
from strat_tools.io.own_files import FieldError, load_json, loads
from strat_tools.stats.win_model import (
    MAX_COEF,
    WIN_VARIANTS,
    WinModel,
    features_of,
    form_of,
    material_features_of,
)

__all__ = ["MAX_MODEL_BYTES", "load_win_model", "shipped_win_model"]

MAX_MODEL_BYTES: Final = 1 << 20
"""A model file is a few kilobytes; a larger one is refused unread."""
FIELDS: Final = (
    "form",
    "variant",
    "features",
    "coef",
    "material_features",
    "material_coef",
    "base_rate",
    "provenance",
)
PROVENANCE: Final[dict[str, type]] = {
    "months": list,
    "games": int,
    "rows": int,
    "variant": str,
    "fitted_by": str,
    "inputs": list,
}
_MONTH = re.compile(r"^\d{4}-\d{2}$")


def load_win_model(path: str | Path, *, option: str = "model") -> WinModel:
    """The model saved at ``path``, every field checked (see the module docstring);
    :class:`UsageError` naming ``option`` and the field when it is not one."""
    try:
        return model_from_json(load_json(str(path), limit=MAX_MODEL_BYTES))
    except FieldError as exc:
        raise UsageError(
            f"{path} is not a win model this version reads: {exc}", option=option
        ) from None


def shipped_win_model(variant: str = "classic") -> WinModel | None:
    """The model the package ships for ``variant`` (fitted on the 23 archive months; see its
    provenance), or ``None`` where it ships none."""
    if variant not in WIN_VARIANTS:
        return None
    name = "win_model.json" if variant == "classic" else f"win_model-{variant}.json"
    text = resources.files("strat_tools.stats").joinpath("data", name).read_text()
    return model_from_json(loads(text))


def model_from_json(data: Any) -> WinModel:
    """A :class:`WinModel` from its parsed JSON, every field checked (:class:`_Refused`)."""
    if not isinstance(data, dict):
        raise FieldError("not a JSON object")
    missing = [f for f in FIELDS if f not in data]
    extra = [f for f in data if f not in FIELDS]
    if missing or extra:
        raise FieldError(
            "; ".join(
                [f"missing field {', '.join(missing)}"] * bool(missing)
                + [f"unknown field {', '.join(map(repr, extra))}"] * bool(extra)
            )
        )
    variant = data["variant"]
    if variant not in VARIANTS:
        raise FieldError(f"variant: {variant!r} is none of {', '.join(VARIANTS)}")
    if data["form"] != form_of(variant):
        raise FieldError(f"form: not the form of a {variant} win model of this version")
    for name, expected in (
        ("features", features_of(variant)),
        ("material_features", material_features_of(variant)),
    ):
        if data[name] != list(expected):
            raise FieldError(
                f"{name}: {_short(data[name])} where a {variant} model has "
                f"{', '.join(expected)} (in that order)"
            )
    coef = _coefficients(data["coef"], "coef", len(features_of(variant)))
    material = _coefficients(
        data["material_coef"], "material_coef", len(material_features_of(variant))
    )
    rate = _number(data["base_rate"], "base_rate")
    if not 0.0 < rate < 1.0:
        raise FieldError(f"base_rate: {rate!r} is not strictly between 0 and 1")
    return WinModel(variant, coef, material, rate, _provenance(data["provenance"], variant))


def _coefficients(value: Any, name: str, n: int) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != n:
        got = f"{len(value)} numbers" if isinstance(value, list) else type(value).__name__
        raise FieldError(f"{name}: {got} where the model has {n} features")
    out = tuple(_number(v, f"{name}[{i}]") for i, v in enumerate(value))
    for i, b in enumerate(out):
        if abs(b) > MAX_COEF:
            raise FieldError(f"{name}[{i}]: {b!r} is beyond +-{MAX_COEF:g} (no fit gives it)")
    return out


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FieldError(f"{name}: {_short(value)} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise FieldError(f"{name}: an integer too large for a number") from None
    if not math.isfinite(number):
        raise FieldError(f"{name}: {number!r} is not finite")
    return number


def _provenance(value: Any, variant: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FieldError("provenance: not a JSON object")
    for key, item in value.items():
        kind = PROVENANCE.get(key)
        if kind is None:
            raise FieldError(f"provenance: unknown field {key!r}")
        if not isinstance(item, kind) or isinstance(item, bool):
            raise FieldError(f"provenance.{key}: {_short(item)} is not a {kind.__name__}")
    if any(not isinstance(m, str) or not _MONTH.match(m) for m in value.get("months", [])):
        raise FieldError("provenance.months: each must be a YYYY-MM text")
    if any(not isinstance(m, str) for m in value.get("inputs", [])):
        raise FieldError("provenance.inputs: each must be a text")
    for key in ("games", "rows"):
        if value.get(key, 0) < 0:
            raise FieldError(f"provenance.{key}: negative")
    if value.get("variant", variant) != variant:
        raise FieldError(f"provenance.variant: {value['variant']!r}, the model's is {variant!r}")
    return dict(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."

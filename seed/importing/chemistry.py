"""Reading a strain's chemistry and a menu item's lab batch from an import record.

A strain's ``chemistry`` is either its samples (each a mapping compound -> percent), from which
the percentiles are worked out here, or its percentiles as computed elsewhere. Either way the
value stored is the layout seed.chemistry documents (models.Strain.chemistry). A menu item's
``lab`` is one batch's results, stored as given with each compound named by its key.
Compounds may be named by key or by any alias (service.compounds.BY_ALIAS), in any case.
"""

import json
import math
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from service.compounds import (
    BY_ALIAS,
    CANNABINOID_KEYS,
    COMPOUND_KEYS,
    PERCENT,
    QUALIFIERS,
    TERPENE_KEYS,
    TOTAL_INPUTS,
    Basis,
    total_of,
)

from ..chemistry import percentiles, summarize
from .fields import FieldError, Parser, is_absent, iso_date, text

# Stored percentiles are rounded to a hundredth of a percent, as the demo dataset's are
# (seed.chemistry.percentiles).
DECIMALS = 2
MAX_SAMPLES = 10_000
DEFAULT_SOURCE = "import"
SOURCE_LENGTH = 40
TOTALS = ("total_thc", "total_cbd", "total_terpenes")
QUARTILES = ("p25", "p50", "p75")
LAB_FIELDS = ("batch_id", "tested_at", "lab", "coa_url", "results")
_RESULT_KEYS = frozenset({"key", "value", "unit", "qualifier"})
_HTTPS = re.compile(r"^https://[A-Za-z0-9.\-]+(?::[0-9]{1,5})?(?:[/?#][^\s]*)?$")
_COA_URL_LENGTH = 300
_source = text(SOURCE_LENGTH)
_batch_id = text(60)
_lab_name = text(120)
_coa_url = text(_COA_URL_LENGTH, pattern=_HTTPS, hint="must be an https:// URL")
_date = iso_date()


def _allowed() -> str:
    return ", ".join(COMPOUND_KEYS)


def compound_key(name: Any, where: str) -> str:
    """The key of the compound called ``name`` (a key or alias, any case)."""
    key = BY_ALIAS.get(name.strip().casefold()) if isinstance(name, str) else None
    if key is None:
        raise FieldError(f"{where} has unknown compound {name!r}; compounds are {_allowed()}")
    return key


def _percent(raw: Any, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise FieldError(f"{where} must be a number from 0 to 100")
    try:
        value = float(raw)
    except OverflowError:  # a JSON integer too large for a float
        value = math.inf
    if not math.isfinite(value) or not 0 <= value <= 100:
        raise FieldError(f"{where} must be a number from 0 to 100")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} appears twice")
        found[key] = value
    return found


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not allowed (numbers must be finite)")


def _object(raw: Any, from_csv: bool, example: str) -> Mapping[str, Any]:
    """A JSON object: as it is in JSONL, the text of one in a CSV cell (read as strictly as a
    JSONL line: no key twice, no NaN)."""
    if from_csv:
        try:
            raw = json.loads(raw, object_pairs_hook=_unique_keys, parse_constant=_no_constants)
        except ValueError as exc:
            raise FieldError(f"must be a JSON object such as {example} ({exc})") from None
    if not isinstance(raw, Mapping):
        raise FieldError(f"must be a JSON object such as {example}")
    return raw


def quartiles(values: list[float]) -> dict[str, float]:
    """p25, p50 and p75 of ``values`` by linear interpolation between the closest ranks
    (statistics.quantiles' "inclusive" method), rounded as stored."""
    return percentiles(values, DECIMALS)


def _sample(raw: Any, number: int) -> dict[str, float]:
    where = f"sample {number}"
    if not isinstance(raw, Mapping) or not raw:
        raise FieldError(f"{where} must be a non-empty object of compound -> percent")
    found: dict[str, float] = {}
    named: dict[str, str] = {}
    for name, value in raw.items():
        key = compound_key(name, where)
        if key in found:
            raise FieldError(f"{where} gives {key} twice ({named[key]!r} and {name!r})")
        found[key] = _percent(value, f"{where} {name}")
        named[key] = name
    if sum(found.values()) > 100:
        raise FieldError(f"{where}: its compounds add up to more than 100 percent")
    return found


def _ordered(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Highest median first; equal medians by key (as seed.chemistry.summarize orders them).
    return sorted(entries, key=lambda e: (-e["p50"], e["key"]))


def _layout(
    compounds: dict[str, dict[str, float]],
    totals: dict[str, dict[str, float]],
    count: int,
    source: str,
) -> dict[str, Any]:
    listed = [{"key": key, **spread} for key, spread in compounds.items()]
    return {
        "basis": Basis.TYPICAL.value,
        "sample_count": count,
        "source": source,
        "cannabinoids": _ordered([e for e in listed if e["key"] in CANNABINOID_KEYS]),
        "terpenes": _ordered([e for e in listed if e["key"] in TERPENE_KEYS]),
        **{name: totals[name] for name in TOTALS},
    }


def _from_samples(raw: Any, source: str) -> dict[str, Any]:
    if not isinstance(raw, list) or not raw:
        raise FieldError("samples must be a non-empty array of objects")
    if len(raw) > MAX_SAMPLES:
        raise FieldError(f"samples must be at most {MAX_SAMPLES:,}")
    # The demo dataset's summary: a compound a sample leaves out was not detected in it (0).
    return summarize([_sample(item, n) for n, item in enumerate(raw, start=1)], source)


def _spread(raw: Any, where: str) -> dict[str, float]:
    if not isinstance(raw, Mapping) or set(raw) != set(QUARTILES):
        raise FieldError(f'{where} must be an object {{"p25": .., "p50": .., "p75": ..}}')
    spread = {name: _percent(raw[name], f"{where} {name}") for name in QUARTILES}
    if not spread["p25"] <= spread["p50"] <= spread["p75"]:
        values = ", ".join(f"{spread[name]:g}" for name in QUARTILES)
        raise FieldError(f"{where} must have p25 <= p50 <= p75 (has {values})")
    return {name: round(value, DECIMALS) for name, value in spread.items()}


def _derived_total(compounds: dict[str, dict[str, float]], name: str) -> dict[str, float]:
    """A total's percentiles from its inputs' same percentiles (exact when the inputs rise and
    fall together across samples; docs/importing.md says so)."""
    spread = {}
    for q in QUARTILES:
        if name in TOTAL_INPUTS:
            value = total_of(name, {key: s.get(q) for key, s in compounds.items()})
        else:
            value = sum(s[q] for key, s in compounds.items() if key in TERPENE_KEYS)
        spread[q] = round(value, DECIMALS)
    return spread


def _from_percentiles(raw: Any, count: Any, source: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or not raw:
        raise FieldError('percentiles must be an object such as {"thca": {"p25": .., ..}}')
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise FieldError("sample_count must be a whole number of 1 or more with percentiles")
    compounds: dict[str, dict[str, float]] = {}
    totals: dict[str, dict[str, float]] = {}
    for name, value in raw.items():
        folded = name.strip().casefold() if isinstance(name, str) else name
        if folded in TOTALS:
            totals[folded] = _spread(value, f"percentiles {name}")
            continue
        key = compound_key(name, "percentiles")
        if key in compounds:
            raise FieldError(f"percentiles gives {key} twice")
        compounds[key] = _spread(value, f"percentiles {name}")
    for name in TOTALS:
        if name not in totals:
            totals[name] = _derived_total(compounds, name)
            if totals[name]["p75"] > 100:
                raise FieldError(f"percentiles: the derived {name} is over 100 percent")
    return _layout(compounds, totals, count, source)


def chemistry() -> Parser:
    """A strain's typical chemistry: ``{"samples": [...]}`` or ``{"percentiles": {...},
    "sample_count": n}``, with an optional ``source``; CSV: that object as JSON text."""
    allowed = ("samples", "percentiles", "sample_count", "source")

    def parse(raw: Any, from_csv: bool) -> dict[str, Any]:
        given = _object(raw, from_csv, '{"samples": [{"thca": 21.4, "myrcene": 0.6}]}')
        unknown = [name for name in given if name not in allowed]
        if unknown:
            raise FieldError(f"has unknown key {unknown[0]!r}; keys are {', '.join(allowed)}")
        source = DEFAULT_SOURCE
        if not is_absent(given.get("source")):
            try:
                source = _source(given["source"], False)
            except FieldError as exc:
                raise FieldError(f"source {exc}") from None
        if ("samples" in given) == ("percentiles" in given):
            raise FieldError("must give either samples or percentiles (one of them)")
        if "samples" in given:
            if "sample_count" in given:
                raise FieldError("sample_count is the number of samples; leave it out")
            return _from_samples(given["samples"], source)
        return _from_percentiles(given["percentiles"], given.get("sample_count"), source)

    return parse


def _result(raw: Any, number: int) -> dict[str, Any]:
    # Run once per result of every batch (hundreds of thousands at full scale): the common
    # case is checked first, the messages built only on a problem.
    if not isinstance(raw, dict) or not raw.keys() <= _RESULT_KEYS:
        raise FieldError(_result_shape(raw, number))
    name = raw.get("key")
    key = BY_ALIAS.get(name.strip().casefold()) if isinstance(name, str) else None
    if key is None:
        key = compound_key(name, f"results {number}")  # raises, naming the compounds
    value, qualifier = raw.get("value"), raw.get("qualifier")
    if raw.get("unit", PERCENT) != PERCENT:
        raise FieldError(f"results {number} unit must be {PERCENT}")
    if value is None:
        if qualifier not in QUALIFIERS:
            raise FieldError(
                f"results {number} has no value: its qualifier must be one of "
                f"{', '.join(QUALIFIERS)}"
            )
        return {"key": key, "value": None, "unit": PERCENT, "qualifier": qualifier}
    if qualifier is not None:
        raise FieldError(
            f"results {number} has a value and a qualifier ({qualifier!r}); a qualifier stands "
            "for a missing value"
        )
    return {"key": key, "value": _percent(value, f"results {number} value"), "unit": PERCENT}


def _result_shape(raw: Any, number: int) -> str:
    where = f"results {number}"
    if not isinstance(raw, Mapping):
        return f'{where} must be an object such as {{"key": "thca", "value": 22.1}}'
    unknown = [name for name in raw if name not in _RESULT_KEYS]
    return f"{where} has unknown key {unknown[0]!r}; keys are key, value, unit, qualifier"


def _lab_text(parser: Parser, given: Mapping[str, Any], name: str) -> str:
    if is_absent(given.get(name)):
        raise FieldError(f"{name} is required")
    try:
        value: str = parser(given[name], False)
    except FieldError as exc:
        raise FieldError(f"{name} {exc}") from None
    return value


def lab(today: date | None = None) -> Parser:
    """A menu item's lab batch ``{"batch_id", "tested_at", "lab", "coa_url", "results"}``;
    ``tested_at`` no later than ``today`` (the import's day); CSV: the object as JSON text."""

    def parse(raw: Any, from_csv: bool) -> dict[str, Any]:
        given = _object(raw, from_csv, '{"batch_id": "B-1", "tested_at": "2026-11-02", ...}')
        unknown = [name for name in given if name not in LAB_FIELDS]
        if unknown:
            raise FieldError(f"has unknown key {unknown[0]!r}; keys are {', '.join(LAB_FIELDS)}")
        tested_at = _lab_text(_date, given, "tested_at")
        batch: dict[str, Any] = {
            "batch_id": _lab_text(_batch_id, given, "batch_id"),
            "tested_at": tested_at,
            "lab": _lab_text(_lab_name, given, "lab"),
            "coa_url": None,
        }
        reference = today or date.today()
        if date.fromisoformat(tested_at) > reference:
            raise FieldError(f"tested_at must not be after the import's day ({reference})")
        if not is_absent(given.get("coa_url")):
            batch["coa_url"] = _lab_text(_coa_url, given, "coa_url")
        results = given.get("results")
        if not isinstance(results, list) or not results:
            raise FieldError("results must be a non-empty array of objects")
        checked = [_result(item, number) for number, item in enumerate(results, start=1)]
        keys = [r["key"] for r in checked]
        if len(set(keys)) != len(keys):
            repeated = sorted({key for key in keys if keys.count(key) > 1})
            raise FieldError(f"results give {repeated[0]} more than once")
        return {**batch, "results": checked}

    return parse

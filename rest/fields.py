"""Strict query-string fields: plain ASCII numbers and booleans only.

Python's int() and float() accept "1_000", " 7", full-width digits, "1e3", "nan" and "inf";
a query string should not, so these fields match an exact pattern before converting.
"""

import re
from typing import Any

from marshmallow import ValidationError, fields

_INTEGER = re.compile(r"^-?[0-9]{1,18}$")
_DECIMAL = re.compile(r"^-?(?:[0-9]{1,12}(?:\.[0-9]{0,12})?|\.[0-9]{1,12})$")
_TRUE = ("true", "1")
_FALSE = ("false", "0")


class _Described:
    """Mixin: error messages read "<param> must be <expectation>"."""

    def __init__(self, *, expect: str, **kwargs: Any) -> None:
        self.expect = expect
        super().__init__(**kwargs)

    def fail_for(self, attr: str | None) -> ValidationError:
        name = self.data_key or attr or "value"
        return ValidationError(f"{name} must be {self.expect}")


class StrictInteger(_Described, fields.Integer):
    """An integer written with ASCII digits and an optional leading minus sign."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not _INTEGER.match(value):
            raise self.fail_for(attr)
        return int(value)


class StrictNumber(_Described, fields.Float):
    """A decimal number written with ASCII digits: no exponent, nan, inf or padding."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if not isinstance(value, str) or not _DECIMAL.match(value):
            raise self.fail_for(attr)
        return float(value)


class StrictBoolean(_Described, fields.Boolean):
    """true/false or 1/0, any letter case."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(expect="true or false", **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        folded = value.lower() if isinstance(value, str) else None
        if folded in _TRUE:
            return True
        if folded in _FALSE:
            return False
        raise self.fail_for(attr)

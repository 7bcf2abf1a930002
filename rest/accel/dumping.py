"""Compiled dumps for Marshmallow schemas: a plan made once per schema instance.

``compile_dumps(base)`` (called by rest.init_rest with ``SPEED_TRICKS`` on) replaces the field
loop of ``base`` and its subclasses, stock Marshmallow schemas, by a list of (output key, getter,
converter) built from the same fields; hooks still run, and a schema with a field the compiler
does not know keeps Marshmallow's loop, whole. The outermost dump reads the app's SPEED_TRICKS,
so an app with it off gets the loop. ``tests/accel/test_rest_dumping.py`` checks plan = loop.

Private names: Marshmallow's ``Schema._serialize`` (replaced: the loop it runs),
``Schema.dump_fields``, ``Pluck._field_data_key`` and ``marshmallow.utils.get_value``.
"""

import datetime as dt
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, cast

from flask import current_app, has_app_context
from marshmallow import Schema, fields, missing
from marshmallow.utils import get_value

from service.stamps import stamp_text

from ..fields import AbsentWhenNone, Stamp

PRIVATE_API = (
    "marshmallow.schema.Schema._serialize",
    "marshmallow.schema.Schema.dump_fields",
    "marshmallow.fields.Pluck._field_data_key",
    "marshmallow.utils.get_value",
)

Convert = Callable[[Any], Any]
Step = tuple[str, Callable[[Any], Any], Convert, bool]
Serialize = Callable[..., Any]
_UNSET = object()
# Whether this dump and the dumps nested in it run the plans; None until the outermost decides.
_PLANS: ContextVar[bool | None] = ContextVar("dump_plans", default=None)
# Marks the ``_serialize`` that compile_dumps installs, so that installing twice changes nothing.
_COMPILED = "_compiled_dumps"


def _plans_wanted() -> bool:
    """The app's SPEED_TRICKS setting; on outside an app."""
    return not has_app_context() or bool(current_app.config.get("SPEED_TRICKS", True))


def compile_dumps(base: type[Schema]) -> None:
    """Make ``base`` and its subclasses dump through compiled plans (while SPEED_TRICKS is on)."""
    loop: Serialize = base._serialize
    if getattr(loop, _COMPILED, False):
        return

    def _serialize(self: Schema, obj: Any, *, many: bool = False) -> Any:
        plans = _PLANS.get()
        if plans is None:
            token = _PLANS.set(_plans_wanted())
            try:
                return _serialize(self, obj, many=many)
            finally:
                _PLANS.reset(token)
        if plans:
            plan = self.__dict__.get("_dump_plan", _UNSET)
            if plan is _UNSET:
                plan = self.__dict__["_dump_plan"] = _compile(self)
            if plan is not None:
                if many and obj is not None:
                    return [plan(item) for item in obj]
                return plan(obj)
        return loop(self, obj, many=many)

    setattr(_serialize, _COMPILED, True)
    base._serialize = _serialize  # type: ignore[method-assign]


def reference_dump(schema: Schema, obj: Any, *, many: bool | None = None) -> Any:
    """``schema.dump`` through Marshmallow's own field loop, nested schemas included (what the
    plans must equal)."""
    token = _PLANS.set(False)
    try:
        return schema.dump(obj, many=many)
    finally:
        _PLANS.reset(token)


def _compile(schema: Schema) -> Callable[[Any], dict[str, Any]] | None:
    custom_getter = type(schema).get_attribute is not Schema.get_attribute
    steps: list[Step] = []
    for name, field in schema.dump_fields.items():
        convert = _converter(field)
        if convert is None or field.dump_default is not missing:
            return None
        key = field.attribute if field.attribute is not None else name
        out = field.data_key if field.data_key is not None else name
        steps.append((out, _getter(schema, key, custom_getter), convert, _omits_none(field)))

    def dump_one(obj: Any) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for out, get, convert, omit_none in steps:
            value = get(obj)
            if value is missing:
                continue
            if value is None:
                if not omit_none:
                    result[out] = None
                continue
            result[out] = convert(value)
        return result

    return dump_one


def _getter(schema: Schema, key: str, custom: bool) -> Callable[[Any], Any]:
    if custom:
        return lambda obj: schema.get_attribute(obj, key, missing)
    if "." in key:
        return lambda obj: get_value(obj, key, missing)

    def get(obj: Any) -> Any:
        # Marshmallow looks a key up on mappings and reads an attribute from anything else.
        if type(obj) is dict:
            return obj.get(key, missing)
        return getattr(obj, key, missing)

    return get


def _omits_none(field: fields.Field[Any]) -> bool:
    return isinstance(field, AbsentWhenNone)


def _kind(field: fields.Field[Any]) -> type:
    """The Marshmallow field class that decides how ``field`` converts values."""
    kind = type(field)
    if issubclass(kind, AbsentWhenNone):
        return next(base for base in kind.__mro__[1:] if not issubclass(base, AbsentWhenNone))
    return kind


def _converter(field: fields.Field[Any]) -> Convert | None:
    """How ``field`` turns a present, non-None value into output; None if not supported."""
    kind = _kind(field)
    if kind is Stamp:
        return stamp_text
    # ``field`` is an instance of ``kind``, which the casts below tell the type checker.
    if kind is fields.String:
        return str
    if kind is fields.Integer and not cast(fields.Integer, field).as_string:
        return int
    if kind is fields.Float and not cast(fields.Float, field).as_string:
        return float
    if kind is fields.Boolean:
        return _boolean(cast(fields.Boolean, field))
    if kind is fields.Date:
        date_format = cast(fields.Date, field).format
        if date_format is None or date_format in ("iso", "rfc", "timestamp"):
            return None  # the default and named formats: Marshmallow's loop
        return lambda value: dt.date.strftime(value, date_format)
    if kind is fields.Dict and _is_string_field(cast(fields.Dict, field).key_field):
        values = cast(fields.Dict, field).value_field
        if not _is_string_field(values):
            return None
        return lambda value: {
            (None if k is None else str(k)): (None if v is None else str(v))
            for k, v in value.items()
        }
    if kind is fields.Pluck:
        return _pluck(cast(fields.Pluck, field))
    if kind is fields.Nested:
        return _nested(cast(fields.Nested, field))
    if kind is fields.List:
        inner = cast(fields.List[Any], field).inner
        if type(inner) is fields.Nested:
            return _nested(inner, many=True)
        item = _converter(inner)
        if item is None:
            return None
        return lambda value: [None if each is None else item(each) for each in value]
    return None


def _is_string_field(field: fields.Field[Any] | None) -> bool:
    return field is not None and type(field) is fields.String


def _boolean(field: fields.Boolean) -> Convert:
    truthy, falsy = field.truthy, field.falsy

    def convert(value: Any) -> Any:
        if value in truthy:
            return True
        if value in falsy:
            return False
        return bool(value)

    return convert


def _nested(field: fields.Nested, *, many: bool | None = None) -> Convert:
    def convert(value: Any) -> Any:
        # The nested schema's own dump: its hooks, and its own compiled plan.
        return field.schema.dump(value, many=field.many if many is None else many)

    return convert


def _pluck(field: fields.Pluck) -> Convert:
    key = field._field_data_key

    def convert(value: Any) -> Any:
        dumped = field.schema.dump(value, many=field.many)
        return [item[key] for item in dumped] if field.many else dumped[key]

    return convert

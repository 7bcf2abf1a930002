"""webargs parser for query strings: 400 errors in our envelope, duplicates rejected."""

from typing import Any, NoReturn

from flask import Request
from marshmallow import Schema, ValidationError
from webargs.fields import DelimitedList
from webargs.flaskparser import FlaskParser

from service.errors import InvalidParameter


class QueryParser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def load_querystring(self, req: Request, schema: Schema) -> Any:
        args = req.args
        joined: dict[str, str] = {}
        for field_name, field in schema.fields.items():
            name = field.data_key or field_name
            given = args.getlist(name)
            if len(given) > 1:
                if not isinstance(field, DelimitedList):
                    raise InvalidParameter(f"{name} was given more than once", param=name)
                # A filter taking several values reads them comma-separated or repeated
                # (type=a&type=b, what generated clients send): both mean the same.
                joined[name] = ",".join(given)
        # Every other parameter the schema knows appears at most once, so a plain dict of first
        # values is the same input. webargs' proxy over the MultiDict would raise and catch an
        # exception for each absent parameter the schema looks up.
        return {name: joined.get(name) or args[name] for name in args}

    def handle_error(
        self,
        error: ValidationError,
        req: Request,
        schema: Schema,
        *,
        error_status_code: int | None,
        error_headers: Any,
    ) -> NoReturn:
        messages = error.normalized_messages()  # type: ignore[no-untyped-call]  # marshmallow: unannotated
        per_field = messages.get("query", messages) if isinstance(messages, dict) else {}
        # Report the first bad parameter in the schema's declared order.
        order = [f.data_key or n for n, f in schema.fields.items()]
        name = min(per_field, key=lambda n: order.index(n) if n in order else len(order))
        detail = per_field[name]
        message = detail[0] if isinstance(detail, list) and detail else str(detail)
        raise InvalidParameter(message, param=name)

"""webargs parser for query strings: 400 errors in our envelope, duplicates rejected."""

from typing import Any, NoReturn

from flask import Request
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser

from service.errors import InvalidParameter


class QueryParser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def load_querystring(self, req: Request, schema: Schema) -> Any:
        args = req.args
        for field_name, field in schema.fields.items():
            name = field.data_key or field_name
            if len(args.getlist(name)) > 1:
                raise InvalidParameter(f"{name} was given more than once", param=name)
        # Every parameter the schema knows appears at most once (no schema takes a list), so a
        # plain dict of first values is the same input. webargs' proxy over the MultiDict would
        # raise and catch an exception for each absent parameter the schema looks up.
        return {name: args[name] for name in args}

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

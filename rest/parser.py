"""webargs parser for query strings: 400 errors in our envelope, duplicates rejected; with
speed tricks on, a query string already parsed for the same arguments and data version is not
parsed again (:class:`ParsedQueries`)."""

from typing import Any, NoReturn

from flask import Request, current_app
from marshmallow import Schema, ValidationError
from webargs.fields import DelimitedList
from webargs.flaskparser import FlaskParser

from service.errors import InvalidParameter
from web.caching import RecentlyUsed
from web.state import web_state

PARSED_QUERIES_EXTENSION = "cds.parsed_queries"
PARSED_QUERIES = 4096  # (arguments, query string) pairs remembered per worker


class ParsedQueries(RecentlyUsed[tuple[int, Schema, bytes], Any]):
    """What each query string parsed to, by (data version, arguments schema, query string), the
    least recently used forgotten first. Sound because the parse reads nothing but the query
    string (and the data, through the version) and gives frozen filter and page objects;
    refusals are never kept."""

    def __init__(self, size: int = PARSED_QUERIES) -> None:
        super().__init__(size)


class QueryParser(FlaskParser):
    DEFAULT_VALIDATION_STATUS = 400

    def parse(self, argmap: Any, req: Request | None = None, **options: Any) -> Any:
        """webargs' parse; a query string this app parsed for ``argmap`` under the current data
        version gives the same (immutable) answer again."""
        memo: ParsedQueries | None = current_app.extensions.get(PARSED_QUERIES_EXTENSION)
        if memo is None or options.get("location") != "query" or not isinstance(argmap, Schema):
            return super().parse(argmap, req, **options)
        req = req if req is not None else self.get_default_request()
        key = (web_state(current_app).version.get(), argmap, req.query_string)
        parsed = memo.get(key)
        if parsed is None:
            parsed = super().parse(argmap, req, **options)
            memo.put(key, parsed)
        return parsed

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

"""The v1 blueprint object, shared by the route modules."""

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from flask_smorest import Blueprint  # type: ignore[import-untyped]  # ships no type hints
from marshmallow import Schema

from .parser import QueryParser

View = TypeVar("View", bound=Callable[..., Any])


class V1Blueprint(Blueprint):  # type: ignore[misc]  # flask-smorest's Blueprint is untyped
    ARGUMENTS_PARSER = QueryParser()

    if TYPE_CHECKING:
        # Signatures of the flask-smorest decorators the routes use (it ships no type hints).
        def get(self, rule: str, **options: Any) -> Callable[[View], View]: ...

        def arguments(
            self, schema: Schema | type[Schema], *, location: str = ..., **kwargs: Any
        ) -> Callable[[View], View]: ...

        def response(
            self,
            status_code: int,
            schema: Schema | type[Schema] | None = None,
            *,
            headers: Mapping[str, Any] | None = None,
            **kwargs: Any,
        ) -> Callable[[View], View]: ...

        def alt_response(
            self,
            status_code: int,
            response: Any = None,
            *,
            schema: Schema | type[Schema] | None = None,
            description: str | None = None,
            headers: Mapping[str, Any] | None = None,
            **kwargs: Any,
        ) -> Callable[[View], View]: ...


bp = V1Blueprint("api_v1", __name__, url_prefix="/api/v1", description="Cannabis data, v1")

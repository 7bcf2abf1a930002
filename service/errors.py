"""Framework-free error hierarchy; the edges render these into the envelope or GraphQL errors."""


class ServiceError(Exception):
    """Base of every error the service raises on purpose; ``code`` equals the HTTP status."""

    code = 500
    slug = "server-error"

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class InvalidParameter(ServiceError):
    code = 400
    slug = "bad-request"


class Unauthorized(ServiceError):
    code = 401
    slug = "unauthorized"


class NotFound(ServiceError):
    code = 404
    slug = "not-found"

"""Automatic persisted queries in Apollo's protocol: ``extensions.persistedQuery`` =
``{"version": 1, "sha256Hash": "<hex>"}``, over GET and POST.

A hash alone runs the document stored under it, or is answered ``PersistedQueryNotFound`` (200,
as Apollo Server does, so the client sends the hash with its document); a hash with a document is
checked against the document's SHA-256, the document stored and run. The document then goes the
same way as one sent in full: parse limits, cost analysis, heavy-work bounds.
"""

import hashlib
import re
from dataclasses import replace

from strawberry.http import GraphQLRequestData

from web.documents import DocumentStore

from .refusals import TransportRefusal

EXTENSION = "persistedQuery"
VERSION = 1
NOT_FOUND = "PersistedQueryNotFound"  # Apollo Client matches this message or the code below
NOT_FOUND_CODE = "PERSISTED_QUERY_NOT_FOUND"
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")
SHOWN = 40  # characters of a bad value repeated in a message


def is_persisted(data: GraphQLRequestData) -> bool:
    return bool(data.extensions) and EXTENSION in (data.extensions or {})


def resolve_persisted(data: GraphQLRequestData, store: DocumentStore) -> GraphQLRequestData:
    """``data`` with its persisted document filled in (and ``persistedQuery`` taken out of its
    extensions); raise TransportRefusal for a bad extension or an unknown hash."""
    if not is_persisted(data):
        return data
    extensions = data.extensions or {}
    digest = _digest(extensions[EXTENSION])
    others = {name: value for name, value in extensions.items() if name != EXTENSION} or None
    query = data.query
    if query is None:
        query = store.get(digest)
        if query is None:
            raise TransportRefusal(200, NOT_FOUND, code=NOT_FOUND_CODE)
    else:
        actual = hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()
        if actual != digest:
            raise TransportRefusal(
                400,
                f"persistedQuery.sha256Hash {digest} is not the SHA-256 of the query sent with "
                f"it ({actual}); hash the query's text exactly as sent (UTF-8)",
            )
        store.put(digest, query)  # one over the size bound is run but not stored
    return replace(data, query=query, extensions=others)


def _digest(persisted: object) -> str:
    if not isinstance(persisted, dict):
        raise TransportRefusal(
            400,
            'extensions.persistedQuery must be an object: {"version": 1, "sha256Hash": '
            '"<SHA-256 of the query, 64 hex digits>"}',
        )
    version = persisted.get("version")
    if type(version) is not int or version != VERSION:
        raise TransportRefusal(
            400,
            f"persistedQuery.version must be {VERSION}, the only version supported; "
            f"got {_shown(version)}",
        )
    digest = persisted.get("sha256Hash")
    if not isinstance(digest, str) or not _HEX_DIGEST.fullmatch(digest):
        raise TransportRefusal(
            400,
            "persistedQuery.sha256Hash must be the SHA-256 of the query as 64 hex digits; "
            f"got {_shown(digest)}",
        )
    return digest.lower()


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."

"""API key creation, lookup and revocation; only a SHA-256 hash of a key is ever stored.

Key format: ``cds_live_`` + 32 characters of [A-Za-z0-9]: 26 random characters followed by a
6-character base62 CRC32 of everything before it, so typos and blind guesses are rejected without
touching the database.
"""

import hashlib
import re
import secrets
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from models import ApiKey

from .errors import InvalidParameter, NotFound, Unauthorized
from .vocab import KEY_TIERS

KEY_PREFIX = "cds_live_"
RANDOM_LENGTH = 26
CHECK_LENGTH = 6
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
KEY_PATTERN = re.compile(rf"^{KEY_PREFIX}[A-Za-z0-9]{{{RANDOM_LENGTH + CHECK_LENGTH}}}$")


@dataclass(frozen=True)
class KeyIdentity:
    """What a request needs to know about its live key: no secret, no ORM state (cacheable)."""

    id: int
    tier: str
    hourly_limit: int | None


@dataclass(frozen=True)
class NewKey:
    """A freshly created key: the plaintext exists only here, once."""

    plaintext: str
    record: ApiKey


def _base62(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, rest = divmod(number, 62)
        chars.append(BASE62[rest])
    return "".join(reversed(chars))


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode("ascii")), CHECK_LENGTH)


def hash_key(plaintext: str) -> str:
    """Return the hex SHA-256 digest stored for ``plaintext``."""
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def is_well_formed(candidate: str) -> bool:
    """True when ``candidate`` has the key format and a matching checksum."""
    if not KEY_PATTERN.fullmatch(candidate):
        return False
    body, check = candidate[:-CHECK_LENGTH], candidate[-CHECK_LENGTH:]
    return secrets.compare_digest(_checksum(body), check)


def generate_plaintext() -> str:
    """Return a new random key in the documented format."""
    body = KEY_PREFIX + "".join(secrets.choice(BASE62) for _ in range(RANDOM_LENGTH))
    return body + _checksum(body)


def create_key(
    session: Session, *, tier: str, name: str = "", hourly_limit: int | None = None
) -> NewKey:
    """Add a key row (caller commits) and return it with its one-time plaintext."""
    if tier not in KEY_TIERS:
        raise InvalidParameter(f"tier must be one of {', '.join(KEY_TIERS)}", param="tier")
    if hourly_limit is not None and hourly_limit < 1:
        raise InvalidParameter(
            "limit must be a positive number of requests per hour", param="limit"
        )
    if hourly_limit is not None and tier != "enterprise":
        raise InvalidParameter("a custom limit applies to enterprise keys only", param="limit")
    if tier == "enterprise" and hourly_limit is None:
        raise InvalidParameter("enterprise keys need --limit (requests per hour)", param="limit")
    plaintext = generate_plaintext()
    record = ApiKey(
        key_hash=hash_key(plaintext),
        last4=plaintext[-4:],
        tier=tier,
        name=name,
        hourly_limit=hourly_limit,
    )
    session.add(record)
    session.flush()
    return NewKey(plaintext=plaintext, record=record)


def check_presented(presented: str | None) -> str:
    """Return ``presented`` if it could be a key; raise Unauthorized (no database needed)."""
    if not presented:
        raise Unauthorized("API key missing: send it in the X-API-Key header")
    if not is_well_formed(presented):
        raise Unauthorized("API key invalid")
    return presented


def authenticate(session: Session, presented: str | None) -> KeyIdentity:
    """Return the live key matching ``presented``; raise Unauthorized if missing, bad or revoked."""
    key_hash = hash_key(check_presented(presented))
    row = session.execute(
        select(ApiKey.id, ApiKey.tier, ApiKey.hourly_limit).where(
            ApiKey.key_hash == key_hash, ApiKey.revoked_at.is_(None)
        )
    ).first()
    if row is None:
        raise Unauthorized("API key invalid")
    return KeyIdentity(id=row.id, tier=row.tier, hourly_limit=row.hourly_limit)


def list_keys(session: Session) -> list[ApiKey]:
    """Return every key record (no secrets exist to return), oldest first."""
    return list(session.scalars(select(ApiKey).order_by(ApiKey.id)))


def revoke_key(session: Session, key_id: int) -> ApiKey:
    """Mark key ``key_id`` revoked (caller commits); raise NotFound if there is no such key."""
    record = session.get(ApiKey, key_id)
    if record is None:
        raise NotFound(f"no API key with id {key_id}")
    if record.revoked_at is None:
        record.revoked_at = datetime.now(UTC)
    return record

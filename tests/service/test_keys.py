import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from models import ApiKey
from service import keys
from service.errors import InvalidParameter, NotFound, Unauthorized


def test_created_key_authenticates_and_only_its_hash_is_stored(session: Session) -> None:
    new = keys.create_key(session, tier="pro", name="partner")
    stored = session.scalars(select(ApiKey).where(ApiKey.id == new.record.id)).one()
    assert stored.key_hash == keys.hash_key(new.plaintext)
    assert stored.last4 == new.plaintext[-4:]
    assert new.plaintext not in (stored.key_hash, stored.name, stored.last4)
    assert keys.authenticate(session, new.plaintext).id == new.record.id


def test_enterprise_key_keeps_its_custom_limit(session: Session) -> None:
    new = keys.create_key(session, tier="enterprise", hourly_limit=50_000)
    assert keys.authenticate(session, new.plaintext).hourly_limit == 50_000


@pytest.mark.parametrize(
    ("tier", "limit", "param"),
    [
        ("gold", None, "tier"),
        ("free", 10, "limit"),
        ("enterprise", None, "limit"),
        ("enterprise", 0, "limit"),
    ],
)
def test_invalid_key_requests_name_the_parameter(
    session: Session, tier: str, limit: int | None, param: str
) -> None:
    with pytest.raises(InvalidParameter) as info:
        keys.create_key(session, tier=tier, hourly_limit=limit)
    assert info.value.param == param


@pytest.mark.parametrize("presented", [None, "", "nonsense", keys.KEY_PREFIX + "x" * 32])
def test_missing_or_malformed_keys_are_unauthorized(session: Session, presented) -> None:
    with pytest.raises(Unauthorized):
        keys.authenticate(session, presented)


def test_well_formed_but_unknown_key_is_unauthorized(session: Session) -> None:
    with pytest.raises(Unauthorized, match="invalid"):
        keys.authenticate(session, keys.generate_plaintext())


def test_revoked_key_stops_authenticating(session: Session) -> None:
    new = keys.create_key(session, tier="free")
    keys.revoke_key(session, new.record.id)
    session.flush()
    with pytest.raises(Unauthorized):
        keys.authenticate(session, new.plaintext)


def test_revoking_an_unknown_key_is_not_found(session: Session) -> None:
    with pytest.raises(NotFound):
        keys.revoke_key(session, 987_654)

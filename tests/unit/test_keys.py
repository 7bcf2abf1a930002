import re

import pytest

from service import keys


def test_generated_keys_have_the_documented_format() -> None:
    key = keys.generate_plaintext()
    assert re.fullmatch(r"cds_live_[A-Za-z0-9]{32}", key)
    assert keys.is_well_formed(key)


def test_generated_keys_differ() -> None:
    assert len({keys.generate_plaintext() for _ in range(200)}) == 200


def test_a_single_changed_character_breaks_the_checksum() -> None:
    key = keys.generate_plaintext()
    position = len(keys.KEY_PREFIX) + 3
    replacement = "A" if key[position] != "A" else "B"
    typo = key[:position] + replacement + key[position + 1 :]
    assert not keys.is_well_formed(typo)


@pytest.mark.parametrize(
    "candidate",
    [
        "",
        "cds_live_",
        "cds_test_" + "a" * 32,
        "cds_live_" + "a" * 31,
        "cds_live_" + "a" * 33,
        "cds_live_" + "é" * 32,
        "cds_live_" + "a" * 26 + "000000",
    ],
)
def test_malformed_candidates_are_rejected(candidate: str) -> None:
    assert not keys.is_well_formed(candidate)


def test_hash_is_hex_sha256_and_never_the_plaintext() -> None:
    key = keys.generate_plaintext()
    digest = keys.hash_key(key)
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert key not in digest

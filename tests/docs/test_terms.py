"""The README's tiers and terms agree with what the service defines (service.quotas,
service.terms), which the front page and the OpenAPI document render."""

import re
from pathlib import Path

from service.quotas import ENTERPRISE_DEFAULT_HOURLY_LIMIT, TIER_HOURLY_LIMITS
from service.terms import CREDIT_REQUIRED_TIERS, CREDIT_TEXT
from service.vocab import KEY_TIERS

ROOT = Path(__file__).resolve().parents[2]


def _tier_table(text: str) -> list[tuple[str, ...]]:
    rows = re.findall(r"^\| (free|pro|enterprise) \| (.+?) \| (.+?) \|$", text, re.M)
    return [tuple(row) for row in rows]


def test_the_readme_tier_table_states_the_services_quotas() -> None:
    expected = [
        (
            tier,
            f"{TIER_HOURLY_LIMITS[tier]:,}"
            if tier in TIER_HOURLY_LIMITS
            else f"set per key (default {ENTERPRISE_DEFAULT_HOURLY_LIMIT:,})",
            "required" if tier in CREDIT_REQUIRED_TIERS else "optional",
        )
        for tier in KEY_TIERS
    ]
    assert _tier_table((ROOT / "README.md").read_text(encoding="utf-8")) == expected


def test_the_readme_and_the_api_reference_name_the_credit_text() -> None:
    for name in ("README.md", "docs/api.md"):
        text = " ".join((ROOT / name).read_text(encoding="utf-8").split())
        assert f'"{CREDIT_TEXT}"' in text, name
        assert "may not be redistributed as a standalone data product" in text, name

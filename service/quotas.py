"""Tier quotas: requests per hour for a key (SPEC 8.1)."""

from typing import Protocol


class Tiered(Protocol):
    """A key record or identity: its tier and, for enterprise keys, a custom limit."""

    @property
    def tier(self) -> str: ...
    @property
    def hourly_limit(self) -> int | None: ...


TIER_HOURLY_LIMITS = {"free": 100, "pro": 1_000}
ENTERPRISE_DEFAULT_HOURLY_LIMIT = 10_000


def hourly_limit(key: Tiered) -> int:
    """Return the number of requests per hour ``key`` may make."""
    if key.tier == "enterprise":
        return key.hourly_limit or ENTERPRISE_DEFAULT_HOURLY_LIMIT
    return TIER_HOURLY_LIMITS[key.tier]


def limit_string(key: Tiered) -> str:
    """Return the quota in the ``N per hour`` notation rate limiters understand."""
    return f"{hourly_limit(key)} per hour"


COST_PER_UNIT = 1_000  # a GraphQL document costs one unit per started 1,000 of its estimate


def units_for_cost(cost: int) -> int:
    """Return the quota units a request of estimated ``cost`` is charged: at least 1."""
    return max(1, -(-cost // COST_PER_UNIT))

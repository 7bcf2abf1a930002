"""The terms of use every key is given under (SPEC 8.3), written once for every page that states
them: the front page and the OpenAPI document."""

CREDIT_TEXT = "Data powered by Cannabis Data Service"
# Tiers whose public pages must show CREDIT_TEXT with a followed link to the service.
CREDIT_REQUIRED_TIERS = frozenset({"free"})

TERMS_OF_USE = (
    "On the free tier, every public page that shows the data displays the credit "
    f'"{CREDIT_TEXT}" with a followed (dofollow) link to the service\'s site.',
    "The raw data may not be redistributed as a standalone data product or a competing API.",
    "Automated retries back off exponentially; deliberate abuse of the quotas may get a key "
    "revoked.",
    "Using the data lawfully is the user's responsibility.",
)

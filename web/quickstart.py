"""``flask quickstart``: the quick start's one process (seed when empty, a demo key when there is
none, a first call to paste, then the development server), so a restart boots the app once."""

import click

from service.quotas import TIER_HOURLY_LIMITS

# An afternoon of trying Swagger UI, GraphiQL and the docs spends more than a free key's hour.
DEMO_KEY_TIER = "pro"


def make_quickstart_command(
    seed: click.Command, create_key: click.Command, serve: click.Command
) -> click.Command:
    """Compose ``flask quickstart`` from the seed, key-creation and serve commands."""

    @click.command("quickstart")
    @click.option("--port", default=5000, show_default=True, type=int)
    @click.pass_context
    def quickstart(ctx: click.Context, port: int) -> None:
        """Seed if empty, create a demo key if none, print how to call, serve on 127.0.0.1."""
        ctx.invoke(seed, if_empty=True)
        key = ctx.invoke(create_key, tier=DEMO_KEY_TIER, name="local demo", if_none=True)
        url = f"http://127.0.0.1:{port}"
        if key:
            click.echo(
                f"The demo key is {DEMO_KEY_TIER} tier: "
                f"{TIER_HOURLY_LIMITS[DEMO_KEY_TIER]:,} requests an hour, shared by REST and "
                f"GraphQL (a free key has {TIER_HOURLY_LIMITS['free']:,})."
            )
        click.echo(
            f"Serving on {url} (Ctrl-C stops). Front page: {url}/  "
            f"Swagger UI: {url}/api/v1/docs  GraphiQL: {url}/graphql"
        )
        click.echo("Try:" if key else "Try (with your key):")
        click.echo(f"  curl -H 'X-API-Key: {key or 'YOUR_KEY'}' '{url}/api/v1/strains?limit=2'")
        ctx.invoke(serve, host="127.0.0.1", port=port)

    return quickstart

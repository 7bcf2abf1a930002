"""``flask quickstart``: the quick start's one process (seed when empty, a demo key when there is
none, a first call to paste, then the development server), so a restart boots the app once."""

import click


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
        key = ctx.invoke(create_key, tier="free", name="local demo", if_none=True)
        url = f"http://127.0.0.1:{port}"
        click.echo(
            f"Serving on {url} (Ctrl-C stops). Front page: {url}/  "
            f"Swagger UI: {url}/api/v1/docs  GraphiQL: {url}/graphql"
        )
        click.echo("Try:" if key else "Try (with your key):")
        click.echo(f"  curl -H 'X-API-Key: {key or 'YOUR_KEY'}' '{url}/api/v1/strains?limit=2'")
        ctx.invoke(serve, host="127.0.0.1", port=port)

    return quickstart

"""Links the service writes (error.docs, redirect Locations) never echo the request's Host.

The Host header is the client's to choose, so a link built from it can point anywhere. Links are
made from ``PUBLIC_BASE_URL`` when the operator sets it, else left relative to the service.
"""

from flask import Flask, Response, current_app, request


def public_link(path: str) -> str:
    """``path`` (starting with /) under the configured public base URL, or as it is."""
    base = current_app.config.get("PUBLIC_BASE_URL")
    return f"{base}{path}" if base else path


def init_links(app: Flask) -> None:
    """No redirects from merged slashes (404 instead), and no Host in any Location header."""
    # Werkzeug redirects /api//v1/strains to /api/v1/strains with an absolute URL built from
    # Host; a path that is not ours is simply not found.
    app.url_map.merge_slashes = False

    @app.after_request
    def host_free_location(response: Response) -> Response:
        location = response.headers.get("Location")
        if location is not None:
            own = request.host_url
            if location.startswith(own):
                response.headers["Location"] = public_link("/" + location[len(own) :])
        return response

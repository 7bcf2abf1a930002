"""The look the service's own HTML pages share (the front page and the error reference): one
small inline stylesheet, no script, nothing fetched from elsewhere, so they work offline."""

from html import escape

STYLE = """
:root { color-scheme: light dark; --accent: #2e7d32; --muted: #6b6b6b; --line: #d9d9d9; }
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       max-width: 46rem; margin: 2.5rem auto; padding: 0 1.25rem; }
header { border-bottom: 3px solid var(--accent); margin-bottom: 1.5rem; }
.brand { font-size: 1.1rem; font-weight: 600; margin: 0; }
.brand a { color: inherit; text-decoration: none; }
.tagline { color: var(--muted); margin: 0 0 .75rem; }
h1 { font-size: 1.8rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 .5rem; }
a { color: var(--accent); }
code, pre { font: .92em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
:not(pre) > code { white-space: nowrap; } /* X-RateLimit-Limit never breaks at a hyphen */
pre { background: rgba(127, 127, 127, .12); padding: .75rem 1rem; border-radius: 6px;
      overflow-x: auto; white-space: pre; }
/* One click selects a whole command, ready to copy: the pages run no script. */
pre code { -webkit-user-select: all; user-select: all; }
ol.steps { padding-left: 1.4rem; }
ol.steps li { margin-bottom: 1rem; }
ol.steps p { margin: .25rem 0; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: .35rem 1.25rem .35rem 0; border-bottom: 1px solid var(--line); }
ul.links { list-style: none; padding: 0; }
ul.links li { padding: .45rem 0; border-bottom: 1px solid var(--line); }
ul.links li span { color: var(--muted); }
section { border-top: 1px solid var(--line); padding-top: .25rem; }
section:target { background: rgba(46, 125, 50, .08); }
footer { margin-top: 2.5rem; color: var(--muted); font-size: .9rem; }
"""


def html_page(title: str, body: str) -> str:
    """A whole page: ``body`` (trusted HTML made by the caller) under the shared header."""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title>"
        '<link rel="icon" href="/favicon.ico" type="image/svg+xml">'
        f"<style>{STYLE}</style></head><body>"
        '<header><p class="brand"><a href="/">Cannabis Data Service</a></p>'
        '<p class="tagline">Strains, dispensaries, deals, doctors and state laws, as JSON</p>'
        f"</header><main>{body}</main></body></html>"
    )

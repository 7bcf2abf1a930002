"""Content-Security-Policy for the HTML pages both edges serve (GraphiQL, Swagger UI, errors).

Plain text in, header values out (no web framework), so REST and GraphQL share it. A page may
load scripts, styles, images and fonts from its own origin only; its inline ``<script>`` and
``<style>`` blocks are allowed by their SHA-256 hashes, never by ``'unsafe-inline'``; nothing may
frame it, change its base URL or receive its forms.
"""

import base64
import hashlib
import re

# Inline blocks: a <script> without src, or a <style>; the hash covers exactly the text between
# the tags, as the browser hashes it.
_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>(.*?)</script\s*>", re.I | re.S)
_INLINE_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.I | re.S)


def _hashes(pattern: re.Pattern[str], html: str) -> str:
    sources = dict.fromkeys(
        "'sha256-" + base64.b64encode(hashlib.sha256(block.encode()).digest()).decode() + "'"
        for block in pattern.findall(html)
    )
    return "".join(" " + source for source in sources)


def page_policy(html: str, *, data_urls: bool = False, connect: bool = False) -> str:
    """The Content-Security-Policy for ``html``.

    ``data_urls`` lets images and fonts come as ``data:`` URLs (icons and fonts inlined in a
    stylesheet); ``connect`` lets the page's scripts fetch from its own origin.
    """
    data = " data:" if data_urls else ""
    directives = [
        "default-src 'none'",
        f"script-src 'self'{_hashes(_INLINE_SCRIPT, html)}",
        f"style-src 'self'{_hashes(_INLINE_STYLE, html)}",
        f"img-src 'self'{data}",
        f"font-src 'self'{data}",
        *(["connect-src 'self'"] if connect else []),
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


def page_headers(html: str, *, data_urls: bool = False, connect: bool = False) -> dict[str, str]:
    """Security headers for serving ``html``: its policy, and no framing for older browsers."""
    return {
        "Content-Security-Policy": page_policy(html, data_urls=data_urls, connect=connect),
        "X-Frame-Options": "DENY",
    }

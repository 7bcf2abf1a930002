"""page_policy: same-origin assets, inline blocks by hash, nothing framed, based or posted."""

import base64
import hashlib

from web.csp import page_headers, page_policy


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


PAGE = """<!doctype html><html><head>
<style>body { margin: 0 }</style>
<script src="/static/app.js" integrity="sha384-x"></script>
<SCRIPT type="text/javascript">start("é");</SCRIPT>
</head><body><script>
  go();
</script><script>start("é");</script></body></html>"""


def test_inline_scripts_and_styles_are_allowed_by_the_hash_of_their_exact_text() -> None:
    started, going = _sha256('start("é");'), _sha256("\n  go();\n")  # each hash once
    styled = _sha256("body { margin: 0 }")
    assert page_policy(PAGE, data_urls=True, connect=True) == (
        f"default-src 'none'; script-src 'self' {started} {going}; style-src 'self' {styled}; "
        "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def test_a_page_without_inline_code_gets_same_origin_sources_only_and_no_connect() -> None:
    assert page_policy("<p>plain</p>") == (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def test_page_headers_add_the_legacy_frame_refusal() -> None:
    assert page_headers("<p>plain</p>") == {
        "Content-Security-Policy": page_policy("<p>plain</p>"),
        "X-Frame-Options": "DENY",
    }

"""The error reference has one source: the served page and docs/api.md come from ERROR_DOCS."""

from html import escape
from pathlib import Path

from flask.testing import FlaskClient

from web.reference import ERROR_DOCS, MARKDOWN_END, MARKDOWN_START, markdown

API_DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_the_docs_errors_section_is_the_generated_reference() -> None:
    text = API_DOCS.read_text(encoding="utf-8")
    start = text.index(MARKDOWN_START)
    end = text.index(MARKDOWN_END) + len(MARKDOWN_END) + 1
    assert text[start:end] == markdown(), (
        "docs/api.md's error reference differs from web/reference.py's ERROR_DOCS: "
        "regenerate it with `.venv/bin/python -m web.reference`"
    )


def test_the_served_page_carries_every_entry_of_the_same_source(client: FlaskClient) -> None:
    page = client.get("/docs/errors").get_data(as_text=True)
    for code, (name, when, action) in ERROR_DOCS.items():
        assert f'<section id="error-{code}"><h2>{code} {escape(name)}</h2>' in page
        assert escape(when) in page
        assert escape(action) in page
    assert sorted(ERROR_DOCS) == [400, 401, 404, 405, 410, 413, 414, 429, 431, 500, 503]

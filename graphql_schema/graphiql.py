"""The GraphiQL page: Strawberry's, with vendored assets, our example and key handling.

The page keeps the headers typed into GraphiQL in this browser and sends nothing to /graphql
while they hold no key: the placeholder would be refused with a 401 that counts as a failed key
attempt from the visitor's address. Introspection runs as soon as a whole key is entered, so the
documentation explorer fills without a manual re-fetch. Each patch names the text of
Strawberry's page it replaces and fails loudly when an upgrade changes that text.
"""

import json

from service.keys import KEY_PATTERN

STATIC_URL = "/graphql/static/graphiql"
CDN = "https://unpkg.com/"
# CDN path in Strawberry's page -> our vendored copy (same bytes: the integrity hashes hold).
_CDN_FILES = {
    "react@18.2.0/umd/react.production.min.js": "react.production.min.js",
    "react-dom@18.2.0/umd/react-dom.production.min.js": "react-dom.production.min.js",
    "js-cookie@3.0.5/dist/js.cookie.min.js": "js.cookie.min.js",
    "graphiql@3.8.3/graphiql.min.css": "graphiql.min.css",
    "@graphiql/plugin-explorer@1.0.2/dist/style.css": "plugin-explorer.css",
    "graphiql@3.8.3/graphiql.min.js": "graphiql.min.js",
    "@graphiql/plugin-explorer@1.0.2/dist/index.umd.js": "plugin-explorer.umd.js",
}
EXAMPLE_QUERY = """# Paste your API key into the Headers tab below, then press Run.
query NearbyWithDeals {
  dispensaries(zip: "80202", radius: 5, limit: 3) {
    total
    items {
      id
      name
      distance
      deals(limit: 2) { title discount expires }
      law { recreational possessionLimitOz }
    }
  }
}
"""
KEY_PLACEHOLDER = "paste your key here"
HEADERS_PLACEHOLDER = json.dumps({"X-API-Key": KEY_PLACEHOLDER}, indent=2)
# Where the page keeps the headers: inside GraphiQL's storage namespace (so its "Clear storage"
# forgets them) but not GraphiQL's own "headers" entry, which GraphiQL empties on every load.
SAVED_HEADERS = "graphiql:cds:headers"
NO_KEY_MESSAGE = (
    "Nothing was sent: put your API key in the Headers tab below, as "
    '{"X-API-Key": "cds_live_..."}. The documentation explorer loads as soon as it is there.'
)

# Defined before Strawberry's component. GraphiQL calls the fetcher with the parsed headers.
_KEY_GUARD = f"""
      const HEADERS_PLACEHOLDER = {json.dumps(HEADERS_PLACEHOLDER)};
      const KEY_PLACEHOLDER = {json.dumps(KEY_PLACEHOLDER)};
      const SAVED_HEADERS = {json.dumps(SAVED_HEADERS)};
      const WHOLE_KEY = new RegExp({json.dumps(KEY_PATTERN.pattern)});
      const NO_KEY = {{ data: null, errors: [{{ message: {json.dumps(NO_KEY_MESSAGE)} }}] }};

      // GraphiQL's "Persist headers" setting (on unless the visitor turned it off).
      function persistHeaders() {{
        return localStorage.getItem("graphiql:shouldPersistHeaders") !== "false";
      }}

      function savedHeaders() {{
        if (!persistHeaders()) {{
          localStorage.removeItem(SAVED_HEADERS);
          return null;
        }}
        return localStorage.getItem(SAVED_HEADERS);
      }}

      function rememberHeaders(text) {{
        if (persistHeaders()) {{
          localStorage.setItem(SAVED_HEADERS, text);
        }}
      }}

      // The key the server reads from these headers (X-API-Key, else a Bearer token; names in
      // any case), or null when it is missing, empty or the placeholder.
      function presentedKey(headers) {{
        let key = "";
        let bearer = "";
        for (const [name, value] of Object.entries(headers || {{}})) {{
          const text = String(value).trim();
          if (name.toLowerCase() === "x-api-key") {{
            key = text;
          }} else if (name.toLowerCase() === "authorization") {{
            const found = /^bearer\\s+(.+)$/i.exec(text);
            bearer = found ? found[1].trim() : "";
          }}
        }}
        const presented = key || bearer;
        return presented && !presented.includes(KEY_PLACEHOLDER) ? presented : null;
      }}

      // The whole key in the headers' text, or null (while a key is typed, it is not one yet).
      function wholeKeyIn(text) {{
        let headers = {{}};
        try {{
          headers = JSON.parse(text || "{{}}");
        }} catch {{
          return null;
        }}
        const key = presentedKey(headers);
        return key && WHOLE_KEY.test(key) ? key : null;
      }}

      // Sends an operation only when the headers carry a key; answers the others itself.
      function keyedFetcher() {{
        return (params, options) =>
          presentedKey(options && options.headers)
            ? sendingFetcher(params, options)
            : Promise.resolve(NO_KEY);
      }}

"""
# Strawberry's page text -> ours, applied in order.
_PATCHES = (
    ("const fetcher = GraphiQL.createFetcher({", "const sendingFetcher = GraphiQL.createFetcher({"),
    ("function GraphiQLWithExplorer() {", _KEY_GUARD + "      function GraphiQLWithExplorer() {"),
    (
        "React.useState(parameters.headers);",
        "React.useState(\n"
        "          () => parameters.headers || savedHeaders() || HEADERS_PLACEHOLDER,\n"
        "        );\n"
        "        // GraphiQL introspects again whenever its fetcher changes: at each new key.\n"
        "        const [schemaKey, setSchemaKey] = React.useState(() => wholeKeyIn(headers));\n"
        "        const fetcher = React.useMemo(keyedFetcher, [schemaKey]);",
    ),
    (
        "setHeaders(newHeaders);",
        "setHeaders(newHeaders);\n"
        "          rememberHeaders(newHeaders);\n"
        "          const key = wholeKeyIn(newHeaders);\n"
        "          if (key) {\n"
        "            setSchemaKey(key);\n"
        "          }",
    ),
    # Passed as true, GraphiQL would turn the setting back on at every load.
    ("shouldPersistHeaders: true,", "shouldPersistHeaders: persistHeaders() || undefined,"),
    ("<title>Strawberry GraphiQL</title>", "<title>Cannabis Data Service GraphQL</title>"),
)


def _patched(html: str, old: str, new: str) -> str:
    if html.count(old) != 1:
        raise RuntimeError(f"GraphiQL page no longer has {old!r} once; update graphiql.py")
    return html.replace(old, new)


def graphiql_page(strawberry_page: str) -> str:
    """``strawberry_page`` (Strawberry's GraphiQL page) with its CDN assets replaced by our
    vendored copies, our example query and the key handling described above."""
    html = strawberry_page
    for path, filename in _CDN_FILES.items():
        html = _patched(html, CDN + path, f"{STATIC_URL}/{filename}")
    start = html.index("const EXAMPLE_QUERY = `") + len("const EXAMPLE_QUERY = `")
    end = html.index("`;", start)
    html = html[:start] + EXAMPLE_QUERY + html[end:]
    for old, new in _PATCHES:
        html = _patched(html, old, new)
    return html

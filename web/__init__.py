"""The HTTP platform both edges run through: settings of the web tier, request database handles,
authentication, quotas and limits, conditional requests, response caches and replay, error
envelopes and the error reference, CORS and compression, logs and metrics, health, request ids,
the JSON provider, serving helpers, route policies (web.routes) and the order of the request
hooks (web.pipeline). Speed tricks that lean on private library internals live in web.accel.

May import service, models, flask, flask_limiter, werkzeug and the platform libraries (limits,
flask-cors, flask-compress, prometheus, structlog, orjson, cachetools); never rest,
graphql_schema or seed.

Importing the package imports nothing else (gunicorn.conf.py imports some of its modules before
the metrics directory is set up): ``web.wiring.init_web`` puts the whole platform on an app.
"""

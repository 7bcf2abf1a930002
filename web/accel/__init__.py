"""Speed tricks of the web tier, kept apart because they lean on what the libraries do not promise.

Each module opens with the private names it uses and lists them in ``PRIVATE_API`` (dotted
paths: the longest importable module, then attributes), which a test resolves against the
installed versions. web.pipeline and web.wiring install them only while ``SPEED_TRICKS`` is
on; off, Flask, Flask-Limiter, limits, flask-cors and CPython run as shipped.

May import what web may, and web's own modules; web imports these only from its wiring
(web.pipeline, web.wiring, web.state).
"""

"""The domain and query layer shared by the REST and GraphQL edges.

May import models, sqlalchemy and the standard library; never flask, marshmallow, strawberry,
flask_limiter, the edges or seed. Every function takes the session as its first argument and never
opens, commits or closes one.
"""

"""What a stored response is filed under: everything it depends on, and nothing else."""

from datetime import date

from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from web.accel.replay import replay_key

DAY = date(2026, 11, 23)


def _key(path: str, *, version: int = 3, day: date = DAY, body: bytes = b"", **headers) -> str:
    request = Request(EnvironBuilder(path=path, headers=headers).get_environ())
    return replay_key(request, version, day, body)


def test_parameter_order_and_the_api_key_parameter_do_not_matter() -> None:
    assert _key("/api/v1/strains?type=indica&limit=3") == _key(
        "/api/v1/strains?limit=3&api_key=cds_live_x&type=indica"
    )


def test_data_version_day_path_and_parameters_all_matter() -> None:
    base = _key("/api/v1/strains?limit=3")
    assert (
        len(
            {
                base,
                _key("/api/v1/strains?limit=3", version=4),
                _key("/api/v1/strains?limit=3", day=date(2026, 11, 24)),
                _key("/api/v1/strains?limit=4"),
                _key("/api/v1/strains?limit=3&limit=3"),
                _key("/api/v1/deals?limit=3"),
            }
        )
        == 6
    )


def test_the_headers_a_response_varies_by_and_the_body_matter() -> None:
    base = _key("/graphql", body=b'{"query": "{ laws { state } }"}')
    assert (
        len(
            {
                base,
                _key(
                    "/graphql", body=b'{"query": "{ laws { state } }"}', **{"Accept-Encoding": "br"}
                ),
                _key(
                    "/graphql", body=b'{"query": "{ laws { state } }"}', Origin="https://a.example"
                ),
                _key("/graphql", body=b'{"query": "{ laws { stateCode } }"}'),
                _key(
                    "/graphql",
                    body=b'{"query": "{ laws { state } }"}',
                    **{"Content-Type": "application/graphql"},
                ),
            }
        )
        == 5
    )
    assert base == _key("/graphql", body=b'{"query": "{ laws { state } }"}', **{"X-API-Key": "a"})

"""Whatever the body, a JSON endpoint answers in the envelope and never with a 500."""

import pytest

pytestmark = pytest.mark.django_db

BODIES = {
    "deeply nested array": "[" * 100_000 + "]" * 100_000,
    "deeply nested object": '{"a":' * 5_000 + "1" + "}" * 5_000,
    "null": "null",
    "huge exponent": "1e999999",
    "string": '"text"',
    "empty array": "[]",
    "operator object": '{"app_id": {"$gt": 1}}',
    "too many events": '{"events": [' + ",".join(["{}"] * 600) + "]}",
    "not utf-8": b"\xff\xfe{",
    "over-long values": '{"app_id":"' + "x" * 100 + '","platform":"ios","sdk_version":"1",'
                        '"device_id":"' + "d" * 500 + '"}',
}
SDK_PATHS = ("/api/v1/installs", "/api/v1/events", "/api/v1/deeplinks/resolve")
PATHS = [*SDK_PATHS, "/api/v1/apps", "/api/v1/auth/signup", "/api/v1/auth/login",
         "/api/v1/postbacks", "/api/v1/webhooks", "/api/v1/costs"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", BODIES)
def test_bad_bodies_are_refused_in_the_envelope(api, owner_api, sdk_key, path, name):
    client = api if path in SDK_PATHS else owner_api
    if client is api:
        client.credentials(HTTP_X_API_KEY=sdk_key)
    body = BODIES[name]
    response = client.post(path, data=body if isinstance(body, bytes) else body.encode(),
                           content_type="application/json")
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:200])
    assert response.json()["success"] is False

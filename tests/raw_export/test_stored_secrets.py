"""A data destination's secret access key at rest (attribution_site/secrets.py): one stored by
the code before purposes still opens the bucket, and one that no longer decrypts is answered in
words by the test endpoint and the console page, never a 500."""

from __future__ import annotations

import pytest

from raw_export.models import Destination
from tests.legacy_secrets import FOREIGN_KEY, legacy_token
from tests.raw_export.helpers import create, s3_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/data-destinations"
LOST = "The secret access key can no longer be decrypted (the server's SECRET_KEY changed)"


def destination_with(owner_api, s3_server, s3_bucket, token_of) -> dict:
    destination = create(owner_api, s3_body(s3_server, s3_bucket))
    Destination.objects.filter(id=destination["id"]).update(
        secret_access_key_encrypted=token_of(s3_server.secret_access_key))
    return destination


def test_a_key_stored_before_purposes_still_opens_the_bucket(owner_api, s3_server, s3_bucket):
    destination = destination_with(owner_api, s3_server, s3_bucket, legacy_token)
    response = owner_api.post(f"{URL}/{destination['id']}/test")
    assert response.status_code == 200
    assert response.json()["data"] == {"ok": True, "reason": "", "message": ""}


def test_a_key_that_no_longer_decrypts_is_answered_in_words(owner_api, console, s3_server,
                                                            s3_bucket):
    destination = destination_with(owner_api, s3_server, s3_bucket,
                                   lambda secret: legacy_token(secret, key=FOREIGN_KEY))
    response = owner_api.post(f"{URL}/{destination['id']}/test")
    assert response.status_code == 200
    answer = response.json()["data"]
    assert answer["ok"] is False and answer["reason"] == "bad_credentials"
    assert answer["message"].startswith(LOST) and "enter it again" in answer["message"]
    page = console.post(f"/console/data-destinations/{destination['id']}", {"action": "test"},
                        follow=True)
    assert page.status_code == 200
    assert "The test failed: " + LOST in page.content.decode().replace("&#x27;", "'")

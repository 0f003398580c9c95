"""attribution_site/secrets.py: a purpose per caller, tokens written before purposes still
read under every one, SECRET_KEY rotation through SECRET_KEY_FALLBACKS (settings and the
environment), and an error that names what could not be read and no other app."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attribution_site import secrets
from attribution_site.secrets import PURPOSES, SecretUnreadable, secret_decrypt, secret_encrypt
from tests.legacy_secrets import FOREIGN_KEY, legacy_token

ROOT = Path(__file__).resolve().parents[2]
NEW_KEY = "a-brand-new-secret-key-for-this-deployment-0000"


def test_the_webhook_purpose_keeps_the_label_its_tokens_were_written_under():
    assert secrets.WEBHOOK_SIGNING.info == b"webhook-signing-secret/v1"
    assert len({purpose.info for purpose in PURPOSES}) == len(PURPOSES)


@pytest.mark.parametrize("purpose", PURPOSES, ids=lambda purpose: purpose.info.decode())
def test_each_purpose_reads_back_what_it_wrote_and_never_stores_it_in_clear(purpose):
    token = secret_encrypt("s3cr3t-value", purpose=purpose)
    assert token.startswith("v2:") and "s3cr3t" not in token
    assert secret_decrypt(token, purpose=purpose) == "s3cr3t-value"


@pytest.mark.parametrize("written,read", list(itertools.permutations(PURPOSES, 2)),
                         ids=lambda purpose: purpose.info.decode())
def test_a_token_does_not_open_under_another_purpose(written, read):
    token = secret_encrypt("s3cr3t-value", purpose=written)
    with pytest.raises(SecretUnreadable):
        secret_decrypt(token, purpose=read)


@pytest.mark.parametrize("purpose", PURPOSES, ids=lambda purpose: purpose.info.decode())
def test_a_token_the_code_wrote_before_purposes_still_reads_under_each(purpose):
    assert secret_decrypt(legacy_token("stored-before"), purpose=purpose) == "stored-before"


@pytest.mark.parametrize("purpose", PURPOSES, ids=lambda purpose: purpose.info.decode())
def test_after_a_rotation_old_tokens_read_through_the_fallback_and_new_ones_use_the_new_key(
        purpose, settings):
    old_key = settings.SECRET_KEY
    legacy, current = legacy_token("stored-before"), secret_encrypt("kept", purpose=purpose)
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = NEW_KEY, [old_key]
    assert secret_decrypt(legacy, purpose=purpose) == "stored-before"
    assert secret_decrypt(current, purpose=purpose) == "kept"
    written_now = secret_encrypt("new", purpose=purpose)
    settings.SECRET_KEY_FALLBACKS = []
    assert secret_decrypt(written_now, purpose=purpose) == "new"
    for token in (legacy, current):
        with pytest.raises(SecretUnreadable):
            secret_decrypt(token, purpose=purpose)


@pytest.mark.parametrize("purpose", PURPOSES, ids=lambda purpose: purpose.info.decode())
def test_an_unreadable_secret_is_named_neutrally(purpose):
    with pytest.raises(SecretUnreadable) as caught:
        secret_decrypt(legacy_token("x", key=FOREIGN_KEY), purpose=purpose)
    message = str(caught.value)
    assert message.startswith(f"A stored secret cannot be decrypted: {purpose.what} was ")
    assert "SECRET_KEY_FALLBACKS" in message
    if purpose is not secrets.WEBHOOK_SIGNING:
        assert "webhook" not in message.lower()


def test_an_operator_rotates_the_key_through_the_environment(settings):
    """SECRET_KEY_FALLBACKS is read from the environment like every setting."""
    token = secret_encrypt("kept across the rotation", purpose=secrets.SDK_REQUEST_SIGNING)
    env = {**os.environ, "SECRET_KEY": NEW_KEY,
           "SECRET_KEY_FALLBACKS": f"an-older-key-still-listed-000000000000,{settings.SECRET_KEY}"}
    script = ("import django; django.setup(); from attribution_site import secrets as s; "
              f"print(s.secret_decrypt({token!r}, purpose=s.SDK_REQUEST_SIGNING))")
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**env, "DJANGO_SETTINGS_MODULE": "attribution_site.settings"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "kept across the rotation"

"""audit/masking.py: what an entry keeps of the fields a person sent. No database."""

import io

from audit.masking import MASK, form_fields, is_secret_name, masked


class Upload(io.BytesIO):
    name = "costs.csv"
    size = 12


def test_every_secret_like_name_is_masked_whatever_the_endpoint():
    sent = {"client_secret": "s1", "dev_token": "t", "password": "p", "credentials": {"a": 1},
            "private_key": "k", "access_token": "a", "refresh_token": "r", "api_key": "x",
            "secret_access_key": "y", "decryption_key": "z", "otp": "123456",
            "clientSecret": "camel", "Authorization": "Bearer abc", "recovery_codes": ["a"]}

    assert masked(sent) == {name: MASK for name in sent}


def test_ids_prefixes_and_ordinary_fields_are_kept():
    sent = {"key_id": "k_1", "key_prefix": "ak_", "access_key_id": "AKIA", "name": "Runner",
            "events": ["install"], "active": True, "max": 3, "ratio": 0.5, "note": None}

    assert masked(sent) == sent


def test_secrets_nested_in_lists_and_objects_are_masked():
    sent = {"destinations": [{"bucket": "b", "secret": "s"}], "meta": {"access_token": "t"}}

    assert masked(sent) == {"destinations": [{"bucket": "b", "secret": MASK}],
                            "meta": {"access_token": MASK}}


def test_a_pem_block_is_masked_under_any_name():
    assert masked({"notes": "-----BEGIN PRIVATE KEY-----\nabc"}) == {"notes": MASK}


def test_files_are_named_long_text_is_cut_and_the_form_token_dropped():
    kept = masked({"file": Upload(b"x"), "text": "a" * 600, "csrfmiddlewaretoken": "c"})

    assert kept["file"] == "file costs.csv (12 bytes)"
    assert kept["text"].startswith("a" * 500) and kept["text"].endswith("(600 characters)")
    assert "csrfmiddlewaretoken" not in kept


def test_names_are_read_by_words_not_by_letters():
    assert is_secret_name("webhookSecret") and is_secret_name("signing-secret")
    assert not is_secret_name("keyword") and not is_secret_name("monkey_id")
    assert not is_secret_name("tokenizer_version") and not is_secret_name("")


class Form:
    """What Django's QueryDict offers: `lists()`."""

    def __init__(self, pairs):
        self.pairs = pairs

    def lists(self):
        return list(self.pairs.items())


def test_a_form_keeps_one_value_or_the_list_when_a_field_repeats():
    assert form_fields(Form({"name": ["a"], "topics": ["installs", "events"]})) == {
        "name": "a", "topics": ["installs", "events"]}

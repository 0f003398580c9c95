"""Link destinations: absolute http(s) URLs by the click redirector's own rule, or the app's own
URL scheme where an app can open it (iOS and Android); nothing else. No database."""

import pytest

from links.destinations import app_scheme, destination_problem


def problem(value, *, url_scheme="myapp", allow_app_scheme=True):
    return destination_problem(value, url_scheme=url_scheme, allow_app_scheme=allow_app_scheme)


@pytest.mark.parametrize("value", [
    "https://example.com/", "http://example.com/path?x=1#frag", "HTTPS://EXAMPLE.COM",
    "https://apps.apple.com/app/id123", "https://[2001:db8::1]/x", "https://example.com:8443/"])
def test_an_absolute_http_url_with_a_host_is_a_destination(value):
    assert problem(value) is None
    assert problem(value, allow_app_scheme=False) is None


@pytest.mark.parametrize("value", [
    "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>x</script>",
    "vbscript:msgbox", "file:///etc/passwd", "/relative/path", "//evil.example/",
    "example.com", "ftp://example.com/", "https:///nohost", "https://exa mple.com/",
    "https://example.com/\x00", "https:\\\\evil.example", "otherapp://open", "intent://x",
    "myapp:no-slashes", "https://"])
def test_anything_else_is_refused(value):
    assert problem(value) is not None


def test_the_apps_own_scheme_opens_the_app_on_ios_and_android():
    assert problem("myapp://product/42?ref=link") is None
    assert problem("MYAPP://product/42") is None
    assert problem("myapp://") is None


def test_the_web_fallback_cannot_use_the_apps_scheme():
    assert problem("myapp://product/42", allow_app_scheme=False) == (
        "Must be an absolute http(s) URL.")


def test_an_app_without_a_scheme_allows_only_http():
    assert problem("myapp://product/42", url_scheme=None) == "Must be an absolute http(s) URL."


def test_the_message_names_the_apps_scheme_when_it_has_one():
    assert problem("javascript:alert(1)") == (
        "Must be an absolute http(s) URL or a myapp:// URL of the app.")


def test_the_apps_scheme_url_refuses_spaces_and_control_characters():
    assert problem("myapp://a b") is not None
    assert problem("myapp://a\nb") is not None
    assert problem("myapp://a\\b") is not None


def test_a_destination_over_2048_characters_is_refused():
    assert problem("https://example.com/" + "a" * 2048) == "Must be at most 2048 characters."


@pytest.mark.parametrize("stored,expected", [
    ("myapp", "myapp"), ("MyApp:", "myapp"), ("myapp://", "myapp"), ("fb123.x-y+z", "fb123.x-y+z"),
    ("", None), (None, None), ("javascript", None), ("https", None), ("data:", None),
    ("1app", None), ("my app", None)])
def test_the_apps_scheme_is_read_bare_and_dangerous_ones_never_count(stored, expected):
    assert app_scheme(stored) == expected


def test_an_app_claiming_javascript_as_its_scheme_still_cannot_send_visitors_there():
    assert problem("javascript://alert(1)", url_scheme="javascript") is not None

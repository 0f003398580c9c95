"""Configuration comes only from the environment, and a bad value stops start-up with a
message naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from attribution_site.env import Env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("raw,expected", [("1", True), ("true", True), ("ON", True),
                                          ("0", False), ("no", False), ("", False)])
def test_booleans_read_the_usual_spellings(raw, expected):
    assert Env({"DEBUG": raw}).bool("DEBUG", not expected) is expected


@pytest.mark.parametrize("method,raw,args", [
    ("bool", "maybe", (False,)), ("int", "ten", (1,)), ("int", "-1", (1,)),
    ("int_list", "60,x", ([60],)), ("choice", "LOUD", ("INFO", {"INFO", "DEBUG"})),
])
def test_a_bad_value_names_the_variable(method, raw, args):
    env = Env({"THE_VARIABLE": raw})
    kwargs = {"minimum": 0} if method == "int" else {}
    with pytest.raises(ImproperlyConfigured, match="THE_VARIABLE"):
        getattr(env, method)("THE_VARIABLE", *args, **kwargs)


def test_lists_and_defaults():
    env = Env({"HOSTS": " a.example.com, b.example.com ,", "DELAYS": "60,300"})
    assert env.list("HOSTS", []) == ["a.example.com", "b.example.com"]
    assert env.int_list("DELAYS", [1]) == [60, 300]
    assert env.str("MISSING", "fallback") == "fallback"


def start_up(**overrides) -> subprocess.CompletedProcess:
    """Load the real settings in a fresh interpreter with this environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    env.update(overrides)
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_without_secret_key_and_debug_off_the_service_refuses_to_start():
    result = start_up(DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize("name,value", [("NUM_PROXIES", "two"), ("LOG_LEVEL", "LOUD"),
                                        ("DEBUG", "perhaps"), ("REDIS_URL", "http://x"),
                                        ("DATABASE_URL", "nonsense://")])
def test_a_bad_variable_stops_start_up_naming_it(name, value):
    result = start_up(SECRET_KEY="a-long-enough-secret-key-for-this-test", **{name: value})
    assert result.returncode != 0
    assert name in result.stderr


def test_a_good_configuration_starts():
    result = start_up(SECRET_KEY="a-long-enough-secret-key-for-this-test", DEBUG="0",
                      ALLOWED_HOSTS="api.example.com", NUM_PROXIES="1")
    assert result.returncode == 0, result.stderr


def test_a_default_report_currency_that_does_not_exist_stops_start_up():
    result = start_up(SECRET_KEY="a-long-enough-secret-key-for-this-test",
                      ANALYTICS_DEFAULT_CURRENCY="XYZ")
    assert result.returncode != 0
    assert "ANALYTICS_DEFAULT_CURRENCY must be an ISO 4217 code such as USD, got 'XYZ'" \
        in result.stderr


@pytest.mark.parametrize("raw", ["http://graph.facebook.com", "https://graph.facebook.com/v19.0",
                                 "https://user:pw@graph.facebook.com", "graph.facebook.com",
                                 "https://", "https://graph.facebook.com?x=1"])
def test_a_platforms_origin_must_be_https_without_a_path(raw):
    with pytest.raises(ImproperlyConfigured, match="META_GRAPH_API_URL"):
        Env({"META_GRAPH_API_URL": raw}).https_origin("META_GRAPH_API_URL", "https://x.example")


def test_a_platforms_origin_defaults_and_loses_its_trailing_slash():
    env = Env({"GOOGLE_ADS_API_URL": "https://127.0.0.1:8443/"})
    assert env.https_origin("GOOGLE_ADS_API_URL", "https://www.googleadservices.com") == (
        "https://127.0.0.1:8443")
    assert Env({}).https_origin("META_GRAPH_API_URL", "https://graph.facebook.com") == (
        "https://graph.facebook.com")

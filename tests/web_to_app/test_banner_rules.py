"""The banner's pure rules: the deep link template, devices and the app a button opens."""

from __future__ import annotations

import uuid

import pytest

from web_to_app import banner_rules as rules

IOS, ANDROID = uuid.UUID(int=1), uuid.UUID(int=2)
LINKED = [(IOS, "ios"), (ANDROID, "android")]


@pytest.mark.parametrize("template", ["product/{path}", "home", "{path}", "x/{{literal}}/{path}",
                                      ""])
def test_a_template_with_only_path_is_accepted(template):
    assert rules.template_problem(template) is None


@pytest.mark.parametrize("template,problem", [
    ("product/{id}", "Unknown placeholder {id}: the only one is {path}."),
    ("product/{}", "Unknown placeholder {}: the only one is {path}."),
    ("product/{path.x}", "Unknown placeholder {path.x}: the only one is {path}."),
    ("product/{path!r}", "Unknown placeholder {path}: the only one is {path}."),
    ("product/{path:>9}", "Unknown placeholder {path}: the only one is {path}."),
    ("product/{path", "A { or } without its pair; write {{ or }} for a brace itself."),
    ("product/}", "A { or } without its pair; write {{ or }} for a brace itself."),
])
def test_any_other_placeholder_or_a_lone_brace_is_refused(template, problem):
    assert rules.template_problem(template) == problem


@pytest.mark.parametrize("url,path", [
    ("https://shop.example/shoes/red?size=9#top", "shoes/red"),
    ("https://shop.example/", ""),
    ("https://shop.example", ""),
    ("/shoes/red?x=1", "shoes/red"),
    ("https://shop.example//double", "double"),
])
def test_path_is_the_pages_path_without_its_leading_slash(url, path):
    assert rules.page_path(url) == path


def test_the_template_is_filled_with_the_path():
    assert rules.deep_link_fill("product/{path}", url="https://s.example/p/42?a=1") == (
        "product/p/42")
    assert rules.deep_link_fill("{{x}}/{path}", url="https://s.example/a") == "{x}/a"


@pytest.mark.parametrize("ua_platform,device", [("ios", "ios"), ("android", "android"),
                                               ("other", "desktop"), ("", "desktop")])
def test_devices(ua_platform, device):
    assert rules.device_of(ua_platform=ua_platform) == device


def test_a_phone_gets_its_platforms_app_and_a_desktop_the_first_linked():
    assert rules.app_for_device(device="android", linked=LINKED) == ANDROID
    assert rules.app_for_device(device="ios", linked=LINKED) == IOS
    assert rules.app_for_device(device="desktop", linked=LINKED) == IOS
    assert rules.app_for_device(device="ios", linked=[(ANDROID, "android")]) is None


def test_a_banner_shows_only_on_its_platforms_with_an_app_to_open():
    assert rules.shown_on(platforms=["android"], device="android", linked=LINKED) == ANDROID
    assert rules.shown_on(platforms=["android"], device="ios", linked=LINKED) is None
    assert rules.shown_on(platforms=["desktop"], device="desktop", linked=LINKED) == IOS
    assert rules.shown_on(platforms=["ios"], device="ios", linked=[]) is None


def test_platforms_need_linked_apps_of_their_kind():
    assert rules.platforms_problem(platforms=["ios", "desktop"], linked_platforms=["ios"]) is None
    assert rules.platforms_problem(platforms=["android"], linked_platforms=["ios"]) == (
        "No android app is linked to this web app (linked_apps).")
    assert rules.platforms_problem(platforms=["desktop"], linked_platforms=[]) == (
        "Link an iOS or Android app to this web app first (linked_apps).")

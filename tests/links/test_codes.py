"""Link codes: generated ones are short and unambiguous; chosen ones are letters, digits, '-'
and '_' and never one of the service's own paths; the short URL they make. No database."""

import re

import pytest

from links import codes


def test_a_generated_code_is_seven_characters_without_look_alikes():
    for _ in range(200):
        code = codes.code_generate()
        assert len(code) == codes.GENERATED_LENGTH == 7
        assert set(code) <= set(codes.GENERATED_ALPHABET)
        assert not set(code) & set("0Oo1lI")


def test_generated_codes_differ():
    assert len({codes.code_generate() for _ in range(500)}) == 500


def test_a_generated_code_is_itself_a_valid_chosen_code():
    assert codes.code_problem(codes.code_generate()) is None


@pytest.mark.parametrize("code", ["summer-sale", "Promo_2025", "abc", "A" * 64, "x-_-y"])
def test_letters_digits_dashes_and_underscores_are_a_valid_code(code):
    assert codes.code_problem(code) is None


@pytest.mark.parametrize("code", ["ab", "A" * 65, "", "with space", "slash/code", "dot.code",
                                  "ümlaut", "percent%20", "new\nline", "abc\n", "q?x=1",
                                  "hash#tag", ".well-known"])
def test_anything_else_is_not_a_code(code):
    assert codes.code_problem(code) == codes.INVALID_MESSAGE


@pytest.mark.parametrize("code", ["api", "API", "admin", "console", "static", "healthz",
                                  "readyz", "Admin", "well-known"])
def test_the_services_own_paths_are_reserved_in_any_case(code):
    assert codes.code_problem(code) == codes.RESERVED_MESSAGE


def test_a_single_letter_l_is_refused_as_too_short_and_reserved_anyway():
    assert "l" in codes.RESERVED
    assert codes.code_problem("l") is not None


def test_a_custom_domain_link_lives_at_the_root_over_https():
    assert codes.short_url(code="summer", domain_host="go.example.com",
                           own_origin="http://127.0.0.1:8000") == "https://go.example.com/summer"


def test_a_link_on_the_services_own_host_lives_under_l():
    assert codes.short_url(code="summer", domain_host=None,
                           own_origin="https://attr.example.com/") == (
        "https://attr.example.com/l/summer")


def test_codes_need_no_quoting_in_a_url():
    assert re.fullmatch(r"[A-Za-z0-9_-]+", codes.GENERATED_ALPHABET)


@pytest.mark.parametrize("code,valid", [("summer", True), ("A-b_9", True), ("", False),
                                        ("a b", False), ("a/b", False), ("é", False),
                                        ("x" * 65, False)])
def test_a_url_may_name_a_link_only_with_a_codes_characters(code, valid):
    assert codes.could_be_code(code) is valid

"""A link's QR code: its short URL as an SVG or PNG of the asked size; bad parameters answered
with the envelope."""

import struct
import xml.etree.ElementTree as ET

import pytest

from links.models import Link

pytestmark = pytest.mark.django_db

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def link(app):
    return Link.objects.create(app=app, code="summer", media_source="instagram")


def qr(api, link, **params):
    return api.get(f"/api/v1/links/{link.id}/qr", params)


def png_width(content: bytes) -> int:
    assert content.startswith(PNG_SIGNATURE)
    return struct.unpack(">I", content[16:20])[0]  # IHDR's width


def svg_root(content: bytes) -> ET.Element:
    root = ET.fromstring(content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def test_the_default_is_an_svg_of_the_short_url(owner_api, link):
    response = qr(owner_api, link)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    root = svg_root(response.content)
    assert float(root.get("width")) == 512
    assert root.find("{http://www.w3.org/2000/svg}title").text == "http://testserver/l/summer"
    assert 'filename="link-summer.svg"' in response["Content-Disposition"]


def test_a_png_is_a_png(owner_api, link):
    response = qr(owner_api, link, format="png", size=300)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert 200 < png_width(response.content) <= 300


def test_a_larger_size_gives_a_larger_image(owner_api, link):
    small = qr(owner_api, link, format="png", size=100)
    large = qr(owner_api, link, format="png", size=1000)
    assert png_width(large.content) > png_width(small.content)
    small_svg = svg_root(qr(owner_api, link, format="svg", size=100).content)
    large_svg = svg_root(qr(owner_api, link, format="svg", size=1000).content)
    assert float(large_svg.get("width")) == 1000 > float(small_svg.get("width")) == 100


def test_an_image_is_answered_whatever_the_accept_header(owner_api, link):
    response = owner_api.get(f"/api/v1/links/{link.id}/qr", {"format": "png"},
                             HTTP_ACCEPT="image/png")
    assert response.status_code == 200 and response.content.startswith(PNG_SIGNATURE)


@pytest.mark.parametrize("params,field", [
    ({"format": "gif"}, "format"), ({"format": "SVG"}, "format"), ({"size": "63"}, "size"),
    ({"size": "2049"}, "size"), ({"size": "big"}, "size"), ({"size": "-5"}, "size"),
    ({"size": "1e3"}, "size"), ({"size": "٣٠٠"}, "size")])
def test_bad_parameters_are_refused_with_the_envelope(owner_api, link, params, field):
    response = qr(owner_api, link, **params)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert field in response.json()["error"]["details"]


def test_errors_are_json_even_when_an_image_was_asked_for(owner_api, link):
    response = owner_api.get(f"/api/v1/links/{link.id}/qr", {"size": "1"},
                             HTTP_ACCEPT="image/png")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_a_custom_domain_link_encodes_its_https_url(owner_api, owner, app):
    from links.models import LinkDomain

    domain = LinkDomain.objects.create(organization=owner.organization, host="go.example.com")
    link = Link.objects.create(app=app, domain=domain, code="promo", media_source="x")
    root = svg_root(qr(owner_api, link).content)
    assert root.find("{http://www.w3.org/2000/svg}title").text == "https://go.example.com/promo"


def test_the_qr_code_needs_a_login(api, link):
    assert qr(api, link).status_code == 401

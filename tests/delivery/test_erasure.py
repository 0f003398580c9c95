"""delivery.erasure.scrub: a device id leaves a logged body or URL, written or percent-encoded,
and a JSON body stays JSON. Pure: no database."""

import json

from delivery.erasure import scrub


def test_a_json_body_keeps_its_shape_without_the_id():
    body = json.dumps({"device_id": "ab-12", "media_source": "network_a"})
    assert json.loads(scrub(body, ["ab-12"])) == {"device_id": "", "media_source": "network_a"}


def test_a_percent_encoded_id_in_a_url_goes_too():
    url = "https://net.example/pb?gaid=a%2Bb%2Fc&other=1"
    assert scrub(url, ["a+b/c"]) == "https://net.example/pb?gaid=&other=1"


def test_other_text_and_empty_ids_are_left_alone():
    assert scrub("nothing here", ["", "zz"]) == "nothing here"

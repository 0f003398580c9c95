"""Platform detection from real User-Agent strings: pure, no database."""

import pytest

from tracking.useragent import device_info, os_version_of

UA_TABLE = [
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
     "like Gecko) Version/17.2 Mobile/15E148 Safari/604.1", "ios", "17.2", "iPhone"),
    ("Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "Version/16.6 Mobile/15E148 Safari/604.1", "ios", "16.6", "iPad"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
     "like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/440.0.0.31.105;FBDV/iPhone15,2]",
     "ios", "17.1", "iPhone"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
     "like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1", "ios", "17.1", "iPhone"),
    ("MyApp/3.1 CFNetwork/1474 Darwin/23.0.0", "ios", "17.0", ""),
    ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/120.0.0.0 Mobile Safari/537.36", "android", "14", "SM-S918B"),
    ("Dalvik/2.1.0 (Linux; U; Android 13; Pixel 7 Build/TQ3A.230805.001)",
     "android", "13", "Pixel 7"),
    ("Mozilla/5.0 (Linux; Android 12; M2101K6G Build/SKQ1.210908.001; wv) AppleWebKit/537.36 "
     "(KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.193 Mobile Safari/537.36 "
     "[FB_IAB/FB4A;FBAV/442.0.0.33.113;]", "android", "12", "M2101K6G"),
    # Chrome's reduced UA: version frozen at 10 and model "K" say nothing about the device.
    ("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/126.0.0.0 Mobile Safari/537.36", "android", "", ""),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/120.0 Safari/537.36", "other", "10", ""),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like "
     "Gecko) Version/17.1 Safari/605.1.15", "other", "10.15", "Mac"),
    ("curl/8.4.0", "other", "", ""),
    ("", "other", "", ""),
]


@pytest.mark.parametrize("user_agent,platform,os_version,model", UA_TABLE)
def test_platform_os_and_model_are_detected(user_agent, platform, os_version, model):
    info = device_info(user_agent)
    assert info.platform == platform
    assert info.os_version == os_version
    assert info.device_model == model


def test_garbage_user_agents_do_not_break_detection():
    assert device_info("\x00\xff" * 2000).platform == "other"


@pytest.mark.parametrize("version,expected", [("17.2.1", "17.2"), ("14", "14"), ("", ""),
                                              ("beta", ""), ("13.x", "13")])
def test_os_version_of(version, expected):
    assert os_version_of(version) == expected

"""The README's "First steps with curl", run as a reader pastes it into a shell: no step
waits, and the install a moment after its click is attributed to it."""

import json
import re
import subprocess
from pathlib import Path

from django.conf import settings


def readme_walk() -> str:
    text = (Path(settings.BASE_DIR) / "README.md").read_text()
    section = text.split("## First steps with curl", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def envelopes(output: str) -> list[dict]:
    """The JSON answers curl printed one after another (without newlines between them)."""
    decoder, found, index = json.JSONDecoder(), [], output.find('{"success"')
    while index != -1:
        answer, end = decoder.raw_decode(output, index)
        found.append(answer)
        index = output.find('{"success"', end)
    return found


def test_the_readmes_curl_walk_attributes_its_install_without_waiting(service):
    script = readme_walk()
    assert "sleep" not in script
    base = service.api("").rstrip("/")
    script = script.replace("BASE=http://127.0.0.1:8000/api/v1", f"BASE={base}", 1).replace(
        "me@example.com", "readme-walk@example.com")
    assert f"BASE={base}" in script
    ran = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr + ran.stdout
    answers = envelopes(ran.stdout)
    [installed] = [a["data"] for a in answers if "matchType" in a.get("data", {})]
    assert (installed["matchType"], installed["mediaSource"], installed["campaignId"],
            installed["isOrganic"]) == ("device_id", "facebook", "summer", False)
    assert any(a.get("data", {}).get("accepted") == 1 for a in answers)

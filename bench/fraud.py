"""The fraud simulator (docs/fraud.md, "The simulator"): clean traffic with
a realistic click-to-install time and each fraud pattern with its truth, driven through the real
service (gunicorn, the HTTP API, on a database the bench creates), scored per rule.

The world (one Android app; sizes are flags):
- clean: devices that click one of three clean networks and install after a realistic CTIT
  (about 75% within an hour, 94-95% within 24 h, none under 10 s: `clean_ctit`), with Play's
  install-begin time between the click and the first launch; the networks' other clicks never
  convert (about 5% conversion); organic installs with no click at all;
- click flooding (`flooder`): clicks spread evenly over 7 days for devices it does not know,
  converting about 0.02%: the organic installers it happened to click for are its installs;
- click injection (`injector`): a click recorded after Play's install-begin (malware on the
  device hears the download start), 40 s before the first launch;
- install hijacking (`hijacker`): a click 1-8 s before the first launch;
  (victims of both: half organic, half with a real click of a clean network before)
- a device farm (`farm`): installs from four addresses of a hosting range with fresh
  advertising ids (or none), minutes after the farm's own click; the operator lists the range
  (`listed_networks`, the stand-in for the anonymous-IP database's hosting entries);
- unsigned SDK calls (`spoofer`): installs without a signature, the app enforcing signing.
Clicks are recorded through GET /clicks and then aged in the hot store to their simulated time
(the API stamps a click with the present); the flood's non-converting clicks come from wrk.
Installs go through POST /installs in two halves with beat's click-flood check
(analytics.flood_checks) between them and after them, as beat would run it.

Scored: a fraudulent install is stopped when it is not credited to the fraudster (blocked,
post-attribution, refused as a request, or credited to the real click); a clean paid install
is touched when it is not clean.

    .venv/bin/python bench/fraud.py [--clean 600] [--organic 1500] [--seed 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import hotpaths  # noqa: E402

ROOT = hotpaths.ROOT
PORT = 8111
CLEAN_SOURCES = ("network_a", "network_b", "network_c")
CLEAN_CONVERSION = 0.05
FARM_ADDRESSES = ("185.220.101.17", "185.220.101.42", "185.220.102.9", "185.220.102.77")
FARM_NETWORKS = ["185.220.101.0/24", "185.220.102.0/24"]
FARM_UA = "Dalvik/2.1.0 (Linux; U; Android 13; SM-A135F Build/TP1A)"
FARM_CLICK_UA = ("Mozilla/5.0 (Linux; Android 13; SM-A135F) AppleWebKit/537.36 (KHTML, like "
                 "Gecko) Chrome/120.0.0.0 Mobile Safari/537.36")
PATTERNS = ("click_flood", "engagement_injection", "ctit_anomalies", "device_farm",
            "incorrect_signature")
FRAUDSTER = {"click_flood": "flooder", "engagement_injection": "injector",
             "ctit_anomalies": "hijacker", "device_farm": "farm",
             "incorrect_signature": "spoofer"}


def clean_ctit(rng: random.Random) -> float:
    """Seconds from a real click to the first launch: about 75% within an hour, 94.5% within
    24 h, the rest up to the 7-day window; never under 12 s (a download and a first launch)."""
    u = rng.random()
    if u < 0.75:
        return min(3599.0, max(12.0, rng.lognormvariate(5.5, 0.9)))  # median about 4 min
    if u < 0.945:
        return 3600 * 24 ** rng.random()
    return 86400 * 6.5 ** rng.random()


@dataclass
class Device:
    n: int
    kind: str  # clean, organic, or a pattern
    advertising_id: str | None
    ip: str
    truth: str | None = None  # the real click's source; None: organic
    fraudster: str | None = None
    clicks: list = field(default_factory=list)  # (ad key, source, seconds before the launch)
    result: dict = field(default_factory=dict)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clean", type=int, default=600, help="clean paid installs")
    parser.add_argument("--organic", type=int, default=1500, help="organic installers")
    parser.add_argument("--per-pattern", type=int, default=40,
                        help="fraudulent installs per pattern (the flood's captures too)")
    parser.add_argument("--farm", type=int, default=60)
    parser.add_argument("--flood-conversion", type=float, default=0.0002)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/attr_fraud")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    return parser.parse_args()


def public_ip(rng: random.Random) -> str:
    return f"{rng.choice([31, 46, 62, 77, 88, 94, 109, 176])}.{rng.randrange(256)}." \
           f"{rng.randrange(256)}.{rng.randrange(1, 255)}"


def new_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def make_world(args) -> list[Device]:
    rng = random.Random(args.seed)
    devices: list[Device] = []

    def device(kind: str, **extra) -> Device:
        made = Device(n=len(devices), kind=kind, advertising_id=new_id(rng), ip=public_ip(rng),
                      **extra)
        devices.append(made)
        return made

    for n in range(args.clean):
        source = CLEAN_SOURCES[n % len(CLEAN_SOURCES)]
        made = device("clean", truth=source)
        made.clicks.append((f"c{made.n}", source, clean_ctit(rng)))
    organics = [device("organic") for _ in range(args.organic)]
    for made in rng.sample(organics, args.per_pattern):
        made.kind, made.fraudster = "click_flood", "flooder"
        made.clicks.append((f"f{made.n}", "flooder", rng.uniform(0, 7 * 86400 - 600)))
    for pattern, fraudster in (("engagement_injection", "injector"),
                               ("ctit_anomalies", "hijacker")):
        for k in range(args.per_pattern):
            made = device(pattern, fraudster=fraudster)
            if k % 2:  # a real click before: the install is that network's
                made.truth = CLEAN_SOURCES[k % len(CLEAN_SOURCES)]
                made.clicks.append((f"c{made.n}", made.truth, 600 + clean_ctit(rng)))
            seconds = 40.0 if pattern == "engagement_injection" else rng.uniform(1, 8)
            made.clicks.append((f"x{made.n}", fraudster, seconds))
    for k in range(args.farm):
        made = device("device_farm", fraudster="farm")
        made.ip = FARM_ADDRESSES[k % len(FARM_ADDRESSES)]
        if k % 2:
            made.advertising_id = None  # a reset emulator: no advertising id at all
        made.clicks.append((f"x{made.n}", "farm", rng.uniform(60, 900)))
    for _ in range(args.per_pattern):
        made = device("incorrect_signature", fraudster="spoofer")
        made.clicks.append((f"x{made.n}", "spoofer", clean_ctit(rng)))
    rng.shuffle(devices)
    return devices


class Service:
    """The API as an SDK and an ad network see it."""

    def __init__(self, base: str, app_id: str, key: str, secret: str):
        self.base, self.app_id, self.key, self.secret = base, app_id, key, secret
        self.http = requests.Session()

    def click(self, source: str, ad: str, device: Device, user_agent: str) -> None:
        params = {"app_id": self.app_id, "pid": source, "c": f"{source}_c1", "af_ad": ad}
        if device.advertising_id:
            params["advertising_id"] = device.advertising_id
        response = self.http.get(f"{self.base}/clicks", params=params, allow_redirects=False,
                                 headers={"User-Agent": user_agent,
                                          "X-Forwarded-For": device.ip})
        assert response.status_code == 302, response.status_code

    def install(self, device: Device, *, install_begin: int | None, signed: bool) -> dict:
        body = {"app_id": self.app_id, "platform": "android", "sdk_version": "6.12.0",
                "os_version": "14", "device_model": "SM-S918B"}
        if device.advertising_id:
            body["device_id"] = device.advertising_id
        if install_begin is not None:
            body["install_begin_timestamp_server_seconds"] = install_begin
        raw = json.dumps(body).encode()
        headers = {"X-API-Key": self.key, "Content-Type": "application/json",
                   "User-Agent": FARM_UA if device.kind == "device_farm" else
                   "Dalvik/2.1.0 (Linux; U; Android 14; SM-S918B Build/UP1A)",
                   "X-Forwarded-For": device.ip}
        if signed:
            from fraud import signing

            stamp = str(int(time.time()))
            headers.update({"X-Signature-Timestamp": stamp,
                            "X-Signature": signing.header(self.secret, stamp, raw)})
        response = self.http.post(f"{self.base}/installs", data=raw, headers=headers)
        if response.status_code == 401:
            return {"refused": True, "error": response.json()["error"]["code"]}
        assert response.status_code == 201, response.text
        return response.json()["data"]


CLICK_UA = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/120.0.0.0 Mobile Safari/537.36")


def age(clicks: dict[str, datetime]) -> None:
    """Move hot-store clicks (by their `ad` key) to their simulated time."""
    from tracking.models import Click

    for ad, at in clicks.items():
        Click.objects.filter(ad=ad).update(clicked_at=at)


def filler_clicks(service: Service, source: str, count: int, rng: random.Random) -> None:
    """Clicks that never convert, from devices nobody sees again (threads: it is many)."""
    local = threading.local()

    def one(n: int) -> None:
        if not hasattr(local, "service"):
            local.service = Service(service.base, service.app_id, service.key, service.secret)
        visitor = Device(n=-1, kind="noise", advertising_id=new_id(random.Random(n)),
                         ip=f"45.{n % 250}.{n // 250 % 250}.{n % 200 + 1}")
        local.service.click(source, "", visitor, CLICK_UA)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, (rng.randrange(10**9) for _ in range(count))))


FLOOD_LUA = """
local app_id = os.getenv("BENCH_APP_ID")
local ua = "Mozilla/5.0 (Linux; Android 12; K) AppleWebKit/537.36 (KHTML, like Gecko) "
  .. "Chrome/119.0.0.0 Mobile Safari/537.36"
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
request = function()
  local n = math.random(1, 1000000000)
  local path = string.format("/api/v1/clicks?app_id=%s&pid=flooder&c=flooder_c1"
    .. "&advertising_id=%08x-1111-4000-8000-%012d", app_id, n % 4294967295, n)
  local address = string.format("45.%d.%d.%d", n % 250, math.floor(n / 250) % 250,
    n % 200 + 1)
  return wrk.format("GET", path, {["User-Agent"] = ua, ["X-Forwarded-For"] = address})
end
"""


def flood_clicks(app_id: str, target: int, env: dict) -> int:
    """The flood's clicks that never convert, sent with wrk until `target` are archived."""
    from tracking.models import ClickArchive

    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(FLOOD_LUA)
    try:
        while (done := ClickArchive.objects.filter(media_source="flooder").count()) < target:
            seconds = max(2, min(30, (target - done) // 1500 + 1))
            subprocess.run(["wrk", "-t2", "-c16", f"-d{seconds}s", "-s", script.name,
                            f"http://127.0.0.1:{PORT}"], env={**env, "BENCH_APP_ID": app_id},
                           capture_output=True, check=True)
        return done
    finally:
        os.unlink(script.name)


def send(service: Service, device: Device, rng: random.Random) -> None:
    """One device's clicks (aged to their time before now) and its install."""
    now = datetime.now(UTC)
    moments = {}
    for ad, source, seconds in device.clicks:
        if device.kind == "device_farm":
            user_agent = FARM_CLICK_UA
        else:
            user_agent = CLICK_UA
        service.click(source, ad, device, user_agent)
        moments[ad] = now - timedelta(seconds=seconds)
    age(moments)
    begin = None
    if device.kind == "engagement_injection":
        begin = int(now.timestamp()) - 90  # the download started before the injected click
    elif device.clicks:
        nearest = min(seconds for _, _, seconds in device.clicks)
        begin = int(now.timestamp() - nearest * rng.uniform(0.2, 0.8))
    elif rng.random() < 0.9:
        begin = int(now.timestamp()) - rng.randrange(20, 300)
    device.result = service.install(device, install_begin=begin,
                                    signed=device.kind != "incorrect_signature")


def judge(device: Device) -> dict:
    """What became of the install, read back from the database."""
    from tracking.models import Install

    if device.result.get("refused"):
        return {"status": "refused", "source": None, "reasons": ["incorrect_signature"]}
    row = Install.objects.get(id=device.result["installId"])
    return {"status": row.fraud_status, "source": row.media_source,
            "reasons": sorted({r["reason"] for r in row.fraud_reasons})}


def report(devices: list[Device], args, flood: dict) -> None:
    outcomes = {d.n: judge(d) for d in devices}
    print(f"\n## Fraud simulator (seed {args.seed})\n")
    print(f"Clean paid installs {args.clean}, organic installers {args.organic}, "
          f"{args.per_pattern} per fraud pattern, a farm of {args.farm}; flood: "
          f"{flood['clicks']} clicks for {flood['installs']} installs "
          f"({flood['installs'] / max(flood['clicks'], 1):.4%})\n")
    print("| pattern (rule) | fraudulent installs | credited to the fraudster | stopped | "
          "stopped % | how (status: installs) | reasons seen |\n|---|---|---|---|---|---|---|")
    all_fraud = stopped_all = 0
    for pattern in PATTERNS:
        rows = [d for d in devices if d.kind == pattern]
        credited = [d for d in rows if outcomes[d.n]["source"] == d.fraudster
                    and outcomes[d.n]["status"] in ("clean", "flagged")]
        stopped = len(rows) - len(credited)
        all_fraud += len(rows)
        stopped_all += stopped
        how = Counter(outcomes[d.n]["status"] for d in rows)
        reasons = Counter(r for d in rows for r in outcomes[d.n]["reasons"])
        print(f"| {pattern} | {len(rows)} | {len(credited)} | {stopped} | "
              f"{stopped / max(len(rows), 1):.1%} | "
              f"{', '.join(f'{k}: {v}' for k, v in sorted(how.items()))} | "
              f"{', '.join(f'{k}: {v}' for k, v in sorted(reasons.items()))} |")
    victims = [d for d in devices if d.kind in ("engagement_injection", "ctit_anomalies")
               and d.truth]
    restored = sum(outcomes[d.n]["source"] == d.truth for d in victims)
    print(f"\nAll fraud: {stopped_all} of {all_fraud} stopped "
          f"({stopped_all / max(all_fraud, 1):.1%}; target >= 95%). Victims with a real click "
          f"before the fraudulent one: {restored} of {len(victims)} credited to that click.")
    clean = [d for d in devices if d.kind == "clean"]
    touched = [d for d in clean if outcomes[d.n]["status"] != "clean"]
    right = sum(outcomes[d.n]["source"] == d.truth for d in clean)
    print(f"Clean paid installs: {len(touched)} of {len(clean)} flagged or blocked "
          f"({len(touched) / max(len(clean), 1):.2%}; target <= 1%): "
          f"{dict(Counter(outcomes[d.n]['status'] for d in touched))}; "
          f"{right} credited to their network.")
    organic = [d for d in devices if d.kind == "organic"]
    print(f"Organic installs: {sum(outcomes[d.n]['status'] != 'clean' for d in organic)} of "
          f"{len(organic)} not clean.")
    flags = flood["flags"]
    print(f"Click-flood flags: {flags}")


def main() -> None:
    args = parse_args()
    env = hotpaths.service_env(args, args.database, args.redis)
    os.environ.update(env)
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    import redis

    redis.Redis.from_url(args.redis).flushdb()
    hotpaths.recreate_database(args.database)
    subprocess.run([hotpaths.PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"],
                   cwd=ROOT, env=env, check=True)
    app_id, key = hotpaths.setup_app(env)
    from django.utils import timezone

    from analytics import flood_checks
    from apps_registry.keys import key_parse
    from fraud import services as fraud_services

    secret = fraud_services.signing_secret_create(app_id=uuid.UUID(app_id),
                                                  key_id=key_parse(key)[0])
    fraud_services.settings_update(app_id=uuid.UUID(app_id), changes={
        "signing_mode": "enforce", "anonymous_traffic_mode": "block",
        "listed_networks": FARM_NETWORKS,
        # What an owner who sees hijacking and click spam does: the timing rules flag by default.
        "ctit_anomalies_mode": "block", "too_many_engagements_mode": "block"})
    server = hotpaths.start([hotpaths.GUNICORN, "attribution_site.wsgi"], env, ROOT, PORT,
                            argparse.Namespace(workers=args.workers, threads=args.threads))
    devices = make_world(args)
    rng = random.Random(args.seed + 1)
    service = Service(f"http://127.0.0.1:{PORT}/api/v1", app_id, key, secret)
    started = time.monotonic()
    flags = []
    try:
        for source in CLEAN_SOURCES:
            converting = sum(1 for d in devices for _, s, _ in d.clicks if s == source)
            filler_clicks(service, source, round(converting / CLEAN_CONVERSION) - converting,
                          rng)
        captured = sum(d.kind == "click_flood" for d in devices)
        flood_total = flood_clicks(app_id, round(captured / args.flood_conversion) - captured,
                                   env) + captured
        print(f"clicks recorded in {time.monotonic() - started:.0f} s", flush=True)
        half = len(devices) * 6 // 10
        for device in devices[:half]:
            send(service, device, rng)
        flags += [(f.media_source, f.mode, f.relabelled)
                  for f in flood_checks.flood_check(now=timezone.now())]
        for device in devices[half:]:
            send(service, device, rng)
        flags += [(f.media_source, f.mode, f.relabelled)
                  for f in flood_checks.flood_check(now=timezone.now())]
        print(f"installs sent in {time.monotonic() - started:.0f} s", flush=True)
    finally:
        hotpaths.stop(server)
    report(devices, args, {"clicks": flood_total, "installs": captured, "flags": flags})
    by_reason = defaultdict(int)
    for device in devices:
        for reason in judge(device)["reasons"]:
            by_reason[reason] += 1
    print(f"Installs by reason: {dict(sorted(by_reason.items()))}")


if __name__ == "__main__":
    main()

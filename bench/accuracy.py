"""Attribution accuracy: clicks and installs with known truth and realistic noise, sent through
the HTTP API, scored per method.

Noise model (docs/accuracy.md): devices on home networks and on carrier NAT addresses shared by
many devices; a share of installs from another network than the click (Wi-Fi vs cellular);
zeroed advertising ids (iOS without tracking consent, some Android); Chrome's reduced
User-Agent; organic installs, some on the same carrier addresses as clickers; clicks that never
install; several clicks per device from different sources; click-to-install delays from
minutes to days, some beyond the 7-day window. Clicks are recorded through GET /clicks and then
aged in the database to their simulated time (the API stamps clicks with the present).

Truth: an install's true click is its device's latest click in the 7 days before the install
(last touch), organic when there is none. A match is correct when the chosen click was made by
the installing device.

Consent (docs/apple.md, "Consent-aware fingerprinting"): iOS installs send their App Tracking
Transparency status (`authorized` when the device has an IDFA, else denied, not yet asked or
restricted). The same world goes to two pairs of apps (an Android and an iOS app each: an app
takes installs of its own platform only), one pair per iOS fingerprinting policy
(`never_without_consent`, the default, and `always`), so the cost of the default in iOS recall is
measured on identical clicks and installs. What SKAdNetwork gives back is estimated from the same
truth under stated assumptions (see `skan_report`): it counts installs per network, never which
install.

    .venv/bin/python bench/accuracy.py [--devices 3000] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import hotpaths  # noqa: E402

from tracking.fingerprint import network_key  # noqa: E402

ROOT = hotpaths.ROOT
WINDOW = timedelta(days=7)
SKAN_WINDOW = timedelta(days=30)  # SKAdNetwork's attribution window for an ad engagement
POLICIES = ("never_without_consent", "always")  # App.ios_fingerprinting; the default first
# App Tracking Transparency answers of iOS devices without an IDFA (they never authorized).
UNAUTHORIZED_STATUSES = (["denied"] * 14 + ["not_determined"] * 5 + ["restricted"])
CARRIER_SHARE = 0.3  # devices whose traffic leaves through a carrier NAT address
DEVICES_PER_CARRIER_IP = 30  # of this app's clickers and installers in a week, per address
SOURCES = [("facebook", "fb_summer"), ("google", "uac_q4"), ("tiktok", "tt_launch"),
           ("snapchat", "snap_1"), ("applovin", "al_rewarded"), ("unity", "unity_play")]
# Device diversity as ad traffic shows it: a long tail of Android models with skewed
# popularity (weights fall off as 1/rank), a handful of OS versions, skewed languages.
ANDROID_MODELS = [
    "SM-A155F", "SM-A546B", "SM-S918B", "SM-A256B", "SM-S921B", "SM-A057F", "SM-M146B",
    "SM-G991B", "SM-A145R", "SM-S911B", "23090RA98G", "2312DRA50G", "23106RN0DA", "M2101K6G",
    "22111317G", "Pixel 8", "Pixel 7", "Pixel 7a", "Pixel 8 Pro", "Pixel 6a", "CPH2591",
    "CPH2449", "CPH2609", "RMX3710", "RMX3834", "moto g54 5G", "moto g84 5G", "moto e13",
    "XT2335-2", "V2250", "V2303", "TECNO KI7", "Infinix X6831", "A142", "NE2213", "LE2123",
    "21091116AG", "2201117TY", "SM-A236B", "SM-A346B"]
ANDROID_VERSIONS = (["14"] * 5 + ["13"] * 3 + ["12"] * 2 + ["15", "11"])
IOS_MODELS = ["iPhone15,2", "iPhone15,3", "iPhone14,5", "iPhone14,2", "iPhone16,1",
              "iPhone16,2", "iPhone13,2", "iPhone14,7", "iPhone12,1", "iPhone14,4", "iPad13,1"]
IOS_VERSIONS = (["17.5"] * 4 + ["17.4"] * 3 + ["17.6"] * 2
                + ["17.3", "17.2", "17.1", "16.7", "16.6", "18.0", "18.1", "15.8"])
LANGUAGES = (["en-US"] * 6 + ["en-GB"] * 2 + ["es-ES", "es-MX", "de-DE", "fr-FR", "pt-BR",
             "it-IT", "ja-JP", "ko-KR", "tr-TR", "id-ID", "hi-IN", "ru-RU"])


def skewed(rng: random.Random, items: list[str]) -> str:
    return rng.choices(items, weights=[1 / (rank + 1) for rank in range(len(items))])[0]


@dataclass
class Device:
    n: int
    platform: str
    model: str
    os_version: str  # iOS with its minor version (Safari shows it), Android major only
    language: str
    advertising_id: str | None
    home_ip: str
    reduced_ua: bool
    clicks: list = field(default_factory=list)  # (sim key, source, campaign, at, ip)
    install_at: datetime | None = None
    install_ip: str | None = None
    referrer: str | None = None
    att_status: str = ""  # iOS only


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=3000)
    parser.add_argument("--organic", type=int, default=1000)
    parser.add_argument("--noise-clicks", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/attr_accuracy")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--skan-signed-share", type=float, default=1.0,
                        help="share of iOS ad engagements their network signed for "
                             "SKAdNetwork (the SKAdNetwork estimate's assumption)")
    return parser.parse_args()


def public_ip(rng: random.Random) -> str:
    return f"{rng.choice([31, 46, 62, 77, 81, 88, 94, 109, 176, 185])}.{rng.randrange(256)}." \
           f"{rng.randrange(256)}.{rng.randrange(1, 255)}"


def make_world(args, now: datetime):
    rng = random.Random(args.seed)
    population = args.devices + args.organic + args.noise_clicks
    carrier_ips = [public_ip(rng)  # carrier NAT egress addresses, each shared by ~30 devices
                   for _ in range(max(1, round(population * CARRIER_SHARE
                                               / DEVICES_PER_CARRIER_IP)))]

    def new_device(n: int) -> Device:
        platform = "android" if rng.random() < 0.6 else "ios"
        if platform == "android":
            model, version = skewed(rng, ANDROID_MODELS), rng.choice(ANDROID_VERSIONS)
        else:
            model, version = skewed(rng, IOS_MODELS), rng.choice(IOS_VERSIONS)
        zeroed = rng.random() < (0.45 if platform == "ios" else 0.08)
        on_carrier = rng.random() < CARRIER_SHARE
        return Device(n=n, platform=platform, model=model, os_version=version,
                      language=rng.choice(LANGUAGES),
                      advertising_id=None if zeroed else str(uuid.UUID(int=rng.getrandbits(128))),
                      home_ip=rng.choice(carrier_ips) if on_carrier else public_ip(rng),
                      reduced_ua=platform == "android" and rng.random() < 0.5)

    clickers = [new_device(n) for n in range(args.devices)]
    for device in clickers:
        installs = rng.random() < 0.6
        delay = timedelta(minutes=rng.lognormvariate(4.0, 1.6))  # median ~1 hour
        if rng.random() < 0.05:
            delay = timedelta(days=rng.uniform(7.2, 12))  # clicked too long ago
        last_click = now - delay
        for k in range(rng.choice([1, 1, 1, 2, 2, 3])):
            source, campaign = rng.choice(SOURCES)
            at = last_click - timedelta(hours=k * rng.uniform(2, 40))
            ip = device.home_ip if rng.random() < 0.85 else public_ip(rng)
            device.clicks.append((f"sim-{device.n}-{k}", source, campaign, at, ip))
        if installs:
            device.install_at = now
            device.install_ip = device.home_ip if rng.random() < 0.75 else public_ip(rng)
    organics = [new_device(args.devices + n) for n in range(args.organic)]
    for device in organics:
        device.install_at = now
        device.install_ip = device.home_ip
    noise = [new_device(args.devices + args.organic + n) for n in range(args.noise_clicks)]
    for device in noise:
        source, campaign = rng.choice(SOURCES)
        device.clicks.append((f"sim-{device.n}-0", source, campaign,
                              now - timedelta(minutes=rng.uniform(1, 6 * 24 * 60)),
                              device.home_ip))
    for device in clickers:
        if device.install_at and device.platform == "android" and rng.random() < 0.7:
            device.referrer = "pending"  # Play hands over the last click's referrer
    # Drawn from a generator of their own, so the world stays the one measured before consent
    # was simulated (docs/accuracy.md's earlier figures).
    consent_rng = random.Random(f"att-{args.seed}")
    for device in clickers + organics:
        if device.platform == "ios":
            device.att_status = ("authorized" if device.advertising_id
                                 else consent_rng.choice(UNAUTHORIZED_STATUSES))
    return clickers, organics, noise, rng


def click_user_agent(device: Device) -> str:
    if device.platform == "ios":
        version = device.os_version
        kind = "iPad; CPU OS" if device.model.startswith("iPad") else "iPhone; CPU iPhone OS"
        return (f"Mozilla/5.0 ({kind} {version.replace('.', '_')} like Mac OS X) "
                f"AppleWebKit/605.1.15 (KHTML, like Gecko) Version/{version} Mobile/15E148 "
                "Safari/604.1")
    if device.reduced_ua:
        return ("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
                "Chrome/126.0.0.0 Mobile Safari/537.36")
    return (f"Mozilla/5.0 (Linux; Android {device.os_version}; {device.model}) "
            "AppleWebKit/537.36"
            " (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36")


def sdk_user_agent(device: Device) -> str:
    if device.platform == "ios":
        return "Runner/3.2 CFNetwork/1474 Darwin/23.0.0"
    return f"Dalvik/2.1.0 (Linux; U; Android {device.os_version}; {device.model} Build/UP1A)"


def another_app(app_id: str, *, name: str, platform: str, identifier: str) -> tuple[str, str]:
    """Another app of the bench's organization, with a key. An app is registered for one
    platform and takes installs of that platform only, so each policy has an Android and an
    iOS app, and a device's clicks and install go to its platform's."""
    from apps_registry.models import App
    from apps_registry.services import api_key_create, app_create

    first = App.objects.get(id=app_id)
    fields = ({"package_name": identifier,
               "play_store_url": f"https://play.google.com/store/apps/details?id={identifier}"}
              if platform == "android" else
              {"bundle_id": identifier, "app_store_url": "https://apps.apple.com/app/id123456789"})
    app = app_create(organization_id=first.organization_id, name=name, platform=platform,
                     **fields)
    return str(app.id), api_key_create(app=app)[1]


def main() -> None:
    args = parse_args()
    env = hotpaths.service_env(args, args.database, args.redis)
    os.environ.update(env)
    import django

    sys.path.insert(0, str(ROOT))
    django.setup()
    import redis

    from apps_registry.models import App

    redis.Redis.from_url(args.redis).flushdb()
    hotpaths.recreate_database(args.database)
    subprocess.run([hotpaths.PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"],
                   cwd=ROOT, env=env, check=True)
    default_app = hotpaths.setup_app(env)
    first = default_app[0]
    apps = {  # per policy, the app of each platform: (id, key)
        POLICIES[0]: {"android": default_app, "ios": another_app(
            first, name="Bench iOS", platform="ios", identifier="com.bench.app")},
        POLICIES[1]: {"android": another_app(
            first, name="Bench always", platform="android", identifier="com.bench.always"),
            "ios": another_app(first, name="Bench always iOS", platform="ios",
                               identifier="com.bench.always")}}
    for policy, by_platform in apps.items():
        App.objects.filter(id__in=[app_id for app_id, _ in by_platform.values()]).update(
            ios_fingerprinting=policy)
    server = hotpaths.start([hotpaths.GUNICORN, "attribution_site.wsgi"], env, ROOT,
                            hotpaths.SERVICE_PORT, argparse.Namespace(workers=2, threads=4))
    base = f"http://127.0.0.1:{hotpaths.SERVICE_PORT}/api/v1"
    http = requests.Session()
    now = datetime.now(UTC)
    clickers, organics, noise, rng = make_world(args, now)
    try:
        from tracking.models import Click, Install

        referrer_of: dict[tuple[str, str], str] = {}  # (policy, sim key): the app's referrer
        sim_time: dict[str, datetime] = {}
        for device in clickers + noise:
            for sim_key, source, campaign, at, ip in sorted(device.clicks, key=lambda c: c[3]):
                params = {"pid": source, "c": campaign, "af_ad": sim_key}
                if device.advertising_id:
                    params["advertising_id"] = device.advertising_id
                elif rng.random() < 0.5:
                    params["advertising_id"] = "00000000-0000-0000-0000-000000000000"
                for policy, by_platform in apps.items():
                    app_id = by_platform[device.platform][0]
                    response = http.get(f"{base}/clicks", params={"app_id": app_id, **params},
                                        allow_redirects=False,
                                        headers={"User-Agent": click_user_agent(device),
                                                 "Accept-Language":
                                                     f"{device.language},en;q=0.8",
                                                 "X-Forwarded-For": ip})
                    assert response.status_code == 302, response.status_code
                    query = parse_qs(urlsplit(response.headers["Location"]).query)
                    if "referrer" in query:
                        referrer_of[policy, sim_key] = query["referrer"][0]
                sim_time[sim_key] = at
        for click in Click.objects.filter(ad__startswith="sim-").only("id", "ad"):
            Click.objects.filter(id=click.id).update(clicked_at=sim_time[click.ad])
        click_owner = {c.id: c.ad for c in Click.objects.only("id", "ad")}

        results: dict[str, list[dict]] = {policy: [] for policy in POLICIES}
        for device in clickers + organics:
            if device.install_at is None:
                continue
            latest = max(device.clicks, key=lambda c: c[3]) if device.clicks else None
            in_window = [c for c in device.clicks if now - c[3] <= WINDOW]
            truth = max(in_window, key=lambda c: c[3]) if in_window else None
            in_skan_window = [c for c in device.clicks if now - c[3] <= SKAN_WINDOW]
            for policy, by_platform in apps.items():
                app_id, key = by_platform[device.platform]
                body = {"app_id": app_id, "platform": device.platform, "sdk_version": "3.2.0",
                        "os_version": device.os_version, "device_model": device.model,
                        "language": device.language.replace("-", "_")}
                if device.advertising_id:
                    body["device_id"] = device.advertising_id
                if device.att_status:
                    body["att_status"] = device.att_status
                if device.referrer and latest and (policy, latest[0]) in referrer_of:
                    body["install_referrer"] = referrer_of[policy, latest[0]]
                response = http.post(f"{base}/installs", json=body, headers={
                    "X-API-Key": key, "User-Agent": sdk_user_agent(device),
                    "X-Forwarded-For": device.install_ip})
                assert response.status_code == 201, response.text
                data = response.json()["data"]
                chosen = Install.objects.values_list("click_id", flat=True).get(
                    id=data["installId"])
                chosen_key = click_owner.get(chosen)
                results[policy].append({
                    "device": device.n, "platform": device.platform,
                    "consented": device.platform != "ios" or device.att_status == "authorized",
                    "method": data["matchType"], "media_source": data["mediaSource"],
                    "truth": truth[0] if truth else None,
                    "truth_source": truth[1] if truth else None,
                    # SKAdNetwork's winner: the latest engagement in its own, longer window
                    "skan_source": (max(in_skan_window, key=lambda c: c[3])[1]
                                    if in_skan_window else None),
                    "chosen": chosen_key,
                    "correct_device": (chosen_key is not None
                                       and chosen_key.split("-")[1] == str(device.n)),
                    "exact": chosen_key is not None and truth is not None
                    and chosen_key == truth[0],
                    "fingerprint_only": truth is not None and not body.get("install_referrer")
                    and not body.get("device_id"),
                    # a fingerprint can only work from the install's network and within a day
                    "reachable": any(network_key(c[4]) == network_key(device.install_ip)
                                     and now - c[3] <= timedelta(hours=24)
                                     for c in device.clicks),
                })
    finally:
        hotpaths.stop(server)
    for policy in POLICIES:
        print(f"\n## ios_fingerprinting={policy}")
        report(results[policy], args)
    consent_report(results)
    skan_report(results["never_without_consent"], args)


def report(results: list[dict], args) -> None:
    by_method = defaultdict(list)
    for r in results:
        by_method[r["method"]].append(r)
    attributable = [r for r in results if r["truth"] is not None]
    print(f"\n{len(results)} installs ({len(attributable)} with a true click in the window, "
          f"{len(results) - len(attributable)} truly organic); seed {args.seed}")
    print("| method | matches | correct | precision | exact click |\n|---|---|---|---|---|")
    for method in ("install_referrer", "device_id", "fingerprint"):
        rows = by_method.get(method, [])
        correct = sum(r["correct_device"] for r in rows)
        exact = sum(r["exact"] for r in rows)
        print(f"| {method} | {len(rows)} | {correct} | {correct / max(len(rows), 1):.3f} | "
              f"{exact / max(len(rows), 1):.3f} |")
    organic_rows = by_method.get("organic", [])
    print(f"| organic | {len(organic_rows)} | "
          f"{sum(r['truth'] is None for r in organic_rows)} truly organic | | |")
    matched = [r for r in results if r["method"] != "organic"]
    correct = sum(r["correct_device"] for r in matched)
    print(f"\nOverall precision {correct / max(len(matched), 1):.3f}, recall "
          f"{correct / max(len(attributable), 1):.3f} (correct matches / installs with a true "
          "click)")
    eligible = [r for r in results if r["fingerprint_only"]]
    found = sum(r["method"] == "fingerprint" and r["correct_device"] for r in eligible)
    fp = by_method.get("fingerprint", [])
    print(f"Fingerprint precision {sum(r['correct_device'] for r in fp) / max(len(fp), 1):.3f},"
          f" recall {found / max(len(eligible), 1):.3f} over the {len(eligible)} installs only a"
          " fingerprint could attribute (no referrer, no usable device id)")
    reachable = [r for r in eligible if r["reachable"]]
    reached = sum(r["method"] == "fingerprint" and r["correct_device"] for r in reachable)
    print(f"  of which {len(reachable)} had clicked from the install's network within a day:"
          f" recall {reached / max(len(reachable), 1):.3f} over those")
    print("Method mix:", dict(Counter(r["method"] for r in results)))


def ios_paid(results: list[dict]) -> list[dict]:
    return [r for r in results if r["platform"] == "ios" and r["truth"] is not None]


def consent_report(results: dict[str, list[dict]]) -> None:
    """What the default policy costs on iOS: the same installs under both policies."""
    print("\n## iOS recall by policy (correct matches / iOS installs with a true click)")
    print("| policy | iOS installs with a true click | without consent | correct | recall "
          "| correct fingerprint matches | recall without consent |\n|---|---|---|---|---|---|---|")
    for policy in POLICIES:
        paid = ios_paid(results[policy])
        unconsented = [r for r in paid if not r["consented"]]
        correct = sum(r["correct_device"] and r["method"] != "organic" for r in paid)
        by_fingerprint = sum(r["correct_device"] and r["method"] == "fingerprint" for r in paid)
        found = sum(r["correct_device"] and r["method"] != "organic" for r in unconsented)
        print(f"| {policy} | {len(paid)} | {len(unconsented)} | {correct} | "
              f"{correct / max(len(paid), 1):.3f} | {by_fingerprint} | "
              f"{found / max(len(unconsented), 1):.3f} |")
    default, always = (ios_paid(results[p]) for p in POLICIES)
    wrong_gone = sum(r["method"] == "fingerprint" and not r["correct_device"]
                     for r in results["always"] if r["platform"] == "ios")
    lost = sum(r["correct_device"] for r in always) - sum(r["correct_device"] for r in default)
    print(f"The default loses {lost} correct iOS matches and avoids {wrong_gone} wrong iOS "
          "fingerprint matches (those installs count as organic).")


def skan_report(results: list[dict], args) -> None:
    """What SKAdNetwork's aggregate reports account for, estimated from the simulation's truth.

    Assumptions (stated, not measured): an iOS install's latest engagement of SKAdNetwork's
    30-day window was signed for SKAdNetwork by its network with probability
    `--skan-signed-share` (1.0: all six networks sign every ad; an unsigned one is simply not
    counted, a simplification), and SKAdNetwork credits it, so it names the same network as our
    truth whenever that click is in our 7-day window; every install sends its postback (the app
    launched: it reported the install), and its developer copy reaches the service. Not
    modelled: Apple's crowd-anonymity thresholds (null conversion values, 2-digit source ids:
    the network is always named), postback delays, re-downloads. A postback names an ad network
    and a source id, never a device: SKAdNetwork attributes no individual install.
    """
    signed = random.Random(f"skan-{args.seed}")
    ios = [r for r in results if r["platform"] == "ios"]
    counted = [r for r in ios if r["skan_source"] is not None
               and signed.random() < args.skan_signed_share]
    paid = ios_paid(results)
    counted_ids = {r["device"] for r in counted}
    paid_counted = [r for r in paid if r["device"] in counted_ids]
    unattributed = [r for r in paid if not (r["correct_device"] and r["method"] != "organic")]
    print("\n## SKAdNetwork (estimate; see skan_report's assumptions)")
    print(f"iOS installs: {len(ios)}; with a true click (paid): {len(paid)}; individually "
          f"attributed (default policy): {len(paid) - len(unattributed)}; not: "
          f"{len(unattributed)}")
    print(f"SKAdNetwork postbacks: {len(counted)} ({len(paid_counted)} of the paid installs: "
          f"{len(paid_counted) / max(len(paid), 1):.3f}; {len(counted) - len(paid_counted)} "
          "whose latest click is older than our 7-day window)")
    back = [r for r in unattributed
            if r["device"] in counted_ids and r["skan_source"] == r["truth_source"]]
    print(f"Of the {len(unattributed)} paid iOS installs the default leaves unattributed, "
          f"{len(back)} ({len(back) / max(len(unattributed), 1):.3f}) are in the postback "
          "counts of the right network, as counts only")
    print("| network | SKAdNetwork installs | our iOS matches | difference | paid iOS installs "
          "we did not attribute |\n|---|---|---|---|---|")
    ours = Counter(r["media_source"] for r in ios if r["method"] != "organic")
    skan = Counter(r["skan_source"] for r in counted)
    missed = Counter(r["truth_source"] for r in unattributed)
    for network in sorted(skan):
        print(f"| {network} | {skan[network]} | {ours[network]} | "
              f"{skan[network] - ours[network]} | {missed[network]} |")


if __name__ == "__main__":
    main()

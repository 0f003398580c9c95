"""Seed the ad network names (docs/apple.md, "Ad network names"): reports show "meta", not
"v9wttpbfk9.skadnetwork".

Ids and networks from Google's published list of third-party SKAdNetwork identifiers
(https://developers.google.com/admob/ios/3p-skadnetworks, which lists Google's own
cstr6suwn9 first), except Snap's 424m5254lk, from Snap's Ad Kit iOS setup (Snap Kit
documentation). Pangle is ByteDance's (TikTok's) ad network. X/Twitter's id is not on a list we
could cite, so it is not seeded: add it in the admin. The names are media source names, so a
row an operator already edited is left alone.
"""

from django.db import migrations

NETWORKS = {
    "v9wttpbfk9.skadnetwork": "meta",
    "n38lu8286q.skadnetwork": "meta",
    "cstr6suwn9.skadnetwork": "google",
    "424m5254lk.skadnetwork": "snapchat",
    "22mmun2rn5.skadnetwork": "pangle",
    "4dzt52r2t5.skadnetwork": "unity",
    "ludvb6z3bs.skadnetwork": "applovin",
    "su67r6k2v3.skadnetwork": "ironsource",
    "7ug5zh24hu.skadnetwork": "liftoff",
    "gta9lk7p23.skadnetwork": "liftoff_monetize",
    "kbd757ywx3.skadnetwork": "mintegral",
    "9t245vhmpl.skadnetwork": "moloco",
    "wzmmz9fp6w.skadnetwork": "inmobi",
    "f38h382jlk.skadnetwork": "chartboost",
    "4pfyvq9l8r.skadnetwork": "adcolony",
    "hs6bdukanm.skadnetwork": "criteo",
    "p78axxw29g.skadnetwork": "amazon",
    "uw77j35x4d.skadnetwork": "the_trade_desk",
    "mlmmfzh3r3.skadnetwork": "digital_turbine",
    "ecpz2srf59.skadnetwork": "tapjoy",
    "e5fvkxwrpn.skadnetwork": "yahoo",
    "8s468mfl3y.skadnetwork": "rtb_house",
    "2u9pt9hc89.skadnetwork": "remerge",
    "ppxm28t8ap.skadnetwork": "smadex",
    "vutu7akeur.skadnetwork": "line",
}


def seed(apps, schema_editor):
    AdNetwork = apps.get_model("skan", "AdNetwork")
    for network_id, name in NETWORKS.items():
        AdNetwork.objects.get_or_create(network_id=network_id, defaults={"name": name})


def unseed(apps, schema_editor):
    AdNetwork = apps.get_model("skan", "AdNetwork")
    for network_id, name in NETWORKS.items():
        AdNetwork.objects.filter(network_id=network_id, name=name).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("skan", "0002_refusal_reasons"),
    ]

    operations = [migrations.RunPython(seed, unseed)]

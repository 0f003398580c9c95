"""User-Agents of the visitors a shared link meets, and a link made as the API makes one."""

from __future__ import annotations

from links.models import Link

IPHONE_SAFARI = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 "
                 "(KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1")
ANDROID_CHROME = ("Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like "
                  "Gecko) Chrome/120.0.0.0 Mobile Safari/537.36")
DESKTOP_CHROME = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like "
                  "Gecko) Chrome/120.0.0.0 Safari/537.36")
_IOS = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
        "(KHTML, like Gecko) Mobile/15E148")
_WEBVIEW = ("Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230805.001; wv) "
            "AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.5845.163 Mobile "
            "Safari/537.36")

IN_APP_BROWSERS = {
    "Facebook": f"{_IOS} [FBAN/FBIOS;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.1;FBSS/3]",
    "Facebook on Android": f"{_WEBVIEW} [FB_IAB/FB4A;FBAV/445.0.0.34.118;]",
    "Instagram": (f"{_IOS} Instagram 307.0.0.21.109 (iPhone14,5; iOS 17_1; en_US; en; "
                  "scale=3.00; 1170x2532; 532277285)"),
    "Messenger": f"{_IOS} [FBAN/MessengerForiOS;FBAV/440.0.0.36.105;FBDV/iPhone14,5]",
    "TikTok": (f"{_IOS} musical_ly_32.5.0 JsSdk/2.0 NetType/WIFI Channel/App Store "
               "ByteLocale/en Region/US"),
    "LinkedIn": f"{_WEBVIEW} [LinkedInApp]/9.1.0",
    "Snapchat": f"{_IOS} Snapchat/12.60.0.47 (like Safari/8617.2.4.10.8, panda)",
    "X/Twitter": f"{_IOS} Twitter for iPhone/10.16",
    "Line": f"{_IOS} Safari Line/13.17.0",
    "WeChat": f"{_IOS} MicroMessenger/8.0.43(0x18002b2c) NetType/WIFI Language/zh_CN",
}

CRAWLERS = {
    "facebookexternalhit": "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    "Twitterbot": "Twitterbot/1.0",
    "Slackbot": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
    "WhatsApp": "WhatsApp/2.23.20.0 A",
    "Discordbot": "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
    "LinkedInBot": ("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient "
                    "+http://www.linkedin.com)"),
    "Googlebot": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
}


def make_link(app, *, code="summer", domain=None, **fields) -> Link:
    fields.setdefault("media_source", "instagram")
    fields.setdefault("campaign_id", "summer-sale")
    return Link.objects.create(app=app, domain=domain, code=code, **fields)

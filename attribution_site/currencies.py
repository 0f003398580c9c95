"""The one currency check (docs/analytics.md, "Currencies"): ISO 4217's active codes, for revenue
events, conversion values and schemas, cost rows (API, CSV, console), currency rates and the
report currency alike (the settings check ANALYTICS_DEFAULT_CURRENCY with it, which is why it
lives in the project package, not in an app). Pure: standard library only."""

ISO_4217 = frozenset("""
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN
BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS
GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW
KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD
NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD
SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VED
VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG
""".split())

NOT_A_CURRENCY = "Must be an ISO 4217 code such as USD."


def currency_code(value: object) -> str | None:
    """`value` as an active ISO 4217 code, spaces around it and its case ignored; None when it
    names none (three capitals such as XYZ are not enough)."""
    if not isinstance(value, str):
        return None
    code = value.strip().upper()
    return code if code in ISO_4217 else None

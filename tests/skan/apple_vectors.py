"""Apple's published example postbacks, whose signatures Apple says are valid. Copied verbatim
(values and signatures) from Apple's documentation:

- SKAdNetwork 4.0 (two examples: a fine value, a coarse value): "Verifying an install-validation
  postback", https://developer.apple.com/documentation/storekit/verifying-an-install-validation-postback
- SKAdNetwork 3.0 (winning and non-winning): "Combining parameters for SKAdNetwork 3
  postbacks", https://developer.apple.com/documentation/storekit/combining-parameters-for-skadnetwork-3-postbacks
- SKAdNetwork 2.2: "Combining parameters for previous SKAdNetwork postback versions",
  https://developer.apple.com/documentation/storekit/combining-parameters-for-previous-skadnetwork-postback-versions
- AdAttributionKit (signed with the development key apple-development-identifier/1):
  "Identifying the parameters in a postback",
  https://developer.apple.com/documentation/adattributionkit/identifying-the-parameters-in-a-postback

Apple publishes no validly signed example for SKAdNetwork 2.0 or 2.1 (the 2.0 example once on
the page had a broken signature and invalid JSON), nor a production-signed AdAttributionKit
postback: those are tested with key pairs the tests generate.
"""

APP_STORE_ID = 525463029  # the advertised app in every SKAdNetwork example
AAK_APP_STORE_ID = 10738027756

V4_FINE = {
    "version": "4.0",
    "ad-network-id": "com.example",
    "source-identifier": "5239",
    "app-id": 525463029,
    "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30",
    "redownload": False,
    "source-domain": "example.com",
    "fidelity-type": 1,
    "did-win": True,
    "conversion-value": 63,
    "postback-sequence-index": 0,
    "attribution-signature": "MEUCIGRmSMrqedNu6uaHyhVcifs118R5z/AB6cvRaKrRRHWRAiEAv96ne3dKQ5kJpbsf"
                             "k4eYiePmrZUU6sQmo+7zfP/1Bxo=",
}

V4_COARSE = {
    "version": "4.0",
    "ad-network-id": "com.example",
    "source-identifier": "39",
    "app-id": 525463029,
    "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e31",
    "redownload": False,
    "source-domain": "example.com",
    "fidelity-type": 1,
    "did-win": True,
    "coarse-conversion-value": "high",
    "postback-sequence-index": 0,
    "attribution-signature": "MEUCIQD4rX6eh38qEhuUKHdap345UbmlzA7KEZ1bhWZuYM8MJwIgMnyiiZe6heabDkGw"
                             "OaKBYrUXQhKtF3P/ERHqkR/XpuA=",
}

V3_WIN = {
    "version": "3.0",
    "ad-network-id": "example123.skadnetwork",
    "campaign-id": 42,
    "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
    "app-id": 525463029,
    "attribution-signature": "MEYCIQD5eq3AUlamORiGovqFiHWI4RZT/PrM3VEiXUrsC+M51wIhAPMANZA9c07raZJ6"
                             "4gVaXhB9+9yZj/X6DcNxONdccQij",
    "redownload": True,
    "source-app-id": 1234567891,
    "fidelity-type": 1,
    "conversion-value": 20,
    "did-win": True,
}

V3_LOSS = {
    "version": "3.0",
    "ad-network-id": "example123.skadnetwork",
    "campaign-id": 42,
    "transaction-id": "f9ac267a-a889-44ce-b5f7-0166d11461f0",
    "app-id": 525463029,
    "attribution-signature": "MEUCIQDDetUtkyc/MiQvVJ5I6HIO1E7l598572Wljot2Onzd4wIgVJLzVcyAV+TXksGN"
                             "oa0DTMXEPgNPeHCmD4fw1ABXX0g=",
    "redownload": True,
    "fidelity-type": 1,
    "did-win": False,
}

V2_2 = {
    "version": "2.2",
    "ad-network-id": "com.example",
    "campaign-id": 42,
    "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e28",
    "app-id": 525463029,
    "attribution-signature": "MEYCIQDTuQ1Z4Tpy9D3aEKbxLl5J5iKiTumcqZikuY/AOD2U7QIhAJAaiAv89AoquHXJ"
                             "ffcieEQXdWHpcV8ZgbKN0EwV9/sY",
    "redownload": True,
    "source-app-id": 1234567891,
    "fidelity-type": 1,
    "conversion-value": 20,
}

SKADNETWORK_EXAMPLES = {"4.0 fine": V4_FINE, "4.0 coarse": V4_COARSE, "3.0 win": V3_WIN,
                        "3.0 loss": V3_LOSS, "2.2": V2_2}

AAK_JWS = (
    "eyJraWQiOiJhcHBsZS1kZXZlbG9wbWVudC1pZGVudGlmaWVyXC8xIiwiYWxnIjoiRVMyNTYifQ."
    "eyJwb3N0YmFjay1pZGVudGlmaWVyIjoiODU1NDZFQjctRkQzOS00NEJDLTg5OTAtQzk4QTRBQzM2QTQ5IiwicHVi"
    "bGlzaGVyLWl0ZW0taWRlbnRpZmllciI6MCwibWFya2V0cGxhY2UtaWRlbnRpZmllciI6ImNvbS5hcHBsZS5BcHBT"
    "dG9yZSIsImltcHJlc3Npb24tdHlwZSI6ImFwcC1pbXByZXNzaW9uIiwiYWQtbmV0d29yay1pZGVudGlmaWVyIjoi"
    "ZGV2ZWxvcG1lbnQuYWRhdHRyaWJ1dGlvbmtpdCIsImRpZC13aW4iOnRydWUsInBvc3RiYWNrLXNlcXVlbmNlLWlu"
    "ZGV4IjowLCJjb252ZXJzaW9uLXR5cGUiOiJyZS1lbmdhZ2VtZW50Iiwic291cmNlLWlkZW50aWZpZXIiOiIxMjM0"
    "IiwiYWR2ZXJ0aXNlZC1pdGVtLWlkZW50aWZpZXIiOjEwNzM4MDI3NzU2fQ."
    "bAdNwKd6OfHK9tofvjjua4X_JPcFTxXPQSspD9gZkinw97pY7R1aI-LSjl-oxZZF3_K2H5JK5TSEBee4_1U4oQ"
)

AAK_BODY = {
    "jws-string": AAK_JWS,
    "conversion-value": 24,
    "ad-interaction-type": "click",
    "country-code": "US",
}

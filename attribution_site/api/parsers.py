"""Body parsers beyond DRF's JSON one.

`navigator.sendBeacon` cannot set Content-Type to JSON without a CORS preflight, so beacon
clients post a JSON string as `text/plain;charset=UTF-8`; the events endpoint reads it as JSON.
"""

from rest_framework.parsers import JSONParser


class PlainTextJSONParser(JSONParser):
    media_type = "text/plain"

"""JSON body parsing for every endpoint.

Python's json module raises RecursionError, not ValueError, for deeply nested input; left alone
that would be a 500 for a bad body. `navigator.sendBeacon` cannot set Content-Type to JSON
without a CORS preflight, so beacon clients post a JSON string as `text/plain;charset=UTF-8`;
the events endpoint reads it as JSON.
"""

import json

from rest_framework import parsers
from rest_framework.exceptions import ParseError

TOO_DEEP = "JSON parse error - nested too deeply"


def loads(raw: bytes | str):
    """Parsed JSON, or ParseError for anything that is not a JSON document."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ParseError(TOO_DEEP) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParseError(f"JSON parse error - {exc}") from None


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(TOO_DEEP) from None


class PlainTextJSONParser(JSONParser):
    media_type = "text/plain"

"""QR codes of short links (docs/links.md, "QR codes"), drawn by segno (pure Python).

`size` is the image's width in pixels, from MIN_SIZE to MAX_SIZE. The symbol is drawn with the
standard quiet zone of four modules; an SVG is scaled to exactly `size`, a PNG by a whole number
of pixels per module (sharp edges for printing and scanning), so it is at most `size` wide and
never narrower than one pixel per module.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import segno

from attribution_site.api.exceptions import ValidationFailed

FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
DEFAULT_FORMAT = "svg"
MIN_SIZE, MAX_SIZE, DEFAULT_SIZE = 64, 2048, 512
QUIET_ZONE = 4


@dataclass(frozen=True)
class QrImage:
    content: bytes
    content_type: str
    extension: str


def qr_image(*, url: str, image_format: str, size: int) -> QrImage:
    # Error correction M at least (a printed code survives some damage); segno raises it
    # further when that costs no extra modules.
    code = segno.make(url, error="m", micro=False)
    modules = code.symbol_size(scale=1, border=QUIET_ZONE)[0]
    out = io.BytesIO()
    if image_format == "svg":
        code.save(out, kind="svg", scale=size / modules, border=QUIET_ZONE, xmldecl=False,
                  title=url)
    else:
        code.save(out, kind="png", scale=max(1, size // modules), border=QUIET_ZONE)
    return QrImage(content=out.getvalue(), content_type=FORMATS[image_format],
                   extension=image_format)


def qr_options(params) -> tuple[str, int]:
    """The image format and size a query asks for (`format`, `size`): the API's and the
    console's one parser; a bad value is a 400 naming it."""
    errors: dict[str, list[str]] = {}
    image_format = params.get("format") or DEFAULT_FORMAT
    if image_format not in FORMATS:
        errors["format"] = [f"Must be one of {', '.join(FORMATS)}."]
    size = DEFAULT_SIZE
    raw = params.get("size")
    if raw:
        range_message = f"Must be an integer from {MIN_SIZE} to {MAX_SIZE}."
        if not raw.isascii() or not raw.isdigit() or not MIN_SIZE <= int(raw) <= MAX_SIZE:
            errors["size"] = [range_message]
        else:
            size = int(raw)
    if errors:
        raise ValidationFailed("Invalid input: " + ", ".join(errors) + ".", errors)
    return image_format, size

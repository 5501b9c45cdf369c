"""Uploaded teaser images, checked and normalised by their content, and their thumbnails.

:func:`clean_image`, the one gate of every upload, reads the bytes with Pillow (never the
name or content type) and refuses with a ValidationError coded ``too_large``, ``svg``
(XML could carry scripts), ``not_image`` (not JPEG, PNG, GIF or WebP), ``too_many_pixels``,
``bomb`` (refused before decoding), ``truncated`` or ``animated`` (WCAG 2.2.2). It
re-encodes the image without EXIF (camera details, GPS positions), in RGB, RGBA or L.
"""

import io
import warnings
from functools import partial
from pathlib import PurePath
from typing import NamedTuple

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.images import get_image_dimensions
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext_lazy as _
from easy_thumbnails.alias import aliases
from easy_thumbnails.files import get_thumbnailer
from PIL import Image, ImageCms, ImageMath, ImageOps, UnidentifiedImageError

from catalogue.signals import after_commit

ACCEPTED_FORMATS = {"JPEG", "PNG", "GIF", "WEBP"}
# The content type and extension of each format written (GIF is written as PNG).
OUTPUT = {
    "JPEG": ("image/jpeg", "jpg"),
    "PNG": ("image/png", "png"),
    "WEBP": ("image/webp", "webp"),
}
SVG_MARKERS = (b"<svg", b"<?xml", b"<!doctype svg")


def clean_image(upload):
    """Check ``upload`` (a Django File) by its content; return a SimpleUploadedFile of the
    re-encoded image, EXIF orientation applied, as PNG when transparent, else in its own
    format (GIF as PNG), named ``<stem>.<ext>``, with the Pillow image as its ``image``
    (as Django's ImageField sets). Raises only ValidationError for bad input."""
    max_bytes = settings.PAPER_IMAGE_MAX_BYTES
    if upload.size is not None and upload.size > max_bytes:
        raise ValidationError(
            _("The image is %(size)s; the limit is %(limit)s."),
            code="too_large",
            params={"size": filesizeformat(upload.size), "limit": filesizeformat(max_bytes)},
        )
    upload.seek(0)
    data = upload.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValidationError(
            _("The image is larger than %(limit)s."),
            code="too_large",
            params={"limit": filesizeformat(max_bytes)},
        )
    if _looks_like_svg(data):
        raise ValidationError(
            _("SVG drawings are not accepted: upload a PNG, JPEG, GIF or WebP image."), code="svg"
        )

    image, output_format = _open(data)
    converted_from_cmyk = image.mode == "CMYK"
    image = _normalise(image)
    if output_format == "GIF" or (image.mode == "RGBA" and output_format == "JPEG"):
        output_format = "PNG"  # JPEG has no transparency
    buffer = io.BytesIO()
    options = {"JPEG": {"quality": 90, "optimize": True}, "WEBP": {"quality": 90}}
    options = options.get(output_format, {})
    # Keep an RGB image's colour profile (Display P3 from a phone), not a CMYK image's
    # (its pixels are now sRGB). No EXIF is written.
    if image.info.get("icc_profile") and not converted_from_cmyk:
        options["icc_profile"] = image.info["icc_profile"]
    image.save(buffer, format=output_format, **options)
    stem = PurePath(upload.name or "image").stem[:80] or "image"
    content_type, extension = OUTPUT[output_format]
    cleaned = SimpleUploadedFile(
        f"{stem}.{extension}", buffer.getvalue(), content_type=content_type
    )
    cleaned.image = image
    return cleaned


def _looks_like_svg(data):
    """True for XML that is (or may be, within its first kilobyte) an SVG drawing."""
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(SVG_MARKERS) or (head.startswith(b"<") and b"<svg" in head)


def _open(data):
    """Identify and fully decode ``data`` within the limits; return the Pillow image."""
    max_pixels = settings.PAPER_IMAGE_MAX_PIXELS
    # Pillow warns above MAX_IMAGE_PIXELS and raises above twice that: both refuse here,
    # whatever the process's warning filters say, so a bomb is never decoded.
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
            raise _bomb_error() from error
        except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as error:
            raise ValidationError(
                _("This file is not an image that can be shown: upload a PNG, JPEG, GIF or WebP."),
                code="not_image",
            ) from error
        if image.format not in ACCEPTED_FORMATS:
            raise ValidationError(
                _("%(format)s images are not accepted: upload a PNG, JPEG, GIF or WebP image."),
                code="not_image",
                params={"format": image.format},
            )
        if getattr(image, "is_animated", False):
            raise ValidationError(
                _(
                    "Animated images are not accepted: pages show a still teaser, so only "
                    "the first frame would appear. Upload a still image of the frame you want."
                ),
                code="animated",
            )
        width, height = image.size
        if width * height > max_pixels:
            raise ValidationError(
                _(
                    "The image is %(width)s × %(height)s pixels; the limit is "
                    "%(limit)s million pixels."
                ),
                code="too_many_pixels",
                params={"width": width, "height": height, "limit": max_pixels // 1_000_000},
            )
        try:
            image.load()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
            raise _bomb_error() from error
        except (OSError, ValueError, SyntaxError, EOFError) as error:
            raise ValidationError(
                _("The image is truncated or damaged: export it again and upload the new file."),
                code="truncated",
            ) from error
    return image, image.format


def _bomb_error():
    return ValidationError(
        _("The image claims an enormous size (a decompression bomb) and was refused."),
        code="bomb",
    )


def _normalise(image):
    """Apply EXIF orientation and bring the pixels to RGB, RGBA or L: 16-bit grey
    scaled to 8 bits, premultiplied alpha undone, a transparent colour made alpha."""
    image = ImageOps.exif_transpose(image)
    if image.mode == "CMYK":
        image = _cmyk_to_rgb(image)
    elif image.mode in WIDE_GREY:
        image = _wide_grey_to_8_bits(image)
    elif image.mode in PREMULTIPLIED:
        image = image.convert(PREMULTIPLIED[image.mode])
    if image.mode == "P" or image.mode == "PA":
        transparent = "transparency" in image.info or image.mode == "PA"
        image = image.convert("RGBA" if transparent else "RGB")
    elif image.mode == "LA" or (image.mode in {"L", "RGB"} and "transparency" in image.info):
        image = image.convert("RGBA")
    elif image.mode not in {"RGB", "RGBA", "L"}:
        # 1-bit, 32-bit float, YCbCr, LAB, HSV...
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    if image.mode == "RGBA" and image.getextrema()[3] == (255, 255):
        image = image.convert("RGB")  # an alpha channel that hides nothing
    return image


# Grey with more than 8 bits a pixel, read as 0-65535 (what PNG's 16-bit grey holds).
WIDE_GREY = {"I;16", "I;16B", "I;16L", "I;16N", "I"}
# Premultiplied alpha, which Pillow's other conversions do not undo.
PREMULTIPLIED = {"La": "LA", "RGBa": "RGBA"}


def _wide_grey_to_8_bits(image):
    """16-bit grey to L (RGBA when a grey value is transparent), divided by 257 and
    rounded: Pillow's own conversion clips to 0-255, which made the image white."""
    wide = image.convert("I")
    grey = wide.point(lambda value: value / 257 + 0.5).convert("L")
    transparent = image.info.get("transparency")
    if not isinstance(transparent, int):
        return grey
    alpha = ImageMath.lambda_eval(lambda args: (args["v"] != transparent) * 255, v=wide)
    rgba = grey.convert("RGBA")
    rgba.putalpha(alpha.convert("L"))
    return rgba


def _cmyk_to_rgb(image):
    """CMYK to RGB, through the image's own ICC profile when it has one."""
    profile = image.info.get("icc_profile")
    if profile:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            return ImageCms.profileToProfile(
                image, source, ImageCms.createProfile("sRGB"), outputMode="RGB"
            )
        except (ImageCms.PyCMSError, OSError):
            pass  # a broken profile: fall back to Pillow's plain conversion
    return image.convert("RGB")


def readable_image(storage, name):
    """Whether the file ``name`` in ``storage`` is a whole image Pillow reads: False when
    it is missing, empty (what a full disk left), cut short or damaged. Reads it all."""
    try:
        with storage.open(name, "rb") as file, Image.open(file) as image:
            if image.format == "PNG":
                image.verify()  # every chunk's checksum to the end, without decoding
            else:
                image.load()  # decoded: a JPEG or WebP cut short fails
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError):
        return False
    return True


def make_thumbnails(storage, name):
    """Make every size of ``settings.THUMBNAIL_ALIASES`` for the image ``name`` in
    ``storage`` missing, out of date, empty or unreadable; returns the names. OSError
    (a full disk: ENOSPC) or InvalidImageFormatError for an unreadable image."""
    thumbnailer = get_thumbnailer(storage, relative_name=name)
    names = []
    for alias, options in aliases.all(include_global=True).items():
        options = {**options, "ALIAS": alias}
        existing = thumbnailer.get_existing_thumbnail(options)
        if existing is not None and not readable_image(existing.storage, existing.name):
            existing.storage.delete(existing.name)  # made again below
        names.append(thumbnailer.get_thumbnail(options).name)
    return names


THUMBNAILS_FAILED = _(
    "The change is saved, but the image's thumbnails could not be made (the server's "
    "log says why): “manage.py make_thumbnails” makes them."
)


def make_thumbnails_of_saved_file(fieldfile, **kwargs):
    """easy-thumbnails' ``saved_file`` receiver: the thumbnails of a newly saved image
    field, made once the save commits; a failure is logged and left to the
    ``make_thumbnails`` command (``after_commit``)."""
    if fieldfile:
        storage, name = fieldfile.storage, fieldfile.name
        after_commit(partial(make_thumbnails, storage, name), warning=THUMBNAILS_FAILED)


def _alias(name):
    """The options of the thumbnail alias ``name``; ValueError when there is none."""
    options = aliases.get(name)
    if options is None:
        raise ValueError(f"unknown thumbnail alias {name!r}")
    return options


class Picture(NamedTuple):
    """An image as a page's ``<img>`` needs it: its URL and its size in pixels."""

    url: str
    width: int | None
    height: int | None


def thumbnail_picture(fieldfile, alias):
    """The ``alias`` thumbnail of ``fieldfile`` (else the image) as a ``Picture`` kept on the
    field file (sizes ``None`` if unreadable); ``None`` for an empty field or a missing
    file, ValueError for an unknown alias."""
    if not fieldfile:
        return None
    pictures = fieldfile.__dict__.setdefault("_pictures", {})
    if alias not in pictures:
        pictures[alias] = _picture(fieldfile, alias)
    return pictures[alias]


def _picture(fieldfile, alias):
    source = get_thumbnailer(fieldfile).get_existing_thumbnail(_alias(alias)) or fieldfile
    try:
        with source.storage.open(source.name) as file:
            width, height = get_image_dimensions(file)
    except FileNotFoundError:
        return None
    except OSError:
        width = height = None
    return Picture(source.url, width, height)


class ListThumbnail(NamedTuple):
    """A list's thumbnail as its ``<img>`` needs it: the 1x URL, the ``srcset`` (1x and
    2x) and the slot's size in CSS pixels."""

    src: str
    srcset: str
    width: int
    height: int


# The aliases of a list's slot (settings.THUMBNAIL_ALIASES): 1x first, then 2x.
LIST_ALIASES = ("list", "list_2x")


def list_thumbnail(image):
    """The list-slot thumbnails of ``image`` (a FieldFile or its column's name) as a
    ``ListThumbnail``, ``None`` for an empty field, ValueError without the aliases.
    Reads no database nor storage (a missing file gives a 404: an empty decorative slot)."""
    if not image:
        return None
    thumbnailer = get_thumbnailer(image)
    urls = []
    for alias in LIST_ALIASES:
        name = thumbnailer.get_thumbnail_name(_alias(alias))
        urls.append(thumbnailer.thumbnail_storage.url(name))
    width, height = aliases.get(LIST_ALIASES[0])["size"]
    return ListThumbnail(urls[0], f"{urls[0]} 1x, {urls[1]} 2x", width, height)

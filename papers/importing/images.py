"""Image files named by a fixture: checked with Pillow, stored in the media storage."""

import hashlib
import io
import warnings
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image

from ..models import (
    Paper,
)
from .fields import IMAGE_DIRECTORY, IMAGE_FORMATS, MAX_IMAGE_BYTES


def check_image(data, *, max_bytes=MAX_IMAGE_BYTES):
    """Check that ``data`` (bytes) is one image a browser can show; return its extension.

    Returns ``"png"``, ``"jpg"``, ``"gif"`` or ``"webp"``, from the content, never the
    file name. Raises ``ValidationError`` when ``data`` is empty, larger than
    ``max_bytes`` (bytes; default :data:`MAX_IMAGE_BYTES`), not an image Pillow can
    read, in another format, or has more pixels than Pillow's decompression-bomb
    limit (``PIL.Image.MAX_IMAGE_PIXELS``).
    """
    if not data:
        raise ValidationError("the image file is empty")
    if len(data) > max_bytes:
        raise ValidationError(
            f"the image file is too large: {len(data)} bytes, at most {max_bytes} allowed"
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image_format = image.format
                image.verify()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise ValidationError(f"the image has too many pixels: {error}") from error
    except Exception as error:  # Pillow raises many kinds for a file that is no image
        raise ValidationError("the file is not an image Pillow can read") from error
    if image_format not in IMAGE_FORMATS:
        raise ValidationError(
            f"the image is {image_format}; use one of {', '.join(sorted(IMAGE_FORMATS))}"
        )
    return IMAGE_FORMATS[image_format]


def image_digest(data):
    """How the importer compares images: ``"sha256:<hex>"`` of the bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def stored_image_digest(name):
    """The digest of an image in the media storage, or ``""`` for no image.

    A stored name whose file is gone gives ``"missing:<name>"``, which differs from
    every fixture value, so the importer treats it as a change to report.
    """
    if not name:
        return ""
    try:
        with default_storage.open(name, "rb") as stored:
            return image_digest(stored.read())
    except OSError:
        return f"missing:{name}"


def store_image(source_name, data):
    """Save image bytes in the media storage under ``papers/<file name>``; return the name.

    When a file of that name with the same bytes is already stored, it is reused, so
    importing the same fixture twice, or after ``flush``, stores nothing new.
    """
    name = f"{IMAGE_DIRECTORY}/{Path(source_name).name}"
    if default_storage.exists(name) and stored_image_digest(name) == image_digest(data):
        return name
    max_length = Paper._meta.get_field("image").max_length
    return default_storage.save(name, ContentFile(data), max_length=max_length)

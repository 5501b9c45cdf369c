"""Image files named by a fixture: checked by the admin's rules, stored in the media storage."""

import hashlib
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from catalogue.images import clean_image, make_thumbnails
from catalogue.models import Paper


def prepare_image(data, source_name):
    """(file name, bytes) to store: an image file checked and normalised by the admin's
    :func:`~catalogue.images.clean_image`; ``ValidationError`` for what it refuses, or none."""
    if not data:
        raise ValidationError("the image file is empty")
    cleaned = clean_image(ContentFile(data, name=Path(source_name).name))
    cleaned.seek(0)
    return cleaned.name, cleaned.read()


def image_digest(data):
    """How the importer compares images: ``"sha256:<hex>"`` of the bytes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def stored_image_digest(name):
    """The digest of an image in the media storage, ``""`` for no image, or
    ``"missing:<name>"`` when its file is gone (unequal to any fixture's value)."""
    if not name:
        return ""
    try:
        with default_storage.open(name, "rb") as stored:
            return image_digest(stored.read())
    except OSError:
        return f"missing:{name}"


def store_image(file_name, data):
    """Save image bytes as ``papers/<file_name>`` (``Paper.image``'s ``upload_to``) in the
    media storage, with the admin's thumbnails, reusing one with the same bytes; its name."""
    field = Paper._meta.get_field("image")
    name = field.upload_to + file_name
    if not (default_storage.exists(name) and stored_image_digest(name) == image_digest(data)):
        name = default_storage.save(name, ContentFile(data), max_length=field.max_length)
    make_thumbnails(default_storage, name)
    return name

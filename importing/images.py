"""Image files named by a fixture: checked by the admin's rules, stored in the media storage."""

import hashlib
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from catalogue.images import clean_image, make_thumbnails
from catalogue.models import Paper
from importing.fields import IMAGE_DIRECTORY


def prepare_image(data, source_name):
    """Check and normalise an image file's bytes by the admin's rules
    (:func:`catalogue.images.clean_image`); return (file name to store, bytes to store).
    Raises ``ValidationError`` for an empty file and whatever ``clean_image`` refuses.
    """
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
    """Save image bytes in the media storage under ``papers/<file_name>``; return the name.

    A stored file of that name with the same bytes is reused (importing twice stores
    nothing new). Its thumbnails are made here, as the admin makes them at upload.
    """
    name = f"{IMAGE_DIRECTORY}/{file_name}"
    if not (default_storage.exists(name) and stored_image_digest(name) == image_digest(data)):
        max_length = Paper._meta.get_field("image").max_length
        name = default_storage.save(name, ContentFile(data), max_length=max_length)
    make_thumbnails(default_storage, name)
    return name

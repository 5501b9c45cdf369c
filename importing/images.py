"""Image files named by a fixture: checked by the admin's rules, stored in the media storage."""

import hashlib
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from catalogue.images import clean_image, make_thumbnails
from catalogue.models import Paper


def prepare_image(data, source_name):
    """(file name to store, bytes to store): an image file's bytes checked and normalised
    by the admin's rules (:func:`catalogue.images.clean_image`). Raises
    ``ValidationError`` for an empty file and whatever ``clean_image`` refuses."""
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
    """Save image bytes in the media storage in ``Paper.image``'s ``upload_to``
    (``papers/<file_name>``), with thumbnails as the admin makes them; return the name.
    A stored file of that name with the same bytes is reused."""
    field = Paper._meta.get_field("image")
    name = field.upload_to + file_name
    if not (default_storage.exists(name) and stored_image_digest(name) == image_digest(data)):
        name = default_storage.save(name, ContentFile(data), max_length=field.max_length)
    make_thumbnails(default_storage, name)
    return name

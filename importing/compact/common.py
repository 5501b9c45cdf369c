"""What the compact reader's parts share (importing/compact/reader.py, people.py)."""

import re

from importing.fields import LANGUAGE_SUFFIXES

# A translated field is written bare for the site's default language (``title``) and
# with its suffix for the others (``title_zh_hans``), as the fixture writes them.
DEFAULT_SUFFIX = LANGUAGE_SUFFIXES[0]
SLUG = re.compile(r"[-a-z0-9_]+")


def type_name(value):
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return "null" if value is None else type(value).__name__


def slug_length(model):
    """The longest slug ``model`` stores."""
    return model._meta.get_field("slug").max_length

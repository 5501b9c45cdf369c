"""ORCID iDs, ``0000-0002-1825-0097``, by ORCID's rule (support.orcid.org, "Structure of
the ORCID Identifier"): four groups of four, the last character an ISO 7064 MOD 11-2
check digit over the first 15 digits, ``X`` standing for 10.
"""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

ORCID = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")


def is_orcid(value):
    """Whether ``value`` (any object) is an ORCID iD written as ORCID writes it, with a
    valid check digit. A URL (``https://orcid.org/...``) is not: the field holds the iD."""
    if not isinstance(value, str) or not ORCID.fullmatch(value):
        return False
    digits = value.replace("-", "")
    total = 0
    for digit in digits[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    return digits[-1] == ("X" if check == 10 else str(check))


def validate_orcid(value):
    """The model field's validator: raises ``ValidationError`` (code ``invalid_orcid``)
    unless ``value`` is an ORCID iD (``is_orcid``)."""
    if not is_orcid(value):
        raise ValidationError(
            _(
                "Enter an ORCID iD as ORCID writes it: four groups of four digits "
                "(the last may be X) joined by hyphens, e.g. 0000-0002-1825-0097, with "
                "a valid check digit."
            ),
            code="invalid_orcid",
        )

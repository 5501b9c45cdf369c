"""Machine-readable metadata on the pages (pages/metadata.py): Scholar tags, JSON-LD,
OpenGraph, canonical URLs and hreflang alternates."""

import json
import re
from html.parser import HTMLParser

import pytest

from catalogue.models import Paper
from pages.metadata import arxiv_id, doi, first_page_and_last, proceedings_fields
from tests import factories


class _Head(HTMLParser):
    """The ``<meta>`` and ``<link>`` elements and JSON-LD scripts of a page."""

    def __init__(self):
        super().__init__()
        self.meta, self.links, self.json_ld, self._in_json_ld = [], [], [], False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "meta":
            self.meta.append(attributes)
        elif tag == "link":
            self.links.append(attributes)
        elif tag == "script":
            self._in_json_ld = attributes.get("type") == "application/ld+json"

    def handle_data(self, data):
        if self._in_json_ld:
            self.json_ld.append(json.loads(data))
            self._in_json_ld = False


def _head(client, url):
    response = client.get(url)
    assert response.status_code == 200
    parser = _Head()
    parser.feed(response.content.decode())
    return parser


def _scholar(head):
    return [
        (m["name"], m["content"]) for m in head.meta if m.get("name", "").startswith("citation_")
    ]


def _property(head, name):
    return [m["content"] for m in head.meta if m.get("property") == name]


def test_scholar_tags_on_a_paper_page(icml, client):
    tags = _scholar(_head(client, "/zh-hans/papers/trust-region-policy-optimization/"))

    # The whole English abstract on the Chinese page, as Zotero saves it.
    abstract = " ".join(
        Paper.objects.get(slug="trust-region-policy-optimization").abstract_en.split()
    )

    berkeley = ("citation_author_institution", "University of California, Berkeley")
    assert tags == [
        ("citation_title", "Trust Region Policy Optimization"),
        ("citation_author", "Schulman, John"),
        berkeley,
        ("citation_author", "Levine, Sergey"),
        berkeley,
        ("citation_author", "Moritz, Philipp"),
        berkeley,
        ("citation_author", "Jordan, Michael I."),
        berkeley,
        ("citation_author", "Abbeel, Pieter"),
        berkeley,
        ("citation_publication_date", "2015"),
        ("citation_conference_title", "International Conference on Machine Learning"),
        ("citation_volume", "37"),
        ("citation_series_title", "Proceedings of Machine Learning Research"),
        ("citation_publisher", "PMLR"),
        ("citation_firstpage", "1889"),
        ("citation_lastpage", "1897"),
        ("citation_pdf_url", "https://arxiv.org/pdf/1502.05477"),
        ("citation_arxiv_id", "1502.05477"),
        (
            "citation_abstract_html_url",
            "http://testserver/zh-hans/papers/trust-region-policy-optimization/",
        ),
        ("citation_public_url", "https://proceedings.mlr.press/v37/schulman15.html"),
        ("citation_language", "en"),
        ("citation_abstract", abstract),
    ]


def test_scholar_pdf_doi_and_institutions_only_when_known(client, db):
    place = factories.institution(name_en="Princeton University")
    with_pdf = factories.paper(
        authors=[factories.author(name="Ada Zed")],
        affiliations=[place],
        links=[("pdf", "https://example.org/paper.pdf"), ("doi", "https://doi.org/10.1/xyz")],
    )
    without = factories.paper(links=[("arxiv", "https://arxiv.org/abs/1502.03167v3")])

    tags = _scholar(_head(client, with_pdf.get_absolute_url()))
    other = dict(_scholar(_head(client, without.get_absolute_url())))

    assert tags[1:3] == [
        ("citation_author", "Zed, Ada"),
        ("citation_author_institution", "Princeton University"),
    ]
    assert ("citation_pdf_url", "https://example.org/paper.pdf") in tags
    assert ("citation_doi", "10.1/xyz") in tags
    assert "citation_doi" not in other
    assert other["citation_arxiv_id"] == "1502.03167v3"
    # No PDF link: arXiv's PDF of the version linked.
    assert other["citation_pdf_url"] == "https://arxiv.org/pdf/1502.03167v3"


def test_no_pdf_url_without_a_pdf_or_arxiv_link(client, db):
    paper = factories.paper(links=[("openreview", "https://openreview.net/forum?id=x")])

    assert "citation_pdf_url" not in dict(_scholar(_head(client, paper.get_absolute_url())))


@pytest.mark.parametrize(
    ("proceedings", "expected"),
    [
        (
            "PMLR, volume 267",
            {
                "volume": "267",
                "series": "Proceedings of Machine Learning Research",
                "publisher": "PMLR",
            },
        ),
        (
            "Proceedings of Imaginary Learning, volume 9",
            {"volume": "9", "series": "Proceedings of Imaginary Learning", "publisher": ""},
        ),
        ("Advances in Neural Information Processing Systems 37", {}),
        ("https://proceedings.example.org/2031/4", {}),
        ("", {}),
    ],
)
def test_proceedings_fields(proceedings, expected):
    fields = proceedings_fields(proceedings)

    assert {name: value for name, value in fields.items() if value} == {
        name: value for name, value in expected.items() if value
    }


def test_scholar_abstract_is_the_whole_english_one_without_a_volume_unknown(client, db):
    abstract = "First sentence.\n\n" + "Words " * 400 + "end."
    paper = factories.paper(
        abstract_en=abstract,
        abstract_zh_hans="中文摘要。",
        conference=factories.conference(proceedings_en="https://proceedings.example.org/9"),
    )

    tags = dict(_scholar(_head(client, f"/zh-hans/papers/{paper.slug}/")))

    assert tags["citation_abstract"] == " ".join(abstract.split())
    assert "citation_volume" not in tags
    assert "citation_publisher" not in tags


def test_json_ld_scholarly_article(icml, client):
    [article] = _head(client, "/en/papers/conformal-prediction-as-bayesian-quadrature/").json_ld

    assert article["@context"] == "https://schema.org"
    assert article["@type"] == "ScholarlyArticle"
    assert article["headline"] == "Conformal Prediction as Bayesian Quadrature"
    assert article["alternativeHeadline"] == "共形预测作为贝叶斯求积"
    assert article["inLanguage"] == "en"
    assert [author["name"] for author in article["author"]] == ["Jake Snell", "Thomas Griffiths"]
    assert article["author"][0]["url"] == "http://testserver/en/authors/jake-snell/"
    assert article["author"][0]["affiliation"] == [
        {"@type": "Organization", "name": "Princeton University"}
    ]
    assert article["sameAs"] == [
        "https://openreview.net/forum?id=PNmkjIzHB7",
        "https://arxiv.org/abs/2502.13228",
        "https://icml.cc/virtual/2025/poster/45390",
    ]
    assert article["award"] == ["ICML 2025 Outstanding Paper Award"]
    assert article["publication"] == {
        "@type": "PublicationEvent",
        "@id": "http://testserver/en/conferences/icml-2025/#event",
        "name": "ICML 2025",
        "url": "http://testserver/en/conferences/icml-2025/",
        "startDate": "2025-07-13",
        "endDate": "2025-07-19",
        "location": {
            "@type": "Place",
            "address": {
                "@type": "PostalAddress",
                "addressLocality": "Vancouver",
                "addressCountry": "Canada",
            },
        },
        "superEvent": {
            "@type": "EventSeries",
            "name": "International Conference on Machine Learning",
            "url": "http://testserver/en/venues/icml/",
        },
    }
    assert article["isPartOf"] == {
        "@type": "PublicationVolume",
        "volumeNumber": "267",
        "isPartOf": {"@type": "BookSeries", "name": "Proceedings of Machine Learning Research"},
    }
    assert article["publisher"] == {"@type": "Organization", "name": "PMLR"}
    assert (
        article["url"] == "http://testserver/en/papers/conformal-prediction-as-bayesian-quadrature/"
    )


def test_json_ld_cannot_close_its_script(client, db):
    paper = factories.paper(title_en="</script><script>alert(1)</script> & more")

    html = client.get(paper.get_absolute_url()).content.decode()
    [script] = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html)

    assert "<" not in script
    assert json.loads(script)["headline"] == "</script><script>alert(1)</script> & more"


def test_opengraph_on_a_paper_page(icml, client):
    head = _head(client, "/zh-hans/papers/conformal-prediction-as-bayesian-quadrature/")

    assert _property(head, "og:type") == ["article"]
    assert _property(head, "og:title") == ["共形预测作为贝叶斯求积"]
    assert _property(head, "og:locale") == ["zh_CN"]
    assert _property(head, "og:locale:alternate") == ["en_US"]
    assert _property(head, "og:url") == [
        "http://testserver/zh-hans/papers/conformal-prediction-as-bayesian-quadrature/"
    ]
    [description] = _property(head, "og:description")
    assert description.startswith("随着机器学习预测系统越来越多地用于高风险场景")
    assert len(description) <= 300


@pytest.mark.parametrize(
    "path",
    [
        "",
        "conferences/icml-2025/",
        "conferences/icml-2025/awards/test-of-time/",
        "venues/icml/awards/test-of-time/",
        "papers/collabllm/",
        "authors/michael-i-jordan/",
        "search/",
    ],
)
def test_every_page_has_canonical_and_hreflang_alternates(icml, client, path):
    links = _head(client, f"/zh-hans/{path}?utm_source=x").links

    canonical = [link["href"] for link in links if link.get("rel") == "canonical"]
    alternates = {
        link["hreflang"]: link["href"]
        for link in links
        if link.get("rel") == "alternate" and "hreflang" in link
    }
    assert canonical == [f"http://testserver/zh-hans/{path}"]
    assert alternates == {
        "en": f"http://testserver/en/{path}",
        "zh-hans": f"http://testserver/zh-hans/{path}",
        "x-default": f"http://testserver/{path}",
    }


def test_x_default_redirects_by_accept_language(icml, client):
    response = client.get("/papers/collabllm/", headers={"accept-language": "zh-CN"})

    assert response.status_code == 302
    assert response["Location"] == "/zh-hans/papers/collabllm/"


def test_site_url_setting_makes_the_absolute_urls(icml, client, settings):
    settings.SITE_URL = "https://awards.example.org"

    head = _head(client, "/en/papers/collabllm/")

    assert [link["href"] for link in head.links if link.get("rel") == "canonical"] == [
        "https://awards.example.org/en/papers/collabllm/"
    ]
    assert head.json_ld[0]["url"] == "https://awards.example.org/en/papers/collabllm/"


def test_404_page_has_no_canonical(client, db):
    response = client.get("/en/papers/nope/")
    parser = _Head()
    parser.feed(response.content.decode())

    assert response.status_code == 404
    assert [link for link in parser.links if link.get("rel") == "canonical"] == []
    assert {"name": "robots", "content": "noindex"} in parser.meta


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://arxiv.org/abs/2502.13228", "2502.13228"),
        ("https://arxiv.org/abs/2502.13228v2", "2502.13228v2"),
        ("https://arxiv.org/pdf/2502.13228.pdf", "2502.13228"),
        ("http://arxiv.org/abs/math/0211159", "math/0211159"),
        ("https://example.org/abs/2502.13228", ""),
    ],
)
def test_arxiv_id(url, expected):
    assert arxiv_id(url) == expected


def test_doi_and_pages():
    assert doi("https://doi.org/10.5555/12345.678") == "10.5555/12345.678"
    assert doi("doi:10.1/x") == "10.1/x"
    assert doi("https://example.org/10.1/x") == ""
    assert first_page_and_last("1889-1897") == ("1889", "1897")
    assert first_page_and_last("448 – 456") == ("448", "456")
    assert first_page_and_last("e12") == ("e12", "")


def test_json_ld_award_names_a_level_below_the_top(client, db):
    conference = factories.conference(name_en="CIL 2031")
    award = factories.award(conference=conference, name_en="Best Imaginary Paper Award")
    winner, runner_up = factories.paper(), factories.paper()
    factories.award_entry(award, winner, level="winner")
    factories.award_entry(award, runner_up, level="runner-up")

    [top] = _head(client, winner.get_absolute_url()).json_ld
    [below] = _head(client, runner_up.get_absolute_url()).json_ld

    assert top["award"] == ["CIL 2031 Best Imaginary Paper Award"]
    assert below["award"] == ["CIL 2031 Best Imaginary Paper Award (Runner-up)"]


def test_opengraph_share_image_is_the_teaser_thumbnail(client, db, settings, tmp_path):
    import io

    from django.core.files.storage import default_storage
    from PIL import Image

    from catalogue.images import make_thumbnails

    settings.MEDIA_ROOT = tmp_path
    buffer = io.BytesIO()
    Image.new("RGB", (1200, 630), (20, 90, 160)).save(buffer, format="PNG")
    default_storage.save("papers/card.png", buffer)
    make_thumbnails(default_storage, "papers/card.png")
    paper = factories.paper(
        image="papers/card.png", image_alt_en="A blue card", image_alt_zh_hans="一张蓝色卡片"
    )

    head = _head(client, f"/zh-hans/papers/{paper.slug}/")

    assert _property(head, "og:image") == ["http://testserver/media/papers/card.png.960x0_q85.png"]
    assert _property(head, "og:image:width") == ["960"]
    assert _property(head, "og:image:height") == ["504"]
    assert _property(head, "og:image:alt") == ["一张蓝色卡片"]


def test_paper_without_teaser_has_no_share_image(client, db):
    paper = factories.paper()

    head = _head(client, paper.get_absolute_url())

    assert _property(head, "og:image") == []

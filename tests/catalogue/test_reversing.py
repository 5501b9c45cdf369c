"""catalogue/reversing.py: slug URLs built once per route and language, equal to reverse()'s."""

import pytest
from django.test import override_settings
from django.urls import NoReverseMatch, reverse, set_script_prefix
from django.utils import translation

from catalogue.reversing import reverse_slugs, slug_url, slugs_url


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_reverse_slugs_equals_reverse_in_each_language(language):
    routes = [
        ("papers:paper-detail", {"slug": "attention-is-all"}),
        ("papers:author-detail", {"slug": "mei_2"}),
        ("papers:award-detail", {"conference_slug": "icml-2025", "slug": "test-of-time"}),
        ("papers:award-series", {"venue_slug": "icml", "slug": "outstanding-paper"}),
    ]
    with translation.override(language):
        for name, slugs in routes:
            reverse_slugs(name, **slugs)  # the first call fills the cache
            assert reverse_slugs(name, **slugs) == reverse(name, kwargs=slugs)


def test_reverse_slugs_keeps_the_order_of_two_slugs():
    with translation.override("en"):
        assert reverse_slugs("papers:award-detail", conference_slug="a", slug="b") == (
            "/en/conferences/a/awards/b/"
        )
        assert reverse_slugs("papers:award-detail", slug="b", conference_slug="a") == (
            "/en/conferences/a/awards/b/"
        )


def test_reverse_slugs_follows_the_script_prefix():
    with translation.override("en"):
        reverse_slugs("papers:paper-detail", slug="p")
        set_script_prefix("/site/")
        try:
            assert reverse_slugs("papers:paper-detail", slug="p") == "/site/en/papers/p/"
        finally:
            set_script_prefix("/")


def test_reverse_slugs_follows_a_changed_urlconf():
    with translation.override("en"):
        assert reverse_slugs("papers:paper-detail", slug="p") == "/en/papers/p/"
        with override_settings(ROOT_URLCONF="tests.reversing_urls"):
            assert reverse_slugs("papers:paper-detail", slug="p") == "/other/p/"


@pytest.mark.parametrize("slug", ["has space", "ünï", "", "a/b"])
def test_reverse_slugs_refuses_what_reverse_refuses(slug):
    with translation.override("en"), pytest.raises(NoReverseMatch):
        reverse_slugs("papers:paper-detail", slug=slug)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_slug_url_equals_reverse_and_refuses_what_reverse_refuses(language):
    with translation.override(language):
        author_url = slug_url("papers:author-detail", "slug")

        assert author_url("mei_2") == reverse("papers:author-detail", kwargs={"slug": "mei_2"})
        with pytest.raises(NoReverseMatch):
            author_url("not a slug")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_slugs_url_equals_reverse_and_refuses_what_reverse_refuses(language):
    with translation.override(language):
        award_url = slugs_url("papers:award-detail", "conference_slug", "slug")

        assert award_url("icml-2025", "outstanding_paper") == reverse(
            "papers:award-detail",
            kwargs={"conference_slug": "icml-2025", "slug": "outstanding_paper"},
        )
        with pytest.raises(NoReverseMatch):
            award_url("icml-2025", "not a slug")

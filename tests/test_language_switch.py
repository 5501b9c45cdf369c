"""Django's set_language view as the site mounts it (awardsite/urls.py): the chosen
language wins over a stale language cookie (issue 32, finding 8)."""

import pytest


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cookie", "language", "page", "expected"),
    [
        ("zh-hans", "zh-hans", "/en/open-data/", "/zh-hans/open-data/"),
        ("en", "en", "/zh-hans/", "/en/"),
        ("zh-hans", "en", "/zh-hans/open-data/", "/en/open-data/"),
        ("en", "zh-hans", "/en/open-data/?x=1", "/zh-hans/open-data/?x=1"),
    ],
)
def test_switching_language_goes_to_the_page_in_the_chosen_language(
    client, cookie, language, page, expected
):
    """A visitor whose cookie says ``cookie`` (left by an earlier choice) reads ``page``
    and picks ``language``: Django resolved the page in the cookie's language, failed
    when the page's prefix was the other one, and sent the visitor back to it."""
    client.cookies["django_language"] = cookie

    response = client.post("/i18n/setlang/", {"language": language, "next": page})

    assert response.status_code == 302
    assert response["Location"] == expected
    assert response.cookies["django_language"].value == language
    assert client.get(expected).status_code == 200


@pytest.mark.django_db
def test_switching_language_without_next_goes_by_the_referring_page(client):
    client.cookies["django_language"] = "zh-hans"

    response = client.post(
        "/i18n/setlang/", {"language": "zh-hans"}, headers={"referer": "/en/open-data/"}
    )

    assert response["Location"] == "/zh-hans/open-data/"

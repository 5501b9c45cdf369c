"""Password spraying (issue 32, finding 8): many usernames tried from one address lock
that address out (settings.LOGIN_ADDRESS_FAILURE_LIMIT, awardsite.security
.lockout_parameters), while an office behind one address survives its typos."""

import pytest
from django.contrib.auth import get_user_model

from editorial.roles import create_editor

PASSWORD = "a-long-editor-passphrase"
ATTACKER = "198.51.100.7"


def _login(client, username, password, address=ATTACKER):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


@pytest.mark.django_db
def test_forty_usernames_tried_once_each_from_one_address_are_slowed(client, settings):
    statuses = [_login(client, f"user-{n}", "Winter2026!").status_code for n in range(40)]

    assert statuses == [200] * 19 + [429] * 21
    assert settings.LOGIN_ADDRESS_FAILURE_LIMIT == 4 * settings.AXES_FAILURE_LIMIT == 20


@pytest.mark.django_db
def test_a_sprayed_address_is_locked_for_every_login_but_only_that_address(client):
    create_editor("mei", "mei@example.org", PASSWORD)
    for n in range(20):
        _login(client, f"user-{n}", "guess")

    from_there = _login(client, "mei", PASSWORD)
    elsewhere = _login(client, "mei", PASSWORD, address="198.51.100.8")

    assert (from_there.status_code, elsewhere.status_code) == (429, 302)
    assert from_there["Retry-After"] == "900"


@pytest.mark.django_db
def test_an_office_behind_one_address_is_not_locked_out_by_typos(client):
    """Ten editors behind one address (an office's NAT) each mistype their password
    three times, then log in: 30 failures from the address, none locked, because each
    editor's success clears that editor's failures."""
    editors = [create_editor(f"editor{n}", f"e{n}@example.org", PASSWORD) for n in range(10)]

    statuses = []
    for editor in editors:
        statuses += [_login(client, editor.username, "typo").status_code for _ in range(3)]
        statuses.append(_login(client, editor.username, PASSWORD).status_code)
        client.logout()

    assert statuses == [200, 200, 200, 302] * 10
    assert get_user_model().objects.filter(last_login__isnull=False).count() == 10


@pytest.mark.django_db
def test_office_typos_before_anyone_logs_in_lock_the_address_at_the_limit(client):
    """Failures from one address that no success clears add up: with 19 the address
    still logs in; the 20th locks it, for everyone there."""
    create_editor("mei", "mei@example.org", PASSWORD)
    statuses = [_login(client, f"colleague-{n % 10}", "typo").status_code for n in range(19)]

    assert _login(client, "mei", PASSWORD).status_code == 302
    client.logout()
    twentieth = _login(client, "colleague-0", "typo")

    assert statuses == [200] * 19
    assert twentieth.status_code == 429
    assert _login(client, "mei", PASSWORD).status_code == 429

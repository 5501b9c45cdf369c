"""Throttled logins (issue 8, django-axes; settings.AXES_*, awardsite/security.py).

Failures are counted in the database (axes's AccessAttempt), so each test starts with
none: pytest-django rolls the database back after every test, and the browser tests'
live server flushes it. Tests that log in with ``client.force_login`` never meet axes.
"""

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from awardsite.security import client_ip
from awardsite.settings import env_whole_number
from editorial.roles import create_editor
from tests.html import visible_text

PASSWORD = "a-long-editor-passphrase"


@pytest.fixture
def editor(db):
    return create_editor("mei", "mei@example.org", PASSWORD)


def _login(client, password, **headers):
    return client.post(
        "/admin/login/?next=/admin/", {"username": "mei", "password": password}, **headers
    )


def _logged_in(client):
    return "_auth_user_id" in client.session


def test_thirty_wrong_passwords_then_the_right_one_is_refused(client, editor, settings):
    statuses = [_login(client, f"guess-{n}").status_code for n in range(30)]

    response = _login(client, PASSWORD)

    limit = settings.AXES_FAILURE_LIMIT
    assert limit == 5
    assert statuses == [200] * (limit - 1) + [429] * (30 - limit + 1)
    assert response.status_code == 429
    assert not _logged_in(client)
    assert client.get("/admin/").status_code == 302  # to the login page


@pytest.mark.parametrize(
    ("accept_language", "expected"),
    [
        (
            "en",
            [
                "Login locked",
                "This login failed 5 times in a row from your address.",
                "It is locked for 15 minutes: until then even the right password is refused.",
                "ask an administrator to unlock the account.",
            ],
        ),
        (
            "zh-CN,zh;q=0.9",
            [
                "登录已锁定",
                "从您的地址登录此账户已连续失败 5 次。",
                "账户已锁定 15 分钟，在此期间即使密码正确也无法登录。",
                "请稍后再试，或请管理员为此账户解锁。",
            ],
        ),
    ],
)
def test_lockout_page_is_an_admin_page_in_the_visitors_language(
    client, editor, accept_language, expected
):
    for _ in range(5):
        response = _login(client, "wrong", HTTP_ACCEPT_LANGUAGE=accept_language)

    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert "script-src 'self'" in response["Content-Security-Policy"]
    html = response.content.decode()
    assert 'id="header"' in html  # the admin's own page frame
    text = visible_text(html)
    assert [sentence for sentence in expected if sentence not in text] == []


def test_a_successful_login_clears_earlier_failures(client, editor):
    for _ in range(4):
        _login(client, "wrong")
    assert _login(client, PASSWORD).status_code == 302
    client.logout()

    statuses = [_login(client, "wrong").status_code for _ in range(4)]

    assert statuses == [200] * 4
    assert _login(client, PASSWORD).status_code == 302


def test_superuser_unlocks_an_editor_in_the_admin(client, editor):
    for _ in range(5):
        _login(client, "wrong")
    superuser = get_user_model().objects.create_superuser("root", "root@example.org", "x")
    client.force_login(superuser)
    attempts = list(AccessAttempt.objects.values_list("pk", "username"))
    assert [username for _, username in attempts] == ["mei"]

    listed = client.get("/admin/axes/accessattempt/")
    unlocked = client.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": [attempts[0][0]], "post": "yes"},
    )
    client.logout()

    assert (listed.status_code, unlocked.status_code) == (200, 302)
    assert _login(client, PASSWORD).status_code == 302
    assert _logged_in(client)


def test_editors_cannot_see_or_clear_lockouts(client, editor):
    client.force_login(editor)

    assert client.get("/admin/axes/accessattempt/").status_code == 403


def test_reset_command_unlocks_an_editor(client, editor, capsys):
    for _ in range(5):
        _login(client, "wrong")

    call_command("axes_reset_username", "mei")

    assert capsys.readouterr().out == "1 attempts removed.\n"
    assert _login(client, PASSWORD).status_code == 302


def test_behind_the_proxy_the_address_the_proxy_saw_counts(client, editor, settings):
    settings.BEHIND_HTTPS_PROXY = True
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    for n in range(5):  # whatever the client puts first, the proxy's entry is last
        _login(client, "wrong", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, 198.51.100.7", **proxy)

    locked = _login(client, PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.7", **proxy)
    elsewhere = _login(client, PASSWORD, HTTP_X_FORWARDED_FOR="198.51.100.8", **proxy)

    assert (locked.status_code, elsewhere.status_code) == (429, 302)


def test_without_the_proxy_a_forwarded_header_changes_nothing(client, editor, settings):
    settings.BEHIND_HTTPS_PROXY = False
    for n in range(5):
        _login(client, "wrong", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")

    assert _login(client, PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.99").status_code == 429


@pytest.mark.parametrize(
    ("behind_proxy", "meta", "expected"),
    [
        (False, {"REMOTE_ADDR": "203.0.113.9", "HTTP_X_FORWARDED_FOR": "192.0.2.1"}, "203.0.113.9"),
        (True, {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "2001:db8::1"}, "2001:db8::1"),
        (True, {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "not-an-address"}, "10.0.0.2"),
        (True, {"REMOTE_ADDR": "10.0.0.2"}, "10.0.0.2"),
        (False, {"REMOTE_ADDR": "garbage"}, None),
    ],
)
def test_client_ip(rf, settings, behind_proxy, meta, expected):
    settings.BEHIND_HTTPS_PROXY = behind_proxy

    assert client_ip(rf.post("/admin/login/", **meta)) == expected


@pytest.mark.parametrize("raw", ["0", "-3", "five", "2.5"])
def test_login_limits_from_the_environment_must_be_positive_whole_numbers(monkeypatch, raw):
    monkeypatch.setenv("DJANGO_LOGIN_FAILURE_LIMIT", raw)

    with pytest.raises(ImproperlyConfigured, match="DJANGO_LOGIN_FAILURE_LIMIT must be"):
        env_whole_number("DJANGO_LOGIN_FAILURE_LIMIT", 5)


def test_login_limits_default_when_unset(monkeypatch):
    monkeypatch.delenv("DJANGO_LOGIN_FAILURE_LIMIT", raising=False)

    assert env_whole_number("DJANGO_LOGIN_FAILURE_LIMIT", 5) == 5

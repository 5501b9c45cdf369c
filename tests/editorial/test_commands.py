"""Management commands: create_editor."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from editorial.roles import EDITORS, PUBLISHERS


@pytest.fixture
def stdin(monkeypatch):
    def feed(text):
        monkeypatch.setattr("sys.stdin", io.StringIO(text))

    return feed


@pytest.mark.django_db
def test_create_editor_makes_a_staff_member_of_editors(stdin):
    stdin("a-long-editor-passphrase\n")
    out = io.StringIO()

    call_command(
        "create_editor", "mei", "--email", "mei@example.org", "--password-stdin", stdout=out
    )

    user = get_user_model().objects.get(username="mei")
    assert (user.is_staff, user.is_superuser, user.email) == (True, False, "mei@example.org")
    assert list(user.groups.values_list("name", flat=True)) == [EDITORS]
    assert user.check_password("a-long-editor-passphrase")
    assert out.getvalue() == f"Created editor mei in the {EDITORS} group.\n"


@pytest.mark.django_db
def test_create_editor_makes_a_publisher_with_publisher(stdin):
    stdin("a-long-editor-passphrase\n")
    out = io.StringIO()

    call_command("create_editor", "li", "--publisher", "--password-stdin", stdout=out)

    user = get_user_model().objects.get(username="li")
    assert sorted(user.groups.values_list("name", flat=True)) == [EDITORS, PUBLISHERS]
    assert user.has_perm("papers.publish_conference")
    assert out.getvalue() == f"Created editor li in the {EDITORS} and {PUBLISHERS} groups.\n"


@pytest.mark.django_db
def test_create_editor_refuses_a_weak_password(stdin):
    stdin("123\n")

    with pytest.raises(CommandError, match="too short"):
        call_command("create_editor", "mei", "--password-stdin")
    assert not get_user_model().objects.filter(username="mei").exists()


@pytest.mark.django_db
def test_create_editor_refuses_a_taken_username(stdin, django_user_model):
    django_user_model.objects.create_user("mei")
    stdin("a-long-editor-passphrase\n")

    with pytest.raises(CommandError, match="already exists"):
        call_command("create_editor", "mei", "--password-stdin")


@pytest.mark.django_db
def test_create_editor_dry_run_creates_nothing(stdin):
    stdin("a-long-editor-passphrase\n")
    out = io.StringIO()

    call_command("create_editor", "mei", "--password-stdin", "--dry-run", stdout=out)

    assert out.getvalue() == f"Would create editor mei in the {EDITORS} group.\n"
    assert not get_user_model().objects.filter(username="mei").exists()


@pytest.mark.django_db
def test_create_editor_without_a_terminal_asks_for_password_stdin(stdin):
    stdin("")

    with pytest.raises(CommandError, match="--password-stdin"):
        call_command("create_editor", "mei")


@pytest.fixture
def terminal(monkeypatch):
    """A terminal at which ``getpass`` returns the given answers in turn."""

    def type_in(*answers):
        replies = iter(answers)
        monkeypatch.setattr("sys.stdin.isatty", lambda: True)
        monkeypatch.setattr("getpass.getpass", lambda prompt="": next(replies))

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    return type_in


@pytest.mark.django_db
def test_create_editor_asks_again_for_a_refused_password(terminal):
    good = "a-long-editor-passphrase"
    terminal("123", "123", "mei", "mei-other", "", "", good, good)
    err = io.StringIO()

    call_command("create_editor", "mei", stdout=io.StringIO(), stderr=err)

    assert get_user_model().objects.get(username="mei").check_password(good)
    with pytest.raises(ValidationError) as refused:
        validate_password("123")
    assert "This password is too common." in refused.value.messages
    assert err.getvalue().splitlines() == [
        *refused.value.messages,
        "Error: the two passwords differ.",
        "Error: the password is empty.",
    ]


@pytest.mark.django_db
def test_create_editor_checks_the_username_before_asking(terminal, django_user_model):
    django_user_model.objects.create_user("mei")
    terminal()  # no answers: asking would fail

    with pytest.raises(CommandError, match="already exists"):
        call_command("create_editor", "mei")


@pytest.mark.django_db
def test_create_editor_gives_up_on_ctrl_d(terminal, monkeypatch):
    terminal()

    def end_of_input(prompt=""):
        raise EOFError

    monkeypatch.setattr("getpass.getpass", end_of_input)

    with pytest.raises(CommandError, match="Cancelled"):
        call_command("create_editor", "mei")
    assert not get_user_model().objects.filter(username="mei").exists()

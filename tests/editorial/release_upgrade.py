"""Upgrade a copy of a kept release database and open its history, in a process of its own
(tests/editorial/test_upgrade.py runs it: the test database of pytest stays untouched).

    DATABASE_URL=sqlite:///copy.sqlite3 python -m tests.editorial.release_upgrade

runs ``migrate`` on the database with today's code, then, as the release's editor through
Django's test client: deserialises every stored version of a content model; opens the
history page of every object that has versions, the page of each of its versions and the
comparison of each two successive ones; opens the lists of deleted papers and authors and
recovers each deleted one (the author first); restores the oldest version of every object
that has more than one. It prints a JSON report (see ``main``): what could not be read or
answered otherwise than expected, and the state of the objects recovered and restored.
"""

import json
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

EDITOR = "editor"


def main():
    """Print the report: ``versions`` (how many were read), ``unreadable`` ([model, object
    id, message]), ``pages`` (how many were opened), ``failed_pages`` and ``failed_actions``
    ({url: status, or a message}), ``recovered`` and ``restored`` ({"model object_id":
    ``_state`` after the action})."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    call_command("migrate", verbosity=0)
    setup_test_environment()
    report = _read_versions()
    client = _client()
    report["pages"], report["failed_pages"] = _open_history(client)
    report["failed_actions"] = {}
    report["recovered"] = _recover(client, report["failed_actions"])
    report["restored"] = _restore(client, report["failed_actions"])
    print(json.dumps(report, sort_keys=True, default=str))


def _client():
    from django.contrib.auth import get_user_model
    from django.test import Client

    from editorial.roles import publishers_group

    client = Client(raise_request_exception=False)  # a server error is a status to report
    editor = get_user_model().objects.get(username=EDITOR)
    # Since catalogue 0026 recovering a published object needs the publish right, which
    # the release's editors had through the Editors group.
    editor.groups.add(publishers_group())
    client.force_login(editor)
    return client


def _content_versions():
    from django.apps import apps
    from reversion.models import Version

    return Version.objects.filter(
        content_type__app_label=apps.get_app_config("papers").label
    ).order_by("pk")


def _read_versions():
    from reversion.errors import RevertError

    unreadable, count = [], 0
    for version in _content_versions():
        count += 1
        try:
            version.field_dict  # noqa: B018 - deserialises the version
        except RevertError as error:
            unreadable.append([version.content_type.model, version.object_id, str(error)])
    return {"versions": count, "unreadable": unreadable}


def _admin_url(version, view):
    return f"/admin/papers/{version.content_type.model}/{version.object_id}/{view}/"


def _open_history(client):
    """(how many pages were opened, {url: what was wrong}) over the history, version and
    compare pages of the objects that exist."""
    from django.contrib import admin

    failed, by_object, opened = {}, {}, 0
    for version in _content_versions():
        if (
            admin.site.is_registered(version.content_type.model_class())
            and version.object is not None
        ):
            by_object.setdefault((version.content_type_id, version.object_id), []).append(version)
    for versions in by_object.values():
        pages = [_admin_url(versions[0], "history")]
        pages += [_admin_url(version, f"history/{version.pk}") for version in versions]
        pages += [
            f"{_admin_url(older, 'history/compare')}?version_id1={older.pk}&version_id2={newer.pk}"
            for older, newer in zip(versions, versions[1:], strict=False)
        ]
        for url in pages:
            opened += 1
            response = client.get(url)
            if response.status_code != 200:
                failed[url] = response.status_code
            elif "compare_error" in (response.context or {}):
                failed[url] = str(response.context["compare_error"])
    return opened, failed


def _post_form(client, url, model_name, failed):
    """Submit the form at ``url`` as a browser would; True if the admin saved it."""
    from tests.browser_form import browser_post_data

    response = client.get(url)
    if response.status_code != 200:
        failed[url] = response.status_code
        return False
    response = client.post(url, browser_post_data(response, f"{model_name}_form"))
    if response.status_code != 302:
        errors = response.context and response.context.get("errors")
        failed[url] = f"{response.status_code}: {errors}"
        return False
    return True


def _state(version):
    """The objects of ``version``'s revision as they are now, their recorded fields
    (``editorial.history``), an entry's level by slug, affiliations by institution slug in
    order."""
    from django.core import serializers

    from editorial.history import recorded_fields

    state = []
    for item in version.revision.version_set.order_by("pk"):
        obj = item.object
        if obj is None:
            continue
        row = serializers.serialize("python", [obj], fields=recorded_fields(type(obj)))[0]
        if type(obj).__name__ == "AwardEntry":
            row["fields"]["level"] = obj.level.slug
        if type(obj).__name__ == "Authorship":
            rows = obj.affiliation_rows.order_by("position", "pk")
            row["fields"]["affiliations"] = [row.institution.slug for row in rows]
        state.append({"model": row["model"], "fields": row["fields"]})
    return state


def _recover(client, failed):
    """Recover every deleted author, then every deleted paper, through the admin."""
    from reversion.models import Version

    from catalogue.models import Author, Paper

    recovered = {}
    for model in [Author, Paper]:
        name = model._meta.model_name
        listing = f"/admin/papers/{name}/recover/"
        if client.get(listing).status_code != 200:
            failed[listing] = "the list of deleted objects does not open"
        for version in Version.objects.get_deleted(model).order_by("pk"):
            url = f"/admin/papers/{name}/recover/{version.pk}/"
            if _post_form(client, url, name, failed):
                recovered[f"{name} {version.object_id}"] = _state(version)
    return recovered


def _restore(client, failed):
    """Restore the oldest version of every object with more than one, through the admin."""
    from django.contrib import admin
    from django.db.models import Count, Min

    owners = (
        _content_versions()
        .values("content_type", "object_id")
        .annotate(count=Count("pk"), oldest=Min("pk"))
        .filter(count__gt=1)
        .order_by("oldest")
    )
    restored = {}
    for row in owners:
        version = _content_versions().get(pk=row["oldest"])
        obj = version.object
        if obj is None or not admin.site.is_registered(type(obj)):
            continue
        name = version.content_type.model
        if _post_form(client, _admin_url(version, f"history/{version.pk}"), name, failed):
            restored[f"{name} {version.object_id}"] = _state(version)
    return restored


if __name__ == "__main__":
    main()

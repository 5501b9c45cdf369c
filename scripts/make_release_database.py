"""Make the database of a release, with editors' changes and deletions in its history, for
the upgrade test (tests/editorial/test_upgrade.py; tests/data/releases/README.md).

Run it with the release's own code, from a checkout of the release, for example:

    git worktree add ../release-7f74238 7f74238
    cd ../release-7f74238 && ln -s ../main/.venv .venv
    .venv/bin/python ../main/scripts/make_release_database.py \\
        ../main/tests/data/releases/7f74238.sqlite3

It makes a new SQLite database at the path given (refusing an existing file): ``migrate``,
the shipped content as that release loads it (``import_conference fixtures/icml.json``,
then ``createinitialrevisions``), an editor, then through the ORM and django-reversion's API,
each in a revision of the editor's: edits of a conference, an award (one of its papers
moves to an honourable mention), a paper (an author gains two affiliations), an author and
an institution; a paper edited then deleted, and its author who wrote nothing else deleted.
Media (the fixtures have no image) go to a temporary folder and are not kept.

It uses only what every release so far has: the models named in ``EDITS`` and their
fields, the commands above. A later release that renames them needs this script changed.
"""

import argparse
import io
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

EDITOR = "editor"
PASSWORD = "a-long-editor-passphrase"  # nosec B105  # a test database's throwaway account
# The objects edited, by natural key (slug), and what the deletions remove.
CONFERENCE = "icml-2025"
AWARD = ("icml-2025", "outstanding-paper")
PAPER = "conformal-prediction-as-bayesian-quadrature"
AUTHOR = "jake-snell"
INSTITUTION = "princeton-university"
DELETED_PAPER = "statistical-collusion-by-collectives"
DELETED_AUTHOR = "etienne-gauthier"  # on the deleted paper only


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="the SQLite file to make")
    output = parser.parse_args().output.resolve()
    if output.exists():
        parser.error(f"{output} exists; remove it first")
    media = tempfile.mkdtemp(prefix="release-media-")
    os.environ.update(
        DATABASE_URL=f"sqlite:///{output}",
        DJANGO_MEDIA_ROOT=media,
        DJANGO_INSECURE_DEV="true",
        DJANGO_SETTINGS_MODULE="awardsite.settings",
    )
    sys.path.insert(0, os.getcwd())  # the release's checkout
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("import_conference", "fixtures/icml.json", stdout=io.StringIO())
    call_command("createinitialrevisions", "papers", comment="Initial version", verbosity=0)
    editor = _editor()
    _edit(editor)
    _delete(editor)
    from django.db import connection

    connection.close()
    with sqlite3.connect(output) as database:
        database.execute("VACUUM")
    print(f"{output}: {output.stat().st_size} bytes")


def _editor():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(EDITOR, "editor@example.org", PASSWORD)
    user.is_staff = True
    user.save()
    user.groups.add(Group.objects.get(name="Editors"))
    return user


def _edit(editor):
    import reversion
    from django.apps import apps

    model = apps.get_app_config("papers").get_model
    Conference, Award, Paper = model("conference"), model("award"), model("paper")
    Author, Institution = model("author"), model("institution")

    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Changed the description and the city.")
        conference = Conference.objects.get(slug=CONFERENCE)
        conference.description_en = "The forty-second International Conference on Machine Learning."
        conference.city_zh_hans = "温哥华"
        conference.save()
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Changed the name; one paper is an honourable mention.")
        award = Award.objects.get(conference__slug=AWARD[0], slug=AWARD[1])
        award.name_en = "Outstanding Paper Award"
        award.description_en = "Chosen by the awards committee."
        entry = award.entries.order_by("position", "pk").last()
        entry.level = "honourable-mention"
        entry.save()
        award.save()
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Changed the title and pages; a second affiliation.")
        paper = Paper.objects.get(slug=PAPER)
        paper.title_en = "Conformal Prediction as Bayesian Quadrature (revised)"
        paper.pages = "1-20"
        first = paper.authorships.order_by("position").first()
        first.affiliations.add(*Institution.objects.exclude(slug=INSTITUTION)[:1])
        paper.save()
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Changed the homepage and other names.")
        author = Author.objects.get(slug=AUTHOR)
        author.homepage = "https://example.org/jake-snell"
        author.other_names = "J. Snell\nJake C. Snell"
        author.save()
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Changed the Chinese name and the country.")
        institution = Institution.objects.get(slug=INSTITUTION)
        institution.name_zh_hans = "普林斯顿大学"
        institution.country = "United States"
        institution.save()


def _delete(editor):
    import reversion
    from django.apps import apps

    model = apps.get_app_config("papers").get_model
    Paper, Author, Institution = model("paper"), model("author"), model("institution")
    paper = Paper.objects.get(slug=DELETED_PAPER)
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Two affiliations for the first author.")
        first = paper.authorships.order_by("position").first()
        first.affiliations.add(*Institution.objects.order_by("-slug")[:2])
        paper.save()
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Deleted: not an award paper.")
        paper.delete()
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("Deleted: no paper left.")
        Author.objects.get(slug=DELETED_AUTHOR).delete()


if __name__ == "__main__":
    main()

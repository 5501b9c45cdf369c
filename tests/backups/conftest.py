"""The backups' fixtures: a media folder of the test's own, a filled site, its backup."""

import io
from pathlib import Path

import pytest
import reversion
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from PIL import Image

from catalogue.images import clean_image
from catalogue.models import Paper

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "icml.json"


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def teaser_png():
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 120, 200)).save(buffer, format="PNG")
    return clean_image(SimpleUploadedFile("teaser.png", buffer.getvalue()))


def fill_site():
    """The shipped content, an uploaded image, and an editor's change with history."""
    call_command("import_conference", str(FIXTURE), verbosity=0, stdout=io.StringIO())
    call_command("createinitialrevisions", "papers", verbosity=0)
    editor = get_user_model().objects.create_user("mei", password="pw-for-tests", is_staff=True)
    with reversion.create_revision():
        reversion.set_user(editor)
        reversion.set_comment("New teaser and a clearer title")
        paper = Paper.objects.get(slug="trust-region-policy-optimization")
        paper.title_en = "Trust Region Policy Optimization (restored)"
        paper.image = teaser_png()
        paper.image_alt_en = "A blue rectangle"
        paper.image_alt_zh_hans = "一个蓝色矩形"
        paper.save()


@pytest.fixture
def archive(transactional_db, media, tmp_path):
    """A backup of the filled site.

    Committed, as a real site's rows are: the tests restore it (a restore with
    ``--force`` empties the tables) or ``flush`` the database to stand for a new
    installation, and PostgreSQL refuses to empty a table (TRUNCATE) in a transaction
    holding rows whose foreign keys it has not checked yet (deferred until commit).
    """
    fill_site()
    path = tmp_path / "site.tar.gz"
    call_command("backup", str(path), stdout=io.StringIO())
    return path

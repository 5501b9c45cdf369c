"""The admin in Chinese: every interface string an editor meets, ours, Django's and the
libraries' (django-reversion, reversion-compare, axes, admin-sortable2, modeltranslation).

How an interface string is told from content: the page's visible text and its
interface attributes (title, placeholder, aria-label, alt, a button's value) are read;
every text the database holds (each string column of each row, each object's name,
the editor's user name) is taken out, longest first; what is left is the interface.
Latin words left are English unless they are in ``NAMES`` (proper names and
notations an interface in Chinese writes in Latin letters too) or are inside an
element marked ``lang="en"`` (the language switch's "English"). The test reads the
pages, not a list of our messages, so strings added later are checked too.
"""

import importlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import polib
import reversion
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.db import models
from django.urls import reverse
from reversion.models import Version

from catalogue.models import Award, Paper
from editorial.roles import create_editor
from tests import factories
from tests.editorial.test_admin import _form_data

PASSWORD = "a-long-editor-passphrase"
# Written in Latin letters in a Chinese interface too: names of formats, identifiers,
# products and the site's languages' codes (a translated field's tab, "标题 [en]").
NAMES = {
    "en",
    "zh",
    "hans",
    "ORCID",
    "iD",
    "DOI",
    "URL",
    "TeX",
    "BibTeX",
    "JSON",
    "arXiv",
    "OpenReview",
    "ASCII",
    "HTML",
    "PNG",
    "JPEG",
    "WebP",
    "PDF",
    "PMLR",
    "UTC",  # a time zone's name (a publisher's schedule is shown in it)
}
WORD = re.compile(r"[A-Za-z][A-Za-z'’]*[A-Za-z]|[A-Za-z]")
# A key (a slug such as "runner-up" in a help text's example) reads the same in every language.
SLUG = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")
ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "data-confirm"}


class _InterfaceText(HTMLParser):
    """The visible text, and interface attributes, outside elements with ``lang="en"``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.parts = [], []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        skipped = bool(self.stack and self.stack[-1]) or tag in {"script", "style", "template"}
        skipped = skipped or (attributes.get("lang") or "").lower() == "en"
        if not skipped:
            self.parts += [attributes[name] or "" for name in ATTRIBUTES & attributes.keys()]
            if tag == "input" and attributes.get("type") in {"submit", "button", "reset"}:
                self.parts.append(attributes.get("value") or "")
        if tag not in {"input", "br", "img", "meta", "link", "hr", "wbr", "source"}:
            self.stack.append(skipped)
        self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag not in {"input", "br", "img", "meta", "link", "hr", "wbr", "source"}:
            if self.stack:
                self.stack.pop()
        self.parts.append("\n")

    def handle_data(self, data):
        if not (self.stack and self.stack[-1]):
            self.parts.append(data)


def _content_strings(editor):
    """Every text the project's tables hold (each app's models: another app's venue
    teams or review notes too), as a page may show it, longest first."""
    found = {editor.username, editor.email}
    project = [config for config in apps.get_app_configs() if config.name in settings.PROJECT_APPS]
    for model in [model for config in project for model in config.get_models()]:
        columns = [
            f.attname
            for f in model._meta.fields
            if isinstance(
                f, models.CharField | models.TextField | models.SlugField | models.URLField
            )
        ]
        for row in model.objects.all():
            found.add(str(row))
            found.update(str(getattr(row, column) or "") for column in columns)
    for version in Version.objects.all():  # deleted objects and earlier values
        found.add(version.object_repr)
        for value in json.loads(version.serialized_data)[0]["fields"].values():
            found.update([value] if isinstance(value, str) else [])
    pieces = {piece.strip() for text in found for piece in [text, *text.splitlines()]}
    return sorted((p for p in pieces if p), key=len, reverse=True)


def english_words(html, content):
    """The English words of ``html``'s interface (module docstring)."""
    parser = _InterfaceText()
    parser.feed(html)
    text = " ".join(parser.parts)
    text = re.sub(r"https?://\S+|\S+@\S+", " ", text)
    for piece in content:
        if piece in text:
            text = text.replace(piece, "\n")
    text = SLUG.sub(" ", text)
    return sorted({word for word in WORD.findall(text) if word not in NAMES})


def _versions(paper):
    """Two versions of ``paper`` in its history, the newer one last."""
    for title in [paper.title_zh_hans, f"{paper.title_zh_hans}（修订）"]:
        with reversion.create_revision():
            paper.title_zh_hans = title
            paper.save()
    return list(Version.objects.get_for_object(paper).order_by("pk"))


def _change_in_the_admin(client):
    """The history page of an award whose Chinese name and a level's position were just
    changed in the admin: the change message names both fields."""
    award = Award.objects.filter(levels__isnull=False).order_by("pk").first()
    url = reverse("admin:papers_award_change", args=[award.pk])
    data = _form_data(client.get(url))
    data["name_zh_hans"] = f"{award.name_zh_hans}（修订）"
    data["levels-0-position"] = str(int(data["levels-0-position"]) + 10)
    assert client.post(url, data).status_code == 302
    return reverse("admin:papers_award_history", args=[award.pk])


def _deleted_author():
    """An author recorded in the history, then deleted: the recover list shows it."""
    with reversion.create_revision():
        author = factories.author(name="Deleted Person")
    version = Version.objects.get_for_object(author).get()
    author.delete()
    return version


def admin_pages(client, editor):
    """Every admin page an editor reaches: index, app index, and each registered model's
    changelist, add, change, delete and history pages (those the editor may open); a
    paper's compare and version pages, an author's recover list and page, the password
    change pages."""
    urls = ["/admin/", "/admin/papers/"]
    for model in apps.get_models():
        if not admin.site.is_registered(model):
            continue
        opts = model._meta
        name = f"admin:{opts.app_label}_{opts.model_name}"
        if not editor.has_perm(f"{opts.app_label}.view_{opts.model_name}"):
            continue
        urls.append(reverse(f"{name}_changelist"))
        if editor.has_perm(f"{opts.app_label}.add_{opts.model_name}"):
            urls.append(reverse(f"{name}_add"))
        obj = model.objects.order_by("pk").first()
        if obj is not None:
            urls.append(reverse(f"{name}_change", args=[obj.pk]))
            urls.append(reverse(f"{name}_history", args=[obj.pk]))
            if editor.has_perm(f"{opts.app_label}.delete_{opts.model_name}"):
                urls.append(reverse(f"{name}_delete", args=[obj.pk]))
    urls.append(_change_in_the_admin(client))
    paper = Paper.objects.order_by("pk").first()
    older, newer = _versions(paper)
    history = reverse("admin:papers_paper_history", args=[paper.pk])
    urls.append(f"{history}compare/?version_id2={newer.pk}&version_id1={older.pk}")
    urls.append(f"{history}{older.pk}/")
    deleted = _deleted_author()
    urls.append(reverse("admin:papers_author_recoverlist"))
    urls.append(reverse("admin:papers_author_recover", args=[deleted.pk]))
    urls += [reverse("admin:password_change"), reverse("admin:password_change_done")]
    urls.append(reverse("admin:editorial_changes"))  # this week's changes, of every venue
    return urls


def test_every_admin_page_of_an_editor_is_in_chinese(icml, client):
    # A publisher: the publish actions and the schedule are on her pages too.
    editor = create_editor("meiling", "meiling@example.org", PASSWORD, publisher=True)
    client.force_login(editor)
    client.cookies["django_language"] = "zh-hans"
    content = None
    found = {}
    for url in admin_pages(client, editor):
        response = client.get(url)
        assert response.status_code == 200, url
        content = content or _content_strings(editor)
        found[url] = english_words(response.content.decode(), content)
    logout = client.post(reverse("admin:logout"))
    found["logout"] = english_words(logout.content.decode(), content)

    assert {url: words for url, words in found.items() if words} == {}


def test_login_and_lockout_pages_are_in_chinese(client, db):
    create_editor("meiling", "meiling@example.org", PASSWORD)
    client.cookies["django_language"] = "zh-hans"
    pages = {"login": client.get(reverse("admin:login"))}
    for _ in range(5):
        pages["lockout"] = client.post(
            reverse("admin:login"), {"username": "meiling", "password": "wrong"}
        )

    assert pages["lockout"].status_code == 429
    assert {
        name: english_words(page.content.decode(), ["meiling"]) for name, page in pages.items()
    } == {"login": [], "lockout": []}


def test_a_change_message_names_the_fields_in_the_editors_language(icml, client):
    """Django keeps a change message's field labels untranslated ("Position", "Name
    [zh-hans]"), which no catalogue holds; django-reversion keeps the message as text."""
    editor = create_editor("meiling", "meiling@example.org", PASSWORD)
    client.force_login(editor)
    client.cookies["django_language"] = "zh-hans"

    _change_in_the_admin(client)

    award = Award.objects.filter(levels__isnull=False).order_by("pk").first()
    level = award.levels.order_by("position").last()
    [version] = Version.objects.get_for_object(award)
    assert version.revision.comment == f"已修改名称 [zh-hans]。 修改了 奖项等级“{level}”的 顺序。"


def _library_source(package):
    """The text of ``package``'s Python modules and templates, as installed."""
    root = Path(importlib.import_module(package).__file__).parent
    files = [*root.rglob("*.py"), *root.rglob("*.html")]
    return "\n".join(path.read_text(encoding="utf-8") for path in files)


def _as_in_source(msgid):
    """A pattern matching ``msgid`` as the source writes it: a placeholder %(name)s
    as itself or as a template variable, runs of white space as any white space."""
    parts = re.split(r"(%\((\w+)\)s|\s+)", msgid)
    pattern, index = [], 0
    while index < len(parts):
        text = parts[index]
        pattern.append(re.escape(text))
        if index + 1 < len(parts):
            name = parts[index + 2]
            if name:
                pattern.append(rf"(?:%\({name}\)s|{{{{\s*{name}\s*}}}})")
            else:
                pattern.append(r"\s+")
        index += 3
    return re.compile("".join(pattern).strip())


def test_library_catalogue_holds_translated_strings_of_the_installed_libraries():
    """Each msgid of locale_libraries/ is a string of the installed version of the
    package its comment names (so an upgrade that drops or rewords it fails here, not
    silently in English on a page), none is in our own catalogue, and each is translated."""
    catalogue = polib.pofile(
        str(settings.BASE_DIR / "locale_libraries" / "zh_Hans" / "LC_MESSAGES" / "django.po")
    )
    ours = {
        entry.msgid
        for entry in polib.pofile(
            str(settings.BASE_DIR / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po")
        )
    }
    sources = {}
    missing = []
    for entry in catalogue:
        source = sources.setdefault(entry.comment, _library_source(entry.comment))
        if not _as_in_source(entry.msgid.strip()).search(source):
            missing.append((entry.comment, entry.msgid))

    assert len(catalogue) > 0
    assert missing == []
    assert sorted(ours & {entry.msgid for entry in catalogue}) == []
    assert [entry.msgid for entry in catalogue.untranslated_entries()] == []
    assert [entry.msgid for entry in catalogue.fuzzy_entries()] == []

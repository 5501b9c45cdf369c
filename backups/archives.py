"""Backing up and restoring a whole installation: the database and every media file.

A backup is one gzip-compressed tar archive (docs/operations.md, "Backups and restore")
of ``manifest.json`` (format, version, date, Django version, migrations applied, each
other member's SHA-256 digest and size), ``database.json`` (``dumpdata`` of every row but
content types, permissions and sessions) and ``media/<name>`` (the default storage).
"""

import datetime
import hashlib
import io
import json
import os
import tarfile
import tempfile
import zlib
from pathlib import Path, PurePosixPath

import django
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.db.migrations.recorder import MigrationRecorder

from editorial.roles import EDITORS

FORMAT = "awardsite-backup"
VERSION = 1
MANIFEST = "manifest.json"
DATABASE = "database.json"
MEDIA = "media"
# Created by ``migrate`` in every installation, so neither saved nor restored.
NOT_SAVED = (ContentType, Permission, Session)


class BackupError(Exception):
    """A backup cannot be written, or an archive cannot be restored; says why."""


def saved_models():
    """The models whose rows a backup holds: every installed model except NOT_SAVED."""
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model not in NOT_SAVED and not model._meta.proxy and model._meta.managed
    ]


def applied_migrations(using=DEFAULT_DB_ALIAS):
    """``{app_label: sorted migration names}`` of the migrations applied to the database."""
    applied = {}
    for app_label, name in MigrationRecorder(connections[using]).applied_migrations():
        applied.setdefault(app_label, []).append(name)
    return {app_label: sorted(names) for app_label, names in sorted(applied.items())}


def media_names(storage=default_storage, directory=""):
    """Every file name in ``storage`` under ``directory``, recursively, sorted."""
    try:
        directories, files = storage.listdir(directory)
    except FileNotFoundError:
        return []
    names = [f"{directory}/{name}" if directory else name for name in files]
    for sub in directories:
        names.extend(media_names(storage, f"{directory}/{sub}" if directory else sub))
    return sorted(names)


def write_backup(path, using=DEFAULT_DB_ALIAS):
    """Write a backup of the database ``using`` (one transaction) and the media to ``path``
    (a temporary name until complete); return the manifest. Raises :class:`BackupError`
    when the database cannot be read or ``path`` written."""
    path = Path(path)
    labels = [model._meta.label for model in saved_models() if not model._meta.auto_created]
    dump = io.StringIO()
    try:
        with transaction.atomic(using=using):
            call_command(
                "dumpdata",
                *labels,
                format="json",
                indent=1,
                use_natural_foreign_keys=True,
                use_base_manager=True,
                database=using,
                stdout=dump,
                verbosity=0,
            )
            migrations = applied_migrations(using)
    except (CommandError, DatabaseError) as error:
        raise BackupError(f"cannot read the database: {error}") from error
    members = {DATABASE: dump.getvalue().encode("utf-8")}
    for name in media_names():
        with default_storage.open(name, "rb") as stored:
            members[f"{MEDIA}/{name}"] = stored.read()
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "django": django.get_version(),
        "migrations": migrations,
        "members": {
            name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in members.items()
        },
    }
    manifest_bytes = json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
                for name, data in [(MANIFEST, manifest_bytes), *members.items()]:
                    info = tarfile.TarInfo(name)
                    info.size = len(data)
                    info.mode = 0o644
                    tar.addfile(info, io.BytesIO(data))
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise BackupError(f"cannot write {path}: {error.strerror or error}") from error
    return manifest


def read_backup(path):
    """Read and check the archive at ``path``; return ``(manifest, database bytes, {media
    storage name: bytes})``. Raises :class:`BackupError` for a file that is not a gzipped
    tar, a missing manifest or another format or version, or a member that is not a plain
    file, has an unsafe name (``_media_name``), is unlisted, missing or damaged."""
    path = Path(path)
    members = {}
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for info in tar:
                if not info.isfile():
                    raise BackupError(f"{path}: {info.name!r} is not a plain file; refused")
                if info.name != MANIFEST and info.name != DATABASE:
                    _media_name(info.name, path)  # refuses unsafe names
                if info.name in members:
                    raise BackupError(f"{path}: {info.name!r} is in the archive twice")
                members[info.name] = tar.extractfile(info).read()
    except BackupError:
        raise
    except FileNotFoundError:
        raise BackupError(f"{path}: no such file") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as error:
        raise BackupError(
            f"{path} is not a complete backup archive (a gzip-compressed tar file): {error}"
        ) from None
    if MANIFEST not in members:
        raise BackupError(f"{path} holds no {MANIFEST}: it is not an awardsite backup")
    try:
        manifest = json.loads(members.pop(MANIFEST))
    except (ValueError, UnicodeDecodeError) as error:
        raise BackupError(f"{path}: {MANIFEST} is not valid JSON: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{path}: {MANIFEST} does not describe an awardsite backup")
    if manifest.get("version") != VERSION:
        raise BackupError(
            f"{path} is a backup of format version {manifest.get('version')!r}; "
            f"this code reads version {VERSION}"
        )
    listed = manifest.get("members")
    if not isinstance(listed, dict) or DATABASE not in listed:
        raise BackupError(f"{path}: {MANIFEST} lists no {DATABASE}")
    for name in sorted(set(listed) | set(members)):
        if name not in members:
            raise BackupError(f"{path}: {name!r} is listed in {MANIFEST} but missing")
        if name not in listed:
            raise BackupError(f"{path}: {name!r} is not listed in {MANIFEST}; refused")
        expected = listed[name].get("sha256") if isinstance(listed[name], dict) else None
        if hashlib.sha256(members[name]).hexdigest() != expected:
            raise BackupError(f"{path}: {name!r} is damaged (its SHA-256 digest differs)")
    database = members.pop(DATABASE)
    return manifest, database, {_media_name(name, path): data for name, data in members.items()}


def _media_name(member, path):
    """The storage name of archive member ``media/<name>``; BackupError if unsafe."""
    pure = PurePosixPath(member)
    if (
        "\\" in member
        or pure.is_absolute()
        or len(pure.parts) < 2
        or pure.parts[0] != MEDIA
        or any(part in ("", ".", "..") for part in pure.parts)
        or member != str(pure)
    ):
        raise BackupError(f"{path}: {member!r} is not a media file name; refused")
    name = str(PurePosixPath(*pure.parts[1:]))
    root = Path(settings.MEDIA_ROOT).resolve()
    target = (root / name).resolve()
    if not target.is_relative_to(root):
        raise BackupError(f"{path}: {member!r} points outside MEDIA_ROOT; refused")
    return name


def content_left(media=None, using=DEFAULT_DB_ALIAS):
    """What the installation holds that a restore would replace, as readable lines (empty:
    only what ``migrate`` makes, the Editors group, sessions, and no file of ``media``,
    {storage name: bytes}, stored with other bytes)."""
    found = []
    for model in saved_models():
        queryset = model._base_manager.using(using).all()
        if model is Group:
            queryset = queryset.exclude(name=EDITORS)
        elif model is Group.permissions.through:
            queryset = queryset.exclude(group__name=EDITORS)
        count = queryset.count()
        if count:
            found.append(f"{count} {model._meta.label}")
    clashes = [name for name, data in (media or {}).items() if _stored(name) not in (None, data)]
    if clashes:
        found.append(f"{len(clashes)} media file(s) with other content, e.g. {clashes[0]}")
    return found


def _stored(name):
    """The bytes stored under ``name``, or None when there is no such file."""
    try:
        with default_storage.open(name, "rb") as stored:
            return stored.read()
    except (FileNotFoundError, IsADirectoryError):
        return None


def restore_backup(path, force=False, using=DEFAULT_DB_ALIAS):
    """Load the backup at ``path`` into this installation, which must have its migrations
    and, unless ``force``, no content (``force`` empties every saved table, overwrites
    media files of the backup's names); return its manifest. A failed restore changes
    nothing. Raises :class:`BackupError` for a bad archive (:func:`read_backup`), other
    migrations, content without ``force``, or data the database refuses."""
    manifest, database, media = read_backup(path)
    here = applied_migrations(using)
    if manifest.get("migrations") != here:
        raise BackupError(_migration_difference(path, manifest.get("migrations") or {}, here))
    replaced = {}  # storage name -> the bytes it held before (None: no file)
    try:
        with transaction.atomic(using=using):
            left = content_left(media, using)
            if left and not force:
                raise BackupError(
                    "this installation is not empty (" + "; ".join(left) + "): restore "
                    "into a new, migrated database, or add --force to replace its content"
                )
            _empty_tables(using)
            _load(database, using)
            for name, data in sorted(media.items()):
                before = _stored(name)
                if before == data:
                    continue
                replaced[name] = before
                if before is not None:
                    default_storage.delete(name)
                if default_storage.save(name, ContentFile(data)) != name:
                    raise BackupError(f"cannot store media file {name!r} under its own name")
    except BaseException:
        for name, before in replaced.items():
            default_storage.delete(name)
            if before is not None:
                default_storage.save(name, ContentFile(before))
        raise
    return manifest


def _migration_difference(path, saved, here):
    """A message naming the migrations that differ between a backup and the database."""
    saved, here = (
        {f"{app}.{name}" for app, names in m.items() for name in names} for m in (saved, here)
    )
    missing, extra = sorted(saved - here), sorted(here - saved)
    lines = [f"{path} was made with other migrations than this installation has."]
    if missing:
        lines.append("Not applied here: " + ", ".join(missing) + ".")
    if extra:
        lines.append("Applied here but not in the backup: " + ", ".join(extra) + ".")
    lines.append("Restore with the code version that made the backup, then run migrate.")
    return " ".join(lines)


def _empty_tables(using):
    """Delete every row of every saved model (sequences are not reset)."""
    connection = connections[using]
    tables = [model._meta.db_table for model in saved_models()]
    statements = connection.ops.sql_flush(no_style(), tables, allow_cascade=True)
    connection.ops.execute_sql_flush(statements)


def _load(data, using):
    """``loaddata`` the dumped rows; any failure becomes a BackupError saying why."""
    with tempfile.TemporaryDirectory() as directory:
        fixture = Path(directory) / DATABASE
        fixture.write_bytes(data)
        try:
            call_command("loaddata", str(fixture), database=using, verbosity=0)
        except Exception as error:  # loaddata raises whatever the data or database raise
            raise BackupError(
                f"{DATABASE} cannot be loaded ({type(error).__name__}): {error}"
            ) from error

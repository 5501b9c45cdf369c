"""Backing up and restoring a whole installation: the database and every media file.

A backup is one gzip-compressed tar archive (docs/operations.md, "Backups and restore")
of ``manifest.json`` (format, version, date, Django version, migrations applied, each
other member's SHA-256 digest and size), ``database.json`` (``dumpdata`` of every row but
content types, permissions and sessions) and ``media/<name>`` (the default storage).
"""

import datetime
import filecmp
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
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.db.migrations.recorder import MigrationRecorder

from backups.staging import MediaStaging, StagingError
from catalogue.models import ContentGeneration
from catalogue.models.bookkeeping import GENERATION_ID
from editorial.roles import GROUPS

FORMAT = "awardsite-backup"
VERSION = 1
MANIFEST = "manifest.json"
DATABASE = "database.json"
MEDIA = "media"
# Created by ``migrate`` in every installation, so neither saved nor restored.
NOT_SAVED = (ContentType, Permission, Session)
# Bytes of a member copied at a time: a restore's memory does not grow with a member.
CHUNK = 64 * 1024  # as shutil.copyfileobj reads on POSIX
# The largest manifest read: about 120 bytes a member (30,000 media files: 4 MB).
MANIFEST_MAX_BYTES = 64 * 1024 * 1024
# What a restore adds to the highest content generation of the two sites, so that the
# number tells its commit apart from 2**32 later edits of the old site.
MARKER_STEP = 2**32


class BackupError(Exception):
    """A backup cannot be written, or an archive cannot be restored; says why."""


class InterruptedRestore(BackupError):
    """A restore stopped past its commit was finished instead of the one asked for."""


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
    database = dump.getvalue().encode("utf-8")
    del dump
    members = {DATABASE: _described(io.BytesIO(database))}
    media = media_names()
    for name in media:  # read in CHUNKs, once to describe and once to write
        with default_storage.open(name, "rb") as stored:
            members[f"{MEDIA}/{name}"] = _described(stored)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "django": django.get_version(),
        "migrations": migrations,
        "members": members,
    }
    manifest_bytes = json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
                described = _described(io.BytesIO(manifest_bytes))
                _add(tar, MANIFEST, io.BytesIO(manifest_bytes), described)
                _add(tar, DATABASE, io.BytesIO(database), members[DATABASE])
                for name in media:
                    with default_storage.open(name, "rb") as stored:
                        _add(tar, f"{MEDIA}/{name}", stored, members[f"{MEDIA}/{name}"])
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise BackupError(f"cannot write {path}: {error.strerror or error}") from error
    return manifest


def _described(stream):
    """``{"sha256": hex digest, "size": bytes}`` of what ``stream`` holds, read in CHUNKs."""
    digest, size = hashlib.sha256(), 0
    while chunk := stream.read(CHUNK):
        digest.update(chunk)
        size += len(chunk)
    return {"sha256": digest.hexdigest(), "size": size}


class _Described(io.RawIOBase):
    """A stream read through, described as it is read (as :func:`_described`); ``ended``
    once a read gave less than asked (the end of a file)."""

    def __init__(self, stream):
        self.stream, self.digest, self.size, self.ended = stream, hashlib.sha256(), 0, False

    def readable(self):
        return True

    def read(self, size=-1):
        chunk = self.stream.read(size)
        self.ended = self.ended or not chunk or 0 < size != len(chunk)  # a short read
        self.digest.update(chunk)
        self.size += len(chunk)
        return chunk

    def description(self):
        return {"sha256": self.digest.hexdigest(), "size": self.size}


def _add(tar, name, stream, described):
    """Add ``stream`` to ``tar`` as member ``name`` of ``described["size"]`` bytes, in
    CHUNKs. Raises BackupError when it no longer holds what ``described`` says (a media
    file changed while the backup was written)."""
    info = tarfile.TarInfo(name)
    info.size, info.mode = described["size"], 0o644
    reader = _Described(stream)
    try:
        tar.addfile(info, reader)
    except OSError:
        if not reader.ended:
            raise  # reading or writing failed
        changed = True  # it ended early: tarfile's "unexpected end of data"
    else:
        changed = reader.description() != described or stream.read(1)
    if changed:
        raise BackupError(f"{name} changed while the backup was written: run it again")


def check_backup(path):
    """Check the archive at ``path`` by its members' headers and its manifest, reading no
    other member's bytes; return ``(manifest, {member name: size})``. Raises
    :class:`BackupError` for a file that is not a gzipped tar, a manifest over
    MANIFEST_MAX_BYTES, missing, of another format or version, or a member that is not
    a plain file, has an unsafe name (``_media_name``), is in it twice, unlisted,
    missing, listed without size and digest, or of another size than listed."""
    path = Path(path)
    sizes, manifest = {}, None
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for info in tar:
                _check_member(info, path, sizes)
                sizes[info.name] = info.size
                if info.name == MANIFEST:
                    if info.size > MANIFEST_MAX_BYTES:
                        raise BackupError(
                            f"{path}: its {MANIFEST} is {info.size} bytes, over the "
                            f"{MANIFEST_MAX_BYTES} a backup's can be; refused"
                        )
                    manifest = tar.extractfile(info).read()
    except BackupError:
        raise
    except FileNotFoundError:
        raise BackupError(f"{path}: no such file") from None
    except (tarfile.TarError, EOFError, zlib.error, OSError) as error:
        raise BackupError(
            f"{path} is not a complete backup archive (a gzip-compressed tar file): {error}"
        ) from None
    manifest = _read_manifest(manifest, path)
    listed = manifest["members"]
    sizes.pop(MANIFEST)
    for name in sorted(set(listed) | set(sizes)):
        if name not in sizes:
            raise BackupError(f"{path}: {name!r} is listed in {MANIFEST} but missing")
        if name not in listed:
            raise BackupError(f"{path}: {name!r} is not listed in {MANIFEST}; refused")
        entry = listed[name]
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("sha256"), str)
            and type(entry.get("size")) is int
        ):
            raise BackupError(f"{path}: {MANIFEST} gives no size and SHA-256 digest of {name!r}")
        if sizes[name] != entry["size"]:
            raise BackupError(
                f"{path}: {name!r} is {sizes[name]} bytes, but {MANIFEST} says "
                f"{entry['size']}; refused"
            )
    return manifest, sizes


def _check_member(info, path, seen):
    """Refuse a member that is not a plain file, has an unsafe name or is in ``seen``."""
    if not info.isfile():
        raise BackupError(f"{path}: {info.name!r} is not a plain file; refused")
    if info.name not in (MANIFEST, DATABASE):
        _media_name(info.name, path)  # refuses unsafe names
    if info.name in seen:
        raise BackupError(f"{path}: {info.name!r} is in the archive twice")


def _read_manifest(data, path):
    """The manifest parsed from ``data`` (bytes, or None when there was none)."""
    if data is None:
        raise BackupError(f"{path} holds no {MANIFEST}: it is not an awardsite backup")
    try:
        manifest = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise BackupError(f"{path}: {MANIFEST} is not valid JSON: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{path}: {MANIFEST} does not describe an awardsite backup")
    if manifest.get("version") != VERSION:
        raise BackupError(
            f"{path} is a backup of format version {manifest.get('version')!r}; "
            f"this code reads version {VERSION}"
        )
    if not isinstance(manifest.get("members"), dict) or DATABASE not in manifest["members"]:
        raise BackupError(f"{path}: {MANIFEST} lists no {DATABASE}")
    return manifest


def stage_members(path, manifest, staging):
    """Stream each member of the archive at ``path`` but the manifest, CHUNK bytes at a
    time, into ``staging`` (a :class:`MediaStaging`): ``database.json``, and each media
    file into its new media folder; return the media files' storage names. Raises
    BackupError for a member whose SHA-256 digest or size is not ``manifest``'s (or that
    :func:`check_backup` did not see: the file changed), or when a file cannot be
    written."""
    path = Path(path)
    listed, names, seen = manifest["members"], set(), {MANIFEST}
    try:
        with tarfile.open(path, mode="r:gz") as tar:
            for info in tar:
                if info.name == MANIFEST:
                    continue
                _check_member(info, path, seen)
                seen.add(info.name)
                entry = listed.get(info.name) or {}
                if info.size != entry.get("size"):
                    raise BackupError(f"{path} changed while it was restored; refused")
                if info.name == DATABASE:
                    target = staging.database
                else:
                    name = _media_name(info.name, path)
                    names.add(name)
                    target = staging.media / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(info) as source:
                    digest = _copy(source, target)
                if digest != entry.get("sha256"):
                    raise BackupError(
                        f"{path}: {info.name!r} is damaged (its SHA-256 digest differs)"
                    )
    except BackupError:
        raise
    except (tarfile.TarError, EOFError, zlib.error) as error:
        raise BackupError(f"{path} is not a complete backup archive: {error}") from None
    except OSError as error:
        raise BackupError(f"cannot stage {error.filename}: {error.strerror}") from error
    if seen != set(listed) | {MANIFEST}:
        raise BackupError(f"{path} changed while it was restored; refused")
    return names


def _copy(source, target):
    """Copy the file object ``source`` into a new file ``target``, CHUNK bytes at a time,
    with the mode of an uploaded file; return the bytes' SHA-256 digest (hex)."""
    digest = hashlib.sha256()
    with open(target, "xb") as copy:
        while chunk := source.read(CHUNK):
            digest.update(chunk)
            copy.write(chunk)
    if settings.FILE_UPLOAD_PERMISSIONS is not None:
        os.chmod(target, settings.FILE_UPLOAD_PERMISSIONS)
    return digest.hexdigest()


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


def content_left(using=DEFAULT_DB_ALIAS):
    """What the database holds that a restore would replace, as readable lines (empty:
    only what ``migrate`` makes, the Editors and Publishers groups and sessions)."""
    found = []
    for model in saved_models():
        queryset = model._base_manager.using(using).all()
        if model is Group:
            queryset = queryset.exclude(name__in=GROUPS)
        elif model is Group.permissions.through:
            queryset = queryset.exclude(group__name__in=GROUPS)
        count = queryset.count()
        if count:
            found.append(f"{count} {model._meta.label}")
    return found


def media_clashes(names, staging):
    """The storage ``names`` whose file in MEDIA_ROOT holds other bytes than the staged
    one of ``staging`` (compared a buffer at a time), sorted."""
    return sorted(
        name
        for name in names
        if (staging.root / name).is_file()
        and not filecmp.cmp(staging.root / name, staging.media / name, shallow=False)
    )


def restore_backup(path, force=False, using=DEFAULT_DB_ALIAS, staging=None):
    """Load the backup at ``path`` into this installation, which must have its migrations
    and, unless ``force``, no content (``force`` empties every saved table and replaces
    media files of the backup's names; other media files are left alone); return its
    manifest. Members are checked (:func:`check_backup`), then streamed beside MEDIA_ROOT
    (:func:`stage_members`, ``staging``: a :class:`MediaStaging` of MEDIA_ROOT), and the
    new media folder takes MEDIA_ROOT's place once the database commits: a restore that
    fails or is killed leaves the old site, or the new one (see backups/staging.py).
    Raises :class:`BackupError` for a bad archive, other migrations, content without
    ``force``, data the database refuses, or files that cannot be staged or swapped;
    :class:`InterruptedRestore` after finishing a restore killed past its commit."""
    staging = staging or MediaStaging(settings.MEDIA_ROOT)
    try:
        if staging.recover(lambda marker: _generation(using) >= marker) == "finished":
            raise InterruptedRestore(
                "An earlier restore was stopped after its database was committed; its media "
                f"folder is now in place. Nothing else was done: run restore again for {path}."
            )
        manifest, sizes = check_backup(path)
        here = applied_migrations(using)
        if manifest.get("migrations") != here:
            raise BackupError(_migration_difference(path, manifest.get("migrations") or {}, here))
        left = content_left(using)
        if left and not force:
            raise BackupError(_not_empty(left))
        staging.begin(needed=sum(sizes.values()))
    except StagingError as error:
        raise BackupError(str(error)) from error
    try:
        restored = stage_members(path, manifest, staging)
        if not force and (clashes := media_clashes(restored, staging)):
            clash = f"{len(clashes)} media file(s) with other content, e.g. {clashes[0]}"
            raise BackupError(_not_empty([clash]))
        staging.keep_others(media_names(), restored)
        with transaction.atomic(using=using):
            before = _generation(using)
            _empty_tables(using)
            _load(staging.database, using)
            # Past anything either site had: every cached page retires, and the journal's
            # marker tells a later restore whether this transaction committed.
            marker = max(before, _generation(using)) + MARKER_STEP
            ContentGeneration.objects.using(using).update_or_create(
                pk=GENERATION_ID, defaults={"number": marker}
            )
            staging.ready(marker)
    except BaseException as error:
        staging.discard()
        if isinstance(error, StagingError):
            raise BackupError(str(error)) from error
        raise
    try:
        staging.swap()
    except StagingError as error:
        raise BackupError(str(error)) from error
    return manifest


def _generation(using):
    return ContentGeneration.objects.using(using).current()


def _not_empty(left):
    return (
        "this installation is not empty (" + "; ".join(left) + "): restore into a new, "
        "migrated database, or add --force to replace its content"
    )


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


def _load(fixture, using):
    """``loaddata`` the dumped rows from the file ``fixture``; any failure becomes a
    BackupError saying why."""
    try:
        call_command("loaddata", str(fixture), database=using, verbosity=0)
    except Exception as error:  # loaddata raises whatever the data or database raise
        raise BackupError(
            f"{DATABASE} cannot be loaded ({type(error).__name__}): {error}"
        ) from error

"""Create an editor account: staff who maintain the content in the admin and cannot manage
users, groups or teams (editorial/roles.py); on the teams of the venues named with
``--venue``, or without it a site-wide editor (editorial/teams.py)."""

import getpass
import sys

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from editorial.roles import (
    EDITORS,
    PUBLISHERS,
    TEAM_EDITORS,
    create_editor,
    unsaved_editor,
    venues_named,
)


class Command(BaseCommand):
    help = (
        "Create a staff account: with --venue, in the Venue editors group on the teams of "
        "those venues; without, a site-wide editor in the Editors group. The password is "
        "asked for twice (never echoed) until the password validators accept it, or read "
        "from standard input with --password-stdin."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="", help="The editor's e-mail address.")
        parser.add_argument(
            "--venue",
            action="append",
            default=[],
            dest="venues",
            metavar="SLUG",
            help="Put the editor on this venue's team (repeat for several venues).",
        )
        parser.add_argument(
            "--password-stdin",
            action="store_true",
            help="Read the password from the first line of standard input (for scripts).",
        )
        parser.add_argument(
            "--publisher",
            action="store_true",
            help="Also in the Publishers group: may publish, return to draft and schedule.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Check everything, create nothing."
        )

    def handle(self, username, email, venues, password_stdin, dry_run, publisher=False, **options):
        """Create the editor (``--dry-run``: only check) and say so, the password asked
        as createsuperuser does. Raises CommandError for a taken username, an unknown
        venue, a refused or empty password from standard input, no terminal, or
        Ctrl-C/Ctrl-D."""
        try:
            user = unsaved_editor(username, email)
            teams_venues = venues_named(venues)
            if password_stdin:
                password = sys.stdin.readline().rstrip("\r\n")
                if not password:
                    raise CommandError("The password is empty.")
            else:
                password = self._ask_password(user)
            user = create_editor(
                username, email, password, venues, dry_run=dry_run, publisher=publisher
            )
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        verb = "Would create" if dry_run else "Created"
        if teams_venues:
            names = ", ".join(str(venue) for venue in teams_venues)
            where = f"in the {TEAM_EDITORS} group, on the teams of {names}"
            where += f", and in the {PUBLISHERS} group" if publisher else ""
        elif publisher:
            where = f"in the {EDITORS} and {PUBLISHERS} groups"
        else:
            where = f"in the {EDITORS} group"
        self.stdout.write(self.style.SUCCESS(f"{verb} editor {user.get_username()} {where}."))

    def _ask_password(self, user):
        """A password typed twice alike that the validators accept for ``user``."""
        if not sys.stdin.isatty():
            raise CommandError("No terminal to ask for a password: use --password-stdin.")
        while True:
            try:
                password = getpass.getpass("Password: ")
                again = getpass.getpass("Password (again): ")
            except (KeyboardInterrupt, EOFError) as error:
                raise CommandError("Cancelled: no editor was created.") from error
            if again != password:
                self.stderr.write("Error: the two passwords differ.")
                continue
            if not password:
                self.stderr.write("Error: the password is empty.")
                continue
            try:
                validate_password(password, user)
            except ValidationError as error:
                self.stderr.write("\n".join(error.messages))
                continue
            return password

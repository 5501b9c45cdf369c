"""Create an editor account: staff, not a superuser, in the "Editors" group.

Exists so that a conference's communications team gets accounts that can maintain
every piece of content in the admin and cannot manage users or groups
(see papers/roles.py for the permissions).
"""

import getpass
import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from papers.roles import EDITORS, create_editor


class Command(BaseCommand):
    help = (
        "Create a staff account in the Editors group. The password is asked for twice "
        "(never echoed), or read from standard input with --password-stdin."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="", help="The editor's e-mail address.")
        parser.add_argument(
            "--password-stdin",
            action="store_true",
            help="Read the password from the first line of standard input (for scripts).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Check everything, create nothing."
        )

    def handle(self, username, email, password_stdin, dry_run, **options):
        password = self._read_password(password_stdin)
        try:
            user = create_editor(username, email, password, dry_run=dry_run)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        verb = "Would create" if dry_run else "Created"
        self.stdout.write(
            self.style.SUCCESS(f"{verb} editor {user.get_username()} in the {EDITORS} group.")
        )

    def _read_password(self, from_stdin):
        if from_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        else:
            if not sys.stdin.isatty():
                raise CommandError("No terminal to ask for a password: use --password-stdin.")
            password = getpass.getpass("Password: ")
            if getpass.getpass("Password (again): ") != password:
                raise CommandError("The two passwords differ.")
        if not password:
            raise CommandError("The password is empty.")
        return password

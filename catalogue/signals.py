"""``content_changed``: sent inside the transaction of a change to what public pages show
that no model signal announced (the importer's bulk writes, share cards). Optional
arguments, iterables of primary keys: ``papers`` whose matched text must follow,
``authors`` whose published papers may have changed. The page cache listens too.
"""

from django.dispatch import Signal

content_changed = Signal()

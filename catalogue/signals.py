"""``content_changed``: sent, by the function that made it, inside the transaction of a
change to what public pages show that no model signal announced (the importer's bulk
writes, share cards). Optional keyword arguments, iterables of primary keys: ``papers``
whose matched text must follow (matching.py), ``authors`` whose published papers may
have changed (published_authors.py). The page cache listens too.
"""

from django.dispatch import Signal

content_changed = Signal()

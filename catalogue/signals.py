"""``content_changed``: sent inside the transaction of a change to what public pages
show that no model signal announced (the importer's bulk writes, share cards drawn
after an edit); the sender is the function that made it. Optional keyword arguments,
iterables of primary keys: ``papers`` whose text, authors or institutions changed (their
matched text follows, catalogue/matching.py) and ``authors`` who gained or lost a paper
or whose papers' statuses changed (catalogue/published_authors.py). The page cache
listens too, so a sender need not know that a cache exists.
"""

from django.dispatch import Signal

content_changed = Signal()

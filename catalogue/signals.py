"""The catalogue's own signal, for changes that Django's model signals do not announce.

``content_changed`` is sent inside the transaction that changed what the public pages
show, when no ``post_save``, ``post_delete`` or ``m2m_changed`` was sent for it: the
importer's bulk writes (importing/applying.py) and share cards drawn after an edit
(pages/cards.py). The sender is the function that made the change. Keyword arguments,
each optional, iterables of primary keys that the receivers below refresh:

- ``papers``: papers whose own text, authors, authors' names or institutions changed;
  their matched text follows (catalogue/matching.py);
- ``authors``: authors who gained or lost a paper, or one of whose papers or their
  conferences changed status; their ``has_published_paper`` follows
  (catalogue/published_authors.py).

The page cache listens too (pagecache/apps.py) and retires every cached page, so a
sender need not know that a cache exists. What a save of one object sets off is the same
list, connected to the model signals in each app's ``ready()``.
"""

from django.dispatch import Signal

content_changed = Signal()

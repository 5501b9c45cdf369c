"""The catalogue's own signal, for changes that Django's model signals do not announce.

``content_changed`` is sent inside the transaction that changed what the public pages
show, when no ``post_save``, ``post_delete`` or ``m2m_changed`` was sent for it: the
importer's bulk writes (importing/applying.py) and share cards drawn after an edit
(pages/cards.py). The sender is the function that made the change; no other argument.
The page cache listens (pagecache/apps.py) and retires every cached page when the
transaction commits, so a sender need not know that a cache exists.
"""

from django.dispatch import Signal

content_changed = Signal()

"""The compact conference file: a conference written around its papers (``docs/compact-format.md``).

It is not a second importer: ``reader.objects_from`` turns a parsed compact document into
the fixture objects that :mod:`importing.pipeline` checks, plans and applies, and
``reader.relocate`` names the problems found by the compact file's places
(``papers[3].authors[2].orcid``). ``writer.from_objects`` and ``writer.render`` go the
other way, for ``export_conference --format compact``. People and institutions are
matched by ORCID, then slug, then exact name; a loose match is only noted, never merged
(``people.py``).
"""

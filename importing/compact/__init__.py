"""The compact conference file, a conference written around its papers
(``docs/compact-format.md``): not a second importer, but ``reader.objects_from`` turning
it into fixture objects for :mod:`importing.pipeline` (problems named by the file's
places), and ``writer`` going the other way for ``export_conference --format compact``."""

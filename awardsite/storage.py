"""The static files' storage in production."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed, hashed storage, with Django rewriting JavaScript modules'
    ``import`` paths to hashed names, so the published search's modules import the files
    of their release, never a ``search-terms.js`` a host kept cached across a deploy."""

    support_js_module_import_aggregation = True

"""The static files' storage in production."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed, hashed storage, with Django rewriting JavaScript modules'
    ``import`` paths to the hashed names: the published search's modules
    (static/js/static-search.js) then import the exact files of their release, never a
    plain ``search-terms.js`` a host kept cached across a deploy.
    """

    support_js_module_import_aggregation = True

"""The static files' storage in production."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed, hashed storage, with Django's rewriting of JavaScript
    modules' ``import`` and ``export ... from`` paths to the hashed names
    (``support_js_module_import_aggregation``).

    The published search's scripts (static/js/static-search.js) are modules that import
    each other and MiniSearch by relative path. Without the rewriting a hashed
    ``static-search.<hash>.js`` imports the plain ``search-terms.js``, which a host may
    keep cached across a deploy, so a visitor's words could be folded by an older rule
    than the index was built with. With it every import names the exact file.
    """

    support_js_module_import_aggregation = True

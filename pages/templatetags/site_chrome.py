"""The site's chrome: the parts of every page that show no content.

``{% site_chrome %}...{% endsite_chrome %}`` (templates/base.html) renders what it
encloses once per language, route name, script prefix and site address, and reuses the
HTML: interface text, static files and links to fixed pages, which cost about 3 ms of
every page (17 gettext calls, 9 ``reverse()``, the static manifest). Nothing an editor
changes, and nothing of the request but the key's parts, may be inside.
"""

import weakref

from django import template
from django.core.signals import setting_changed
from django.urls import get_script_prefix
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from awardsite.addresses import absolute_url

register = template.Library()

# Keys kept per tag: languages × route names × site addresses (the request's host
# when DJANGO_SITE_URL is empty, which ALLOWED_HOSTS bounds). Past it, start over.
MAX_KEYS = 256

_NODES = weakref.WeakSet()  # every SiteChromeNode, so that a changed setting can empty them


class SiteChromeNode(template.Node):
    def __init__(self, nodelist):
        self.nodelist = nodelist
        self.rendered = {}
        _NODES.add(self)

    def render(self, context):
        request = context.get("request")
        if request is None:  # no request to key by (e.g. render_to_string without one)
            return self.nodelist.render(context)
        match = getattr(request, "resolver_match", None)
        key = (
            get_language(),
            match.url_name if match is not None else None,
            get_script_prefix(),
            absolute_url("/", request),
        )
        html = self.rendered.get(key)
        if html is None:
            html = self.nodelist.render(context)
            if len(self.rendered) >= MAX_KEYS:
                self.rendered.clear()
            self.rendered[key] = html
        return mark_safe(html)  # noqa: S308 - rendered by the template engine


@register.tag
def site_chrome(parser, token):
    """``{% site_chrome %}...{% endsite_chrome %}``: the enclosed template rendered once a
    key (see above), at most ``MAX_KEYS`` keys, forgotten when a setting changes."""
    nodelist = parser.parse(("endsite_chrome",))
    parser.delete_first_token()
    return SiteChromeNode(nodelist)


def _forget(**kwargs):
    """A changed setting (LANGUAGES, STATIC_URL, SITE_URL, ... in tests) may change it."""
    for node in _NODES:
        node.rendered.clear()


setting_changed.connect(_forget, dispatch_uid="papers.site_chrome")

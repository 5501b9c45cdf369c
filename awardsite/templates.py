"""Django's template engine, whose rendered contexts are freed as soon as a page is done.

``django.template.backends.django.Template.render`` builds a ``RequestContext`` and
pushes the view's context onto it (``make_context``): the pushed ``ContextDict`` is in
the context's ``dicts`` and refers back to the context, a reference cycle. Everything
the page's context held (its lists of papers, their rows, the view) then outlived the
request until the cyclic garbage collector found it: on make bench's largest conference
page (benchmarks/pages.py, PostgreSQL) about 2,070 objects a request, left to the
collector's older generations, whose collections took 4 to 13 ms of CPU in about one
request in 75 (figures from gc.callbacks in the benchmark's gunicorn workers). Emptying
the context's stack of dicts once the template is rendered breaks the cycle: reference
counting frees the page's objects at once (67 objects a request are left to the
collector), and awardsite/wsgi.py can let the collector run rarely.

Use ``"BACKEND": "awardsite.templates.DjangoTemplates"`` in TEMPLATES; its options are
Django's own.
"""

from django.template import TemplateDoesNotExist
from django.template.backends import django as django_backend
from django.template.context import make_context


class Template(django_backend.Template):
    """A template of :class:`DjangoTemplates`: rendered as Django renders it."""

    def render(self, context=None, request=None):
        """The template rendered with ``context`` (a dict or None) and ``request`` (an
        HttpRequest or None), as a SafeString, exactly as Django's backend renders it;
        then the context it was rendered in is emptied (see the module docstring).
        Raises what Django's raises (TemplateDoesNotExist re-raised for this backend)."""
        context = make_context(context, request, autoescape=self.backend.engine.autoescape)
        try:
            return self.template.render(context)
        except TemplateDoesNotExist as exc:
            django_backend.reraise(exc, self.backend)
        finally:
            # The tests' client keeps a copy (copy(context), its own list of dicts).
            context.dicts.clear()


class DjangoTemplates(django_backend.DjangoTemplates):
    """Django's template backend (the same options), giving :class:`Template`\\ s."""

    def from_string(self, template_code):
        return Template(self.engine.from_string(template_code), self)

    def get_template(self, template_name):
        try:
            return Template(self.engine.get_template(template_name), self)
        except TemplateDoesNotExist as exc:
            django_backend.reraise(exc, self)

"""Slugs made from titles and names, in any script.

python-slugify transliterates through text-unidecode, so a title in Chinese characters
only ("信任区域策略优化") still gives a readable ASCII slug ("xin-ren-qu-yu-ce-lue-you-hua")
where Django's own ``slugify`` (and the admin's prepopulating script) give "".
"""

from slugify import slugify


def slug_from(text, max_length):
    """The ASCII slug ``text`` gives, any script transliterated; "" if it has no letters.

    ``Kynkäänniemi`` gives ``kynkaanniemi``, ``张伟`` gives ``zhang-wei``; at most
    ``max_length`` characters, cut at a word boundary. The admin (:func:`unique_slug`)
    and the compact conference file (``papers.importing.compact``) both use it, so a
    slug left out of either is the same.
    """
    return slugify(text or "", max_length=max_length, word_boundary=True)


def unique_slug(instance, text, fallback, scope=None):
    """A slug for ``instance`` made from ``text``, unique among its model's rows.

    ``text`` is any string (a title or name, in any script); ``fallback`` is used when
    ``text`` yields no letters or digits at all (e.g. only punctuation or emoji).
    ``scope`` is a dict of field lookups that bounds uniqueness (an award's slug is
    unique per conference), or None for the whole table. The slug fits the model's
    ``slug`` max_length; a taken slug gets "-2", "-3", ... Returns the slug; saves nothing.
    """
    max_length = instance._meta.get_field("slug").max_length
    base = slug_from(text, max_length) or fallback
    others = type(instance)._default_manager.filter(**(scope or {}))
    if instance.pk is not None:
        others = others.exclude(pk=instance.pk)
    slug, n = base, 1
    while others.filter(slug=slug).exists():
        n += 1
        suffix = f"-{n}"
        slug = base[: max_length - len(suffix)].rstrip("-") + suffix
    return slug


class SlugFromTitleMixin:
    """For models whose ``slug`` may be left blank: one is made from ``slug_source``.

    ``slug_source`` names the field to read (e.g. "title_en"); ``slug_fallback`` is the
    slug used when that field gives nothing; ``slug_scope()`` returns the lookups that
    bound uniqueness. ``clean()`` fills the slug so form validation sees it; ``save()``
    fills it for code that saves without validating. loaddata saves raw and is untouched.
    """

    slug_source = "title_en"
    slug_fallback = "item"

    def slug_scope(self):
        return None

    def fill_slug(self):
        if not self.slug:
            self.slug = unique_slug(
                self, getattr(self, self.slug_source), self.slug_fallback, self.slug_scope()
            )

    def clean(self):
        super().clean()
        self.fill_slug()

    def save(self, *args, **kwargs):
        self.fill_slug()
        super().save(*args, **kwargs)

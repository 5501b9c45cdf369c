"""Award kinds in a compact file (docs/compact-format.md, "Award kinds"): ``kinds`` at the
top declares kinds, each with its names (a kind already in the database need not be
declared again), and an award names its kind by slug (``kind: test-of-time``). A kind
neither declared nor in the database is a problem naming the award and the kinds known."""

import json

from catalogue.models import AwardKind


class KindsMixin:
    """The translator's award kinds (see ``reader._Translator``); it sets ``self.kinds``."""

    def read_kinds(self, data):
        """Emit each kind of ``data["kinds"]``; note their slugs, and their places."""
        self.kinds = {}  # slug -> place, of the kinds this file declares
        for _number, value, place in self.each(data, "kinds"):
            mapping = self.mapping(value, place)
            if mapping is None:
                continue
            fields, places = self.plain(AwardKind, mapping, place)
            slug = self.slug(AwardKind, fields, place)[0]
            if slug in self.kinds:
                self.problem(place, f"the kind {slug} is already declared at {self.kinds[slug]}")
                continue
            self.kinds[slug] = place
            self.emit(AwardKind, {**fields, "slug": slug}, place, places)

    def award_kind(self, mapping, place, award):
        """The natural key of the kind the award ``award`` (a slug) at ``place`` names, or
        None when it names none or one unknown (a problem listing the kinds known)."""
        if "kind" not in mapping or mapping["kind"] is None:
            return None
        slug, kind_place = mapping["kind"], f"{place}.kind"
        if not isinstance(slug, str) or not slug:
            self.problem(kind_place, "expected the slug of an award kind")
            return None
        if slug in self.kinds or AwardKind.objects.filter(slug=slug).exists():
            return [slug]
        known = sorted({*self.kinds, *AwardKind.objects.values_list("slug", flat=True)})
        self.problem(
            kind_place,
            f"the award {award} names the kind {json.dumps(slug, ensure_ascii=False)}, "
            f"which is neither declared under kinds nor in the database; the kinds are "
            f"{', '.join(known) or 'none yet (declare it under kinds)'}",
        )
        return None

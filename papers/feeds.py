"""Atom feeds of newly published awards, one per language (/en/feeds/awards.atom,
/zh-hans/feeds/awards.atom), built with django.contrib.syndication."""

import datetime

from django.contrib.syndication.views import Feed
from django.db.models import F
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext, gettext_lazy

from .metadata import absolute_url
from .models import Award
from .templatetags.awards import localized_value

FEED_LENGTH = 50


class LatestAwardsFeed(Feed):
    """The newest published awards in the request's language: each entry is one award
    of one conference, linking to its page and listing its papers.

    An entry is dated by its conference's start date (the day the conference,
    where awards are announced, opens; end date when only that is known). An
    award of a conference without dates has no date of its own, so it carries
    the feed's build time, which Atom's required ``updated`` element needs.
    """

    feed_type = Atom1Feed
    title = gettext_lazy("Newly published conference awards")
    subtitle = gettext_lazy("Award-winning machine-learning papers, newest awards first.")
    # Atom (RFC 4287, 4.1.1) requires an author for the feed or every entry: the site's
    # own name, since the awards are announced by the conference team that runs it.
    author_name = gettext_lazy("Conference Awards")
    description_template = "papers/feeds/award_description.html"

    def __call__(self, request, *args, **kwargs):
        # The feed's language (its xml:lang) is the active one, which the /en/ or
        # /zh-hans/ prefix selects: Feed uses get_language() when ``language`` is unset.
        self.request = request
        self.built = timezone.now()
        return super().__call__(request, *args, **kwargs)

    def link(self):
        return absolute_url(reverse("papers:home"), self.request)

    def feed_url(self):
        return absolute_url(reverse("papers:awards-feed"), self.request)

    def feed_guid(self):
        return self.feed_url()

    def items(self):
        return (
            Award.objects.published()
            .for_detail()
            .order_by(
                F("conference__start_date").desc(nulls_last=True),
                "-conference__year",
                "conference__slug",
                "position",
                "slug",
            )[:FEED_LENGTH]
        )

    def item_title(self, award):
        return gettext("%(conference)s: %(award)s") % {
            "conference": localized_value(award.conference, "name")[0],
            "award": localized_value(award, "name")[0],
        }

    def item_link(self, award):
        return absolute_url(award.get_absolute_url(), self.request)

    def item_updateddate(self, award):
        day = award.conference.start_date or award.conference.end_date
        if day is None:
            return self.built
        return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)

    def item_pubdate(self, award):
        return self.item_updateddate(award)

"""Atom feeds of newly published awards, one per language (/en/feeds/awards.atom,
/zh-hans/feeds/awards.atom), built with django.contrib.syndication."""

import datetime

from django.contrib.syndication.views import Feed
from django.db.models import Prefetch
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext, gettext_lazy

from awardsite.addresses import absolute_url
from catalogue.languages import localized_value
from catalogue.models import Award, AwardEntry, unlisted_paper_fields
from editorial.history import last_changed

FEED_LENGTH = 50


class LatestAwardsFeed(Feed):
    """The newest published awards in the request's language: an entry per award, linking
    to its page and listing its papers, published on :func:`entry_day` and updated when
    the award last changed (its history), else on that day too."""

    feed_type = Atom1Feed
    title = gettext_lazy("Newly published conference awards")
    subtitle = gettext_lazy("Award-winning machine-learning papers, newest awards first.")
    # Atom (RFC 4287, 4.1.1) requires an author for the feed or every entry: the site's
    # own name, since the awards are announced by the conference team that runs it.
    author_name = gettext_lazy("Conference Awards")
    description_template = "papers/feeds/award_description.html"

    def __call__(self, request, *args, **kwargs):
        # The feed's xml:lang is the active language (the URL's prefix).
        self.request = request
        return super().__call__(request, *args, **kwargs)

    def link(self):
        return absolute_url(reverse("papers:home"), self.request)

    def feed_url(self):
        return absolute_url(reverse("papers:awards-feed"), self.request)

    def feed_guid(self):
        return self.feed_url()

    def items(self):
        # Titles by level only: for_detail()'s authors and links were 3,400 instances for
        # the 50 awards at the benchmark's size, most of the feed's time.
        entries = (
            AwardEntry.objects.published()
            .in_level_order()
            .select_related("paper")
            .defer(*unlisted_paper_fields("paper__"))
        )
        return (
            Award.objects.published()
            .with_conference()
            .annotate(last_changed=last_changed(Award))
            .prefetch_related(Prefetch("entries", queryset=entries))
            # The order of ``entry_day``: by year, then by the day (a conference with
            # no day is dated 1 January, so it comes after the year's dated ones).
            .order_by(
                "-conference__year",
                Coalesce("announced_on", "conference__start_date", "conference__end_date").desc(
                    nulls_last=True
                ),
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

    def item_pubdate(self, award):
        """Midnight UTC of ``entry_day(award)`` (never the time of the request)."""
        return datetime.datetime.combine(entry_day(award), datetime.time(), tzinfo=datetime.UTC)

    def item_updateddate(self, award):
        """When the award last changed (its history's newest version), to the second,
        else its ``item_pubdate``: entries differ as their awards do, never the time of
        the request. To the second: a backup (Django's JSON serializer) keeps
        milliseconds, and a restored site must give the same feed."""
        if award.last_changed is None:
            return self.item_pubdate(award)
        return award.last_changed.replace(microsecond=0)


def entry_day(award):
    """The day of an award's feed entry: its announcement date, else its conference's
    start or end date, else 1 January of the conference's year (Atom requires a date)."""
    conference = award.conference
    return (
        award.announced_on
        or conference.start_date
        or conference.end_date
        or datetime.date(conference.year, 1, 1)
    )

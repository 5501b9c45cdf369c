"""scripts/audit.py's reading of Lighthouse reports (`make audit`, issue 10): which score
counts, and the one documented exception, search results' ``is-crawlable``."""

import pytest

from tests.scripts import load

pytestmark = pytest.mark.no_database  # see the marker in pyproject.toml

audit = load("scripts/audit.py", "audit")

ROBOTS_TXT = (
    "User-agent: *\nDisallow: /admin/\nDisallow: /en/search/\nDisallow: /zh-hans/search/\n"
    "Sitemap: http://127.0.0.1/sitemap.xml\n"
)
NOINDEX = {"type": "node", "snippet": '<meta name="robots" content="noindex" />'}
ROBOTS_RULE = {"type": "source-location", "url": "http://127.0.0.1/robots.txt", "line": 2}


def report(performance=1.0, benchmark=1500, crawlable_sources=()):
    """A Lighthouse report as far as audit.py reads it; SEO fails ``is-crawlable`` when
    ``crawlable_sources`` name reasons (weights as Lighthouse 12 gives them)."""
    seo_audits = {
        "is-crawlable": (4.043, 0 if crawlable_sources else 1),
        "meta-description": (1, 1),
    }
    audits = {name: {"score": score} for name, (_weight, score) in seo_audits.items()}
    audits["is-crawlable"]["details"] = {"items": [{"source": s} for s in crawlable_sources]}
    audits["speed"] = {"score": performance}
    audits["contrast"] = {"score": 1}
    seo = sum(w * s for w, s in seo_audits.values()) / sum(w for w, _s in seo_audits.values())
    categories = {
        "performance": {"score": performance, "auditRefs": [{"id": "speed", "weight": 1}]},
        "accessibility": {"score": 1, "auditRefs": [{"id": "contrast", "weight": 1}]},
        "best-practices": {"score": 1, "auditRefs": [{"id": "contrast", "weight": 1}]},
        "seo": {
            "score": round(seo, 2),
            "auditRefs": [{"id": name, "weight": w} for name, (w, _s) in seo_audits.items()],
        },
    }
    return {
        "categories": categories,
        "audits": audits,
        "environment": {"benchmarkIndex": benchmark},
    }


def test_audit_counts_search_results_seo_without_the_deliberate_noindex():
    blocked = report(crawlable_sources=[NOINDEX, ROBOTS_RULE])

    scores, counted, _notes = audit.summarise("en/search/?q=learning", [blocked], ROBOTS_TXT)

    assert (scores["seo"], counted["seo"]) == (0.2, 1.0)


def test_audit_counts_noindex_elsewhere_as_lighthouse_does():
    blocked = report(crawlable_sources=[NOINDEX])

    scores, counted, _notes = audit.summarise("en/conferences/", [blocked], ROBOTS_TXT)

    assert (scores["seo"], counted["seo"]) == (0.2, 0.2)


def test_audit_counts_search_results_blocked_for_another_reason_as_lighthouse_does():
    admin_rule = {**ROBOTS_RULE, "line": 1}  # Disallow: /admin/, not the search rule
    header = {"type": "code", "value": "x-robots-tag: none"}
    counted_seo = []

    for sources in ([NOINDEX, admin_rule], [header], []):
        blocked = report(crawlable_sources=[NOINDEX])
        blocked["audits"]["is-crawlable"]["details"]["items"] = [{"source": s} for s in sources]
        _scores, counted, _notes = audit.summarise("en/search/?q=x", [blocked], ROBOTS_TXT)
        counted_seo.append(counted["seo"])

    assert counted_seo == [0.2, 0.2, 0.2]


def test_audit_takes_the_best_performance_run():
    runs = [report(performance=0.81, benchmark=400), report(performance=0.97, benchmark=1200)]

    scores, counted, notes = audit.summarise("en/", runs, ROBOTS_TXT)

    assert (scores["performance"], counted["performance"]) == (0.97, 0.97)
    assert notes[0] == (
        "performance runs: 0.81 (host CPU benchmarkIndex 400), 0.97 (host CPU benchmarkIndex 1200)"
    )

"""The pages the accessibility and HTML checks visit, in both languages (issue 5)."""

PATHS = [
    "",
    "conferences/icml-2025/",
    "conferences/icml-2015/",
    "conferences/icml-2025/awards/test-of-time/",
    "venues/icml/",
    "venues/icml/awards/test-of-time/",
    "papers/statistical-query-hardness-multiclass-linear-classification/",
    "papers/trust-region-policy-optimization/",
    "authors/michael-i-jordan/",
    "conferences/",
    "venues/",
    "awards/",
    "authors/",
    "authors/?letter=j",
    "search/?q=learning&year=2025",
    "search/?q=" + "x" * 300,
    "open-data/",
    "no/such/page/",
]
LANGUAGES = ["en", "zh-hans"]
URLS = [f"/{language}/{path}" for language in LANGUAGES for path in PATHS]

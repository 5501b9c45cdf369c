"""The pages the accessibility and HTML checks visit, in both languages (issue 5), and
the pages `make audit` scores with Lighthouse (issue 10): one list, so that every page
the audit scores is also checked by axe-core and the Nu HTML Checker in `make test`."""

import io

# The paper shown with a teaser image. The shipped content has no images (none is in
# the seed documents), so checks and the audit draw one for it: ``add_teaser``.
TEASER_PAPER = "conformal-prediction-as-bayesian-quadrature"

# Every kind of public page issue 10 names: home, conference, award, a paper with and
# one without a teaser, author, search results, each index page and a kind of award.
AUDIT_PATHS = [
    "",
    "conferences/icml-2025/",
    "conferences/icml-2025/awards/test-of-time/",
    f"papers/{TEASER_PAPER}/",
    "papers/statistical-query-hardness-multiclass-linear-classification/",
    "authors/michael-i-jordan/",
    "search/?q=learning&year=2025",
    "conferences/",
    "venues/",
    "venues/icml/",
    "awards/",
    "awards/kinds/test-of-time/",
    "authors/",
]
PATHS = [
    *AUDIT_PATHS,
    "conferences/icml-2015/",
    "venues/icml/awards/test-of-time/",
    "papers/trust-region-policy-optimization/",
    "authors/letter/j/",
    "search/?q=" + "x" * 300,
    "open-data/",
    "open-data/api/",
    "no/such/page/",
]
LANGUAGES = ["en", "zh-hans"]
URLS = [f"/{language}/{path}" for language in LANGUAGES for path in PATHS]
AUDIT_URLS = [f"/{language}/{path}" for language in LANGUAGES for path in AUDIT_PATHS]


def teaser_figure_png(size=(1600, 900)):
    """A teaser as papers often have one: a line chart (grid, three curves), as PNG bytes.

    ``size`` is (width, height) in pixels. Drawn, not taken from anywhere: it stands in
    for an editor's upload, with no content of its own.
    """
    import math

    from PIL import Image, ImageDraw

    width, height = size
    image = Image.new("RGB", size, (255, 255, 255))
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = width // 10, height // 10, width * 9 // 10, height * 8 // 10
    for step in range(11):
        x = left + (right - left) * step // 10
        y = top + (bottom - top) * step // 10
        draw.line([(x, top), (x, bottom)], fill=(225, 228, 235), width=2)
        draw.line([(left, y), (right, y)], fill=(225, 228, 235), width=2)
    draw.line([(left, bottom), (right, bottom)], fill=(40, 40, 40), width=4)
    draw.line([(left, top), (left, bottom)], fill=(40, 40, 40), width=4)
    colours = [(31, 119, 180), (214, 39, 40), (44, 160, 44)]
    for n, colour in enumerate(colours):
        points = [
            (
                left + (right - left) * i / 200,
                bottom
                - (bottom - top) * (1 - math.exp(-i / (25 + 30 * n))) * (0.9 - 0.15 * n)
                - 12 * math.sin(i / 9 + n),
            )
            for i in range(201)
        ]
        draw.line(points, fill=colour, width=6, joint="curve")
        draw.rectangle(
            [right - 220, top + 30 + 50 * n, right - 170, top + 50 + 50 * n], fill=colour
        )
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def add_teaser(slug=TEASER_PAPER):
    """Give the paper ``slug`` a teaser: ``teaser_figure_png``, checked, re-encoded and
    stored with its thumbnails as the importer stores an image (importing), in
    the default storage (point MEDIA_ROOT at a temporary folder first), with a
    description in both languages. Returns the paper; raises Paper.DoesNotExist."""
    from catalogue.models import Paper
    from importing.pipeline import prepare_image, store_image

    paper = Paper.objects.get(slug=slug)
    name, data = prepare_image(teaser_figure_png(), "teaser.png")
    paper.image = store_image(name, data)
    paper.image_alt_en = "A line chart: three curves rising over a grid."
    paper.image_alt_zh_hans = "折线图：网格上三条逐渐上升的曲线。"
    paper.save()
    return paper

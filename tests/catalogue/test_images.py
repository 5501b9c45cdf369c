"""Teaser images checked by content (catalogue/images.py), and through the admin's form."""

import errno
import io
import re
import struct
import zlib
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from PIL import Image

from catalogue.images import clean_image, list_thumbnail, make_thumbnails
from catalogue.models import Paper
from editorial.roles import create_editor
from importing.pipeline import import_fixture
from tests import factories
from tests.editorial.test_admin import _change_url, _form_data, _png
from tests.importing.test_importing import small_fixture, write


def image_bytes(mode="RGB", size=(40, 30), color=(200, 30, 30), format="PNG", **options):
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=format, **options)
    return buffer.getvalue()


def png_header(width, height):
    """A PNG that claims ``width`` x ``height`` pixels in a few dozen bytes."""

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )


def upload(data, name="teaser.png"):
    return SimpleUploadedFile(name, data)


def refusal_code(data, name="teaser.png"):
    with pytest.raises(ValidationError) as refusal:
        clean_image(upload(data, name))
    return refusal.value.code


SVG = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


@pytest.mark.parametrize(
    ("data", "name", "code"),
    [
        (b"%PDF-1.7 not an image at all", "paper.png", "not_image"),
        (b"", "empty.png", "not_image"),
        (SVG, "figure.svg", "svg"),
        (SVG.replace(b'<?xml version="1.0"?>\n', b""), "figure.png", "svg"),
        (image_bytes(format="BMP"), "figure.bmp", "not_image"),
        (image_bytes(size=(600, 400), format="JPEG")[:900], "cut.jpg", "truncated"),
        (png_header(6000, 5000), "big.png", "too_many_pixels"),
        # Over Pillow's MAX_IMAGE_PIXELS (its warning) and over twice that (its error).
        (png_header(10_000, 10_000), "bomb.png", "bomb"),
        (png_header(30_000, 30_000), "bomb.png", "bomb"),
    ],
)
def test_bad_uploads_are_refused_with_a_reason(data, name, code):
    assert refusal_code(data, name) == code


def test_truncated_png_is_refused():
    data = image_bytes(size=(300, 300), format="PNG", compress_level=0)

    assert refusal_code(data[: len(data) // 2]) == "truncated"


def test_too_many_bytes_is_refused(settings):
    settings.PAPER_IMAGE_MAX_BYTES = 1000
    data = image_bytes(size=(200, 200), format="PNG", compress_level=0)

    assert refusal_code(data) == "too_large"


def test_image_is_recognised_by_content_not_extension():
    cleaned = clean_image(upload(image_bytes(format="PNG"), "figure.txt"))

    assert (cleaned.name, cleaned.content_type, cleaned.image.size) == (
        "figure.png",
        "image/png",
        (40, 30),
    )


def test_exif_orientation_is_applied():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to display
    data = image_bytes(size=(40, 30), format="JPEG", exif=exif.tobytes())

    cleaned = Image.open(io.BytesIO(clean_image(upload(data, "photo.jpg")).read()))

    assert cleaned.size == (30, 40)
    assert cleaned.getexif().get(0x0112) is None


def test_cmyk_becomes_rgb_with_the_same_colour():
    data = image_bytes(mode="CMYK", color=(0, 255, 255, 0), format="JPEG")

    cleaned = Image.open(io.BytesIO(clean_image(upload(data, "print.jpg")).read()))

    assert cleaned.mode == "RGB"
    red, green, blue = cleaned.getpixel((5, 5))
    assert red > 240 and green < 15 and blue < 15


def test_palette_with_transparency_keeps_it():
    image = Image.new("P", (20, 20), 0)
    image.putpalette([255, 255, 255, 200, 0, 0] + [0] * 762)
    image.paste(1, (0, 0, 10, 20))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", transparency=0)

    cleaned = Image.open(io.BytesIO(clean_image(upload(buffer.getvalue())).read()))

    assert cleaned.mode == "RGBA"
    assert cleaned.getpixel((2, 2)) == (200, 0, 0, 255)
    assert cleaned.getpixel((15, 2))[3] == 0


def test_opaque_palette_becomes_rgb():
    data = image_bytes(mode="P", color=3, format="GIF")

    cleaned = clean_image(upload(data, "anim.gif"))

    assert (cleaned.name, cleaned.image.mode) == ("anim.png", "RGB")


def test_transparent_webp_keeps_alpha_and_format():
    data = image_bytes(mode="RGBA", color=(0, 0, 255, 128), format="WEBP", lossless=True)

    cleaned = clean_image(upload(data, "figure.webp"))

    assert (cleaned.name, cleaned.image.mode) == ("figure.webp", "RGBA")
    assert cleaned.image.getpixel((1, 1)) == (0, 0, 255, 128)


def test_grey_with_alpha_in_jpeg_input_is_stored_as_png():
    data = image_bytes(mode="LA", color=(100, 50), format="PNG")

    cleaned = clean_image(upload(data, "mask.png"))

    assert (cleaned.name, cleaned.image.mode) == ("mask.png", "RGBA")
    assert cleaned.image.getpixel((0, 0)) == (100, 100, 100, 50)


def test_rgb_colour_profile_is_kept_and_gps_position_dropped():
    from PIL import ImageCms

    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    exif = Image.Exif()
    exif[0x8825] = {2: (48.0, 51.0, 0.0)}  # GPSInfo: a latitude
    data = image_bytes(format="JPEG", icc_profile=profile, exif=exif.tobytes())

    cleaned = Image.open(io.BytesIO(clean_image(upload(data, "photo.jpg")).read()))

    assert cleaned.info.get("icc_profile") == profile
    assert dict(cleaned.getexif()) == {}


def test_png_mentioning_svg_in_its_metadata_is_still_an_image():
    from PIL import PngImagePlugin

    text = PngImagePlugin.PngInfo()
    text.add_text("Software", "exported from <svg> editor")
    data = image_bytes(format="PNG", pnginfo=text)

    assert clean_image(upload(data)).image.size == (40, 30)


# Issue 8: unusual modes keep their pixel values; animated images are refused.


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_16_bit_grey(values, transparent=None):
    """A one-row 16-bit greyscale PNG (colour type 0, depth 16) written byte by byte."""
    ihdr = struct.pack(">IIBBBBB", len(values), 1, 16, 0, 0, 0, 0)
    row = b"\0" + b"".join(struct.pack(">H", value) for value in values)
    chunks = png_chunk(b"IHDR", ihdr)
    if transparent is not None:
        chunks += png_chunk(b"tRNS", struct.pack(">H", transparent))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunks
        + png_chunk(b"IDAT", zlib.compress(row))
        + png_chunk(b"IEND", b"")
    )


def stored(data, name="figure.png"):
    """The image clean_image stores, decoded again from its bytes."""
    return Image.open(io.BytesIO(clean_image(upload(data, name)).read()))


def pixels(image):
    return [image.getpixel((x, 0)) for x in range(image.width)]


def test_16_bit_grey_png_is_scaled_not_white():
    cleaned = stored(png_16_bit_grey([0, 257 * 64, 257 * 128, 65535]))

    assert cleaned.mode == "L"
    assert pixels(cleaned) == [0, 64, 128, 255]


def test_16_bit_grey_png_with_a_transparent_grey_keeps_it():
    cleaned = stored(png_16_bit_grey([0, 257 * 100, 65535], transparent=257 * 100))

    assert cleaned.mode == "RGBA"
    assert pixels(cleaned) == [(0, 0, 0, 255), (100, 100, 100, 0), (255, 255, 255, 255)]


@pytest.mark.parametrize("mode", ["I;16", "I;16B", "I"])
def test_wide_grey_modes_are_scaled(mode):
    from catalogue.images import _normalise

    image = Image.new(mode, (3, 1))
    for x, value in enumerate([0, 257 * 200, 65535]):
        image.putpixel((x, 0), value)

    normalised = _normalise(image)

    assert normalised.mode == "L"
    assert pixels(normalised) == [0, 200, 255]


@pytest.mark.parametrize(
    ("mode", "colour", "expected"),
    [
        ("La", (100, 128), (199, 199, 199, 128)),
        ("RGBa", (100, 50, 20, 128), (199, 99, 39, 128)),
    ],
)
def test_premultiplied_alpha_is_undone(mode, colour, expected):
    from catalogue.images import _normalise

    normalised = _normalise(Image.new(mode, (1, 1), colour))

    assert normalised.getpixel((0, 0)) == expected


def test_one_bit_png_stays_black_and_white():
    image = Image.new("1", (4, 1), 0)
    image.putpixel((1, 0), 1)
    image.putpixel((3, 0), 1)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")

    cleaned = stored(buffer.getvalue())

    assert [value[0] if isinstance(value, tuple) else value for value in pixels(cleaned)] == [
        0,
        255,
        0,
        255,
    ]


def test_grey_with_alpha_png_keeps_grey_and_alpha():
    image = Image.new("LA", (2, 1), (30, 255))
    image.putpixel((1, 0), (220, 0))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")

    cleaned = stored(buffer.getvalue())

    assert pixels(cleaned) == [(30, 30, 30, 255), (220, 220, 220, 0)]


def test_palette_png_with_alpha_per_entry_keeps_it():
    image = Image.new("P", (2, 1), 0)
    image.putpalette([10, 20, 30, 40, 50, 60] + [0] * 762)
    image.putpixel((1, 0), 1)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", transparency=bytes([255, 100]))

    cleaned = stored(buffer.getvalue())

    assert pixels(cleaned) == [(10, 20, 30, 255), (40, 50, 60, 100)]


def test_grey_with_transparent_value_keeps_it():
    image = Image.new("L", (2, 1), 10)
    image.putpixel((1, 0), 77)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", transparency=77)

    cleaned = stored(buffer.getvalue())

    assert pixels(cleaned) == [(10, 10, 10, 255), (77, 77, 77, 0)]


def test_cmyk_tiff_like_pixels_convert_without_a_profile():
    from catalogue.images import _normalise

    normalised = _normalise(Image.new("CMYK", (1, 1), (0, 255, 255, 0)))

    assert (normalised.mode, normalised.getpixel((0, 0))) == ("RGB", (255, 0, 0))


def animation(format, **options):
    frames = [Image.new("RGB", (8, 8), colour) for colour in ((255, 0, 0), (0, 0, 255))]
    buffer = io.BytesIO()
    frames[0].save(buffer, format=format, save_all=True, append_images=frames[1:], **options)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (animation("GIF"), "moving.gif"),
        (animation("WEBP", lossless=True), "moving.webp"),
        (animation("PNG"), "moving.png"),
    ],
    ids=["gif", "webp", "apng"],
)
def test_animated_image_is_refused_with_the_reason(data, name):
    with pytest.raises(ValidationError) as refusal:
        clean_image(upload(data, name))

    assert refusal.value.code == "animated"
    assert "only the first frame would appear" in refusal.value.messages[0]


def test_single_frame_gif_is_accepted():
    assert stored(image_bytes(mode="P", color=3, format="GIF"), "still.gif").format == "PNG"


# Thumbnails made at upload, never in a visitor's request ----------------------------

THUMBNAILS = [
    "papers/teaser.png.960x0_q85.png",
    "papers/teaser.png.120x80_q85.png",
    "papers/teaser.png.160x100_q85_crop_upscale.png",
    "papers/teaser.png.320x200_q85_crop_upscale.png",
]


def test_admin_upload_makes_every_thumbnail_once_the_save_commits(
    db, client, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase"))
    paper = factories.paper()
    data = _form_data(client.get(_change_url(paper)))
    data.update(image=_png(), image_alt_en="A blue square", image_alt_zh_hans="蓝色方块")
    (tmp_path / "papers").mkdir()

    with django_capture_on_commit_callbacks() as after_commit:
        assert client.post(_change_url(paper), data).status_code == 302
    before_commit = sorted(f"papers/{path.name}" for path in (tmp_path / "papers").iterdir())
    for callback in after_commit:
        callback()

    made = sorted(f"papers/{path.name}" for path in (tmp_path / "papers").iterdir())
    assert (before_commit, made) == (
        ["papers/teaser.png"],
        sorted(["papers/teaser.png", *THUMBNAILS]),
    )


def test_paper_page_never_makes_a_thumbnail(db, client, settings, tmp_path):
    """An image stored without thumbnails (say, before they were made at save) is shown
    as it is; the visitor's request resizes nothing."""
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "teaser.png").write_bytes(image_bytes(size=(1200, 800)))
    paper = factories.paper(
        image="papers/teaser.png", image_alt_en="A figure", image_alt_zh_hans="一张图"
    )

    page = client.get(paper.get_absolute_url()).content.decode()

    assert (
        '<img src="/media/papers/teaser.png" alt="A figure" width="1200" height="800" '
        'fetchpriority="high">'
    ) in page
    assert sorted(path.name for path in (tmp_path / "papers").iterdir()) == ["teaser.png"]


def test_import_makes_every_thumbnail_when_it_stores_an_image(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    (tmp_path / "teaser.png").write_bytes(image_bytes(size=(1200, 800)))
    objects = small_fixture()
    paper = next(item for item in objects if item["model"] == "papers.paper")
    paper["fields"].update(image="teaser.png", image_alt_en="A figure", image_alt_zh_hans="一张图")

    import_fixture(write(tmp_path, objects))

    stored = sorted(f"papers/{path.name}" for path in (tmp_path / "media" / "papers").iterdir())
    assert stored == sorted(["papers/teaser.png", *THUMBNAILS])


def test_teaser_has_the_thumbnails_width_and_height(db, client, settings, tmp_path):
    """The browser keeps the teaser's place before it loads: ``<img>`` names the size of
    the thumbnail it shows (960 pixels wide at most), not of the stored image."""
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "teaser.png").write_bytes(image_bytes(size=(1920, 1080)))
    make_thumbnails(default_storage, "papers/teaser.png")
    paper = factories.paper(
        image="papers/teaser.png", image_alt_en="A figure", image_alt_zh_hans="一张图"
    )

    page = client.get(paper.get_absolute_url()).content.decode()

    assert (
        '<img src="/media/papers/teaser.png.960x0_q85.png" alt="A figure" width="960" height="540" '
        'fetchpriority="high">'
    ) in page


def test_teaser_is_fetched_first(db, client, settings, tmp_path):
    """The teaser is the paper page's largest picture, so its Largest Contentful Paint:
    ``fetchpriority="high"`` lets the browser fetch it before it has laid the page out
    (Lighthouse's "LCP request discovery" insight; issue 10's performance measure)."""
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "teaser.png").write_bytes(image_bytes(size=(1920, 1080)))
    make_thumbnails(default_storage, "papers/teaser.png")
    paper = factories.paper(
        image="papers/teaser.png", image_alt_en="A figure", image_alt_zh_hans="一张图"
    )

    page = client.get(paper.get_absolute_url()).content.decode()

    assert re.findall(r"<img [^>]*>", page) == [
        '<img src="/media/papers/teaser.png.960x0_q85.png" alt="A figure" width="960" height="540" '
        'fetchpriority="high">'
    ]


def test_teaser_whose_file_is_missing_has_no_img(db, client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = factories.paper(
        image="papers/gone.png", image_alt_en="A figure", image_alt_zh_hans="一张图"
    )

    page = client.get(paper.get_absolute_url()).content.decode()

    assert "<img" not in page


# Thumbnails in lists: made with the others, named without a query or a file read ------


def _stored_teaser(tmp_path, name="teaser.png", size=(1200, 800), format="PNG"):
    """An image stored in the media storage with every thumbnail made, as at upload."""
    (tmp_path / "papers").mkdir(exist_ok=True)
    (tmp_path / "papers" / name).write_bytes(image_bytes(size=size, format=format))
    make_thumbnails(default_storage, f"papers/{name}")
    return f"papers/{name}"


@pytest.mark.parametrize(
    ("name", "size", "format"),
    [
        ("wide.png", (1920, 600), "PNG"),
        ("small.jpg", (90, 120), "JPEG"),  # smaller than the slot, and a portrait
        ("figure.webp", (800, 800), "WEBP"),
    ],
)
def test_list_thumbnails_fill_the_slot_at_1x_and_2x(db, settings, tmp_path, name, size, format):
    """The list's <img> names the slot's size without reading a file: the thumbnails
    made at upload are cropped and scaled to exactly that size, under the names the
    page computes."""
    settings.MEDIA_ROOT = tmp_path
    paper = factories.paper(image=_stored_teaser(tmp_path, name, size, format))

    picture = list_thumbnail(paper.image)
    stored = []
    for url in (picture.src, picture.srcset.split(", ")[1].split()[0]):
        with Image.open(tmp_path / url.removeprefix(settings.MEDIA_URL)) as image:
            stored.append(image.size)

    assert (picture.width, picture.height) == (160, 100)
    assert stored == [(160, 100), (320, 200)]


def _teaser_papers(tmp_path, count, word="needle"):
    """``count`` papers with a teaser (thumbnails made), ``word`` in their titles, an
    author and an award entry in one award of one conference, and one more paper
    without a teaser."""
    name = _stored_teaser(tmp_path)
    award = factories.award()
    person = factories.author()
    for n in range(count):
        paper = factories.paper(
            conference=award.conference,
            title_en=f"{word} {n}",
            authors=[person, factories.author()],
            image=name,
            image_alt_en="A figure",
            image_alt_zh_hans="一张图",
        )
        factories.award_entry(award, paper, position=n)
    factories.award_entry(award, factories.paper(conference=award.conference, authors=[person]))
    return award, person


THUMB = (
    '<img class="paper-thumb" src="/media/papers/teaser.png.160x100_q85_crop_upscale.png" '
    'srcset="/media/papers/teaser.png.160x100_q85_crop_upscale.png 1x, '
    '/media/papers/teaser.png.320x200_q85_crop_upscale.png 2x" width="160" height="100" '
    'alt="" loading="lazy" decoding="async">'
)


@pytest.mark.parametrize("page", ["conference", "award", "author", "search"])
def test_lists_show_a_decorative_thumbnail_of_each_teaser(db, client, settings, tmp_path, page):
    settings.MEDIA_ROOT = tmp_path
    award, person = _teaser_papers(tmp_path, 3)
    url = {
        "conference": award.conference.get_absolute_url(),
        "award": award.get_absolute_url(),
        "author": person.get_absolute_url(),
        "search": "/en/search/?q=needle",
    }[page]

    html = client.get(url).content.decode()

    assert html.count(THUMB) == 3  # the paper without a teaser has none
    assert html.count('class="paper-thumb"') == 3


@pytest.mark.parametrize(
    ("page", "queries"), [("conference", 6), ("award", 4), ("author", 7), ("search", 7)]
)
def test_thumbnails_cost_no_query_and_make_no_file(
    db, client, settings, tmp_path, django_assert_num_queries, page, queries
):
    """The same number of queries with one teaser as with many, and as pages without
    thumbnails (tests/pages/test_views.py); a thumbnail whose file is gone is a 404 for the
    browser, never a 500 or a resize in the visitor's request."""
    settings.MEDIA_ROOT = tmp_path
    for count, word in [(1, "needle"), (12, "haystack")]:
        award, person = _teaser_papers(tmp_path, count, word)
        for path in (tmp_path / "papers").glob("*_crop_upscale.png"):
            path.unlink()
        url = {
            "conference": award.conference.get_absolute_url(),
            "award": award.get_absolute_url(),
            "author": person.get_absolute_url(),
            "search": f"/en/search/?q={word}",
        }[page]

        with django_assert_num_queries(queries):
            response = client.get(url)

        assert response.status_code == 200
        assert response.content.decode().count('class="paper-thumb"') == count
        assert list((tmp_path / "papers").glob("*_crop_upscale.png")) == []


def give_icml_papers_teasers(media_root):
    """Store a teaser (with its thumbnails) in ``media_root`` and give it to every paper
    of the loaded ICML content, for checks of pages with thumbnails. Returns the count."""
    (media_root / "papers").mkdir(parents=True, exist_ok=True)
    (media_root / "papers" / "teaser.png").write_bytes(image_bytes(size=(1200, 800)))
    make_thumbnails(default_storage, "papers/teaser.png")
    return Paper.objects.update(
        image="papers/teaser.png", image_alt_en="A figure", image_alt_zh_hans="一张图"
    )


# Pages whose lists show thumbnails, for the HTML and accessibility checks.
THUMBNAIL_PATHS = [
    "conferences/icml-2025/",
    "conferences/icml-2025/awards/test-of-time/",
    "authors/michael-i-jordan/",
    "search/?q=learning",
]
THUMBNAIL_URLS = [f"/{lang}/{path}" for lang in ("en", "zh-hans") for path in THUMBNAIL_PATHS]


def test_make_thumbnails_fills_in_sizes_added_after_an_upload(db, settings, tmp_path):
    """An image stored before a size existed (only the original on disk) gets every
    size; a paper whose file is gone is named, and the others are still done."""
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "papers").mkdir()
    (tmp_path / "papers" / "teaser.png").write_bytes(image_bytes(size=(1200, 800)))
    factories.paper(image="papers/teaser.png", image_alt_en="A", image_alt_zh_hans="图")
    factories.paper(slug="gone", image="papers/gone.png", image_alt_en="B", image_alt_zh_hans="图")
    out, err = io.StringIO(), io.StringIO()

    with pytest.raises(CommandError, match="1 image could not be read"):
        call_command("make_thumbnails", stdout=out, stderr=err)

    made = sorted(f"papers/{path.name}" for path in (tmp_path / "papers").iterdir())
    assert made == sorted(["papers/teaser.png", *THUMBNAILS])
    assert err.getvalue() == "gone: papers/gone.png: the file is missing\n"
    assert out.getvalue() == "Thumbnails complete for 1 image.\n"


# Thumbnails that fail after a committed save, or were left empty (issue 32) ------------


def test_make_thumbnails_makes_an_empty_or_damaged_thumbnail_again(db, settings, tmp_path):
    """What a full disk left (an empty file, one cut short) is made again by the command."""
    settings.MEDIA_ROOT = tmp_path
    name = _stored_teaser(tmp_path, "teaser.jpg", format="JPEG")
    factories.paper(image=name, image_alt_en="A", image_alt_zh_hans="图")
    empty, cut = (
        tmp_path / "papers" / f"teaser.jpg.{size}_q85.jpg" for size in ("960x0", "120x80")
    )
    empty.write_bytes(b"")
    cut.write_bytes(cut.read_bytes()[:200])

    call_command("make_thumbnails", stdout=io.StringIO())

    for path in (empty, cut):
        with Image.open(path) as image:
            image.load()
            assert image.format == "JPEG"


def test_upload_whose_thumbnails_fail_is_saved_with_a_warning(
    transactional_db, client, settings, tmp_path, caplog
):
    """A committed upload answers as usual; thumbnails that fail (a full disk) are logged
    and the editor is told that make_thumbnails makes them."""
    settings.MEDIA_ROOT = tmp_path
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase"))
    paper = factories.paper()
    data = _form_data(client.get(_change_url(paper)))
    data.update(image=_png(), image_alt_en="A blue square", image_alt_zh_hans="蓝色方块")
    full = OSError(errno.ENOSPC, "No space left on device")

    with mock.patch("catalogue.images.make_thumbnails", side_effect=full):
        response = client.post(_change_url(paper), data, follow=True)

    assert response.redirect_chain == [("/admin/papers/paper/", 302)]
    assert Paper.objects.get(pk=paper.pk).image.name == "papers/teaser.png"
    assert [(m.level_tag, m.message) for m in response.context["messages"]][-1] == (
        "warning",
        "The change is saved, but the image's thumbnails could not be made (the server's log "
        "says why): “manage.py make_thumbnails” makes them.",
    )
    [record] = [r for r in caplog.records if r.name == "catalogue.signals"]
    assert (record.levelname, record.exc_info[1]) == ("ERROR", full)

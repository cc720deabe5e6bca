"""A page's captioned figures, read beside extraction (issue 26): a ``<figure>`` with an
image and a caption the reader sees, its address made absolute; no figure without a
caption, hidden, or with an address that is not http(s)."""

from __future__ import annotations

from deepresearch.fetch.extract import extract_html

PAGE = "https://site.example/articles/rain"


def _figures(body: str) -> list[tuple[str, str, str]]:
    html = f"<html><head><title>T</title></head><body>{body}</body></html>"
    doc = extract_html(html, PAGE, 10_000)
    return [(f.image_url, f.caption, f.alt) for f in doc.figures]


def test_a_captioned_figure_is_kept_with_its_address_alt_and_caption() -> None:
    found = extract_html(
        "<html><body><h2>Rain by month</h2><p>Paris gets rain all year.</p>"
        '<figure><img src="../img/rain.png" alt="A bar chart">'
        "<figcaption>  Rain in\n Paris  </figcaption></figure><p>May is wettest.</p>"
        "</body></html>",
        PAGE,
        10_000,
    ).figures
    (figure,) = found
    assert figure.image_url == "https://site.example/img/rain.png"
    assert (figure.caption, figure.alt, figure.page_url) == ("Rain in Paris", "A bar chart", PAGE)
    assert figure.context == "Rain by month Paris gets rain all year. May is wettest."


def test_no_figure_without_a_caption_an_image_or_a_web_address() -> None:
    assert _figures('<img src="/a.png" alt="alone">') == []
    assert _figures('<figure><img src="/a.png"></figure>') == []
    assert _figures("<figure><figcaption>no image</figcaption></figure>") == []
    assert _figures('<figure><img src="/a.png"><figcaption> </figcaption></figure>') == []
    for src in ("data:image/png;base64,AAAA", "javascript:alert(1)", "ftp://x.example/a.png"):
        assert _figures(f'<figure><img src="{src}"><figcaption>c</figcaption></figure>') == []


def test_a_hidden_figure_is_not_a_candidate() -> None:
    hidden = (
        '<figure style="display:none"><img src="/a.png"><figcaption>a</figcaption></figure>'
        '<figure hidden><img src="/b.png"><figcaption>b</figcaption></figure>'
        '<figure><img src="/c.png"><figcaption>c</figcaption></figure>'
    )
    assert _figures(hidden) == [("https://site.example/c.png", "c", "")]


def test_the_same_image_twice_is_one_candidate() -> None:
    twice = '<figure><img src="/a.png"><figcaption>first</figcaption></figure>' * 2
    assert _figures(twice) == [("https://site.example/a.png", "first", "")]

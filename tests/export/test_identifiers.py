"""The identifiers a source's address carries (``export.identifiers``): DOI, arXiv,
PubMed and PubMed Central ids, from the addresses those sites use, and nothing from
others."""

from __future__ import annotations

import pytest

from deepresearch.export.identifiers import Identifiers, identifiers


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://doi.org/10.1038/nature12373", Identifiers(doi="10.1038/nature12373")),
        ("http://dx.doi.org/10.1000/xyz123", Identifiers(doi="10.1000/xyz123")),
        (
            "https://doi.org/10.1002/(SICI)1097-4571(199806)49:8%3C693::AID-ASI4%3E3.0.CO;2-0",
            Identifiers(doi="10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0"),
        ),
        (
            "https://dl.acm.org/doi/10.1145/3442188.3445922",
            Identifiers(doi="10.1145/3442188.3445922"),
        ),
        (
            "https://onlinelibrary.wiley.com/doi/full/10.1111/j.1365-2486.2010.02157.x?x=1",
            Identifiers(doi="10.1111/j.1365-2486.2010.02157.x"),
        ),
        ("https://arxiv.org/abs/2305.14251", Identifiers(arxiv="2305.14251")),
        ("https://arxiv.org/abs/1706.03762v7", Identifiers(arxiv="1706.03762v7")),
        ("https://arxiv.org/pdf/2305.14251v2.pdf", Identifiers(arxiv="2305.14251v2")),
        ("http://export.arxiv.org/abs/hep-th/9711200", Identifiers(arxiv="hep-th/9711200")),
        ("https://www.arxiv.org/abs/math.GT/0309136", Identifiers(arxiv="math.GT/0309136")),
        ("https://pubmed.ncbi.nlm.nih.gov/31452104/", Identifiers(pmid="31452104")),
        ("https://www.ncbi.nlm.nih.gov/pubmed/23193287", Identifiers(pmid="23193287")),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC6714673/", Identifiers(pmcid="PMC6714673")),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/pmc3531190/", Identifiers(pmcid="PMC3531190")),
    ],
)
def test_an_address_names_its_identifier(url: str, expected: Identifiers) -> None:
    assert identifiers(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/doi/not-a-doi",
        "https://doi.org/",
        "https://doi.org/11.1000/abc",
        "https://example.org/abs/2305.14251",  # an arXiv-shaped path on another site
        "https://arxiv.org/list/cs.CL/recent",
        "https://pubmed.ncbi.nlm.nih.gov/?term=bees",
        "https://example.org/pubmed/123",
        "http://[::1",  # not an address at all
        "",
    ],
)
def test_other_addresses_name_none(url: str) -> None:
    assert identifiers(url) == Identifiers()

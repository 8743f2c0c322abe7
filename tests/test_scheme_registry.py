import pytest

from simcore import schemes


def test_parse_variant_reads_overrides():
    assert schemes.parse_variant("ngs(gain=2, window=1000)") == ("ngs", {"gain": "2", "window": "1000"})
    assert schemes.parse_variant(" ppi ") == ("ppi", {})


@pytest.mark.parametrize("text,message", [
    ("nope(gain=2)", "unknown scheme 'nope'"),
    ("ngs(gain)", "'gain' is not NAME=VALUE"),
    ("ngs(gain=1, gain=2)", "given twice"),
    ("ngs gain=2", "cannot read scheme variant"),
])
def test_parse_variant_errors_name_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        schemes.parse_variant(text)


def test_split_variants_respects_parentheses():
    assert schemes.split_variants("ngs,ngs(gain=2, window=1000),ppi") == ["ngs", "ngs(gain=2, window=1000)", "ppi"]
    with pytest.raises(ValueError, match="unbalanced"):
        schemes.split_variants("ngs(gain=2")


def test_variant_label_is_canonical():
    assert schemes.variant_label("ngs", {"window": 1000, "gain": 2}) == "ngs(gain=2,window=1000)"
    assert schemes.variant_label("ppi", {}) == "ppi"

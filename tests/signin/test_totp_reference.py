from tests.signin.totp_reference import totp

RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # b"12345678901234567890" (RFC 6238 appendix B)


def test_the_reference_matches_rfc_6238_appendix_b() -> None:
    assert totp(RFC_SECRET, 59, digits=8) == "94287082"
    assert totp(RFC_SECRET, 1111111109, digits=8) == "07081804"
    assert totp(RFC_SECRET, 2000000000, digits=8) == "69279037"
    assert totp(RFC_SECRET, 59) == "287082"  # six digits: the same value's last six

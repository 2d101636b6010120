"""Pairing: codes, LED pattern, tokens, and the wrong-code limiter (time passed in, never slept)."""
from __future__ import annotations

import hashlib
import hmac
import os
import stat

import pytest

from firmware.web.pairing import (CODE_DIGITS, CODE_LENGTH, FailureLimiter, Pairing, Throttled, generate_code,
                                  led_pattern, load_or_create_code, load_or_create_secret)


def test_a_generated_code_is_eight_digits_from_one_to_eight_and_the_leds_show_it():
    for _ in range(50):
        code = generate_code()
        assert len(code) == CODE_LENGTH == 8 and set(code) <= set(CODE_DIGITS)
        assert led_pattern(code) is not None


def test_the_led_pattern_shows_each_digit_as_a_bar_on_its_file():
    frame = led_pattern("835172")
    heights = [sum(1 for rank in range(8) if frame[file + 8 * rank]) for file in range(8)]
    assert heights == [8, 3, 5, 1, 7, 2, 0, 0]
    for file in range(6):  # bars start at rank 1 and have no gaps
        lit = [bool(frame[file + 8 * rank]) for rank in range(8)]
        assert lit == sorted(lit, reverse=True)


def test_a_code_the_leds_cannot_show_has_no_pattern():
    assert led_pattern("1290") is None and led_pattern("") is None and led_pattern("123456789") is None


def test_the_right_code_gives_a_token_that_authorises():
    pairing = Pairing("123456")
    token = pairing.attempt("10.0.0.2", "123 456", now=0.0)
    assert isinstance(token, str)
    assert pairing.authorised(cookie=token, header=None)
    assert not pairing.authorised(cookie=None, header=None)


def test_a_tampered_or_foreign_token_is_refused():
    pairing = Pairing("123456")
    token = pairing.new_token()
    nonce, mac = token.split(".")
    assert not pairing.token_valid(f"{nonce}.{'0' * len(mac)}")
    assert not pairing.token_valid(f"{'a' * 32}.{mac}")
    assert not pairing.token_valid("garbage")
    assert not Pairing("654321").token_valid(token)  # changing the code revokes every token


def test_tokens_survive_a_restart_with_the_same_code_and_secret(tmp_path):
    secret = load_or_create_secret(tmp_path)
    token = Pairing("123456", secret=secret).new_token()
    assert Pairing("123456", secret=load_or_create_secret(tmp_path)).token_valid(token)
    assert not Pairing("123456", secret=b"x" * 32).token_valid(token)   # another board's secret


def test_a_cookie_forged_from_the_code_alone_is_refused(tmp_path):
    """The attack of issue 12: the key was derived from the code only, so trying every code
    offline forged a cookie. With the board's secret in the key, knowing the code is not enough."""
    code = "12345678"
    pairing = Pairing(code, secret=load_or_create_secret(tmp_path))
    key = hashlib.sha256(b"echiquier pairing token\0" + code.encode()).digest()
    nonce = "a" * 32
    forged = f"{nonce}.{hmac.new(key, nonce.encode(), hashlib.sha256).hexdigest()}"
    assert not pairing.token_valid(forged)


def test_the_secret_is_private_random_and_a_damaged_one_is_replaced(tmp_path):
    secret = load_or_create_secret(tmp_path)
    path = tmp_path / "pairing-secret"
    assert len(secret) == 32 and path.read_bytes() == secret
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_or_create_secret(tmp_path / "other") != secret
    path.write_bytes(b"short")
    assert len(load_or_create_secret(tmp_path)) == 32 and path.read_bytes() != b"short"


def test_bad_cookies_count_like_wrong_codes():
    pairing = Pairing("12345678", limiter=FailureLimiter(per_client=5, overall=100, window_s=600))
    for i in range(5):
        assert pairing.check_token("c", f"{i:032x}.{'0' * 64}", now=float(i)) is False
    assert isinstance(pairing.attempt("c", "12345678", now=10.0), Throttled)
    assert isinstance(pairing.check_token("c", pairing.new_token(), now=10.0), Throttled)
    assert pairing.check_token("other", pairing.new_token(), now=10.0) is True


def test_the_owner_is_not_locked_out_by_strangers_wrong_codes():
    """Issue 12: five wrong codes from each of six addresses filled the overall limit and the
    owner's right code got 429 for ten minutes."""
    pairing = Pairing("12345678", limiter=FailureLimiter(per_client=5, overall=30, window_s=600))
    for address in range(6):
        for guess in range(5):
            assert pairing.attempt(f"10.0.0.{address}", f"1111111{guess}", now=1.0) is None
    assert isinstance(pairing.attempt("10.0.0.99", "12345678", now=2.0), str)
    # A stranger who failed once is held back by the overall limit.
    pairing.attempt("10.0.0.50", "11111111", now=3.0)
    refusal = pairing.attempt("10.0.0.50", "12345678", now=3.0)
    assert isinstance(refusal, Throttled) and refusal.everyone


def test_beyond_the_hard_limit_only_a_code_entered_while_the_leds_show_it_pairs():
    pairing = Pairing("12345678", limiter=FailureLimiter(per_client=5, overall=30, window_s=600, hard=60))
    for address in range(60):
        pairing.attempt(f"10.0.1.{address}", "11111111", now=1.0)
    refusal = pairing.attempt("10.0.0.99", "12345678", now=2.0)
    assert isinstance(refusal, Throttled) and refusal.everyone
    pairing.show(until=62.0)
    assert isinstance(pairing.attempt("10.0.0.99", "12345678", now=3.0), str)
    assert isinstance(pairing.attempt("10.0.0.98", "12345678", now=63.0), Throttled)   # the LEDs are off again


def test_a_flood_of_wrong_codes_while_the_leds_show_the_code_closes_the_window():
    pairing = Pairing("12345678", limiter=FailureLimiter(per_client=5, overall=30, window_s=600, hard=60))
    pairing.show(until=100.0)
    for address in range(60):
        pairing.attempt(f"10.0.2.{address}", "11111111", now=1.0)
    assert isinstance(pairing.attempt("10.0.0.99", "12345678", now=2.0), Throttled)


def test_a_wrong_code_gives_nothing():
    assert Pairing("123456").attempt("c", "123457", now=0.0) is None


def test_five_wrong_codes_lock_a_client_out_until_the_window_passes():
    pairing = Pairing("123456", limiter=FailureLimiter(per_client=5, overall=100, window_s=600))
    for i in range(5):
        assert pairing.attempt("c", "111111", now=float(i)) is None
    refusal = pairing.attempt("c", "123456", now=10.0)
    assert isinstance(refusal, Throttled) and refusal.retry_after == pytest.approx(590.0)
    assert isinstance(pairing.attempt("other", "123456", now=10.0), str)  # others are not locked out
    assert isinstance(pairing.attempt("c", "123456", now=600.5), str)


def test_many_clients_together_are_limited_too():
    pairing = Pairing("123456", limiter=FailureLimiter(per_client=5, overall=8, window_s=60, hard=16))
    for i in range(8):
        pairing.attempt(f"10.0.0.{i}", "111111", now=0.0)
    assert isinstance(pairing.attempt("10.0.0.1", "123456", now=1.0), Throttled)   # a client that failed
    for i in range(8, 16):
        pairing.attempt(f"10.0.0.{i}", "111111", now=0.0)
    assert isinstance(pairing.attempt("10.0.0.99", "123456", now=1.0), Throttled)   # anyone, past the hard limit
    assert isinstance(pairing.attempt("10.0.0.99", "123456", now=61.0), str)


def test_the_limiter_forgets_old_clients_instead_of_growing():
    limiter = FailureLimiter(per_client=5, overall=10**6, window_s=60, max_clients=10)
    for i in range(100):
        limiter.failed(f"c{i}", now=float(i * 100))
    assert len(limiter._clients) <= 10


def test_without_pairing_everyone_may_act():
    assert Pairing(None, required=False).authorised(cookie=None, header=None)
    with pytest.raises(ValueError):
        Pairing(None, required=True)


def test_a_generated_code_is_kept_private_in_the_state_dir(tmp_path):
    code = load_or_create_code(tmp_path)
    assert load_or_create_code(tmp_path) == code
    mode = stat.S_IMODE(os.stat(tmp_path / "pairing-code").st_mode)
    assert mode == 0o600


def test_a_six_digit_code_of_an_older_version_is_replaced_by_a_longer_one(tmp_path):
    (tmp_path / "pairing-code").write_text("123456\n")
    code = load_or_create_code(tmp_path)
    assert len(code) == 8 and load_or_create_code(tmp_path) == code


def test_the_same_stale_cookie_again_is_counted_once():
    """A phone paired before the code changed reloads its page many times: one failure, not a lock-out."""
    pairing = Pairing("12345678", limiter=FailureLimiter(per_client=5, overall=100, window_s=600))
    stale = Pairing("87654321").new_token()
    for i in range(20):
        assert pairing.check_token("phone", stale, now=float(i)) is False
    assert isinstance(pairing.attempt("phone", "12345678", now=30.0), str)

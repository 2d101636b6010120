"""Pairing: codes, LED pattern, tokens, and the wrong-code limiter (time passed in, never slept)."""
from __future__ import annotations

import os
import stat

import pytest

from firmware.web.pairing import (CODE_DIGITS, CODE_LENGTH, FailureLimiter, Pairing, Refusal, generate_code,
                                  led_pattern, load_or_create_code)


def test_a_generated_code_is_six_digits_from_one_to_eight():
    for _ in range(50):
        code = generate_code()
        assert len(code) == CODE_LENGTH and set(code) <= set(CODE_DIGITS)


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


def test_tokens_survive_a_restart_with_the_same_code():
    token = Pairing("123456").new_token()
    assert Pairing("123456").token_valid(token)


def test_a_wrong_code_gives_nothing():
    assert Pairing("123456").attempt("c", "123457", now=0.0) is None


def test_five_wrong_codes_lock_a_client_out_until_the_window_passes():
    pairing = Pairing("123456", limiter=FailureLimiter(per_client=5, overall=100, window_s=600))
    for i in range(5):
        assert pairing.attempt("c", "111111", now=float(i)) is None
    refusal = pairing.attempt("c", "123456", now=10.0)
    assert isinstance(refusal, Refusal) and refusal.retry_after == pytest.approx(590.0)
    assert isinstance(pairing.attempt("other", "123456", now=10.0), str)  # others are not locked out
    assert isinstance(pairing.attempt("c", "123456", now=600.5), str)


def test_many_clients_together_are_limited_too():
    pairing = Pairing("123456", limiter=FailureLimiter(per_client=5, overall=8, window_s=60))
    for i in range(8):
        pairing.attempt(f"10.0.0.{i}", "111111", now=0.0)
    assert isinstance(pairing.attempt("10.0.0.99", "123456", now=1.0), Refusal)
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

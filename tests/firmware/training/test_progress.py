"""The players' training progress: pure steps, bounds, and the one file kept crash-safe."""
from __future__ import annotations

import errno
import json
import logging
import os

import pytest

import durable.atomic_file
from firmware.training import glicko2, progress as progress_module
from firmware.training.glicko2 import DEFAULT, Rating
from firmware.training.progress import (FILE, MAX_ATTEMPTS, MAX_BYTES, MAX_PLAYERS, MAX_SOLVED_MISTAKES,
                                        MAX_SOLVED_PUZZLES, MAX_THEMES, PastAttempt, Progress, ProgressNotSaved,
                                        after_exercise, after_puzzle, load, player, put, save)

T0 = 1_780_000_000.0        # a wall-clock time, passed in
DAY = 86400.0


def test_a_new_player_starts_at_lichess_default():
    fresh = player({}, "Anna")
    assert fresh == Progress() and fresh.rating == DEFAULT and fresh.attempts == () and fresh.last_active is None


def test_a_solved_puzzle_raises_the_rating_counts_its_themes_and_is_kept():
    after = after_puzzle(Progress(), "abc12", 1500, ["fork", "short", "fork"], True, T0)
    assert after.rating == glicko2.after_puzzle(DEFAULT, 1500, True)
    assert (after.rated, after.last_rated, after.solved_puzzles) == (1, T0, ("abc12",))
    assert after.attempts == (PastAttempt("puzzle", "abc12", "solved", T0),)
    assert after.theme_counts() == {"fork": (1, 0), "short": (1, 0)}


def test_a_failed_puzzle_lowers_the_rating_and_counts_as_failed():
    after = after_puzzle(Progress(), "p1", Rating(1700, 80, 0.09), ["pin"], False, T0)
    assert after.rating.rating < 1500 and after.solved_puzzles == ()
    assert after.attempts[-1].verdict == "failed" and after.theme_counts() == {"pin": (0, 1)}


def test_a_puzzle_met_again_does_not_rate_but_counts():
    once = after_puzzle(Progress(), "p1", 1500, ["pin"], False, T0)
    again = after_puzzle(once, "p1", 1500, ["pin"], True, T0 + 60)
    assert (again.rating, again.rated, again.last_rated) == (once.rating, 1, T0)
    assert again.solved_puzzles == ("p1",) and again.theme_counts() == {"pin": (1, 1)}
    thrice = after_puzzle(again, "p1", 1500, [], True, T0 + 120)
    assert thrice.solved_puzzles == ("p1",) and thrice.rating == once.rating


def test_days_away_widen_the_deviation_before_the_next_puzzle():
    settled = Progress(rating=Rating(1500, 60, 0.06), rated=100, last_rated=T0)
    soon = after_puzzle(settled, "p2", 1500, [], True, T0 + 60)
    late = after_puzzle(settled, "p2", 1500, [], True, T0 + 365 * DAY)
    assert late.rating.deviation > soon.rating.deviation
    assert late.rating == glicko2.after_puzzle(settled.rating, 1500, True, days_idle=365)
    earlier = after_puzzle(settled, "p2", 1500, [], True, T0 - DAY)      # (a clock set back: no time away)
    assert earlier.rating == glicko2.after_puzzle(settled.rating, 1500, True)


def test_a_puzzle_without_a_sane_rating_is_refused():
    for bad in (float("nan"), 0, 5000, float("inf")):
        with pytest.raises(ValueError):
            after_puzzle(Progress(), "p", bad, [], True, T0)
    with pytest.raises(ValueError):
        after_puzzle(Progress(), "", 1500, [], True, T0)
    with pytest.raises(ValueError):
        after_puzzle(Progress(), "p", 1500, ["bad\x00theme"], True, T0)


def test_a_solved_exercise_is_kept_by_game_and_ply_and_a_shown_one_is_not():
    solved = after_exercise(Progress(), "2026-12-04_1930_Anna-vs-Stockfish", 7, "solved", T0)
    assert solved.solved_mistakes == (("2026-12-04_1930_Anna-vs-Stockfish", 7),)
    assert solved.attempts == (PastAttempt("mistake", "2026-12-04_1930_Anna-vs-Stockfish:7", "solved", T0),)
    assert solved.rating == DEFAULT
    shown = after_exercise(solved, "g2", 3, "shown", T0 + 1)
    assert shown.solved_mistakes == solved.solved_mistakes and shown.attempts[-1].verdict == "shown"
    assert after_exercise(solved, "2026-12-04_1930_Anna-vs-Stockfish", 7, "solved", T0 + 2).solved_mistakes == \
        solved.solved_mistakes
    with pytest.raises(ValueError):
        after_exercise(Progress(), "g", 3, "try again", T0)


def test_the_attempts_and_the_solved_are_bounded_the_oldest_going_first():
    p = Progress()
    for i in range(MAX_ATTEMPTS + 5):
        p = after_exercise(p, "g", i, "solved", T0 + i)
    assert len(p.attempts) == MAX_ATTEMPTS and p.attempts[0].id == "g:5" and p.attempts[-1].time == T0 + MAX_ATTEMPTS + 4
    p = Progress(solved_puzzles=tuple(f"p{i}" for i in range(MAX_SOLVED_PUZZLES)),
                 solved_mistakes=tuple(("g", i) for i in range(MAX_SOLVED_MISTAKES)))
    p = after_exercise(after_puzzle(p, "new", 1500, [], True, T0), "h", 1, "solved", T0)
    assert len(p.solved_puzzles) == MAX_SOLVED_PUZZLES and p.solved_puzzles[-1] == "new" and "p0" not in p.solved_puzzles
    assert len(p.solved_mistakes) == MAX_SOLVED_MISTAKES and p.solved_mistakes[-1] == ("h", 1)


def test_past_the_themes_bound_a_new_theme_is_not_counted():
    p = Progress(themes=tuple((f"t{i:03}", 1, 0) for i in range(MAX_THEMES)))
    p = after_puzzle(p, "x", 1500, ["t000", "brand new"], True, T0)
    assert len(p.themes) == MAX_THEMES and p.theme_counts()["t000"] == (2, 0) and "brand new" not in p.theme_counts()


def test_put_keeps_at_most_the_players_bound_dropping_the_longest_idle():
    players: dict[str, Progress] = {}
    for i in range(MAX_PLAYERS):
        players = put(players, f"P{i}", after_exercise(Progress(), "g", 1, "shown", T0 + 100 + i))
    players = put(players, "Never", Progress())            # never played: the longest idle, yet just put
    assert len(players) == MAX_PLAYERS and "Never" in players and "P0" not in players
    players = put(players, "Zoe", Progress())
    assert "Never" not in players and "P1" in players and len(players) == MAX_PLAYERS   # (nothing tried: first to go)
    with pytest.raises(ValueError):
        put(players, "", Progress())


def some_players() -> dict[str, Progress]:
    anna = after_exercise(after_puzzle(Progress(), "abc", 1620, ["fork", "mateIn2"], True, T0), "g1", 12, "solved",
                          T0 + 5)
    bert = after_puzzle(Progress(), "xyz", 1400, ["pin"], False, T0 + 9)
    return {"Anna Müller": anna, "Bert": bert}


def test_save_then_load_gives_the_same_progress(tmp_path):
    players = some_players()
    save(tmp_path, players)
    assert load(tmp_path) == players
    assert json.loads((tmp_path / FILE).read_text())["version"] == 1


def test_no_file_is_no_progress(tmp_path):
    assert load(tmp_path) == {}
    assert load(tmp_path / "not yet") == {}


@pytest.mark.parametrize("damage", [
    lambda data: data[: len(data) // 2],                      # a truncated file
    lambda data: b"",
    lambda data: b"\xff\xfe" + data,                        # not UTF-8
    lambda data: json.dumps({"version": 99, "players": {}}).encode(),
    lambda data: data.replace(b'"volatility":', b'"volatility":-1,"x":'),
    lambda data: json.dumps([1, 2]).encode(),
    lambda data: json.dumps({"version": 1, "players": {"\x00": {}}}).encode(),
])
def test_a_damaged_file_is_set_aside_and_the_board_starts_without_progress(tmp_path, caplog, damage):
    save(tmp_path, some_players())
    (tmp_path / FILE).write_bytes(damage((tmp_path / FILE).read_bytes()))
    kept = (tmp_path / FILE).read_bytes()
    with caplog.at_level(logging.ERROR):
        assert load(tmp_path) == {}
    assert not (tmp_path / FILE).exists()
    assert (tmp_path / (FILE + ".damaged")).read_bytes() == kept
    assert "cannot be used" in caplog.text
    save(tmp_path, some_players())                              # the board goes on
    assert load(tmp_path) == some_players()


def test_a_symbolic_link_is_never_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere.json"
    save(tmp_path, some_players())
    os.replace(tmp_path / FILE, elsewhere)
    secret = elsewhere.read_bytes()
    (tmp_path / FILE).symlink_to(elsewhere)
    assert load(tmp_path) == {}
    assert (tmp_path / (FILE + ".damaged")).is_symlink()         # (the link set aside, not what it points to)
    (tmp_path / FILE).symlink_to(elsewhere)
    save(tmp_path, {"Cleo": Progress()})
    assert not (tmp_path / FILE).is_symlink() and elsewhere.read_bytes() == secret
    assert set(load(tmp_path)) == {"Cleo"}


def test_a_file_over_the_bound_or_not_a_regular_file_is_set_aside(tmp_path):
    (tmp_path / FILE).write_bytes(b" " * (MAX_BYTES + 1))
    assert load(tmp_path) == {} and (tmp_path / (FILE + ".damaged")).stat().st_size == MAX_BYTES + 1
    os.unlink(tmp_path / (FILE + ".damaged"))
    os.mkfifo(tmp_path / FILE)
    assert load(tmp_path) == {}                                  # (a FIFO: not opened for ever)


def test_an_unreadable_file_is_set_aside(tmp_path, monkeypatch):
    save(tmp_path, some_players())
    real_read = progress_module._read

    def failing(path):
        raise OSError(errno.EIO, "Input/output error", str(path))
    monkeypatch.setattr(progress_module, "_read", failing)
    assert load(tmp_path) == {}
    monkeypatch.setattr(progress_module, "_read", real_read)
    assert (tmp_path / (FILE + ".damaged")).exists() and not (tmp_path / FILE).exists()


def test_a_full_disk_raises_a_clear_error_and_leaves_the_file_before(tmp_path, monkeypatch):
    players = some_players()
    save(tmp_path, players)
    before = (tmp_path / FILE).read_bytes()
    real_write = os.write

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(durable.atomic_file.os, "write", full)
    changed = {**players, "Bert": after_puzzle(players["Bert"], "new", 1500, [], True, T0 + 99)}
    with pytest.raises(ProgressNotSaved) as raised:
        save(tmp_path, changed)
    monkeypatch.setattr(durable.atomic_file.os, "write", real_write)
    assert isinstance(raised.value, OSError) and raised.value.errno == errno.ENOSPC
    assert "could not be saved" in str(raised.value) and "No space left" in str(raised.value)
    assert (tmp_path / FILE).read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [FILE]        # no temporary file left
    assert load(tmp_path) == players


def test_save_refuses_more_players_than_the_bound(tmp_path):
    with pytest.raises(ValueError):
        save(tmp_path, {f"P{i}": Progress() for i in range(MAX_PLAYERS + 1)})
    assert not (tmp_path / FILE).exists()


def test_every_player_at_every_bound_fits_in_the_file(tmp_path):
    full = Progress(attempts=tuple(PastAttempt("mistake", "g" * 190 + f":{i}", "shown", T0 + i) for i in range(MAX_ATTEMPTS)),
                    solved_puzzles=tuple(f"{i:05}" for i in range(MAX_SOLVED_PUZZLES)),
                    solved_mistakes=tuple(("2026-12-04_1930_Anna-vs-Stockfish", i) for i in range(MAX_SOLVED_MISTAKES)),
                    themes=tuple((f"theme{i:03}", 10**6, 10**6) for i in range(MAX_THEMES)))
    players = {f"Player {i:02}": full for i in range(MAX_PLAYERS)}
    save(tmp_path, players)
    assert (tmp_path / FILE).stat().st_size < MAX_BYTES
    assert load(tmp_path) == players


def test_a_file_over_the_bounds_is_cut_to_them_on_load(tmp_path):
    many = Progress(attempts=tuple(PastAttempt("puzzle", f"p{i}", "failed", T0 + i) for i in range(MAX_ATTEMPTS + 50)))
    data = {"version": 1, "players": {"Anna": many.to_json()}}
    (tmp_path / FILE).write_text(json.dumps(data))
    loaded = load(tmp_path)["Anna"]
    assert len(loaded.attempts) == MAX_ATTEMPTS and loaded.attempts[-1].id == f"p{MAX_ATTEMPTS + 49}"

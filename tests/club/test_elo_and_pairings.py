"""The club's rating list (FIDE's formula and K factors), the pairing file, the messages (pure)."""
from __future__ import annotations

import json

import pytest

from club_wire.message import game_message, pairing_message, parse_pairing
from club_hub.core import Hub
from club_hub.elo import RatingList, expected_score, k_factor
from club_hub.games import MessageError, check_message
from club_hub.pairings import PairingError, parse_pairings
from tests.firmware.session_support import Table

from .support import SCHOLAR, read_games, uci_moves
from tests.said import english


def test_the_expected_score_follows_fide_and_counts_at_most_400_points():
    assert expected_score(1500, 1500) == 0.5
    assert round(expected_score(1700, 1500), 2) == 0.76          # FIDE's table: 0.76 at 200 points
    assert expected_score(2400, 1500) == expected_score(1900, 1500)   # 900 points count as 400
    assert round(expected_score(1500, 1900), 2) == 0.09


def test_k_is_40_for_the_first_30_games_then_20_then_10_for_good_from_2400():
    assert [k_factor(1800, n, 1800) for n in (0, 29, 30)] == [40, 40, 20]
    assert k_factor(2399, 100, 2399) == 20
    assert k_factor(2380, 100, 2401) == 10      # reached 2400 once: 10 from then on


def test_a_draw_counts_half_between_a_win_and_a_loss_and_each_game_once():
    ratings = RatingList()
    ratings.seed([{"name": "Strong", "rating": "1900", "games": "50"}, {"name": "Weak", "rating": "1500", "games": "50"}])
    white, black = ratings.rate("1/g1", "Weak", "Strong", "1/2-1/2")
    assert white.score == 0.5 and white.k == 20
    assert white.after - white.before == pytest.approx(20 * (0.5 - expected_score(1500, 1900)))
    assert black.after < black.before                     # a draw against the weaker player costs
    assert ratings.rate("1/g1", "Weak", "Strong", "1/2-1/2") is None   # the same game again: not counted
    ratings.rate("1/g2", "Weak", "Strong", "0-1")
    assert ratings.rate("1/g3", "Weak", "Weak", "1-0") is None           # nobody plays themselves
    assert ratings.players["Weak"].games == 52 and ratings.players["Weak"].draws == 1
    lines = ratings.to_csv().splitlines()
    assert lines[0] == "name,rating,games,wins,draws,losses,peak" and lines[1].startswith("Strong,")
    history = ratings.history_csv("Weak").splitlines()
    assert history[0].startswith("game,colour,opponent") and len(history) == 3
    again = RatingList.from_json(json.loads(json.dumps(ratings.to_json())))
    assert again.to_csv() == ratings.to_csv() and again.rate("1/g2", "Weak", "Strong", "0-1") is None


def test_new_players_start_at_1500_with_k_40():
    ratings = RatingList()
    ratings.rate("b/1", "Ada", "Bo", "1-0")
    assert round(ratings.players["Ada"].rating) == 1520 and round(ratings.players["Bo"].rating) == 1480


def test_the_pairing_file_is_checked_line_by_line():
    assert [p.board for p in parse_pairings("1,A,B\n2,C,D,4\n\n# late\n")] == ["1", "2"]
    for text, words in (("1,A\n", "line 1"), ("1,A,B\n1,C,D\n", "paired twice"), ("1/2,A,B\n", "board"),
                        ("1,,B\n", "name")):
        with pytest.raises(PairingError, match=words):
            parse_pairings(text)


def test_a_board_drops_a_bad_pairing():
    white, black, game = parse_pairing(pairing_message("Ada", "Bo", round="2", draw_offers_from_move=20))
    assert (white, black, game) == ("Ada", "Bo", {"round": "2", "draw_offers_from_move": 20})
    for payload in (b"nope", b'{"v":1,"white":"A\\u0000","black":"B"}', b'{"v":1,"white":"A","black":"B","round":7}',
                    b'{"v":2,"white":"A","black":"B"}', b'{"v":1,"white":"A","black":"B","draw_offers_from_move":"x"}'):
        with pytest.raises(ValueError):
            parse_pairing(payload)


def test_the_game_message_of_a_session_is_what_the_hub_reads(tmp_path):
    table = Table(tmp_path, time_control="180+2", white="Ada", black="Bo")
    table.setup()
    table.play_all(" ".join(SCHOLAR))
    payload = game_message("5", english(table.session.snapshot()), 1_764_000_000.25)
    game = check_message(payload, "5")
    assert game.moves == tuple(SCHOLAR) and game.result == "1-0" and game.termination == "checkmate"
    assert game.san[-1] == "Qxf7#" and len(game.clocks) == len(SCHOLAR) and game.clocks[0] > 170_000
    with pytest.raises(MessageError, match="board"):
        check_message(payload, "6")
    (pgn,) = read_games(game.pgn("Club"))
    assert uci_moves(pgn) == SCHOLAR and pgn.headers["Site"] == "Club"


def test_a_message_that_carries_on_a_game_is_checked_from_where_it_was(tmp_path):
    base = {"v": 1, "board": "1", "game": "g", "sent": 1.0, "result": "*"}
    first = check_message(json.dumps({**base, "moves": SCHOLAR[:3]}).encode(), "1")
    with pytest.raises(MessageError, match="move 5"):
        check_message(json.dumps({**base, "moves": SCHOLAR[:4] + ["h5h8"]}).encode(), "1", first)
    later = check_message(json.dumps({**base, "moves": SCHOLAR}).encode(), "1", first)   # first's game intact
    assert later.fen == "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    assert later.san[-1] == "Qxf7#" and first.moves == tuple(SCHOLAR[:3])


def test_an_older_message_of_the_same_game_does_not_undo_a_newer_one(tmp_path):
    hub = Hub(tmp_path)
    base = {"v": 1, "board": "1", "game": "g", "result": "*"}
    assert hub.receive("1", "game", json.dumps({**base, "sent": 2.0, "moves": SCHOLAR[:4]}).encode())
    assert not hub.receive("1", "game", json.dumps({**base, "sent": 1.0, "moves": SCHOLAR[:2]}).encode())
    assert hub.boards["1"].moves == tuple(SCHOLAR[:4])

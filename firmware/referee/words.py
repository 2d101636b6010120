"""Every text a player reads, in English and in French (the rule texts' terms), moves in SAN (pure).

One place for the words: the session's status line and problems, the page's labels (``PAGE``) and
its LED legend (``LED_ROLES``). ``lang`` is "en" or "fr"; anything else reads as English.
French follows the FIDE rule texts' terms: trait, échec, mat, pat, nulle, roque, prise en passant,
promotion, abandon; pieces roi, dame, tour, fou, cavalier, pion (letters R D T F C).
"""
from __future__ import annotations

from typing import Optional

from chess_core import PAWN, Move, Outcome, Position, Termination, san
from chess_core.squares import SQUARE_NAMES

LANGS = ("en", "fr")

PIECES = {"en": {1: "pawn", 2: "knight", 3: "bishop", 4: "rook", 5: "queen", 6: "king"},
          "fr": {1: "pion", 2: "cavalier", 3: "fou", 4: "tour", 5: "dame", 6: "roi"}}
# French piece names are masculine except "tour" and "dame": the article follows.
_ARTICLE_FR = {1: "le", 2: "le", 3: "le", 4: "la", 5: "la", 6: "le"}
SIDES = {"en": ("White", "Black"), "fr": ("Blancs", "Noirs")}

_TERMINATIONS_FR = {
    Termination.CHECKMATE: "mat", Termination.STALEMATE: "pat",
    Termination.INSUFFICIENT_MATERIAL: "matériel insuffisant",
    Termination.SEVENTYFIVE_MOVES: "règle des 75 coups", Termination.FIVEFOLD_REPETITION: "quintuple répétition",
    Termination.FIFTY_MOVES: "règle des 50 coups", Termination.THREEFOLD_REPETITION: "triple répétition",
    Termination.TIME_FORFEIT: "temps", Termination.TIME_VS_INSUFFICIENT: "temps contre matériel insuffisant",
    Termination.RESIGNATION: "abandon", Termination.AGREEMENT: "accord mutuel", Termination.ABANDONED: "partie abandonnée",
}

# The LED roles, in the order of the legend, and what each means; the groups of roles that show
# together (no two of a group may look alike: tests/firmware/test_words.py checks the colours).
LED_ROLES = {
    "en": {"legal": "a square the lifted piece may go to", "capture": "a piece the lifted piece may take",
           "lifted": "where a lifted piece stood", "last_move": "the last move", "check": "a king in check",
           "opponent": "the computer's or the other end's move to carry out", "promotion":
           "a promoted piece (its type may still change)", "low_time": "the king of a side short of time",
           "draw": "a draw offered (kings) or agreed", "fix": "a square to put right (shown alone)",
           "win": "the winner's king", "loss": "the loser's king"},
    "fr": {"legal": "une case où la pièce levée peut aller", "capture": "une pièce que la pièce levée peut prendre",
           "lifted": "la case d'une pièce levée", "last_move": "le dernier coup", "check": "un roi en échec",
           "opponent": "le coup de l'ordinateur ou de l'adversaire en ligne à jouer", "promotion":
           "une pièce promue (son type peut encore changer)", "low_time": "le roi d'un camp à court de temps",
           "draw": "nulle proposée (rois) ou conclue", "fix": "une case à corriger (affichée seule)",
           "win": "le roi du gagnant", "loss": "le roi du perdant"},
}
LED_GROUPS = (("legal", "capture", "lifted", "last_move", "check", "opponent", "promotion", "low_time", "draw"),
              ("win", "loss", "draw"), ("fix",))


def _lang(lang: str) -> str:
    return lang if lang in LANGS else "en"


def piece_name(piece_type: int, lang: str = "en", *, article: bool = True) -> str:
    """"the knight" / "le cavalier" ("la tour")."""
    lang = _lang(lang)
    name = PIECES[lang][piece_type]
    if not article:
        return name
    return f"the {name}" if lang == "en" else f"{_ARTICLE_FR[piece_type]} {name}"


def side_to_move(side: int, lang: str = "en", check: bool = False) -> str:
    """"White to move (check)" / "Trait aux Blancs (échec)"."""
    lang = _lang(lang)
    if lang == "fr":
        return f"Trait aux {SIDES['fr'][side]}" + (" (échec)" if check else "")
    return f"{SIDES['en'][side]} to move" + (" (check)" if check else "")


def opponent_plays(position: Position, move: Move, who: str, lang: str = "en") -> str:
    """"Black to move: Stockfish plays Nf6" / "Trait aux Noirs : Stockfish joue Cf6"."""
    lang = _lang(lang)
    text = san(position, move, lang)
    head = side_to_move(position.turn, lang)
    if lang == "fr":
        return f"{head} : {who} joue {text}, jouez-le sur l'échiquier"
    return f"{head}: {who} plays {text}, make it on the board"


def outcome_text(outcome: Outcome, lang: str = "en") -> str:
    """"Black wins by checkmate" / "Les Noirs gagnent par mat"; "Draw by stalemate" / "Nulle par pat"."""
    lang = _lang(lang)
    if lang == "en":
        return outcome.describe()
    reason = _TERMINATIONS_FR[outcome.termination]
    if outcome.winner is None:
        return f"Nulle par {reason}"
    return f"Les {SIDES['fr'][outcome.winner]} gagnent {'au' if outcome.termination is Termination.TIME_FORFEIT else 'par'} " \
           f"{reason}"


def takeback_text(before: Position, move: Move, lang: str = "en") -> str:
    """"Take back Nf3: put the knight back on g1" / "Reprenez Cf3 : remettez le cavalier en g1"."""
    lang = _lang(lang)
    piece = before.piece_at(move.from_square)
    back = put_back(piece.piece_type if piece else PAWN, move.from_square, lang)
    text = san(before, move, lang)
    if lang == "fr":
        return f"Reprenez {text} : {back[0].lower()}{back[1:]}"
    return f"Take back {text}: {back[0].lower()}{back[1:]}"


def put_back(piece_type: int, square: int, lang: str = "en") -> str:
    if _lang(lang) == "fr":
        return f"Remettez {piece_name(piece_type, 'fr')} en {SQUARE_NAMES[square]}"
    return f"Put {piece_name(piece_type, 'en')} back on {SQUARE_NAMES[square]}"


def remove(piece_type: Optional[int], square: int, lang: str = "en") -> str:
    lang = _lang(lang)
    if piece_type is None:
        return (f"Retirez la pièce de {SQUARE_NAMES[square]}" if lang == "fr"
                else f"Remove the piece from {SQUARE_NAMES[square]}")
    if lang == "fr":
        return f"Retirez {piece_name(piece_type, 'fr')} de {SQUARE_NAMES[square]}"
    return f"Remove {piece_name(piece_type, 'en')} on {SQUARE_NAMES[square]}"


def _bb(square: int) -> int:
    return 1 << square


def board_hint(position: Position, occupied: int, lang: str = "en") -> Optional[str]:
    """What to do when the board (``occupied``) does not show ``position``: a castling or an en
    passant capture half done, else the first pieces to put back or remove. None: it shows it."""
    lang = _lang(lang)
    if occupied == position.occupied:
        return None
    for move in position.legal_moves():
        if position.is_castling(move):
            king_from, king_to, rook_from, rook_to = position.castling_squares(move)
            king_done = position.occupied & ~_bb(king_from) | _bb(king_to)
            if occupied == king_done and king_from != king_to:
                return (f"Déplacez maintenant la tour de {SQUARE_NAMES[rook_from]} en {SQUARE_NAMES[rook_to]} (roque)"
                        if lang == "fr" else
                        f"Now move the rook {SQUARE_NAMES[rook_from]} to {SQUARE_NAMES[rook_to]}")
        elif position.is_en_passant(move):
            victim = move.to_square - 8 if position.turn == 0 else move.to_square + 8
            mover_done = position.occupied & ~_bb(move.from_square) | _bb(move.to_square)
            if occupied == mover_done:
                text = remove(PAWN, victim, lang)
                return text + (" (prise en passant)" if lang == "fr" else " (en passant)")
    steps = []
    missing = position.occupied & ~occupied
    extra = occupied & ~position.occupied
    if missing and extra and not missing & (missing - 1) and not extra & (extra - 1):   # one piece misplaced
        home, there = missing.bit_length() - 1, extra.bit_length() - 1
        name = piece_name(position.piece_at(home).piece_type, lang)
        if lang == "fr":
            return f"Remettez {name} de {SQUARE_NAMES[there]} en {SQUARE_NAMES[home]}"
        return f"Put {name} on {SQUARE_NAMES[there]} back on {SQUARE_NAMES[home]}"
    for square in range(64):
        if missing & _bb(square):
            piece = position.piece_at(square)
            steps.append(put_back(piece.piece_type, square, lang))
    if extra & (extra - 1):   # several pieces to take off: one step, their squares together
        steps.append(f"Retirez les pièces de {squares_text(extra, lang)}" if lang == "fr"
                     else f"Remove the pieces from {squares_text(extra, lang)}")
    elif extra:
        steps.append(remove(None, extra.bit_length() - 1, lang))
    if not steps:
        return None
    shown = steps[:3]
    more = len(steps) - len(shown)
    text = ", ".join(shown[:1] + [s[0].lower() + s[1:] for s in shown[1:]])
    if more:
        text += f" (+{more} {'autres' if lang == 'fr' else 'more'})"
    return text


def _and(items: list[str], lang: str) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {'et' if lang == 'fr' else 'and'} {items[-1]}"


def squares_text(bb: int, lang: str = "en") -> str:
    """Squares as a player says them: "every square", "ranks 1, 2, 7 and 8", "the a-file",
    "a1, c1 and f1" (French: "toutes les cases", "les rangées 1, 2, 7 et 8", "la colonne a")."""
    lang = _lang(lang)
    fr = lang == "fr"
    full = (1 << 64) - 1
    if bb & full == full:
        return "toutes les cases" if fr else "every square"
    ranks = [r for r in range(8) if bb >> (8 * r) & 0xFF == 0xFF]
    for r in ranks:
        bb &= ~(0xFF << (8 * r))
    column = 0x0101010101010101
    files = [f for f in range(8) if bb & (column << f) == column << f]
    for f in files:
        bb &= ~(column << f)
    parts = []
    if ranks:
        numbers = _and([str(r + 1) for r in ranks], lang)
        parts.append((f"la rangée {numbers}" if len(ranks) == 1 else f"les rangées {numbers}") if fr else
                     (f"rank {numbers}" if len(ranks) == 1 else f"ranks {numbers}"))
    if files:
        letters = _and([SQUARE_NAMES[f][0] for f in files], lang)
        parts.append((f"la colonne {letters}" if len(files) == 1 else f"les colonnes {letters}") if fr else
                     (f"the {letters}-file" if len(files) == 1 else f"the {letters} files"))
    singles = [SQUARE_NAMES[sq] for sq in range(64) if bb >> sq & 1]
    if len(singles) > 10:
        more = len(singles) - 8
        singles = singles[:8] + [f"{more} {'autres' if fr else 'more'}"]
    parts += singles
    return _and(parts, lang) if parts else ""


def setup_text(position: Position, occupied: int, wrong: int, lang: str = "en", *,
               number: Optional[int] = None) -> str:
    """What to do before a game starts from ``position`` with the board showing ``occupied`` and the
    squares ``wrong`` lit to put right: the position (a Chess960 one by ``number`` and its first rank in the chosen
    letters), then the next steps: pieces to take off, squares to fill, and the pieces to lift and
    set anew (sensors that see no piece types cannot tell a rearranged first rank)."""
    lang = _lang(lang)
    fr = lang == "fr"
    if number is not None:
        rank = position.fen().split("/")[7].split()[0]
        if fr:   # the piece letters of the chosen language (R N B Q K are T C F D R in French)
            rank = rank.translate(str.maketrans("RNBQK", "TCFDR"))
        head = (f"Placez la position Chess960 n° {number} pour commencer : première rangée {rank}, "
                f"celle des Noirs en miroir" if fr else
                f"Set up Chess960 position {number} to start: first rank {rank}, Black's mirrors it")
        guide = "comme le dit la première rangée" if fr else "as the first rank says"
    elif position.chess960:
        head = "Placez la position Chess960 affichée pour commencer" if fr else "Set up the Chess960 position shown to start"
        guide = "comme indiqué" if fr else "as shown"
    else:
        head = "Placez les pièces pour commencer" if fr else "Set up the pieces to start"
        guide = ""   # the usual start position: everyone knows it
    extra = wrong & occupied & ~position.occupied
    missing = wrong & position.occupied & ~occupied
    lift = wrong & occupied & position.occupied
    steps = []
    if extra:
        one = not extra & (extra - 1)
        where = squares_text(extra, lang)
        steps.append((f"retirez la pièce de {where}" if one else f"retirez les pièces de {where}") if fr else
                     (f"take the piece off {where}" if one else f"take the pieces off {where}"))
    if lift:
        where = squares_text(lift, lang)
        steps.append(f"soulevez les pièces éclairées ({where}) et reposez chacune {guide or 'à sa place'}" if fr
                     else f"lift the lit pieces ({where}) and set each down {guide or 'in its place'}")
    if missing:
        one = not missing & (missing - 1)
        where = squares_text(missing, lang)
        how = f" {guide}" if guide and missing & 0xFF000000000000FF else ""    # only the first ranks have an order to follow
        steps.append((f"posez une pièce en {where}{how}" if one else f"posez les pièces sur {where}{how}") if fr else
                     (f"put a piece on {where}{how}" if one else f"put the pieces on {where}{how}"))
    if not steps:
        return head
    return f"{head} ; {', puis '.join(steps)}" if fr else f"{head}; {', then '.join(steps)}"


def refused_text(who: str, move: Move, reason: str, lang: str = "en", before: Optional[Position] = None) -> str:
    """The other end refused a move of the board: "Lichess refused Nf3 (reason): put the pieces
    back as shown" / "Lichess a refusé Cf3 (reason) : remettez les pièces comme indiqué" (SAN
    when the position ``before`` it is known, else UCI; ``who`` "Lichess" or "" for another end)."""
    lang = _lang(lang)
    text = san(before, move, lang) if before is not None else move.uci()
    if lang == "fr":
        who = who or "L'adversaire en ligne"
        return f"{who} a refusé {text} ({reason}) : remettez les pièces comme indiqué"
    who = who or "The other end"
    return f"{who} refused {text} ({reason}): put the pieces back as shown"


def opponent_line(kind: str, name: Optional[str], sides: list[int], lang: str = "en") -> str:
    """Who plays off the board, for the page: "Stockfish 15.1 plays Black." / "Stockfish 15.1
    joue les Noirs."; online: "Online on Lichess: Mary plays White." / "En ligne sur Lichess :
    Mary joue les Blancs." (``kind``: "engine" or "lichess")."""
    lang = _lang(lang)
    fr = lang == "fr"
    who = name or ("Lichess" if kind == "lichess" else "Stockfish")
    if fr:
        plays = f"{who} joue {' et '.join('les ' + SIDES['fr'][s] for s in sorted(sides))}" if sides else ""
        if kind == "lichess":
            return f"En ligne sur Lichess{' : ' + plays if plays else ''}."
        return f"{plays or who + ' ne joue encore aucun camp'}."
    plays = f"{who} plays {' and '.join(SIDES['en'][s] for s in sorted(sides))}" if sides else ""
    if kind == "lichess":
        return f"Online on Lichess{': ' + plays if plays else ''}."
    return f"{plays or who + ' plays no side yet'}."


def void_text(status: str, lang: str = "en") -> str:
    """The other end voided the game ("aborted" on Lichess): "The game was aborted at the other
    end: it does not count" / "La partie a été annulée à l'autre bout : elle ne compte pas"."""
    if _lang(lang) == "fr":
        return f"La partie a été {'annulée' if status == 'aborted' else status} à l'autre bout : elle ne compte pas"
    return f"The game was {status} at the other end: it does not count"


def illegal_text(position: Position, occupied: int, lang: str = "en") -> str:
    """A problem: the board shows no legal move of the side to move; what to do about it."""
    lang = _lang(lang)
    hint = board_hint(position, occupied, lang) or ("Remettez les pièces comme indiqué" if lang == "fr"
                                                    else "Put the pieces as shown")
    if lang == "fr":
        return f"Coup illégal (t{side_to_move(position.turn, 'fr')[1:]}) : {hint[0].lower()}{hint[1:]}"
    return f"Not a legal move ({side_to_move(position.turn, 'en')}): {hint[0].lower()}{hint[1:]}"


# The page's words: each element with data-words="key" shows PAGE[lang][key] (the page asks for
# them once: GET /api/words); the page's scripts take theirs from here too.
PAGE = {
    "en": {
           "two_players": "Two players over the board",
           "lichess_online": "Lichess (online)",
           "white_label": "White",
           "black_label": "Black",
           "swap_colours": "⇄ swap colours",
           "colours": "Colours",
           "as_entered": "as entered",
           "drawn_at_random": "drawn at random",
           "your_name": "Your name",
           "stockfish_plays": "Stockfish plays",
           "sf_black": "Black (you play White)",
           "sf_white": "White (you play Black)",
           "sf_random": "White or Black, drawn at random",
           "level": "Level",
           "time_control": "Time control",
           "no_clock": "no clock",
           "other_tc": "other…",
           "fide_classical": "FIDE classical",
           "pgn_tc": "PGN time control",
           "variant": "Variant",
           "standard_chess": "standard chess",
           "c960_random": "Chess960, a start position drawn at random",
           "c960_number": "Chess960, start position number…",
           "rules": "Rules",
           "rules_fide": "FIDE (threefold and 50 moves are claims)",
           "rules_casual": "casual (threefold and 50 moves end the game)",
           "download_all": "Download every game (PGN)",
           "show_legal": "Show the legal squares of a lifted piece",
           "touch_move": "Touch-move (a lifted piece must be moved)",
           "alternate": "Alternate colours from game to game",
           "allow_takebacks": "Allow takebacks",
           "brightness": "LED brightness",
           "level_range": "Level (0–20)",
           "elo": "Playing strength in Elo (0: by level only)",
           "move_time": "Seconds per move without a clock",
           "lichess_account": "Lichess account",
           "connect": "Connect",
           "disconnect": "Disconnect",
           "footer": "Échiquier web companion · the board is the referee; this page shows what it knows.",
           "draw_offered_white": "White offers a draw.", "draw_offered_black": "Black offers a draw.",
           "draw_offered_waiting_white": "White offers a draw; waiting for the answer.",
           "draw_offered_waiting_black": "Black offers a draw; waiting for the answer.",
           "takeback_asked_white": "White asks to take back the last move.",
           "takeback_asked_black": "Black asks to take back the last move.",
           "claim_threefold_repetition": "threefold repetition", "claim_fifty_move_rule": "fifty-move rule",
           "no_game_yet": "No game recorded yet.",
           "tab_game": "Game", "tab_new": "New game", "tab_library": "Library", "tab_settings": "Settings",
           "promote_to": "Promote to:", "accept": "Accept", "decline": "Decline", "claim_win": "Claim the win",
           "claim_draw": "Claim a draw", "offer_white": "White offers a draw", "offer_black": "Black offers a draw",
           "resign_white": "White resigns", "resign_black": "Black resigns", "pause": "Pause clock",
           "resume": "Resume clock", "takeback": "Take back", "takeover_hint": "A player has to leave?",
           "takeover_white": "Computer takes over White", "takeover_black": "Computer takes over Black",
           "giveback_hint": "Back at the board?", "giveback_white": "White plays again",
           "giveback_black": "Black plays again", "moves": "Moves", "opponent": "Opponent",
           "start_new_game": "Start a new game", "legend": "What the lights mean", "chat": "Chat",
           "confirm_resign_white": "Confirm: White resigns", "confirm_resign_black": "Confirm: Black resigns",
           "confirm_takeover_white": "Confirm: the computer plays White",
           "confirm_takeover_black": "Confirm: the computer plays Black",
           "abandon_confirm": "Confirm: abandon the game in progress (kept as unfinished)",
           "in_progress": "in progress", "abandoned": "unfinished (abandoned)",
           "board_legend": "dot: the sensor reads a piece · ring: a piece the game expects but the board lacks · "
                           "coloured frame: the square's LED",
           "wrong_move": "Not the move you made? It was:",
           "link_connecting": "connecting…", "link_connected": "connected", "link_reconnecting": "reconnecting…",
           "link_failed": "failed", "link_closed": "stopped",
           "first_move_white": "White has {s} s to make the first move, or Lichess aborts the game.",
           "first_move_black": "Black has {s} s to make the first move, or Lichess aborts the game.",
           "away_wait": "{name} left the game: you may claim the win in {s} s.",
           "away_claim": "{name} left the game: claim the win, or a draw.", "other_player": "The other player",
           "viewer_abandoned": "Unfinished: abandoned.", "viewer_in_progress": "In progress.",
           "msg_unreachable": "The board cannot be reached.", "msg_refused": "Request refused ({status}).",
           "msg_paired": "Paired: this device may now play on the board.",
           "msg_new_game": "New game: set the pieces up if the board asks for it.",
           "msg_token_kept": "Token kept on the board: connecting to Lichess…",
           "lichess_signed_in": "Account {account}", "lichess_token_kept": "Token kept",
           "lichess_playing": "Playing game {game}.",
           "lichess_none": "Not connected. Paste a Lichess API token to play your online games on this board; "
                           "it is kept on the board and never shown again.",
           "lichess_failed": "Lichess is not connected: {detail}. Paste a new token to try again.",
           "link_failed_detail": "the link failed",
           "one_move": "{n} move", "n_moves": "{n} moves",
           "link_live": "live", "sim_hand": "Hand:", "sim_empty": "empty", "sim_aside": "Put aside",
           "sim_setup": "Set up pieces",
           "sim_hint": "Click a piece to lift it, click a square to put it down, or drag it. The hand holds two pieces.",
           "legend_sensor": "sensor reads a piece", "legend_ghost": "piece the game expects but the board lacks",
           "legend_frame": "coloured frame: the square's LED",
           "start_position": "Start position (0 to 959; 518 is the usual one)",
           "lichess_token_label": "API token (scope board:play, from lichess.org/account/oauth/token)"},
    "fr": {
           "two_players": "Deux joueurs à l'échiquier",
           "lichess_online": "Lichess (en ligne)",
           "white_label": "Blancs",
           "black_label": "Noirs",
           "swap_colours": "⇄ échanger les couleurs",
           "colours": "Couleurs",
           "as_entered": "comme saisies",
           "drawn_at_random": "tirées au sort",
           "your_name": "Votre nom",
           "stockfish_plays": "Stockfish joue",
           "sf_black": "les Noirs (vous jouez les Blancs)",
           "sf_white": "les Blancs (vous jouez les Noirs)",
           "sf_random": "Blancs ou Noirs, tiré au sort",
           "level": "Niveau",
           "time_control": "Cadence",
           "no_clock": "sans pendule",
           "other_tc": "autre…",
           "fide_classical": "cadence classique FIDE",
           "pgn_tc": "Cadence (notation PGN)",
           "variant": "Variante",
           "standard_chess": "échecs classiques",
           "c960_random": "Chess960, position de départ tirée au sort",
           "c960_number": "Chess960, position de départ numéro…",
           "rules": "Règles",
           "rules_fide": "FIDE (triple répétition et 50 coups se réclament)",
           "rules_casual": "amicales (triple répétition et 50 coups terminent la partie)",
           "download_all": "Télécharger toutes les parties (PGN)",
           "show_legal": "Montrer les cases permises de la pièce levée",
           "touch_move": "Pièce touchée, pièce jouée",
           "alternate": "Alterner les couleurs d'une partie à l'autre",
           "allow_takebacks": "Permettre de reprendre un coup",
           "brightness": "Luminosité des LED",
           "level_range": "Niveau (0–20)",
           "elo": "Force en Elo (0 : selon le niveau seul)",
           "move_time": "Secondes par coup sans pendule",
           "lichess_account": "Compte Lichess",
           "connect": "Se connecter",
           "disconnect": "Se déconnecter",
           "footer": "Échiquier, le compagnon web · l'échiquier est l'arbitre ; cette page montre ce qu'il sait.",
           "draw_offered_white": "Les Blancs proposent la nulle.", "draw_offered_black": "Les Noirs proposent la nulle.",
           "draw_offered_waiting_white": "Les Blancs proposent la nulle ; en attente de la réponse.",
           "draw_offered_waiting_black": "Les Noirs proposent la nulle ; en attente de la réponse.",
           "takeback_asked_white": "Les Blancs demandent à reprendre le dernier coup.",
           "takeback_asked_black": "Les Noirs demandent à reprendre le dernier coup.",
           "claim_threefold_repetition": "triple répétition", "claim_fifty_move_rule": "règle des 50 coups",
           "no_game_yet": "Aucune partie enregistrée.",
           "tab_game": "Partie", "tab_new": "Nouvelle partie", "tab_library": "Parties jouées",
           "tab_settings": "Réglages", "promote_to": "Promotion en :", "accept": "Accepter", "decline": "Refuser",
           "claim_win": "Réclamer la victoire", "claim_draw": "Réclamer la nulle",
           "offer_white": "Les Blancs proposent la nulle", "offer_black": "Les Noirs proposent la nulle",
           "resign_white": "Les Blancs abandonnent", "resign_black": "Les Noirs abandonnent",
           "pause": "Arrêter la pendule", "resume": "Relancer la pendule", "takeback": "Reprendre le coup",
           "takeover_hint": "Un joueur doit partir ?", "takeover_white": "L'ordinateur joue les Blancs",
           "takeover_black": "L'ordinateur joue les Noirs", "giveback_hint": "De retour à l'échiquier ?",
           "giveback_white": "Les Blancs reprennent leur place", "giveback_black": "Les Noirs reprennent leur place",
           "moves": "Coups", "opponent": "Adversaire", "start_new_game": "Commencer une nouvelle partie",
           "legend": "Ce que disent les lumières", "chat": "Discussion",
           "confirm_resign_white": "Confirmer : les Blancs abandonnent",
           "confirm_resign_black": "Confirmer : les Noirs abandonnent",
           "confirm_takeover_white": "Confirmer : l'ordinateur joue les Blancs",
           "confirm_takeover_black": "Confirmer : l'ordinateur joue les Noirs",
           "abandon_confirm": "Confirmer : abandonner la partie en cours (gardée inachevée)",
           "in_progress": "en cours", "abandoned": "inachevée (abandonnée)",
           "board_legend": "point : le capteur lit une pièce · cercle : une pièce attendue absente de l'échiquier · "
                           "cadre coloré : la LED de la case",
           "wrong_move": "Ce n'est pas le coup joué ? C'était :",
           "link_connecting": "connexion…", "link_connected": "connecté", "link_reconnecting": "reconnexion…",
           "link_failed": "échec", "link_closed": "arrêté",
           "first_move_white": "Les Blancs ont {s} s pour jouer leur premier coup, sinon Lichess annule la partie.",
           "first_move_black": "Les Noirs ont {s} s pour jouer leur premier coup, sinon Lichess annule la partie.",
           "away_wait": "{name} a quitté la partie : vous pourrez réclamer la victoire dans {s} s.",
           "away_claim": "{name} a quitté la partie : réclamez la victoire, ou la nulle.",
           "other_player": "L'autre joueur",
           "viewer_abandoned": "Inachevée : abandonnée.", "viewer_in_progress": "En cours.",
           "msg_unreachable": "L'échiquier est injoignable.", "msg_refused": "Demande refusée ({status}).",
           "msg_paired": "Appairé : cet appareil peut maintenant jouer sur l'échiquier.",
           "msg_new_game": "Nouvelle partie : placez les pièces si l'échiquier le demande.",
           "msg_token_kept": "Jeton gardé sur l'échiquier : connexion à Lichess…",
           "lichess_signed_in": "Compte {account}", "lichess_token_kept": "Jeton gardé",
           "lichess_playing": "Partie {game} en cours.",
           "lichess_none": "Non connecté. Collez un jeton d'API Lichess pour jouer vos parties en ligne sur cet "
                           "échiquier ; il est gardé sur l'échiquier et n'est plus jamais affiché.",
           "lichess_failed": "Lichess n'est pas connecté : {detail}. Collez un nouveau jeton pour réessayer.",
           "link_failed_detail": "le lien a échoué",
           "one_move": "{n} coup", "n_moves": "{n} coups",
           "link_live": "en direct", "sim_hand": "Main :", "sim_empty": "vide", "sim_aside": "Poser à côté",
           "sim_setup": "Placer les pièces",
           "sim_hint": "Cliquez sur une pièce pour la soulever, sur une case pour la poser, ou faites-la glisser. "
                       "La main tient deux pièces.",
           "legend_sensor": "le capteur lit une pièce", "legend_ghost": "pièce attendue que l'échiquier n'a pas",
           "legend_frame": "cadre coloré : la LED de la case",
           "start_position": "Position de départ (0 à 959 ; 518 est la position habituelle)",
           "lichess_token_label": "Jeton d'API (portée board:play, sur lichess.org/account/oauth/token)"},
}

__all__ = ["LANGS", "PIECES", "SIDES", "LED_ROLES", "LED_GROUPS", "PAGE", "piece_name", "side_to_move",
           "opponent_plays", "outcome_text", "takeback_text", "put_back", "remove", "board_hint", "illegal_text",
           "squares_text", "setup_text", "refused_text", "opponent_line", "void_text"]

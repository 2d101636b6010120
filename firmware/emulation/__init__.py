"""The board in the apps players already use: it speaks the protocols of commercial electronic boards.

An app (PicoChess, Chess for Android, Lucas Chess, python-mchess, DGT's and Chessnut's apps)
talks to one of a few commercial boards; this package makes Échiquier answer as one of them.

* :mod:`~firmware.emulation.board`: what every protocol reports and is asked: the pieces as
  the game has them where the sensors see a piece, and the app's lights per square (pure).
* One codec per protocol, pure state machines (bytes and the time in, frozen events out):
  :mod:`~firmware.emulation.chesslink` (Millennium ChessLink), :mod:`~firmware.emulation.dgt`
  (DGT e-board serial), :mod:`~firmware.emulation.pegasus` (DGT Pegasus, DGT's framing over
  Bluetooth LE), :mod:`~firmware.emulation.chessnut` (Chessnut Air).
* The shells that carry the bytes (a local pseudo-terminal) and the bridge to the session.
"""

"""Opening names: Lichess's data set of ECO codes and names (CC0, data/), and a game named by the positions it reached."""
from .book import BOOK, Opening, OpeningBook, OpeningCache, classify, epd

__all__ = ["BOOK", "Opening", "OpeningBook", "OpeningCache", "classify", "epd"]

"""Files written whole or not at all (a crash, a power cut or a full disk leaves the old file or the new one), and read back within a bound."""

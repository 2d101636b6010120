"""The physical board: sensor sources, debouncing, LED sinks. Nothing about chess; squares are ints."""

"""The physical board: sensor sources, debouncing, LED sinks. Nothing about chess; squares are ints.

Squares are 0..63 (a1 = 0, h1 = 7, h8 = 63), bitboards are ints. Modules, one concern each
(vendor libraries are imported only inside their backend, so all of them import anywhere):

* ``reading`` -- :class:`Reading`; ``sensors`` -- the :class:`SensorSource` interface and errors;
* the backends, in ``backends/`` (as gpiozero's ``pins/``; ``backends.open_source`` and
  ``open_leds`` choose one by name): sensor sources ``gpio_matrix`` (RPi.GPIO / rpi-lgpio),
  ``serial_link`` (the co-processor over USB, with ``link`` + ``framing`` here), ``replay``
  (capture files, read by ``capture`` here), ``sim`` (simulated board), ``mock_gpio`` (an
  electrical mock of RPi.GPIO for tests and hwtest); LED sinks ``neopixel_sink``,
  ``serial_link.SerialLedSink``, ``sim_leds``;
* ``pinmap`` -- pin maps from TOML;
* LEDs: ``leds`` (the :class:`LedSink` interface), ``layout``, ``power``;
* ``diagnostics`` -- what ``echiquier hwtest`` shows.
"""

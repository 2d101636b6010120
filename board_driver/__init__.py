"""The physical board: sensor sources, debouncing, LED sinks. Nothing about chess; squares are ints.

Squares are 0..63 (a1 = 0, h1 = 7, h8 = 63), bitboards are ints. Modules, one concern each
(vendor libraries are imported only inside their backend, so all of them import anywhere):

* ``reading`` -- :class:`Reading`; ``sensors`` -- the :class:`SensorSource` interface and errors;
* sensor backends: ``gpio_matrix`` (RPi.GPIO / rpi-lgpio), ``serial_link`` + ``link`` +
  ``framing`` (co-processor over USB), ``replay`` + ``capture`` (capture files), ``sim``
  (simulated board), ``mock_gpio`` (an electrical mock of RPi.GPIO for tests and hwtest);
* ``pinmap`` -- pin maps from TOML;
* LEDs: ``leds`` (the :class:`LedSink` interface), ``layout``, ``power``, backends
  ``neopixel_sink``, ``serial_link.SerialLedSink``, ``sim_leds``;
* ``diagnostics`` -- what ``echiquier hwtest`` shows.
"""

"""Boot setup of the Échiquier co-processor: enable the second USB serial port (data) for the Pi link."""
import usb_cdc

usb_cdc.enable(console=True, data=True)

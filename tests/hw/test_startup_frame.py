"""Start-up: luma clears the panel when it opens it, so the first frame is sent as a diff from blank."""

from __future__ import annotations

import random

import pytest
from luma.oled.device import sh1106, ssd1306

from companion.hw.display import FULL_FRAME_BYTES, Display, RecordingBus
from companion.hw.panel import PanelModel
from companion.ui import App

DRIVERS = {"ssd1306": ssd1306, "sh1106": sh1106}


def first_screen() -> object:
    return App(clock=lambda: 0.0, rng=random.Random(1)).render()


@pytest.mark.parametrize("driver", sorted(DRIVERS))
@pytest.mark.parametrize("rotate", [0, 1, 2])
def test_the_first_frame_is_a_diff_from_the_blank_luma_sent(driver: str, rotate: int) -> None:
    bus = RecordingBus(PanelModel(driver, power_on_fill=0xA5))  # power-up RAM is garbage
    device = DRIVERS[driver](serial_interface=bus, rotate=rotate)
    display = Display(device, bus=bus)
    opened = bus.total_bytes
    assert bus.data_bytes >= FULL_FRAME_BYTES  # luma's own clear(): the panel is known blank
    frame = first_screen()
    if rotate % 2:
        frame = frame.resize((64, 128))  # any picture of the rotated size will do
    display.display(frame)
    first = bus.total_bytes - opened
    assert bus.panel.image().tobytes() == device.preprocess(frame).tobytes()  # nothing of the garbage left
    display.invalidate()
    display.display(frame)
    whole = bus.frame_bytes
    assert first < whole and first < FULL_FRAME_BYTES * 3 // 4

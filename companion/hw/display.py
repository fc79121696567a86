"""The display: any luma device, opened through luma's own command-line options.

Board presets only change the option defaults, so ``--display``, ``--interface``,
``--rotate`` and the rest of luma's options still win when given, and every luma device
works, emulators included (capture, gifanim, pygame, asciiart, asciiblock).

luma.oled 3.x redraws the whole panel on every ``display()``: its ssd1306 sets the window
to all columns and pages and sends 1024 data bytes; its sh1106 sends all 8 pages of 128.
A key press usually changes a line or two, so :class:`Display` keeps the last frame and
sends only changed column runs of changed pages, with the same controller commands the
drivers use (SSD1306 column/page window 0x21/0x22 in the horizontal mode luma selects;
SH1106 page 0xB0+n with column nibbles 0x0n/0x1n). Mock mode puts the real driver on a
:class:`RecordingBus`, which counts the bytes and rebuilds the panel image from them.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple, Protocol

import luma.core.error
import luma.core.framebuffer
from luma.core.device import device as LumaDevice
from luma.oled.device import sh1106, ssd1306
from PIL import Image

from companion.errors import ConfigError, HardwareError
from companion.hw.boards import Board
from companion.hw.panel import PanelModel, pack_pages
from companion.inputs import CommandLineParser

FULL_FRAME_BYTES = 1024
"""Data bytes of one full 128x64 monochrome frame: the yardstick for update budgets."""

_RECORDABLE_DRIVERS = {"ssd1306": ssd1306, "sh1106": sh1106}
EMULATORS = ("capture", "gifanim", "pygame", "asciiart", "asciiblock")
"""luma.emulator's devices: installed with the ``emulator`` extra, since they bring pygame."""

Addressing = Callable[[int, int, int], tuple[int, ...]]
"""``address(page, first_column, last_column)``: the commands that aim the next data bytes."""


class BusWrite(NamedTuple):
    """One call the driver made on its serial interface."""

    kind: Literal["command", "data"]
    payload: bytes


class RecordingBus:
    """A luma serial interface that keeps the bytes instead of sending them.

    It counts command and data bytes, keeps the writes of the current frame (since the
    last :meth:`start_frame`), and replays everything into a :class:`PanelModel`, so
    ``bus.panel.image()`` is what a real panel would show.
    """

    def __init__(self, panel: PanelModel) -> None:
        self.panel = panel
        self.command_bytes = 0
        self.data_bytes = 0
        self.frame: list[BusWrite] = []
        self.transfers = 0
        self.closed = False

    def command(self, *cmd: int) -> None:
        self._record(BusWrite("command", bytes(cmd)))
        self.panel.command(cmd)

    def data(self, data: Sequence[int]) -> None:
        self._record(BusWrite("data", bytes(data)))
        self.panel.data(data)

    def cleanup(self) -> None:
        self.closed = True

    def start_frame(self) -> None:
        """Begin a new frame: :attr:`frame` and :attr:`frame_bytes` restart from zero."""
        self.frame = []

    @property
    def total_bytes(self) -> int:
        return self.command_bytes + self.data_bytes

    @property
    def i2c_bytes(self) -> int:
        """Bytes on the wire were this I2C: luma's i2c interface sends each command() and
        data() call (up to 4096 data bytes) as one transfer of the address byte, a control byte
        (0x00 commands, 0x40 data) and the payload."""
        return self.total_bytes + 2 * self.transfers

    @property
    def frame_bytes(self) -> int:
        return sum(len(write.payload) for write in self.frame)

    def _record(self, write: BusWrite) -> None:
        if self.closed:
            raise HardwareError("display bus written after cleanup")
        self.transfers += 1
        if write.kind == "command":
            self.command_bytes += len(write.payload)
        else:
            self.data_bytes += len(write.payload)
        self.frame.append(write)


def changed_runs(old: bytes | None, new: bytes, merge_gap: int) -> list[tuple[int, int]]:
    """Half-open ranges of ``new`` that differ from ``old`` (all of it when ``old`` is None).

    Runs separated by at most ``merge_gap`` unchanged bytes are joined, since re-aiming
    the controller costs about that many command bytes.

    >>> changed_runs(b"aaaaaaaa", b"abaaaaba", merge_gap=2)
    [(1, 2), (6, 7)]
    >>> changed_runs(b"aaaaaaaa", b"abaabaaa", merge_gap=2)
    [(1, 5)]
    >>> changed_runs(None, b"ab", merge_gap=2), changed_runs(b"ab", b"ab", merge_gap=2)
    ([(0, 2)], [])
    """
    if old is None:
        return [(0, len(new))] if new else []
    if old == new:  # most pages of most frames: compared at C speed, not a byte at a time
        return []
    runs: list[tuple[int, int]] = []
    for index, (before, after) in enumerate(zip(old, new, strict=True)):
        if before == after:
            continue
        if runs and index - runs[-1][1] <= merge_gap:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


def visible_column_offset(device: ssd1306 | sh1106) -> int:
    """First RAM column the panel shows: luma keeps it private (``_colstart`` for ssd1306,
    ``_page_address_offset`` for sh1106), and both the diff writer and the panel model must
    agree with the driver on it."""
    offset: int = device._page_address_offset if isinstance(device, sh1106) else device._colstart
    return offset


def _ssd1306_addressing(device: ssd1306) -> Addressing:
    offset = visible_column_offset(device)

    def address(page: int, first: int, last: int) -> tuple[int, ...]:
        return (0x21, offset + first, offset + last, 0x22, page, page)
    return address


def _sh1106_addressing(device: sh1106) -> Addressing:
    offset = visible_column_offset(device)

    def address(page: int, first: int, last: int) -> tuple[int, ...]:
        column = offset + first
        return (0xB0 | page, column & 0x0F, 0x10 | column >> 4)
    return address


class PageDiffWriter:
    """Writes frames to a page-organised monochrome controller, sending only what changed."""

    def __init__(self, device: LumaDevice, address: Addressing, *, blank: bool = False) -> None:
        self._device = device
        self._address = address
        self._merge_gap = len(address(0, 0, 0))
        self._previous: bytes | None = None
        if blank:
            width, height = device.size if device.rotate % 2 == 0 else device.size[::-1]
            self._previous = bytes(width * (height // 8))

    @classmethod
    def for_device(cls, device: LumaDevice) -> PageDiffWriter | None:
        """A writer for a just-opened luma ssd1306 or sh1106 (exactly; subclasses may address RAM
        differently), else None: other devices keep their own ``display()``.

        Both constructors end by sending a blank frame (``clear()``), so the writer starts from
        blank and the first real frame costs only its lit runs, not a second whole frame.
        """
        if type(device) is ssd1306:
            return cls(device, _ssd1306_addressing(device), blank=True)
        if type(device) is sh1106:
            return cls(device, _sh1106_addressing(device), blank=True)
        return None

    def invalidate(self) -> None:
        """Forget the panel contents, so the next frame is sent whole."""
        self._previous = None

    def write(self, image: Image.Image) -> None:
        if image.mode != "1" or image.size != self._device.size:
            raise ValueError(f"expected a mode '1' image of {self._device.size}, "
                             f"got mode {image.mode!r} {image.size}")
        panel_image = self._device.preprocess(image)  # rotated to the panel's own axes
        packed = pack_pages(panel_image)
        width = panel_image.width
        for start in range(0, len(packed), width):
            row = packed[start:start + width]
            old = None if self._previous is None else self._previous[start:start + width]
            for first, end in changed_runs(old, row, self._merge_gap):
                self._device.command(*self._address(start // width, first, end - 1))
                self._device.data(list(row[first:end]))
        self._previous = packed


class LumaPanel(Protocol):
    """What :class:`Display` uses of a luma device, typed here because luma ships no types."""

    size: tuple[int, int]
    width: int
    height: int
    mode: str
    bounding_box: tuple[int, int, int, int]

    def display(self, image: Image.Image) -> None: ...
    def contrast(self, level: int) -> None: ...
    def hide(self) -> None: ...
    def show(self) -> None: ...
    def cleanup(self) -> None: ...


class Display:
    """The panel the UI draws on; accepted anywhere luma wants a device (e.g. ``canvas``).

    ``display()`` goes through a :class:`PageDiffWriter` when the device has one and
    otherwise straight to the device. ``bus`` is the :class:`RecordingBus` in mock mode;
    ``watchers`` are called after every change reaches it (mock mode's terminal view).
    """

    def __init__(self, device: LumaDevice, *, bus: RecordingBus | None = None) -> None:
        self.device: LumaPanel = device
        self.bus = bus
        self.watchers: list[Callable[[], None]] = []
        self._writer = PageDiffWriter.for_device(device)

    @property
    def size(self) -> tuple[int, int]:
        return self.device.size

    @property
    def width(self) -> int:
        return self.device.width

    @property
    def height(self) -> int:
        return self.device.height

    @property
    def mode(self) -> str:
        return self.device.mode

    @property
    def bounding_box(self) -> tuple[int, int, int, int]:
        return self.device.bounding_box

    def display(self, image: Image.Image) -> None:
        """Show ``image`` (of :attr:`size` and :attr:`mode`)."""
        if self.bus is not None:
            self.bus.start_frame()
        if self._writer is not None:
            self._writer.write(image)
        else:
            self.device.display(image)
        self._changed()

    def contrast(self, level: int) -> None:
        """Dim (low) or brighten (high), 0-255; the OLED stays readable at low levels."""
        if not 0 <= level <= 255:
            raise ValueError(f"contrast {level} is outside 0-255")
        self.device.contrast(level)
        self._changed()

    def hide(self) -> None:
        """Blank the panel (controller sleep); its RAM, and so the next diff, is kept."""
        self.device.hide()
        self._changed()

    def show(self) -> None:
        """Wake the panel from :meth:`hide`."""
        self.device.show()
        self._changed()

    def invalidate(self) -> None:
        """Send the next frame whole, e.g. after the panel may have been reset."""
        if self._writer is not None:
            self._writer.invalidate()

    def cleanup(self) -> None:
        """Blank the panel and release the bus (luma also does this at exit)."""
        self.device.cleanup()

    def _changed(self) -> None:
        for watcher in self.watchers:
            watcher()


def requested_display(argv: Sequence[str]) -> str | None:
    """The ``--display``/``-d`` value among luma options, if one is given (the last one wins).

    >>> requested_display(["--rotate", "2", "-d", "capture"]), requested_display(["--display=sh1106"])
    ('capture', 'sh1106')
    >>> requested_display(["-dgifanim"]), requested_display([])
    ('gifanim', None)
    """
    value = None
    for index, arg in enumerate(argv):
        if arg in ("--display", "-d"):
            value = argv[index + 1] if index + 1 < len(argv) else None
        elif arg.startswith("--display="):
            value = arg.partition("=")[2]
        elif arg.startswith("-d") and not arg.startswith("--"):
            value = arg[2:]
    return value


def check_emulator_available(name: str | None) -> None:
    """Refuse an emulator display by name when luma.emulator is not installed, saying how to get it."""
    if name in EMULATORS and importlib.util.find_spec("luma.emulator") is None:
        raise ConfigError(f"--display {name} is one of luma's emulators, installed apart because they bring "
                          "pygame: pip install 'tabletop-companion[emulator]'")


PANEL_SIZE = (128, 64)
"""The one panel the screens are drawn for, landscape."""
SEGMENT_COUNTS = tuple((2**n) ** 2 for n in range(7))
"""``num_segments`` luma's diff_to_previous framebuffer can split a 128x64 frame into: n x n
segments, n dividing 64 (1, 4, 16, ... 4096); any other count fails its assertion on the first frame."""


def check_panel(args: argparse.Namespace) -> None:
    """Refuse, in one line, display options every frame would fail on: the screens draw a 128x64
    landscape image, so a panel of another size, a quarter turn (rotate 1 or 3: luma then expects a
    64x128 image) or a framebuffer split that does not divide the frame cannot start.

    >>> check_panel(argparse.Namespace(width=128, height=64, rotate=1, framebuffer="full_frame",
    ...                                num_segments=4))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    companion.errors.ConfigError: rotate 1: the screens are drawn landscape (128x64); rotate takes 0,
    or 2 for a panel mounted upside down
    """
    if (args.width, args.height) != PANEL_SIZE:
        raise ConfigError(f"a {args.width}x{args.height} display: the screens are drawn for a 128x64 panel;"
                          " set width 128 and height 64 (the default)")
    if args.rotate not in (0, 2):
        raise ConfigError(f"rotate {args.rotate}: the screens are drawn landscape (128x64); rotate takes 0,"
                          " or 2 for a panel mounted upside down")
    if args.framebuffer == "diff_to_previous" and args.num_segments not in SEGMENT_COUNTS:
        raise ConfigError(f"num_segments {args.num_segments}: the diff_to_previous framebuffer splits the frame"
                          f" into n x n equal parts; give one of {', '.join(map(str, SEGMENT_COUNTS))}")


def bus_problem(args: argparse.Namespace) -> str | None:
    """Why the display's I2C or SPI device cannot be reached, or None: ``run --check`` asks it, so
    "all is right" means the panel would open. An I2C device is probed with an address-only write
    (what ``i2cdetect`` sends), which changes nothing on the panel."""
    if args.display in EMULATORS or args.interface not in ("i2c", "spi"):
        return None
    if args.interface == "spi":
        node = f"/dev/spidev{args.spi_port}.{args.spi_device}"
        return None if os.path.exists(node) else f"SPI device {node} absent: enable SPI (docs/pi-setup.md)"
    node = f"/dev/i2c-{args.i2c_port}"
    if not os.path.exists(node):
        return f"I2C bus {node} absent: enable I2C (docs/pi-setup.md), or set i2c_port"
    from smbus2 import SMBus  # luma's own I2C library

    try:
        bus = SMBus(args.i2c_port)
    except OSError as err:  # most often a user outside the i2c group: the service's user is in it
        return f"cannot open {node} ({err.strerror or err}): run the check as the service's user (sudo -u companion)"
    try:
        with bus:
            bus.write_quick(int(args.i2c_address, 0))
    except OSError as err:
        return (f"no I2C device answers at {args.i2c_address} on {node} ({err.strerror or err}): check the wiring,"
                f" or find its address with i2cdetect -y {args.i2c_port}")
    return None


def display_parser(board: Board | None = None,
                   parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """luma's option parser, with ``board``'s display as the defaults.

    Pass ``parser`` to add luma's option groups to the program's own parser.
    """
    if parser is None:  # luma's own would be labelled "companion" and print its usage on a mistake
        parser = CommandLineParser(prog="companion run", description="Tabletop Companion display",
                                   formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    from luma.core import cmdline  # luma's parser: only for a start given luma options, and for --help

    parser = cmdline.create_parser("Tabletop Companion display", parser=parser,
                                   autocomplete=False)
    if board is not None:
        parser.set_defaults(**board.display.luma_defaults())
    return parser


LUMA_DEFAULTS: dict[str, Any] = {
    "config": None, "width": 128, "height": 64, "rotate": 0,
    "i2c_port": 1, "i2c_address": "0x3C",
    "spi_port": 0, "spi_device": 0, "spi_bus_speed": 8000000, "spi_transfer_size": 4096, "spi_mode": None,
    "spi_cs_high": False, "ftdi_device": "ftdi://::/1", "framebuffer_device": "/dev/fd0",
    "gpio": None, "gpio_mode": None, "gpio_data_command": 24, "gpio_chip_select": 24, "gpio_reset": 25,
    "gpio_backlight": 18, "gpio_reset_hold_time": 0, "gpio_reset_release_time": 0,
    "block_orientation": 0, "mode": "RGB", "framebuffer": "diff_to_previous", "num_segments": 4,
    "bgr": False, "inverse": False,
    "h_offset": 0, "v_offset": 0, "backlight_active": "low", "debug": False,
}
"""What luma's parser gives for its options when none is given, save the two it picks from the
installed modules and every board names (display, interface) and the emulator's own (transform,
scale, duration, loop, max_frames: read only for an emulator display, which takes ``--display``). Building luma's parser
imports every luma device module installed (the emulators bring curses) and costs more than the
rest of a start after the imports; a start with no luma option is most starts. A test holds this
table to luma's parser."""


def board_display_args(board: Board) -> argparse.Namespace:
    """luma's options as its parser gives them with no option given and ``board``'s display as the
    defaults, without building the parser (the board's driver is checked when the board is loaded)."""
    return argparse.Namespace(**{**LUMA_DEFAULTS, **board.display.luma_defaults()})


def parse_display_args(argv: Sequence[str], board: Board | None = None) -> argparse.Namespace:
    """Parse luma options (``--config FILE`` lines count as if given first, like luma's demos)."""
    if not argv and board is not None:
        return board_display_args(board)
    parser = display_parser(board)
    args = parser.parse_args(list(argv))
    if args.config:
        try:
            from luma.core.cmdline import load_config

            from_file = load_config(args.config)
        except OSError as err:
            raise ConfigError(f"{args.config}: cannot read luma config: {err.strerror}") from err
        args = parser.parse_args(from_file + list(argv))
    return args


def open_display(args: argparse.Namespace, *, recording: bool = False) -> Display:
    """Open the device ``args`` describes (from :func:`parse_display_args`).

    With ``recording`` the real ssd1306/sh1106 driver runs on a :class:`RecordingBus`
    instead of I2C/SPI: mock mode with the production driver code.
    """
    # pygame (under luma's emulators) greets stdout on import, over an asciiart screen.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    if recording:
        return _open_recording(args)
    try:
        from luma.core.cmdline import create_device  # not for the recording bus

        device = create_device(args)
    except luma.core.error.DeviceDisplayModeError as err:
        raise ConfigError(f"display {args.display}: {err}") from err
    except (luma.core.error.Error, OSError, ImportError) as err:
        raise HardwareError(f"cannot open display {args.display} on {args.interface}: "
                            f"{err}") from err
    if device is None:
        raise ConfigError(f"luma has no device named {args.display!r}")
    return Display(device)


def _open_recording(args: argparse.Namespace) -> Display:
    driver = _RECORDABLE_DRIVERS.get(args.display)
    if driver is None:
        raise ConfigError(f"the recording bus drives {' or '.join(_RECORDABLE_DRIVERS)}, "
                          f"not {args.display!r}")
    bus = RecordingBus(PanelModel(args.display, width=args.width, height=args.height))
    # Mirrors the OLED branch of luma's create_device, with our bus as the interface.
    framebuffer = getattr(luma.core.framebuffer, args.framebuffer)(
        num_segments=args.num_segments, debug=args.debug)
    options: dict[str, Any] = dict(vars(args), framebuffer=framebuffer)
    try:
        device = driver(serial_interface=bus, **options)
    except luma.core.error.DeviceDisplayModeError as err:
        raise ConfigError(f"display {args.display}: {err}") from err
    bus.panel.column_offset = visible_column_offset(device)
    return Display(device, bus=bus)

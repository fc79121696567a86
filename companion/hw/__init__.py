"""The hardware seam: buttons in, frames out, on real pins and buses or on mock ones.

Modules: :mod:`.keys` (what a press means), :mod:`.debounce` (pure edge filter),
:mod:`.buttons` (gpiozero pins), :mod:`.boards` (board presets), :mod:`.display` (luma
devices and the recording bus), :mod:`.panel` (controller RAM model for checking bus bytes),
:mod:`.mock` (mock mode pins and key sources). Importing this package imports none of them,
so a caller pays only for the drivers it uses.
"""

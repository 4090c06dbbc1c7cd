"""accy's CPU device: runs the exact PTX text that would go to the driver (see driver.py)."""
from accy.runtime.emulator.driver import Emulator, LaunchStats
from accy.runtime.emulator.machine import KernelFault
from accy.runtime.emulator.memory import MemoryFault
from accy.runtime.emulator.ptx import PtxError

__all__ = ["Emulator", "LaunchStats", "KernelFault", "MemoryFault", "PtxError"]

"""The emulator's memory-transaction counters (accy/runtime/emulator/counters.py): for one warp
accessing shared and global memory in known patterns, the wavefronts and sectors a GPU serves
them in, against the fewest possible; counting is off unless asked for."""
import numpy as np
import pytest

from accy.ir import Context, Module
from accy.lowering.kl import KernelBuilder, ptr_type
from accy.lowering.ptx import emit_module
from accy.runtime.emulator.driver import Emulator



def strided_copy(stride, width):
    """A kernel for one warp: lane l stores `width` f32 (one access) into shared memory at
    element l * stride, reads them back and stores them to global memory at the same place."""
    ctx = Context()
    m = Module.create(ctx)
    kb = KernelBuilder(ctx, m.body, "strided", [ptr_type("f32")])
    (out,) = kb.params
    lane = kb.convert(kb.special("tid.x"), "i64")
    at = kb.op("mul", lane, kb.constant(stride, "i64"))
    smem = kb.shared("f32", 32 * max(stride, width))
    values = [kb.convert(kb.op("add", lane, kb.constant(j, "i64")), "f32") for j in range(width)]
    if width == 1:
        kb.store(values[0], smem, at)
    else:
        kb.vstore(values, smem, at)
    kb.barrier()
    back = [kb.load(smem, at)] if width == 1 else kb.vload(smem, at, width)
    if width == 1:
        kb.store(back[0], out, at)
    else:
        kb.vstore(back, out, at)
    kb.finish()
    return emit_module(m, arch="sm_80")


@pytest.mark.parametrize("stride,width,wavefronts,ideal,sectors,fewest", [
    (1, 1, 1, 1, 4, 4),             # 32 consecutive words: every bank once, 128 bytes
    (2, 1, 2, 1, 8, 4),             # every other word: two words per bank
    (32, 1, 32, 1, 32, 4),          # one bank for all: 32-way, a sector per lane
    (0, 1, 1, 1, 1, 1),             # one word for all: a broadcast
    (4, 4, 4, 4, 16, 16),           # 16 bytes a lane: 4 quarter-warp phases, none conflicted
    (8, 4, 8, 4, 32, 16),           # 16 bytes every 32: each phase 2-way
    (2, 2, 2, 2, 8, 8),             # 8 bytes a lane: 2 half-warp phases
])
def test_counts_of_known_patterns(stride, width, wavefronts, ideal, sectors, fewest, ptxas):
    text = strided_copy(stride, width)
    ptxas(text)
    dev = Emulator(counters=True)
    out = dev.mem_alloc(4 * 32 * max(stride, width, 1))
    stats = dev.module_from_buffer(text).get_function("strided")(out, block=(32, 1, 1))
    assert dev.launches == [("strided", stats)]
    memory = stats.memory
    for space, op, actual, fewest_ in (("shared", "st.shared", wavefronts, ideal),
                                       ("shared", "ld.shared", wavefronts, ideal),
                                       ("global", "st.global", sectors, fewest)):
        ((text_, t),) = memory.worst(space, op)
        assert (t.requests, t.actual, t.ideal) == (1, actual, fewest_), (space, text_, t)
    assert memory.total("shared").excess == 2 * (wavefronts - ideal)


def test_counters_are_off_unless_asked_for():
    text = strided_copy(1, 1)
    dev = Emulator()
    out = dev.mem_alloc(4 * 32)
    stats = dev.module_from_buffer(text).get_function("strided")(out, block=(32, 1, 1))
    assert stats.memory is None and dev.launches == []


def test_each_warp_is_counted_on_its_own():
    """Four one-warp blocks: four requests per instruction, each costed alone."""
    text = strided_copy(2, 1)
    dev = Emulator(counters=True)
    out = dev.mem_alloc(4 * 64 * 2)
    stats = dev.module_from_buffer(text).get_function("strided")(out, block=(32, 1, 1),
                                                                grid=(4, 1, 1))
    ((_, t),) = stats.memory.worst("shared", "ld.shared")
    assert (t.requests, t.actual, t.ideal) == (4, 8, 4)

"""Memory transactions of a launch, counted per instruction as NVIDIA GPUs serve them, so that
shared-memory bank conflicts and uncoalesced global accesses show without a GPU
(`Emulator(counters=True)`; each launch's `LaunchStats.memory`).

- **Shared memory**: 32 banks of 4-byte words. A warp's request is served in phases of at most
  128 bytes of requests: all 32 lanes for accesses of up to 4 bytes, each half-warp for 8
  bytes, each quarter-warp for 16 (an ldmatrix: each 8x8 matrix, its 8 rows of 16 bytes; a
  cp.async: its 16-byte writes). A phase takes as many wavefronts as the most distinct words
  one bank holds in it (lanes reading the same word share it): 1 when it has no conflict.
- **Global memory**: 32-byte sectors. A warp's request costs the distinct sectors its lanes
  touch, against the fewest sectors that could hold the distinct bytes it moves.

Counts are per warp-level request (each time a warp's active lanes run the instruction), so a
kernel's figures do not depend on how many blocks the launch has, only on what each warp does.
"""
from dataclasses import dataclass

import numpy as np

BANKS, WORD, PHASE_BYTES, SECTOR = 32, 4, 128, 32


@dataclass
class Traffic:
    """One instruction's requests: wavefronts (shared) or sectors (global) it took, and the
    fewest it could have taken."""
    requests: int = 0
    actual: int = 0
    ideal: int = 0

    @property
    def excess(self):
        return self.actual - self.ideal


class MemoryCounters:
    def __init__(self):
        self.by_instruction = {}        # (space, instruction text) -> Traffic

    def record(self, text, space, warps, lanes, addresses, width):
        """One execution of instruction `text` on `space` ("shared" or "global") by lanes
        `lanes` of warps `warps` (arrays, one entry per lane), each moving `width` bytes from
        `addresses`."""
        if not len(warps):
            return
        warps = np.asarray(warps, np.int64)
        addresses = np.asarray(addresses, np.uint64).astype(np.int64)
        if space == "shared":
            per_phase = max(1, PHASE_BYTES // max(width, WORD))
            groups = warps * 32 + np.asarray(lanes, np.int64) // per_phase
            actual, ideal = _wavefronts(groups, addresses, width)
        else:
            actual, ideal = _sectors(warps, addresses, width)
        t = self.by_instruction.setdefault((space, text), Traffic())
        t.requests += len(np.unique(warps))
        t.actual += actual
        t.ideal += ideal

    def total(self, space):
        """Traffic summed over the instructions of `space`."""
        out = Traffic()
        for (s, _), t in self.by_instruction.items():
            if s == space:
                out.requests, out.actual, out.ideal = (out.requests + t.requests,
                                                       out.actual + t.actual,
                                                       out.ideal + t.ideal)
        return out

    def worst(self, space, opcode=""):
        """The instructions of `space` whose text starts with `opcode`, most excess first:
        [(text, Traffic)]."""
        found = [(text, t) for (s, text), t in self.by_instruction.items()
                 if s == space and text.startswith(opcode)]
        return sorted(found, key=lambda x: -x[1].excess)


def _words(groups, addresses, width):
    """(group, word) of every 4-byte word each access touches."""
    count = max(1, -(-width // WORD))
    first = addresses // WORD
    words = (first[:, None] + np.arange(count)).reshape(-1)
    return np.repeat(groups, count), words


def _wavefronts(groups, addresses, width):
    g, words = _words(groups, addresses, width)
    pairs = np.unique(np.stack([g, words], 1), axis=0)      # lanes on one word share it
    per_bank = np.unique(np.stack([pairs[:, 0], pairs[:, 1] % BANKS], 1), axis=0,
                         return_counts=True)
    (keys, counts) = per_bank
    order = np.argsort(keys[:, 0], kind="stable")
    phase_of, most = keys[order, 0], counts[order]
    starts = np.flatnonzero(np.r_[True, phase_of[1:] != phase_of[:-1]])
    return int(np.maximum.reduceat(most, starts).sum()), len(starts)


def _sectors(warps, addresses, width):
    first, last = addresses // SECTOR, (addresses + width - 1) // SECTOR
    spans = int((last - first).max()) + 1
    sectors = (first[:, None] + np.arange(spans)).reshape(-1)
    keep = sectors <= np.repeat(last, spans)
    touched = np.unique(np.stack([np.repeat(warps, spans)[keep], sectors[keep]], 1), axis=0)
    distinct = np.unique(np.stack([warps, addresses], 1), axis=0)
    per_warp = np.unique(distinct[:, 0], return_counts=True)[1]
    return len(touched), int((-(-per_warp * width // SECTOR)).sum())

"""Tensor-core fragments and tile constants shared by the dot (accy/lowering/dot.py) and the
flash-attention (accy/lowering/attention.py) kernels: the 16-byte cp.async chunk, the padding of
staged rows, the swizzle of unpadded staged tiles and the lane offsets of ldmatrix x4.
"""
CHUNK = 8           # 16-bit elements in one 16-byte cp.async
PAD = 8             # f32 past each staged result row (and, in attention's tiles, 16-bit
                    # elements past each staged operand row)


def swizzle_value(kb, row, chunks):
    """What staged chunk column `c` of `row` (an i64 value; in a tile of `chunks` chunks per
    row) is XORed with: the 16-byte chunk c of row r lies at chunk c ^ swizzle(r). Every 8
    consecutive rows at one chunk column (what one ldmatrix phase reads) and every 8
    consecutive chunks (what a quarter of a warp's cp.async writes) then fall in the 8
    distinct 16-byte slots of a 128-byte bank line: rows of 8 chunks or more XOR by row % 8;
    rows of 4 chunks (64 bytes, two per line) by (row / 2) % 4."""
    return kb.op("rem", kb.op("div", row, kb.constant(max(1, 8 // chunks), "i64")),
                 kb.constant(min(chunks, 8), "i64"))


def ldmatrix_lane(kb, lane, first, pitch, k_major, is_a):
    """This lane's element offset, in a tile staged with padded rows at `pitch` (as attention's
    are), for ldmatrix x4 of the 16 (free) x 16 (K) block whose free index starts at `first`
    (an i64 value) and K at 0: lanes 8i..8i+7 point at matrix i, which is (free 0-7, K 0-7),
    (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) for an A operand (its four registers) and (0-7,
    0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15) for a B operand (two 8-column fragments).
    `k_major`: K is the staged rows' contiguous dim (else the free dim is, read with
    `.trans`)."""
    def c(v):
        return kb.constant(v, "i64")
    i, r = kb.op("div", lane, c(8)), kb.op("rem", lane, c(8))
    low, high = kb.op("rem", i, c(2)), kb.op("div", i, c(2))
    fb, kblock = (low, high) if is_a else (high, low)
    if k_major:
        row = kb.op("add", kb.op("add", first, r), kb.op("mul", fb, c(8)))
        col = kb.op("mul", kblock, c(8))
    else:
        row = kb.op("add", r, kb.op("mul", kblock, c(8)))
        col = kb.op("add", first, kb.op("mul", fb, c(8)))
    return kb.op("add", kb.op("mul", row, c(pitch)), col)

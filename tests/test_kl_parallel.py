"""The kl ops that make kernels parallel, through the PTX emitter and the emulator: vector
loads/stores, shared memory with barriers, warp shuffles and votes, atomics. Each kernel runs
over fresh random data with its outputs poisoned, and is assembled by ptxas for sm_80 and sm_90
(the `ptxas` fixture of test_ptx_emitter) where ptxas is installed."""
import numpy as np
import pytest

from accy.errors import VerifyError
from accy.ir import Context, Module
from accy.lowering.kl import KernelBuilder, ptr_type, scalar, shared_type
from accy.lowering.ptx import emit_module
from accy.runtime.emulator.driver import Emulator

from tensor_helpers import NP, assert_bits, random_array

ALL = ("f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "i1")


@pytest.fixture(scope="module")
def dev():
    return Emulator()


def _kernel(name, params):
    ctx = Context()
    m = Module.create(ctx)
    return m, KernelBuilder(ctx, m.body, name, params)


def _launch(dev, text, name, inputs, outputs, rng, block=64, grid=2, params=(), shared=0):
    """Run `name` with device copies of `inputs`, then poisoned buffers shaped like
    `outputs` (arrays giving shape and dtype), `shared` dynamic shared bytes; returns the
    outputs read back."""
    mod = dev.module_from_buffer(text)
    ins = [dev.to_device(np.ascontiguousarray(a)) for a in inputs]
    outs = []
    for like in outputs:
        p = dev.mem_alloc(like.nbytes)
        dev.memcpy_htod(p, rng.integers(0, 256, like.nbytes, dtype=np.uint8))
        outs.append(p)
    mod.get_function(name)(*ins, *outs, *params, block=(block, 1, 1), grid=(grid, 1, 1),
                           shared=shared)
    return [dev.from_device(p, like.shape, like.dtype) for p, like in zip(outs, outputs)]


def _store_dtype(dtype):
    return np.uint8 if dtype == "i1" else NP[dtype]


VECTOR_CASES = [("f64", 2), ("i64", 2), ("f32", 4), ("f32", 2), ("i32", 4), ("f16", 8),
                ("f16", 4), ("bf16", 8), ("bf16", 2), ("i16", 8), ("i16", 4)]


@pytest.mark.parametrize("dtype,width", VECTOR_CASES)
def test_vector_load_store_moves_every_element(dtype, width, rng, ptxas):
    """out[i] = x[i] + x[i] over whole vectors: each lane of a vector lands at its own index,
    and a width-8 2-byte access (4 words split in halves) keeps the order."""
    n = 64 * 2 * width * 3
    m, kb = _kernel(f"vec_{dtype}_{width}", [ptr_type(dtype), ptr_type(dtype), scalar("i64")])
    x, out, count = kb.params
    w = kb.constant(width, "i64")

    def body(kb, v):
        base = kb.op("mul", v, w)
        vals = kb.vload(x, base, width)
        kb.vstore([kb.op("add", a, a) for a in vals], out, base)
    kb.for_(kb.global_index(), kb.op("div", count, w), kb.grid_size(), [], body)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert f".v{width if width <= 4 else 4}." in text
    xs = random_array(rng, dtype, (n,))
    with np.errstate(all="ignore"):
        want = (xs + xs).astype(xs.dtype)
    (got,) = _launch(Emulator(), text, f"vec_{dtype}_{width}", [xs], [want], rng,
                     params=(np.int64(n),))
    assert_bits(got, want, f"{dtype} x{width}")


@pytest.mark.parametrize("offset,dtype,width", [(2, "f32", 4), (1, "f64", 2), (4, "f16", 8)])
@pytest.mark.parametrize("vector_store", [False, True])
def test_a_vector_access_off_its_own_alignment_faults(offset, dtype, width, vector_store, rng):
    """A .v2/.v4 access must be aligned to all the bytes it moves, as on a GPU, not only to
    its element size: the emulator faults where the hardware would."""
    m, kb = _kernel("misaligned", [ptr_type(dtype), ptr_type(dtype)])
    x, out = kb.params
    at = kb.op("add", kb.op("mul", kb.global_index(), kb.constant(width, "i64")),
               kb.constant(offset, "i64"))
    if vector_store:
        kb.vstore([kb.load(x, at)] * width, out, at)
    else:
        kb.store(kb.op("add", *kb.vload(x, at, width)[:2]), out, at)
    kb.finish()
    xs = random_array(rng, dtype, (64 * width + 16,))
    nbytes = width * np.dtype(NP[dtype]).itemsize
    with pytest.raises(Exception, match=f"misaligned vector access of {nbytes} bytes"):
        _launch(Emulator(), emit_module(m, arch="sm_80"), "misaligned", [xs], [xs], rng,
                block=32, grid=1)


@pytest.mark.parametrize("dtype", ["f32", "f16", "f64", "i64", "i8", "i1"])
def test_predicated_loads_and_stores_touch_no_memory_where_false(dtype, rng, ptxas):
    """Lanes past n load from beyond the buffer and store past the output, both under a false
    predicate: no fault, the load gives 0 and the store writes nothing (the poison stays)."""
    n = 100
    name = f"masked_{dtype}"
    m, kb = _kernel(name, [ptr_type(dtype), ptr_type(dtype), ptr_type(dtype), scalar("i64")])
    x, out, loaded, count = kb.params
    g = kb.global_index()
    inside = kb.cmp("LT", g, count)
    far = kb.op("add", g, kb.op("mul", kb.constant(1 << 20, "i64"),
                                kb.convert(kb.op("not", inside), "i64")))    # way past the end
    value = kb.load(x, far, inside)
    kb.store(value, out, far, inside)
    kb.store(kb.load(x, far, inside), loaded, kb.op("rem", g, kb.constant(n, "i64")),
             kb.op("not", inside))          # lanes past n store their load (0) into slot g % n
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert "@%p" in text
    xs = random_array(rng, dtype, (n,))
    if dtype == "i1":
        xs = xs.astype(np.uint8)
    store = np.uint8 if dtype == "i1" else NP[dtype]
    got, zeros = _launch(Emulator(), text, name, [xs], [np.zeros(n, store), np.zeros(n, store)],
                         rng, block=64, grid=2, params=(np.int64(n),))
    assert_bits(got, xs, "masked copy")
    assert_bits(zeros[:128 - n], np.zeros(128 - n, store), "masked loads give 0")


def test_shared_memory_and_barrier_reverse_a_block(dev, rng, ptxas):
    """Each block stages its 128 elements in shared memory, waits at the barrier, and writes
    them back reversed: a thread reads what another thread wrote."""
    m, kb = _kernel("reverse", [ptr_type("f32"), ptr_type("f32")])
    x, out = kb.params
    tile = kb.shared("f32", 128)
    tid = kb.convert(kb.special("tid.x"), "i64")
    g = kb.global_index()
    kb.store(kb.load(x, g), tile, tid)
    kb.barrier()
    mirror = kb.op("sub", kb.constant(127, "i64"), tid)
    kb.store(kb.load(tile, mirror), out, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert ".shared .align 16 .b8 reverse_smem0[512]" in text
    xs = rng.standard_normal(128 * 3).astype(np.float32)
    (got,) = _launch(dev, text, "reverse", [xs], [xs], rng, block=128, grid=3)
    assert_bits(got, xs.reshape(3, 128)[:, ::-1].reshape(-1), "reversed")


def test_two_shared_arrays_are_distinct(dev, rng, ptxas):
    m, kb = _kernel("two", [ptr_type("i32"), ptr_type("f64")])
    oi, of = kb.params
    a, b = kb.shared("i32", 64), kb.shared("f64", 64)
    tid = kb.convert(kb.special("tid.x"), "i64")
    kb.store(kb.convert(tid, "i32"), a, tid)
    kb.store(kb.convert(kb.op("neg", tid), "f64"), b, tid)
    kb.barrier()
    kb.store(kb.load(a, tid), oi, tid)
    kb.store(kb.load(b, tid), of, tid)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    gi, gf = _launch(dev, text, "two", [], [np.zeros(64, np.int32), np.zeros(64, np.float64)],
                     rng, grid=1)
    assert_bits(gi, np.arange(64, dtype=np.int32), "ints")
    assert_bits(gf, (-np.arange(64)).astype(np.float64), "floats")


def _dynamic_reverse(dynamic_first=False):
    """Each of 128 threads writes its value at the far end of its 192-element slice of a
    96 KB dynamic array (past the 48 KB static memory may hold) and its index in a static
    array; after the barrier it reads its mirror thread's value through the mirror's index."""
    m, kb = _kernel("dynamic", [ptr_type("f32"), ptr_type("f32")])
    x, out = kb.params
    if dynamic_first:
        tile = kb.shared("f32", 128 * 192, dynamic=True)
        static = kb.shared("i64", 128)
    else:
        static = kb.shared("i64", 128)
        tile = kb.shared("f32", 128 * 192, dynamic=True)
    tid = kb.convert(kb.special("tid.x"), "i64")
    g = kb.global_index()

    def slot(t):
        return kb.op("add", kb.op("mul", t, kb.constant(192, "i64")), kb.constant(191, "i64"))
    kb.store(kb.load(x, g), tile, slot(tid))
    kb.store(tid, static, tid)
    kb.barrier()
    mirror = kb.load(static, kb.op("sub", kb.constant(127, "i64"), tid))
    kb.store(kb.load(tile, slot(mirror)), out, g)
    kb.finish()
    return m


@pytest.mark.parametrize("dynamic_first", [False, True])
def test_dynamic_shared_memory_past_48_kb(dynamic_first, dev, rng, ptxas):
    """In either order of declaration the two arrays have names of their own (a static one
    named like the extern would shadow it)."""
    text = emit_module(_dynamic_reverse(dynamic_first), arch="sm_90")
    ptxas(text)
    dynamic, static = ("dynamic_smem0", "dynamic_smem1") if dynamic_first else \
        ("dynamic_smem1", "dynamic_smem0")
    assert f".extern .shared .align 16 .b8 {dynamic}[];\n.visible .entry dynamic(" in text
    assert f".shared .align 16 .b8 {static}[1024];" in text
    xs = rng.standard_normal(128 * 2).astype(np.float32)
    (got,) = _launch(dev, text, "dynamic", [xs], [xs], rng, block=128, grid=2,
                     shared=128 * 192 * 4)
    assert_bits(got, xs.reshape(2, 128)[:, ::-1].reshape(-1), "reversed")


def test_dynamic_shared_memory_is_what_the_launch_gives(dev, rng):
    """A launch giving less dynamic memory than the kernel touches faults on the emulator."""
    text = emit_module(_dynamic_reverse(), arch="sm_90")
    xs = rng.standard_normal(128).astype(np.float32)
    with pytest.raises(Exception, match="shared"):
        _launch(dev, text, "dynamic", [xs], [xs], rng, block=128, grid=1, shared=48 * 1024)


def test_one_dynamic_shared_array_per_kernel():
    from accy.errors import UnsupportedError
    m, kb = _kernel("two_dynamic", [])
    kb.shared("f32", 16, dynamic=True)
    kb.shared("f32", 16, dynamic=True)
    kb.finish()
    with pytest.raises(UnsupportedError, match="two dynamic shared arrays"):
        emit_module(m, arch="sm_90")


def _expected_shuffle(xs, mode, k):
    lanes = np.arange(xs.size) % 32
    warp0 = np.arange(xs.size) - lanes
    if mode == "down":
        src = np.where(lanes + k < 32, np.arange(xs.size) + k, np.arange(xs.size))
    elif mode == "up":
        src = np.where(lanes - k >= 0, np.arange(xs.size) - k, np.arange(xs.size))
    elif mode == "xor":
        src = warp0 + (lanes ^ k)
    else:
        src = warp0 + k
    return xs[src]


@pytest.mark.parametrize("mode,k", [("down", 1), ("down", 16), ("up", 3), ("xor", 5),
                                    ("idx", 7)])
@pytest.mark.parametrize("dtype", ALL)
def test_shuffle(mode, k, dtype, rng, dev, ptxas):
    name = f"shfl_{mode}_{dtype}"
    m, kb = _kernel(name, [ptr_type(dtype), ptr_type(dtype), scalar("i32")])
    x, out, lane = kb.params
    g = kb.global_index()
    kb.store(kb.shuffle(mode, kb.load(x, g), lane), out, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    xs = random_array(rng, dtype, (128,))
    if dtype == "i1":
        xs = xs.astype(np.uint8)
    (got,) = _launch(dev, text, name, [xs], [xs], rng, params=(np.int32(k),))
    assert_bits(got, _expected_shuffle(xs, mode, k), f"{mode} {k}")


def test_votes(rng, dev, ptxas):
    m, kb = _kernel("votes", [ptr_type("f32"), ptr_type("i1"), ptr_type("i1"), ptr_type("i32")])
    x, any_, all_, ballot = kb.params
    g = kb.global_index()
    positive = kb.cmp("GT", kb.load(x, g), kb.constant(0.0, "f32"))
    kb.store(kb.vote("any", positive), any_, g)
    kb.store(kb.vote("all", positive), all_, g)
    kb.store(kb.vote("ballot", positive), ballot, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    xs = rng.standard_normal(128).astype(np.float32)
    xs[:32] = np.abs(xs[:32]) + 1          # warp 0 all positive
    xs[32:64] = -np.abs(xs[32:64]) - 1     # warp 1 none
    b = np.zeros(128, np.uint8)
    got_any, got_all, got_ballot = _launch(dev, text, "votes", [xs],
                                           [b, b, np.zeros(128, np.int32)], rng)
    pos = (xs > 0).reshape(4, 32)
    assert_bits(got_any, np.repeat(pos.any(1), 32).astype(np.uint8), "any")
    assert_bits(got_all, np.repeat(pos.all(1), 32).astype(np.uint8), "all")
    bits = (pos * (1 << np.arange(32, dtype=np.uint64))).sum(1).astype(np.uint32)
    assert_bits(got_ballot, np.repeat(bits.view(np.int32), 32), "ballot")


@pytest.mark.parametrize("op,dtype", [("add", "i32"), ("add", "i64"), ("min", "i32"),
                                      ("max", "i64"), ("add", "f64")])
def test_atomics_combine_every_thread(op, dtype, rng, dev, ptxas):
    """Every thread combines its value into slot (i % 4); integer results are exact, the f64
    sum (of integers, so order-free) too."""
    name = f"atom_{op}_{dtype}"
    m, kb = _kernel(name, [ptr_type(dtype), ptr_type(dtype)])
    x, acc = kb.params
    g = kb.global_index()
    kb.atomic(op, acc, kb.op("rem", g, kb.constant(4, "i64")), kb.load(x, g))
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    xs = rng.integers(-1000, 1000, 256).astype(NP[dtype])
    start = rng.integers(-10, 10, 4).astype(NP[dtype])
    mod = dev.module_from_buffer(text)
    px, pacc = dev.to_device(xs), dev.to_device(start)
    mod.get_function(name)(px, pacc, block=(64, 1, 1), grid=(4, 1, 1))
    fold = {"add": np.add, "min": np.minimum, "max": np.maximum}[op]
    want = fold(start, fold.reduce(xs.reshape(-1, 4), axis=0)).astype(NP[dtype])
    assert_bits(dev.from_device(pacc, (4,), NP[dtype]), want, name)


@pytest.mark.parametrize("dtype", ("i32", "i64", "f32"))
def test_atomic_exchange_and_cas_claim_a_slot_once(dtype, rng, dev, ptxas):
    """Every thread tries to claim slot 0 with compare-and-swap from 0 (one wins: its old value
    is 0), and exchanges its id into slot 1 (the old values and the final one are a
    permutation of all ids and the start)."""
    name = f"claim_{dtype}"
    m, kb = _kernel(name, [ptr_type("i32"), ptr_type(dtype), ptr_type("i32"), ptr_type(dtype)])
    flag, slot, won, old = kb.params
    g = kb.global_index()
    zero = kb.constant(0, "i64")
    me = kb.op("add", kb.convert(g, "i32"), kb.constant(1, "i32"))
    prior = kb.atomic_cas(flag, zero, kb.constant(0, "i32"), me)
    kb.store(prior, won, g)
    kb.store(kb.atomic("exch", slot, zero, kb.convert(me, dtype)), old, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    mod = dev.module_from_buffer(text)
    pflag, pslot = dev.to_device(np.zeros(1, np.int32)), \
        dev.to_device(np.full(1, -5, NP[dtype]))
    pwon, pold = dev.mem_alloc(4 * 128), dev.mem_alloc(np.dtype(NP[dtype]).itemsize * 128)
    mod.get_function(name)(pflag, pslot, pwon, pold, block=(64, 1, 1), grid=(2, 1, 1))
    winners = dev.from_device(pwon, (128,), np.int32)
    assert (winners == 0).sum() == 1
    final = dev.from_device(pflag, (1,), np.int32)[0]
    assert winners[final - 1] == 0
    olds = dev.from_device(pold, (128,), NP[dtype])
    seen = np.sort(np.append(olds, dev.from_device(pslot, (1,), NP[dtype])))
    assert_bits(seen, np.sort(np.append(np.arange(1, 129), -5)).astype(NP[dtype]), "exch")


def test_while_loops_run_a_trip_count_known_only_at_run_time(rng, dev, ptxas):
    """out[i] = the steps x[i] takes to reach 1 halving (even) or adding one (odd): each
    thread loops its own number of times, and the carried flag decides each trip."""
    m, kb = _kernel("steps", [ptr_type("i32"), ptr_type("i32")])
    x, out = kb.params
    g = kb.global_index()
    one = kb.constant(1, "i32")

    def body(kb, v, n):
        odd = kb.cmp("EQ", kb.op("and", v, one), one)
        v = kb.op("select", odd, kb.op("add", v, one), kb.op("shr", v, one))
        return [kb.cmp("GT", v, one), v, kb.op("add", n, one)]
    _, steps = kb.while_([kb.load(x, g), kb.constant(0, "i32")], body)
    kb.store(steps, out, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    xs = rng.integers(2, 5000, 128).astype(np.int32)

    def reference(v):
        n = 0
        while True:
            v, n = (v + 1 if v % 2 else v // 2), n + 1
            if v <= 1:
                return n
    (got,) = _launch(dev, text, "steps", [xs], [xs], rng)
    assert_bits(got, np.array([reference(int(v)) for v in xs], np.int32), "steps")


def test_fence_orders_a_flag_after_the_data_it_publishes(rng, dev, ptxas):
    """Block 0 writes its data, fences, then raises a flag with an atomic; block 1 spins on
    the flag (an atomic read: add 0), fences, then reads the data: the pattern of a scan's
    look-back between blocks. Through one workspace buffer viewed as an i32 flag and f64
    data (kl.view)."""
    m, kb = _kernel("publish", [ptr_type("f64"), ptr_type("f64"), ptr_type("i32")])
    x, out, work = kb.params
    tid = kb.convert(kb.special("tid.x"), "i64")
    data = kb.view(work, kb.constant(16, "i64"), "f64")
    zero, one = kb.constant(0, "i64"), kb.constant(1, "i32")
    first = kb.cmp("EQ", kb.special("ctaid.x"), kb.constant(0, "i32"))

    def raise_flag(kb):
        kb.atomic("exch", work, zero, one)

    def produce(kb):
        kb.store(kb.load(x, tid), data, tid)
        kb.fence()
        kb.if_(kb.cmp("EQ", tid, zero), raise_flag)

    def consume(kb):
        kb.while_([], lambda kb: [kb.cmp("EQ", kb.atomic("add", work, zero,
                                                          kb.constant(0, "i32")),
                                         kb.constant(0, "i32"))])
        kb.fence()
        kb.store(kb.load(data, tid), out, tid)
    kb.if_(first, produce, consume)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert "fence.acq_rel.gpu" in text
    xs = rng.standard_normal(64)
    mod = dev.module_from_buffer(text)
    px, pout, pwork = dev.to_device(xs), dev.mem_alloc(8 * 64), \
        dev.to_device(np.zeros(16 + 8 * 64, np.uint8))
    mod.get_function("publish")(px, pout, pwork, block=(64, 1, 1), grid=(2, 1, 1))
    assert_bits(dev.from_device(pout, (64,), np.float64), xs, "published")
    assert dev.from_device(pwork, (1,), np.int32)[0] == 1


BAD_PARALLEL_OPS = [
    (lambda kb, p: kb.load(p, kb.constant(0, "i64"), kb.constant(1, "i32")),
     "its predicate is an i1"),
    (lambda kb, p: kb.vload(p, kb.constant(0, "i64"), 3), "cannot load 3 x f32"),
    (lambda kb, p: kb.emit("kl.shared", (), [shared_type("f32")], count=0), "positive count"),
    (lambda kb, p: kb.emit("kl.shuffle", (kb.constant(1.0, "f32"), kb.constant(1, "i32")),
                           [scalar("f32")], mode="sideways"), "mode must be one of"),
    (lambda kb, p: kb.atomic("min", p, kb.constant(0, "i64"), kb.constant(1.0, "f32")),
     "atomic min does not take f32"),
    (lambda kb, p: kb.vote("ballot", kb.constant(1, "i32")), "takes an i1"),
    (lambda kb, p: kb.emit("kl.view", (p, kb.constant(0, "i32")), [ptr_type("i32")]),
     "at an i64 byte offset"),
    (lambda kb, p: kb.while_([kb.constant(0, "i64")], lambda kb, i: [i, i]),
     "an i1 \\(continue\\)"),
]


def test_kernel_parameters_cannot_be_shared_pointers():
    m, kb = _kernel("bad", [shared_type("f32")])
    kb.finish()
    with pytest.raises(VerifyError, match="global pointers or scalars"):
        m.verify()


# ---- tensor cores and asynchronous copies ----------------------------------------------------

def _bits16(a):
    return np.asarray(a).view(np.uint16).astype(np.uint32)


@pytest.mark.parametrize("dtype", ("f16", "bf16"))
def test_pack_and_unpack_move_two_halves(dtype, rng, dev, ptxas):
    name = f"pack_{dtype}"
    m, kb = _kernel(name, [ptr_type(dtype), ptr_type(dtype), ptr_type("i32"), ptr_type(dtype),
                           ptr_type(dtype)])
    x, y, word, lo, hi = kb.params
    g = kb.global_index()
    w = kb.pack(kb.load(x, g), kb.load(y, g))
    kb.store(w, word, g)
    a, b = kb.unpack(w, dtype)
    kb.store(a, lo, g)
    kb.store(b, hi, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    xs, ys = random_array(rng, dtype, (128,)), random_array(rng, dtype, (128,))
    got_w, got_lo, got_hi = _launch(dev, text, name, [xs, ys],
                                    [np.zeros(128, np.int32), xs, ys], rng)
    assert_bits(got_w, (_bits16(xs) | _bits16(ys) << 16).view(np.int32), "packed")
    assert_bits(got_lo, xs, "low half")
    assert_bits(got_hi, ys, "high half")


PITCH = 24      # elements per staged row in the ldmatrix test: 48 bytes, rows stay 16-aligned


def _ldmatrix_rows(lane):
    """The staged row (of 32 per warp) and column (0, 8 or 16) lane `lane` points at."""
    return (5 * lane + 3) % 32, 8 * ((lane // 3) % 3)


@pytest.mark.parametrize("count,trans,dtype", [(1, False, "f16"), (2, True, "bf16"),
                                               (4, False, "bf16"), (4, True, "f16")])
def test_ldmatrix_gives_the_documented_fragments(count, trans, dtype, rng, dev, ptxas):
    """Two warps stage 32 rows each in shared memory; every lane points at a scattered row and
    the registers hold the 8x8 matrices those rows make (transposed with trans)."""
    name = f"ldmatrix_x{count}_{int(trans)}_{dtype}"
    m, kb = _kernel(name, [ptr_type(dtype), ptr_type("i32")])
    x, out = kb.params
    n = 2 * 32 * PITCH
    tile = kb.shared(dtype, n)
    tid = kb.convert(kb.special("tid.x"), "i64")

    def stage(kb, i):
        kb.store(kb.load(x, i), tile, i)
    kb.for_(tid, kb.constant(n, "i64"), kb.constant(64, "i64"), [], stage)
    kb.barrier()
    lane = kb.op("rem", tid, kb.constant(32, "i64"))
    warp = kb.op("div", tid, kb.constant(32, "i64"))
    row = kb.op("rem", kb.op("add", kb.op("mul", lane, kb.constant(5, "i64")),
                             kb.constant(3, "i64")), kb.constant(32, "i64"))
    col = kb.op("mul", kb.op("rem", kb.op("div", lane, kb.constant(3, "i64")),
                             kb.constant(3, "i64")), kb.constant(8, "i64"))
    index = kb.op("add", kb.op("mul", kb.op("add", kb.op("mul", warp, kb.constant(32, "i64")),
                                            row), kb.constant(PITCH, "i64")), col)
    for i, reg in enumerate(kb.ldmatrix(tile, index, count, trans)):
        kb.store(reg, out, kb.op("add", kb.op("mul", tid, kb.constant(count, "i64")),
                                 kb.constant(i, "i64")))
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert f"ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if trans else ''}.shared.b16" in text
    xs = random_array(rng, dtype, (n,))
    (got,) = _launch(dev, text, name, [xs], [np.zeros(64 * count, np.int32)], rng, grid=1)
    staged = _bits16(xs).reshape(2, 32, PITCH)
    want = np.empty((2, 32, count), np.uint32)
    lanes = np.arange(32)
    for w in range(2):
        for i in range(count):
            rows = [_ldmatrix_rows(8 * i + r) for r in range(8)]
            mat = np.stack([staged[w, r, c:c + 8] for r, c in rows])
            mat = mat.T if trans else mat
            want[w, :, i] = mat[lanes >> 2, 2 * (lanes % 4)] | \
                mat[lanes >> 2, 2 * (lanes % 4) + 1] << 16
    assert_bits(got, want.reshape(-1).view(np.int32), "fragments")


def _fragment_loads(kb, ptr, lane, where, dtype):
    """The i32 registers of a fragment: register r of the lane packs the two elements at flat
    indices where(r, h, g, t) (h = 0, 1; g = lane / 4, t = lane % 4) of the matrix at ptr."""
    g, t = kb.op("div", lane, kb.constant(4, "i64")), kb.op("rem", lane, kb.constant(4, "i64"))
    regs = []
    for r in range(where.registers):
        halves = [kb.load(ptr, where(kb, r, h, g, t)) for h in (0, 1)]
        regs.append(kb.pack(*halves))
    return regs


@pytest.mark.parametrize("dtype", ("f16", "bf16"))
def test_mma_m16n8k16_multiplies_fragments(dtype, rng, dev, ptxas):
    """Each of two warps multiplies its own 16x16 A by a 16x8 B and adds a 16x8 C, fragments
    built from plain loads in the PTX ISA's layouts; D against numpy within f32 summation."""
    name = f"mma_{dtype}"
    m, kb = _kernel(name, [ptr_type(dtype), ptr_type(dtype), ptr_type("f32"), ptr_type("f32")])
    pa, pb, pc, pd = kb.params
    tid = kb.convert(kb.special("tid.x"), "i64")
    lane, warp = kb.op("rem", tid, kb.constant(32, "i64")), kb.op("div", tid,
                                                                  kb.constant(32, "i64"))

    def at(kb, base, row, col, cols, size):
        flat = kb.op("add", kb.op("mul", row, kb.constant(cols, "i64")), col)
        return kb.op("add", kb.op("mul", warp, kb.constant(size, "i64")), flat) \
            if base else flat

    def c8(v):
        return kb.constant(v, "i64")

    def a_where(kb, r, h, g, t):        # A 16x16: rows g (+8 for odd r), cols 2t + h (+8 r>=2)
        return at(kb, True, kb.op("add", g, c8(8 * (r % 2))),
                  kb.op("add", kb.op("mul", t, c8(2)), c8(h + 8 * (r // 2))), 16, 256)

    def b_where(kb, r, h, g, t):        # B 16x8 (K x N): rows 2t + h (+8 for r = 1), col g
        return at(kb, True, kb.op("add", kb.op("mul", t, c8(2)), c8(h + 8 * r)), g, 8, 128)
    a_where.registers, b_where.registers = 4, 2
    a = _fragment_loads(kb, pa, lane, a_where, dtype)
    b = _fragment_loads(kb, pb, lane, b_where, dtype)
    g, t = kb.op("div", lane, c8(4)), kb.op("rem", lane, c8(4))
    c_at = [at(kb, True, kb.op("add", g, c8(8 * (r // 2))),
               kb.op("add", kb.op("mul", t, c8(2)), c8(r % 2)), 8, 128) for r in range(4)]
    d = kb.mma(a, b, [kb.load(pc, i) for i in c_at], dtype)
    for v, i in zip(d, c_at):
        kb.store(v, pd, i)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert f"mma.sync.aligned.m16n8k16.row.col.f32.{dtype}.{dtype}.f32" in text
    xa = (rng.standard_normal((2, 16, 16)) * 2).astype(NP[dtype])
    xb = (rng.standard_normal((2, 16, 8)) * 2).astype(NP[dtype])
    xc = rng.standard_normal((2, 16, 8)).astype(np.float32)
    (got,) = _launch(dev, text, name, [xa, xb, xc], [xc], rng, grid=1)
    a64, b64 = xa.astype(np.float64), xb.astype(np.float64)
    want = a64 @ b64 + xc
    bound = (np.abs(a64) @ np.abs(b64) + np.abs(xc)) * 2.0 ** -21
    assert (np.abs(got - want) <= bound).all(), np.abs(got - want).max()


def _tf32(x):
    """f32 `x` rounded to tf32 as cvt.rna does: to the nearest of 10 mantissa bits, ties away
    from zero (add half of the dropped 13 bits' weight to the magnitude, then truncate)."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    return ((bits + np.uint32(1 << 12)) & np.uint32(0xFFFFE000)).view(np.float32)


def test_mma_m16n8k8_tf32_multiplies_rounded_fragments(rng, dev, ptxas):
    """Each of two warps multiplies its own 16x8 f32 A by an 8x8 f32 B and adds a 16x8 C, the
    fragments loaded one element a register and rounded by kl.to_tf32; D against numpy on the
    tf32-rounded inputs within f32 summation (truncated inputs would be off by ~2^-11)."""
    name = "mma_tf32"
    m, kb = _kernel(name, [ptr_type("f32")] * 4)
    pa, pb, pc, pd = kb.params
    tid = kb.convert(kb.special("tid.x"), "i64")

    def c8(v):
        return kb.constant(v, "i64")
    lane, warp = kb.op("rem", tid, c8(32)), kb.op("div", tid, c8(32))
    g, t = kb.op("div", lane, c8(4)), kb.op("rem", lane, c8(4))

    def at(row, col, cols, size):
        return kb.op("add", kb.op("mul", warp, c8(size)), kb.op("add", kb.op(
            "mul", row, c8(cols)), col))
    # A 16x8: register r at row g (+8 for odd r), col t (+4 for r >= 2); B 8x8 (K x N): row
    # t (+4 for r = 1), col g
    a = [kb.to_tf32(kb.load(pa, at(kb.op("add", g, c8(8 * (r % 2))),
                                   kb.op("add", t, c8(4 * (r // 2))), 8, 128)))
         for r in range(4)]
    b = [kb.to_tf32(kb.load(pb, at(kb.op("add", t, c8(4 * r)), g, 8, 64))) for r in range(2)]
    c_at = [at(kb.op("add", g, c8(8 * (r // 2))), kb.op("add", kb.op("mul", t, c8(2)),
                                                         c8(r % 2)), 8, 128) for r in range(4)]
    d = kb.mma(a, b, [kb.load(pc, i) for i in c_at], "tf32", shape="m16n8k8")
    for v, i in zip(d, c_at):
        kb.store(v, pd, i)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in text
    assert "cvt.rna.tf32.f32" in text
    xa = rng.standard_normal((2, 16, 8)).astype(np.float32)
    xb = rng.standard_normal((2, 8, 8)).astype(np.float32)
    xc = rng.standard_normal((2, 16, 8)).astype(np.float32)
    (got,) = _launch(dev, text, name, [xa, xb, xc], [xc], rng, grid=1)
    a64, b64 = _tf32(xa).astype(np.float64), _tf32(xb).astype(np.float64)
    want = a64 @ b64 + xc
    bound = (np.abs(a64) @ np.abs(b64) + np.abs(xc)) * 2.0 ** -21
    assert (np.abs(got - want) <= bound).all(), np.abs(got - want).max()


@pytest.mark.parametrize("dtype,nbytes", [("f32", 4), ("f32", 8), ("f32", 16), ("f16", 16),
                                          ("bf16", 8)])
def test_cp_async_copies_and_zero_fills(dtype, nbytes, rng, dev, ptxas):
    """Each thread copies one chunk global -> shared reading only its chunk's first src_bytes
    (0, part, or all), waits, and after a barrier another thread reads it back."""
    name = f"cp_async_{dtype}_{nbytes}"
    m, kb = _kernel(name, [ptr_type(dtype), ptr_type("i32"), ptr_type(dtype)])
    x, valid, out = kb.params
    width = nbytes // np.dtype(NP[dtype]).itemsize
    tile = kb.shared(dtype, 64 * width)
    tid = kb.convert(kb.special("tid.x"), "i64")
    block = kb.convert(kb.special("ctaid.x"), "i64")
    w = kb.constant(width, "i64")
    chunk = kb.op("add", kb.op("mul", block, kb.constant(64, "i64")), tid)
    kb.cp_async(tile, kb.op("mul", tid, w), x, kb.op("mul", chunk, w), nbytes,
                kb.load(valid, chunk))
    kb.cp_async_wait(0)
    kb.barrier()
    mirror = kb.op("sub", kb.constant(63, "i64"), tid)     # another thread's chunk
    other = kb.op("add", kb.op("mul", block, kb.constant(64, "i64")), mirror)
    for j in range(width):
        kb.store(kb.load(tile, kb.op("add", kb.op("mul", mirror, w), kb.constant(j, "i64"))),
                 out, kb.op("add", kb.op("mul", other, w), kb.constant(j, "i64")))
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert f"cp.async.{'cg' if nbytes == 16 else 'ca'}.shared.global" in text
    assert "cp.async.wait_group 0" in text
    xs = random_array(rng, dtype, (128 * width,))
    itemsize = np.dtype(NP[dtype]).itemsize
    counts = rng.integers(0, width + 1, 128)
    counts[:3] = 0, width, width // 2
    (got,) = _launch(dev, text, name, [xs, (counts * itemsize).astype(np.int32)], [xs], rng)
    want = np.where(np.arange(width) < counts[:, None], xs.reshape(128, width), 0) \
        .astype(xs.dtype).reshape(-1)
    assert_bits(got, want, "copied")


def _two_groups(read_newest_early):
    """Group 1 copies x[0:4] and group 2 x[4:8] per thread (f32, 16 bytes each); a wait with
    pending 1 completes group 1 alone. The kernel reads group 1's copy, then (after a wait
    with pending 0 unless `read_newest_early`) group 2's."""
    m, kb = _kernel("groups", [ptr_type("f32"), ptr_type("f32")])
    x, out = kb.params
    tile = kb.shared("f32", 2 * 32 * 4)
    tid = kb.convert(kb.special("tid.x"), "i64")
    four, sixteen = kb.constant(4, "i64"), kb.constant(16, "i64")
    full = kb.constant(16, "i32")
    for half in (0, 1):
        base = kb.constant(half * 128, "i64")
        src = kb.op("add", kb.op("mul", tid, kb.constant(8, "i64")), kb.constant(4 * half, "i64"))
        kb.cp_async(tile, kb.op("add", base, kb.op("mul", tid, four)), x, src, 16, full)
        kb.cp_async_wait(1)
    for half in (0, 1):
        if half and not read_newest_early:
            kb.cp_async_wait(0)
        for j in range(4):
            at = kb.op("add", kb.op("mul", tid, four), kb.constant(half * 128 + j, "i64"))
            kb.store(kb.load(tile, at), out, kb.op("add", kb.op("mul", tid, sixteen),
                                                    kb.constant(half * 4 + j, "i64")))
    kb.finish()
    return emit_module(m, arch="sm_80")


def test_cp_async_wait_leaves_the_newest_groups_in_flight(rng, ptxas):
    text = _two_groups(False)
    ptxas(text)
    assert text.count("cp.async.commit_group") == 3
    xs = rng.standard_normal(256).astype(np.float32)
    (got,) = _launch(Emulator(), text, "groups", [xs], [np.zeros(512, np.float32)], rng,
                     block=32, grid=1)
    assert_bits(got.reshape(32, 16)[:, :8], xs.reshape(32, 8), "both groups")
    with pytest.raises(Exception, match="before cp.async.wait_group"):
        _launch(Emulator(), _two_groups(True), "groups", [xs], [np.zeros(512, np.float32)],
                rng, block=32, grid=1)


def _bad_shared(kb, dtype="f32"):
    return kb.shared(dtype, 64)


BAD_TENSOR_CORE_OPS = [
    (lambda kb, p: kb.ldmatrix(_bad_shared(kb), kb.constant(0, "i64"), 4),
     "reads a !kl.shared<f16> or <bf16> array"),
    (lambda kb, p: kb.ldmatrix(_bad_shared(kb, "f16"), kb.constant(0, "i64"), 3),
     "count must be one of 1, 2, 4"),
    (lambda kb, p: kb.mma([kb.constant(0, "i32")] * 6, [], [kb.constant(0.0, "f32")] * 4,
                          "f32"), "ab must be one of f16, bf16"),
    (lambda kb, p: kb.mma([kb.constant(0, "i32")] * 7, [], [kb.constant(0.0, "f32")] * 4,
                          "f16"), "takes 4 i32 A, 2 i32 B and 4 f32 C"),
    (lambda kb, p: kb.pack(kb.constant(1.0, "f32"), kb.constant(1.0, "f32")),
     "packs two f16 or bf16"),
    (lambda kb, p: kb.mma([kb.constant(0, "i32")] * 6, [], [kb.constant(0.0, "f32")] * 4,
                          "f16", shape="m16n8k8"), "ab must be one of tf32"),
    (lambda kb, p: kb.to_tf32(kb.constant(1.0, "f64")), "rounds an f32 to tf32"),
    (lambda kb, p: kb.cp_async(_bad_shared(kb), kb.constant(0, "i64"), p,
                               kb.constant(0, "i64"), 12, kb.constant(12, "i32")),
     "bytes must be one of 4, 8, 16"),
    (lambda kb, p: kb.cp_async(_bad_shared(kb, "f16"), kb.constant(0, "i64"), p,
                               kb.constant(0, "i64"), 16, kb.constant(16, "i32")),
     "same dtype"),
    (lambda kb, p: kb.cp_async_wait(-1), "pending must be 0 or more"),
]


@pytest.mark.parametrize("build,message", BAD_PARALLEL_OPS + BAD_TENSOR_CORE_OPS)
def test_bad_ops_fail_verification(build, message):
    m, kb = _kernel("bad", [ptr_type("f32")])
    build(kb, kb.params[0])
    kb.finish()
    with pytest.raises(VerifyError, match=message):
        m.verify()


# ---- approximate exp2 ------------------------------------------------------------------------

@pytest.mark.parametrize("tier", ("exact", "fast"))
def test_approx_exp2_is_the_hardware_ex2_in_every_tier(tier, rng, dev, ptxas):
    """kl.exp2 {approx}: ex2.approx.ftz.f32 (within 2 ulp; subnormal results flushed to 0)
    whatever the math tier, while a plain exp2 stays exact under the exact tier."""
    m, kb = _kernel("ex2", [ptr_type("f32"), ptr_type("f32")])
    x, out = kb.params
    g = kb.global_index()
    kb.store(kb.op("exp2", kb.load(x, g), approx=True), out, g)
    kb.finish()
    text = emit_module(m, arch="sm_80", math_tier=tier)
    ptxas(text)
    assert text.count("ex2.approx.ftz.f32") == 1 and "fma.rn.f64" not in text
    xs = np.concatenate([rng.uniform(-120, 120, 125), [0.0, -np.inf, -130.0]]).astype(
        np.float32)
    (got,) = _launch(dev, text, "ex2", [xs], [xs], rng)
    want = np.exp2(xs.astype(np.float64))
    np.testing.assert_allclose(got[:126], want[:126], rtol=2.0 ** -21)
    assert got[126] == 0 and got[127] == 0       # exp2(-inf); 2^-130 is subnormal: flushed


@pytest.mark.parametrize("name", ("exp2", "max", "min"))
def test_approx_is_for_f32_only(name):
    m, kb = _kernel("bad", [ptr_type("f32")])
    one = kb.constant(1.0, "f16")
    kb.op(name, *([one] if name == "exp2" else [one, one]), approx=True)
    kb.finish()
    with pytest.raises(VerifyError, match="approx is for f32 only"):
        m.verify()


@pytest.mark.parametrize("name", ("max", "min"))
def test_approx_max_and_min_are_one_instruction(name, rng, dev, ptxas):
    """kl.max/kl.min {approx}: the hardware's max.f32/min.f32, exact on ordered values; a NaN
    operand gives the other (the exact kl.max gives NaN)."""
    m, kb = _kernel("mm", [ptr_type("f32"), ptr_type("f32"), ptr_type("f32")])
    x, y, out = kb.params
    g = kb.global_index()
    kb.store(kb.op(name, kb.load(x, g), kb.load(y, g), approx=True), out, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert f"\t{name}.f32 " in text and "NaN" not in text and "selp" not in text
    xs, ys = (rng.standard_normal(128).astype(np.float32) for _ in range(2))
    xs[:3] = [np.nan, 1.5, np.inf]
    ys[:3] = [2.5, np.nan, -np.inf]
    (got,) = _launch(dev, text, "mm", [xs, ys], [xs], rng)
    want = (np.fmax if name == "max" else np.fmin)(xs, ys)     # NaN-dropping, as max.f32
    np.testing.assert_array_equal(got, want)


def test_a_loop_kept_from_unrolling_runs_the_same(rng, dev, ptxas):
    """kl.for {unroll = false}: `.pragma "nounroll"` heads the loop, which ptxas accepts and
    which changes nothing it computes."""
    m, kb = _kernel("sum3", [ptr_type("f32"), ptr_type("f32")])
    x, out = kb.params
    g = kb.global_index()
    c = lambda v: kb.constant(v, "i64")                                 # noqa: E731
    (total,) = kb.for_(c(0), c(3), c(1), [kb.constant(0.0, "f32")],
                       lambda kb, i, acc: [kb.op("add", acc, kb.load(x, kb.op(
                           "add", kb.op("mul", g, c(3)), i)))], unroll=False)
    kb.store(total, out, g)
    kb.finish()
    text = emit_module(m, arch="sm_80")
    ptxas(text)
    assert text.count('.pragma "nounroll";') == 1
    xs = rng.standard_normal(3 * 128).astype(np.float32)
    (got,) = _launch(dev, text, "sum3", [xs], [xs[:128]], rng)
    want = (xs[0::3] + xs[1::3]) + xs[2::3]
    np.testing.assert_array_equal(got, want)

"""Peer workloads for bench/ir_core.py: xDSL and MLIR's C++ core (through jaxlib's bindings).

Each class mirrors `AccyWorkload` in ir_core.py: the same IR (a function `chain` whose body is a
zero constant, N binary float adds on tensor<4xf32> and a return), built through the framework's
Python API, and the same operations on it. Importing a class's framework raises ImportError when
it is missing, so ir_core.py skips that peer.

XdslWorkload (xDSL, pure Python): `arith.addf`/`arith.constant` in `func.func` in a
`builtin.module`. No compiled walk exists, so `walk_native` is None. The dead-code check uses
xDSL's own effect query (`is_side_effect_free`). Memory is measured with tracemalloc, as for accy.

MlirWorkload (MLIR C++ IR through jaxlib's nanobind bindings): the same ops. Caveats:
  * walk: the bindings' `Operation.walk` is native but calls a Python callback per op, so it is
    the Python walk; there is no native walk without per-op Python work, so `walk_native` is None.
  * print uses `assume_verified=True`, since MLIR's printer otherwise verifies the module first.
  * parse: `Module.parse` always verifies after parsing (the bindings offer no way not to), so
    MLIR's parse time includes a verification that accy's and xDSL's do not.
  * use lists: a value's uses are an iterator, so counting them means iterating them.
  * dead-code removal: the bindings expose no memory-effect query, so "has no side effects" is a
    lookup of the op name in a set of the two pure ops used here (cheaper than a real query).
  * walks, rewrite and dce materialise ops as Python objects (the bindings' way to reach them).
  * retained bytes: the IR lives in C++ memory, invisible to tracemalloc, so it is the growth
    of the process's resident set (/proc/self/statm) around building a module, after a warm-up
    build and glibc's malloc_trim (so freed heap is handed back and not silently reused). It
    includes the Python-side growth too, and is page-granular, so it is approximate.
"""
import ctypes
import gc
import io
import os
import tracemalloc

import numpy as np


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _malloc_trim():
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def mlir_chain(ir, func, t):
    """In an entered MLIR location: a module holding `func.func @chain(t, t) -> t`; returns the
    module and the function's entry block."""
    m = ir.Module.create()
    with ir.InsertionPoint(m.body):
        f = func.FuncOp("chain", ir.FunctionType.get([t, t], [t]))
    return m, f.add_entry_block()


class XdslWorkload:
    name = "xDSL"
    walk_native = None  # xDSL is pure Python: no compiled walk

    def __init__(self):
        from xdsl.context import Context
        from xdsl.dialects import arith, builtin, func
        from xdsl.parser import Parser
        from xdsl.printer import Printer
        from xdsl.traits import is_side_effect_free
        self.arith, self.builtin, self.func = arith, builtin, func
        self.Context, self.Parser, self.Printer = Context, Parser, Printer
        self.is_side_effect_free = is_side_effect_free
        self.t = builtin.TensorType(builtin.f32, [4])

    def build(self, n, dead=False):
        arith, builtin, func, t = self.arith, self.builtin, self.func, self.t
        f = func.FuncOp("chain", ([t, t], [t]))
        block = f.body.block
        a0, a1 = block.args
        add_op, AddfOp = block.add_op, arith.AddfOp
        zero = arith.ConstantOp(builtin.DenseIntOrFPElementsAttr.from_list(t, [0.0] * 4))
        add_op(zero)
        zero = zero.result
        x = a0
        for i in range(n):
            op = AddfOp(x, a1 if i % 2 else zero)
            add_op(op)
            x = op.result
        add_op(func.ReturnOp(a1 if dead else x))
        return builtin.ModuleOp([f])

    def verify(self, m):
        m.verify()

    def walk(self, m):
        return sum(1 for _ in m.walk())

    def use_lists(self, m):
        n = 0
        for op in m.walk():
            for v in op.results:
                n += v.uses.get_length()
        return n

    def print(self, m):
        out = io.StringIO()
        self.Printer(stream=out).print_op(m)
        return out.getvalue()

    def parse(self, text):
        ctx = self.Context()
        for d in (self.builtin.Builtin, self.func.Func, self.arith.Arith):
            ctx.load_dialect(d)
        return self.Parser(ctx, text).parse_module()

    def clone(self, m):
        return m.clone()

    def rewrite(self, m):
        n = 0
        AddfOp, ConstantOp = self.arith.AddfOp, self.arith.ConstantOp
        for op in m.walk():  # the block iterator steps past an erased op safely
            if isinstance(op, AddfOp) and isinstance(op.rhs.owner, ConstantOp):
                op.result.replace_all_uses_with(op.lhs)
                op.parent.erase_op(op)
                n += 1
        return n

    def dce(self, m):
        n = 0
        body = m.body.block.first_op.body.block
        pure = self.is_side_effect_free
        for op in reversed(body.ops):
            if op.results and pure(op) and not any(v.uses for v in op.results):
                body.erase_op(op)
                n += 1
        return n

    def retained_bytes(self, n):
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        m = self.build(n)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del m
        return (after - before) / n


class MlirWorkload:
    name = "MLIR (jaxlib)"
    walk_native = None  # Operation.walk calls a Python callback per op: that is the Python walk
    PURE = frozenset({"arith.addf", "arith.constant"})

    def __init__(self):
        from jax._src.interpreters import mlir as jmlir
        from jax._src.lib.mlir import ir
        from jax._src.lib.mlir.dialects import arith, func
        self.ir, self.arith, self.func = ir, arith, func
        self.ctx = jmlir.make_ir_context()
        # Entering a location also enters its context: every call runs `with self.loc:`.
        self.loc = ir.Location.unknown(self.ctx)
        with self.loc:
            self.t = ir.RankedTensorType.get([4], ir.F32Type.get())
            self.zeros = ir.DenseElementsAttr.get(np.zeros(4, np.float32), type=self.t)

    def build(self, n, dead=False):
        ir, arith, func, t = self.ir, self.arith, self.func, self.t
        with self.loc:
            m, block = mlir_chain(ir, func, t)
            with ir.InsertionPoint(block):
                a0, a1 = block.arguments
                zero = arith.ConstantOp(t, self.zeros).result
                AddFOp = arith.AddFOp
                x = a0
                for i in range(n):
                    x = AddFOp(x, a1 if i % 2 else zero).result
                func.ReturnOp([a1 if dead else x])
        return m

    def verify(self, m):
        with self.loc:
            m.operation.verify()

    def _ops(self, m, op_class=None):
        """Every op under `m` (pre-order), as a list, through the bindings' walk."""
        ops = []
        append, advance = ops.append, self.ir.WalkResult.ADVANCE
        with self.loc:
            m.operation.walk(lambda op: append(op) or advance, op_class=op_class)
        return ops

    def walk(self, m):
        n = 0
        advance = self.ir.WalkResult.ADVANCE

        def visit(op):
            nonlocal n
            n += 1
            return advance

        with self.loc:
            m.operation.walk(visit)
        return n

    def use_lists(self, m):
        n = 0
        with self.loc:
            for op in self._ops(m):
                for v in op.results:
                    for _ in v.uses:
                        n += 1
        return n

    def print(self, m):
        with self.loc:
            return m.operation.get_asm(assume_verified=True)

    def parse(self, text):
        with self.loc:
            return self.ir.Module.parse(text)

    def clone(self, m):
        with self.loc:
            return m.operation.clone()

    def rewrite(self, m):
        n = 0
        OpResult = self.ir.OpResult
        with self.loc:
            for op in self._ops(m, self.arith.AddFOp):
                lhs, rhs = op.operands
                if isinstance(rhs, OpResult) and rhs.owner.name == "arith.constant":
                    op.result.replace_all_uses_with(lhs)
                    op.erase()
                    n += 1
        return n

    def dce(self, m):
        n = 0
        pure = self.PURE
        with self.loc:
            body = m.body.operations[0].regions[0].blocks[0]
            for op in reversed(list(body.operations)):
                op = op.operation
                if op.name in pure and op.results and not any(
                        next(iter(v.uses), None) is not None for v in op.results):
                    op.erase()
                    n += 1
        return n

    def retained_bytes(self, n):
        self.build(n)  # warm-up: lazily created types, attributes, Python-side caches
        gc.collect()
        _malloc_trim()
        before = _rss_bytes()
        m = self.build(n)
        gc.collect()
        after = _rss_bytes()
        del m
        return (after - before) / n

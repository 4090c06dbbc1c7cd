"""Pass peers: xDSL's and MLIR's own canonicalize / cse / dce, run through their pass machinery.

Each class builds the same function (see `build`) and runs one framework pass on it in place:
  build(n, variant) -> module     variant: "f32", "i32", "dup" or "dead" (see VARIANTS)
  apply(m, pass_name)             pass_name: "canonicalize", "cse" or "dce"; mutates `m`
  count_ops(m) -> int             every op in `m`, module, func and return included
Importing a class's framework raises ImportError when it is missing (the peer is then skipped).

The function is `func.func @chain(%a0, %a1: tensor<4xT>) -> tensor<4xT>`:
  "f32"  zero = arith.constant dense<0.0>; n x `x = arith.addf x, (a1 if i odd else zero)`
         from x = a0; return x. No pass should change it: x + 0.0 is not x (x may be -0.0).
  "i32"  the same in i32 (arith.addi, dense<0>); x + 0 -> x holds, so canonicalize may drop
         the n/2 adds of zero and then the unused constant.
  "dup"  f32 with no constant: n // 3 times `p = addf(x, a1); q = addf(x, a1); x = addf(p, q)`;
         cse drops every `q` (n // 3 ops).
  "dead" "f32" returning a1: every add and the constant are dead; dce drops them all
         (so does canonicalize in both peers; cse drops only the last add in both).

XdslPasses (pure Python): `CanonicalizePass`, `CommonSubexpressionElimination` and
`DeadCodeElimination`, each applied through `ModulePass.apply(ctx, module)` with a Context that
has builtin, func and arith loaded. What they really do:
  * canonicalize: a `PatternRewriteWalker` sweep (a worklist of every op, plus ops touched by
    a rewrite) applying each op's canonicalization patterns and folders, then `region_dce`;
    sweeps repeat, with no iteration cap, until one changes nothing. So it also removes dead
    ops, and a sweep that changed something costs one more full sweep. Caveat: xDSL's arith
    patterns and folders only look at scalar `IntegerAttr` constants, so on tensor<4xi32> it
    does NOT fold x + dense<0>: on "i32" it does nothing (MLIR folds it; xDSL does fold a
    scalar i32 x + 0). Float patterns fold only constant+constant.
  * cse: one walk with scoped hash tables; it also erases ops already trivially dead when
    visited (like MLIR's).
  * dce: `region_dce`, a liveness fixpoint over the module's region (an op with no effects is
    live only if a live op uses it), then erases what is not live.
  No pass verifies the IR.

MlirPasses (MLIR C++ through jaxlib's bindings): `PassManager.parse("builtin.module(P)")` in a
JAX IR context, with P one of
  * "canonicalize" (defaults as jaxlib registers them: top-down=true, max-iterations=10,
    max-num-rewrites=-1, region-simplify=normal, test-convergence=false,
    cse-between-iterations=false). The greedy driver seeds a worklist with every op and, per
    op, erases it if trivially dead, folds it (op folders, e.g. addi x, 0 -> x and
    addf x, -0.0 -> x, but not addf x, 0.0), then tries its patterns; constants are uniqued
    and hoisted by its OperationFolder; region simplification (unreachable blocks, dead block
    arguments, block merging) runs after each sweep. So canonicalize includes DCE and folding.
  * "cse": dominance-scoped hash tables; ops already trivially dead when visited are erased
    too (its num-dce'd statistic).
  * dce -> "trivial-dce" (upstream TrivialDeadCodeEliminationPass, recursive=true,
    remove-blocks=true): walks in reverse dominance order (users before definitions), erasing
    side-effect-free ops with no uses, so dead chains go in one sweep; then unreachable blocks.
    It is the counterpart of xDSL's dce (not a liveness fixpoint, so dead cycles in graph
    regions would stay; none occur here). "remove-dead-values" (liveness analysis that also
    rewrites function signatures) and "symbol-dce" (symbols only) were not used.
  Verification: `pm.enable_verifier(False)` turns off the verify-after-each-pass the pass
  manager does by default, so the timing is the pass alone; running the pass manager does not
  verify its input (with the verifier on, canonicalize on "f32" took ~1.8x and cse on "dup"
  ~2.5x as long at n=100000). Each PassManager is parsed once per pass name and reused. The
  JAX context has a thread pool, but a module-level pass over one function runs on one thread.
  `count_ops` walks with a Python callback per op (a check, not a timed path).
"""

from _ir_peers import MlirWorkload, mlir_chain

VARIANTS = ("f32", "i32", "dup", "dead")
PASSES = ("canonicalize", "cse", "dce")


class XdslPasses:
    name = "xDSL"

    def __init__(self):
        from xdsl.context import Context
        from xdsl.dialects import arith, builtin, func
        from xdsl.transforms.canonicalize import CanonicalizePass
        from xdsl.transforms.common_subexpression_elimination import (
            CommonSubexpressionElimination)
        from xdsl.transforms.dead_code_elimination import DeadCodeElimination
        self.arith, self.builtin, self.func = arith, builtin, func
        self.ctx = Context()
        for d in (builtin.Builtin, func.Func, arith.Arith):
            self.ctx.load_dialect(d)
        self.passes = {"canonicalize": CanonicalizePass(),
                       "cse": CommonSubexpressionElimination(),
                       "dce": DeadCodeElimination()}
        self.types = {"f32": builtin.TensorType(builtin.f32, [4]),
                      "i32": builtin.TensorType(builtin.i32, [4])}

    def build(self, n, variant="f32"):
        arith, builtin, func = self.arith, self.builtin, self.func
        is_int = variant == "i32"
        t = self.types["i32" if is_int else "f32"]
        Add = arith.AddiOp if is_int else arith.AddfOp
        f = func.FuncOp("chain", ([t, t], [t]))
        block = f.body.block
        add_op = block.add_op
        a0, a1 = block.args
        x = a0
        if variant == "dup":
            for _ in range(n // 3):
                p, q = Add(x, a1), Add(x, a1)
                s = Add(p.result, q.result)
                add_op(p), add_op(q), add_op(s)
                x = s.result
        else:
            zero = arith.ConstantOp(builtin.DenseIntOrFPElementsAttr.from_list(
                t, [0 if is_int else 0.0] * 4))
            add_op(zero)
            zero = zero.result
            for i in range(n):
                op = Add(x, a1 if i % 2 else zero)
                add_op(op)
                x = op.result
        add_op(func.ReturnOp(a1 if variant == "dead" else x))
        return builtin.ModuleOp([f])

    def apply(self, m, pass_name):
        self.passes[pass_name].apply(self.ctx, m)

    def count_ops(self, m):
        return sum(1 for _ in m.walk())


class MlirPasses:
    name = "MLIR"
    PIPELINES = {"canonicalize": "canonicalize", "cse": "cse", "dce": "trivial-dce"}

    def __init__(self):
        import numpy as np
        from jax._src.interpreters import mlir as jmlir
        from jax._src.lib.mlir import ir, passmanager
        from jax._src.lib.mlir.dialects import arith, func
        self.ir, self.arith, self.func = ir, arith, func
        self.ctx = jmlir.make_ir_context()
        self.loc = ir.Location.unknown(self.ctx)  # entering it also enters the context
        self.pms = {}
        with self.loc:
            for name, pipeline in self.PIPELINES.items():
                pm = passmanager.PassManager.parse(f"builtin.module({pipeline})")
                pm.enable_verifier(False)
                self.pms[name] = pm
            self.types, self.zeros = {}, {}
            for key, elt, dtype in (("f32", ir.F32Type.get(), np.float32),
                                    ("i32", ir.IntegerType.get_signless(32), np.int32)):
                t = self.types[key] = ir.RankedTensorType.get([4], elt)
                self.zeros[key] = ir.DenseElementsAttr.get(np.zeros(4, dtype), type=t)

    def build(self, n, variant="f32"):
        ir, arith, func = self.ir, self.arith, self.func
        key = "i32" if variant == "i32" else "f32"
        t = self.types[key]
        Add = arith.AddIOp if key == "i32" else arith.AddFOp
        with self.loc:
            m, block = mlir_chain(ir, func, t)
            with ir.InsertionPoint(block):
                a0, a1 = block.arguments
                x = a0
                if variant == "dup":
                    for _ in range(n // 3):
                        x = Add(Add(x, a1).result, Add(x, a1).result).result
                else:
                    zero = arith.ConstantOp(t, self.zeros[key]).result
                    for i in range(n):
                        x = Add(x, a1 if i % 2 else zero).result
                func.ReturnOp([a1 if variant == "dead" else x])
        return m

    def apply(self, m, pass_name):
        with self.loc:
            self.pms[pass_name].run(m.operation)

    def count_ops(self, m):
        return MlirWorkload.walk(self, m)       # needs only self.ir and self.loc

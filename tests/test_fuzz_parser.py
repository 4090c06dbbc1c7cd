"""Deterministic fuzzing of the parser: mutated valid texts (accy's prints, and MLIR's generic
form as MLIR and JAX write it: aliases, locations, dense arrays, dialect bodies, properties),
random bytes and deep nesting must parse or raise ParseError/VerifyError -- never another
exception, never a crash -- and a failed parse leaves the Context as it was."""
import os
import random
import textwrap
from pathlib import Path

import numpy as np
import pytest

from accy.ir import (UNIT, Builder, Context, DenseAttr, FloatAttr, FunctionType, IntAttr, Module,
                     ParseError, SymbolRefAttr, TensorType, VerifyError, parse)

from child_process import each_in_child

F32, I32 = TensorType("f32", [2, 3]), TensorType("i32")
REPO = Path(__file__).resolve().parent.parent
PUNCTUATION = b'%^@"(){}[]<>:,=#!-.0123456789'

FUNC_TEXT = """
builtin.module <{sym_name = "m"}> ({
  builtin.func <{function_type = (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>,
                 sym_name = "f"}> ({
  ^bb0(%a: tensor<2x3xf32>, %n: tensor<i32>):
    %r = builtin.call %a, %n {callee = @f} : tensor<2x3xf32>
    builtin.return %r
  })
  %0:2 = "t.pair"() {x = -0.0 : f16, y = [1, "s\\22\\n", @g, unit]}
         : () -> (tensor<i32>, tensor<i32>)
  "t.use"(%0#1, %0#0) : (tensor<i32>, tensor<i32>) -> ()
})
"""

MISC_TEXT = """// top-level ops without a module get one
%a:2 = "t.two"() : () -> (tensor<i8>, tensor<i8>)
t.use %a#0, %a#1 {h = 0x1F : i16, u = 255 : u8, b = true, e = [], d = {}, s = @"x y",
                  t = !d.t<4x?>, z = dense<"0x0102"> : tensor<2xi8>, n = -1.5e-3 : f32,
                  w = dense<true> : tensor<2x2xi1>, q = dense<[[1], [2]]> : tensor<2x1xu8>}
"t.r"() ({
^bb0(%x: tensor<f32>):
  "t.br"(%x) : (tensor<f32>) -> ()
^bb1:
}, {}) : () -> ()
"""


# MLIR's generic form as MLIR prints it: the grammar accy reads but does not print back as written
MLIR_TEXT = """#loc1 = loc("x.py":3:5 to :9)
#dims = array<i64: 0, 1>
!tok = !stablehlo.token
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<2x3xf32>) -> tensor<3xi32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x3xf32> loc("x"), %arg1: tensor<ui8> loc(#loc1)):
    %0 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32> loc(#loc7)
    %1:2 = "stablehlo.reduce"(%arg0, %0) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg2: tensor<f32> loc("r"(#loc1)), %arg3: tensor<f32>):
      %2 = "stablehlo.compare"(%arg2, %arg3) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%arg2, %2) : (tensor<f32>, tensor<i1>) -> () loc(fused[#loc1, unknown])
    }) : (tensor<2x3xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xi1>) loc(callsite(#loc1 at #loc7))
    %3 = "stablehlo.gather"(%arg0, %1#0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = #dims, x = array<f32: 1.000000e+00, 0x7FC00000>, y = dense<[0x7FC00000, 2.5]> : tensor<2xf32>, z = dense<"0x0000803F"> : tensor<3xf32>, w = dense<> : tensor<0xi1>, v = #d.b<"s\\\">", [1], {a}>}> {mhlo.sharding = "{replicated}"} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<3xi32>
    "func.return"(%3) : (tensor<3xi32>) -> ()
  }) : () -> ()
}) {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32} : () -> () loc(#loc)
#loc = loc(unknown)
#loc7 = loc("jit(f)/reduce"(#loc1))
"""
CORPUS = REPO / "tests" / "stablehlo"


def source_texts():
    """Texts in the forms MLIR writes (mutated like the printed seeds)."""
    return [MLIR_TEXT.encode()] + [(CORPUS / name).read_bytes() for name in
                                   ("cond.generic.mlir", "softmax.loc.generic.mlir")]


def built_module():
    """A module with regions, several blocks, block arguments and attributes of every kind."""
    ctx = Context(allow_unregistered=True)
    m = Module.create(ctx)
    b = Builder(ctx).at_end(m.body)
    a = b.create("t.const", (), [F32], {
        "v": DenseAttr(np.arange(6, dtype=np.float32).reshape(2, 3)), "i": IntAttr(-7, "i8"),
        "f": FloatAttr(None, "bf16", bits=0x7FC1), "s": 'q"\\\t\x01é', "u": UNIT,
        "t": FunctionType([F32], [I32, I32]), "d": {"k": (1, 2.5, True), "a b": SymbolRefAttr("x")},
        "b": DenseAttr(np.array([True, False])), "h": DenseAttr(np.full(4, np.nan, np.float32))})
    loop = b.create("t.loop", (a.result,), [F32, I32], {"n": 3}, regions=2)
    entry = loop.regions[0].add_block([F32, I32])
    inner = Builder(ctx).at_end(entry)
    s = inner.create("t.add", (entry.arguments[0], a.result), [F32])
    nested = inner.create("t.if", (entry.arguments[1],), [], regions=1)
    Builder(ctx).at_end(nested.regions[0].add_block()).create("t.yield", (s.result,), [])
    inner.create("t.yield", (s.result, entry.arguments[1]), [])
    second = loop.regions[0].add_block([I32])
    Builder(ctx).at_end(second).create("t.yield", (second.arguments[0],), [])
    b.create("t.ret", loop.results, [])
    return m


def seed_texts():
    ctx = Context(allow_unregistered=True)
    modules = [built_module(), parse(FUNC_TEXT, ctx), parse(MISC_TEXT, ctx)]
    return [m.print(generic=g).encode() for m in modules for g in (False, True)]


def counts(ctx):
    return ctx.num_operations, ctx.num_values, ctx.num_blocks


def check_input(ctx, data, verify):
    """Parse `data` in `ctx`; return "kind of misbehaviour -- details", or None."""
    before = counts(ctx)
    try:
        m = parse(data, ctx, verify=verify)
    except (ParseError, VerifyError):
        if counts(ctx) != before:
            return f"a failed parse changed the Context -- {before} -> {counts(ctx)}"
        return None
    except Exception as e:
        return f"parse raised {type(e).__name__}: {str(e)[:80]}"
    valid = True
    try:
        try:
            m.verify()
        except VerifyError:
            valid = False
        text = m.print()
        m.print(generic=True)
    except Exception as e:
        return f"verify/print of a parsed module raised {type(e).__name__} -- {e}"
    try:
        if valid:                           # valid IR prints to text that parses back to it
            again = parse(text, ctx)
            lines = again.print().splitlines()
            again.erase(force=True)
            diff = [(a, b) for a, b in zip(text.splitlines(), lines) if a != b]
            assert not diff and len(lines) == len(text.splitlines()), \
                f"prints differently; first difference: {diff[:1]}"
    except Exception as e:
        return f"the printed text of a parsed valid module does not parse back to it -- {e}"
    m.erase(force=True)
    if counts(ctx) != before:
        return f"erasing the parsed modules did not restore the Context -- {counts(ctx)}"
    return None


def mutate(rng, data):
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(data) + 1)
        j = min(len(data), i + rng.randint(1, 12))
        kind = rng.randrange(6)
        if kind == 0 and i < len(data):                        # flip a bit
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
        elif kind == 1:                                        # delete a slice
            data = data[:i] + data[j:]
        elif kind == 2:                                        # insert punctuation or digits
            data = data[:i] + bytes(rng.choices(PUNCTUATION, k=rng.randint(1, 3))) + data[i:]
        elif kind == 3:                                        # duplicate a slice
            data = data[:j] + data[i:j] + data[j:]
        elif kind == 4:                                        # random bytes in place
            data = data[:i] + rng.randbytes(j - i) + data[j:]
        else:                                                  # swap two bytes
            k = rng.randrange(len(data) + 1)
            if i < len(data) and k < len(data):
                b = bytearray(data)
                b[i], b[k] = b[k], b[i]
                data = bytes(b)
    return data


def run_inputs(inputs):
    """Check every input in one Context; report the shortest input of each kind of failure."""
    ctx = Context(allow_unregistered=True)
    failures = {}
    for n, data in enumerate(inputs):
        problem = check_input(ctx, data, verify=n % 2 == 0)
        if problem:
            failures.setdefault(problem.split(" -- ")[0], []).append((data, problem))
    report = "\n".join(f"{len(v)} x {k}; the shortest input:\n    {d!r}\n    {p[:500]}"
                       for k, v in failures.items() for d, p in [min(v, key=lambda x: len(x[0]))])
    assert not failures, f"misbehaviour on {sum(map(len, failures.values()))} of {len(inputs)} " \
                         f"inputs:\n{report}"
    return len(inputs)


def test_seed_texts_parse():
    ctx = Context(allow_unregistered=True)
    for text in seed_texts():
        assert parse(text, ctx).print(generic=b'"builtin.module"' in text).encode() == text
    for text in source_texts():
        assert parse(text, ctx).print(generic=True)


def test_mutated_texts():
    rng = random.Random(20240601)
    seeds = seed_texts() + source_texts()
    inputs = [mutate(rng, rng.choice(seeds)) for _ in range(30000)]
    for text in seed_texts() + source_texts()[:1]:             # every truncation, k apart
        inputs += [text[:i] for i in range(0, len(text), 7)]
    assert run_inputs(inputs) >= 30000


def test_random_bytes():
    rng = random.Random(7)
    alphabet = bytes(range(1, 128)) + PUNCTUATION * 4
    inputs = [rng.randbytes(rng.randrange(80)) for _ in range(3000)]       # mostly invalid UTF-8
    inputs += [bytes(rng.choices(alphabet, k=rng.randrange(80))) for _ in range(3000)]
    inputs += [b"\x00", b"t.op {s = \"\xff\xfe\"}", b"\xc3", "t.\u00e9 {a = 1}".encode()]
    run_inputs(inputs)


def test_nesting_around_the_depth_limit():
    """Just under and over the parser's nesting limit, in this process: ParseError or a module,
    and a failed parse (deep inside nested ops) leaves nothing behind."""
    inputs = []
    for n in (50, 199, 200, 201, 260):
        inputs.append(("%x = t.v : tensor<f32>\n" + "t.op %x ({\n" * n + "t.leaf %x {a = [[1]]}"
                       + "\n})" * n).encode())
        inputs.append(("t.op ({\n" * n + '"t.bad"(%undefined) : (i32) -> ()' + "\n})" * n)
                      .encode())
        inputs.append(("t.op {a = " + "[" * n + "1" + "]" * n + "}").encode())
        inputs.append(("t.op {a = " + "{b = " * n + "1" + "}" * n + "}").encode())
    run_inputs(inputs)


# The parser's nesting limits (accy/_core/text.pyx: MAX_DEPTH for attributes and types,
# MAX_REGION_DEPTH for regions) and a nesting of each kind: (the text before it, one level, the
# text that closes n levels, the limit it counts against).
ATTRIBUTE_LIMIT, REGION_LIMIT = 200, 1000
NESTINGS = {
    "array": ("t.op {a = ", "[", lambda n: "]" * n + "}", ATTRIBUTE_LIMIT),
    "dictionary": ("t.op {a = ", "{a = ", lambda n: "1" + "}" * n + "}", ATTRIBUTE_LIMIT),
    "dense": ("t.op {a = dense<", "[", lambda n: "1" + "]" * n + "> : tensor<1xf32>}",
              ATTRIBUTE_LIMIT),
    "generic regions": ("", '"t.op"() ({\n', lambda n: "}) : () -> ()\n" * n, REGION_LIMIT),
    "pretty regions": ("", "t.op ({\n", lambda n: "})\n" * n, REGION_LIMIT),
    "function type inputs": ("t.op {a = ", "(", lambda n: "tensor<f32>" + ") -> tensor<f32>" * n
                             + "}", ATTRIBUTE_LIMIT),
    "function type results": ("t.op {a = ", "() -> (", lambda n: "tensor<f32>" + ")" * n + "}",
                              ATTRIBUTE_LIMIT),
    "value type": ("%0 = t.op : ", "(", lambda n: "tensor<i32>" + ") -> tensor<i32>" * n,
                   ATTRIBUTE_LIMIT),
    "opaque type": ("t.op {a = !d.t", "<", lambda n: ">" * n + "}", ATTRIBUTE_LIMIT),
    "dialect attribute body": ("t.op {a = #d.t", "<", lambda n: ">" * n + "}", ATTRIBUTE_LIMIT),
    "dialect body of mixed brackets": ("t.op {a = #d.t<", "([{", lambda n: "}])" * n + ">}",
                                       ATTRIBUTE_LIMIT // 3),
    "location": ('"t.op"() : () -> () loc(', '"n"(', lambda n: "unknown" + ")" * n + ")",
                 ATTRIBUTE_LIMIT),
    "callsite": ('"t.op"() : () -> () loc(', "callsite(", lambda n: "unknown" + " at unknown)" * n
                 + ")", ATTRIBUTE_LIMIT),
}


def nested(name, n):
    before, level, close, _ = NESTINGS[name]
    return before + level * n + close(n)


def error_offset(text, e):
    """The character offset in `text` of a ParseError's line and column."""
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:e.line - 1]) + e.column - 1


@pytest.mark.parametrize("name", NESTINGS)
def test_nesting_just_past_the_limit_is_a_parse_error_where_it_passes(name):
    """A little under the limit is no nesting error (the levels around the nesting, such as the
    attribute dictionary or `dense<`, count too; a dense literal that deep has no tensor type of
    its rank); one level past it is a ParseError about nesting reported no further into the text
    than that level, so the parser's work and recursion stop at the limit whatever follows (the
    deep cases below rely on it)."""
    before, level, _, limit = NESTINGS[name]
    ctx = Context(allow_unregistered=True)
    try:
        parse(nested(name, limit - 2), ctx).erase(force=True)
    except ParseError as e:
        assert name == "dense" and "nesting" not in e.message, e.message
    assert counts(ctx) == (0, 0, 0)
    text = nested(name, limit + 1)
    with pytest.raises(ParseError, match="nesting too deep") as e:
        parse(text, ctx)
    assert counts(ctx) == (0, 0, 0)
    assert error_offset(text, e.value) <= len(before) + (limit + 1) * len(level)


DEEP_CASES = {
    "array": 't.op {a = ' + "[" * 100000 + "]" * 100000 + '}',
    "open array": 't.op {a = ' + "[" * 100000,
    "dictionary": 't.op {a = ' + "{a = " * 50000 + "1" + "}" * 50000 + '}',
    "dense": 't.op {a = dense<' + "[" * 100000 + "1" + "]" * 100000 + '> : tensor<1xf32>}',
    "generic regions": '"t.op"() ({' * 5000,
    "pretty regions": 't.op ({' * 5000,
    "closed regions": '"t.op"() ({' * 5000 + "}) : () -> ()" * 5000,
    "function type chain": 't.op {a = ' + "() -> " * 100000 + 'tensor<f32>}',
    "function type inputs": 't.op {a = ' + "(" * 1000 + "tensor<f32>" + ") -> tensor<f32>" * 1000
                            + '}',
    "function type results": 't.op {a = ' + "() -> (" * 1000 + "tensor<f32>" + ")" * 1000 + '}',
    "value type": '%0 = t.op : ' + "(" * 1000 + "tensor<f32>" + ") -> i32" * 1000,
    "region openers": 't.op ' + "({" * 5000,
    "type brackets": 't.op {a = tensor<' + "<" * 100000 + '>}',
    "opaque type brackets": 't.op {a = !d.t' + "<" * 100000 + '}',
    "dialect attribute brackets": 't.op {a = #d.t' + "<" * 100000 + '}',
    "dialect body parentheses": 't.op {a = #d.t<' + "(" * 100000 + ")" * 100000 + '>}',
    "locations": '"t.op"() : () -> () loc(' + '"n"(' * 100000,
    "fused locations": '"t.op"() : () -> () loc(' + "fused[" * 100000,
    "location alias uses": '"t.op"() : () -> () loc(#l)\n' * 20000,
}
HUGE_SPLAT = 't.op {a = dense<1> : tensor<1000000x1000000xf32>}'   # 3.6 TiB if materialized

# one line per text; the Context is freed before the line is printed, so a crash freeing it is
# the case's own
CHILD = textwrap.dedent("""
    import gc, json, sys
    from accy.ir import Context, parse
    for text in json.load(sys.stdin):
        ctx = Context(allow_unregistered=True)
        try:
            parse(text, ctx)
            outcome = "parsed"
        except BaseException as e:
            outcome = (f"{type(e).__name__} {ctx.num_operations} {ctx.num_values} "
                       f"{ctx.num_blocks}")
        del ctx
        gc.collect()
        print(outcome, flush=True)
""")


def parse_in_child(texts):
    """How parsing each of `texts` ends in a fresh process: the exception's name and the
    Context's counts, or how the child died (a C stack overflow or running out of memory kills
    the child, not pytest; the texts after it go on in a new child). The parser's limits bound
    its work; the child's CPU time is bounded too, so a hang fails the test (child_process)."""
    return each_in_child(CHILD, texts, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})


def test_deep_nesting_gives_parse_error():
    """Nesting thousands of levels deep: each case first runs in a child process; those that
    end well there run here too, in one Context that must stay empty."""
    outcomes = dict(zip(DEEP_CASES, parse_in_child(list(DEEP_CASES.values()))))
    ctx = Context(allow_unregistered=True)
    for name, outcome in outcomes.items():
        if outcome == "ParseError 0 0 0":              # safe to repeat in this process
            try:
                parse(DEEP_CASES[name], ctx)
                outcomes[name] = "parsed in this process"
            except ParseError:
                if counts(ctx) != (0, 0, 0):
                    outcomes[name] = f"left {counts(ctx)} in this process's Context"
            except Exception as e:
                outcomes[name] = f"{type(e).__name__} in this process"
    bad = {k: v for k, v in outcomes.items() if v != "ParseError 0 0 0"}
    assert not bad, "deep nesting not rejected with ParseError (then an empty Context):\n" + \
        "\n".join(f"  {k}: {v}" for k, v in bad.items())


def test_long_alias_chains_cost_no_recursion():
    """An alias holds its value, a location alias is only checked to be defined: chains 20,000
    long (of attributes, of locations defined after their uses) parse without recursing."""
    attrs = "".join(f"#a{i} = #a{i - 1}\n" if i else "#a0 = [1]\n" for i in range(20000))
    m = parse(attrs + '"t.op"() {v = #a19999} : () -> ()', Context(allow_unregistered=True))
    assert m.body.first_op.attributes["v"] == (1,)
    locs = "".join(f"#l{i} = loc(callsite(#l{i + 1} at unknown))\n" for i in range(20000))
    text = '"t.op"() : () -> () loc(#l0)\n' + locs + "#l20000 = loc(unknown)\n"
    assert parse(text, Context(allow_unregistered=True)).print(generic=True).count("t.op") == 1


def test_huge_dense_splat_is_rejected():
    assert parse_in_child([HUGE_SPLAT]) in (["ParseError 0 0 0"], ["CapacityError 0 0 0"])

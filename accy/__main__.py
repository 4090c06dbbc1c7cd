"""The `accy` command.

    accy                       trace the bundled model, print its IR, run it on the reference
                               interpreter and check it against numpy; then put the bundled IR
                               example through the IR core and the passes
    accy opt FILE [options]    read IR text (accy or MLIR generic form; '-' for stdin), verify
                               it, run a pass pipeline on it (--pipeline) and print the result
"""
import argparse
import sys
import time
from importlib import resources

from accy import ir
from accy._core.context import op_statistics
from accy.errors import AccyError
from accy.passes import CrashReproducer, PassManager, PrintIR, Timing, registered_passes
from accy.passes.instruments import find_op, read_reproducer


def _read(path):
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


DEMO_PIPELINE = "canonicalize,func(cse),dce"


def _fixed_point(module, pipeline):
    """Run `pipeline` twice (verifying after each pass); the second run must change nothing."""
    pm = PassManager(pipeline)
    pm.run(module)
    once = module.print()
    pm.run(module)
    return module.print() == once


def demo():
    """The bundled model, then the bundled IR example; exit 1 on any mismatch."""
    checks = {**_demo_model(), **_demo_ir()}
    for name, ok in checks.items():
        print(f"# {'ok' if ok else 'FAILED'}: {name}")
    return 0 if all(checks.values()) else 1


def _demo_model():
    """Trace the transformer block, print its IR, run it on the reference, compare to numpy."""
    import numpy as np
    from accy import reference
    from accy.examples import transformer
    args = transformer.example_inputs()
    t0 = time.perf_counter()
    module = transformer.block.lower(*args)
    trace_ms = (time.perf_counter() - t0) * 1e3
    print("# the bundled model (accy/examples/transformer.py), traced by accy.jit:")
    print(module.print())
    (result,) = reference.run(module, *args)
    expected = transformer.block_numpy(*args)
    error = float(np.max(np.abs(result - expected) / (1 + np.abs(expected))))
    print(f"# traced in {trace_ms:.1f} ms: {op_statistics(module)}")
    print(f"# reference result {result.dtype}{list(result.shape)}, first row: "
          f"{np.array2string(result[0, 0, :6], precision=4)} ...")
    print(f"# largest error against numpy (float64): {error:.2e}")
    text = module.print()
    PassManager(DEMO_PIPELINE).run(module)
    (simplified,) = reference.run(module, *args)
    return {"the traced model verifies and round-trips as text":
            ir.parse(text, ir.Context()).print() == text,
            "the reference result matches numpy within f32 rounding": error < 1e-5,
            f"'{DEMO_PIPELINE}' on the model keeps its result bit for bit":
            simplified.tobytes() == result.tobytes()}


def _demo_ir():
    """Parse, verify, print, clone and re-parse the bundled IR example."""
    text = resources.files("accy.examples").joinpath("chain.mlir").read_text(encoding="utf-8")
    t0 = time.perf_counter()
    ctx = ir.Context()
    module = ir.parse(text, ctx)
    parse_ms = (time.perf_counter() - t0) * 1e3
    pretty = module.print()
    generic = module.print(generic=True)
    print("# bundled example, parsed and verified, in accy's pretty form:")
    print(pretty)
    print("# the same module in MLIR's generic operation form:")
    print(generic)
    checks = {
        "pretty text round-trips": ir.parse(pretty, ir.Context()).print() == pretty,
        "generic text round-trips": ir.parse(generic, ir.Context()).print(generic=True) == generic,
        "clone into a new Context prints the same": module.clone(ir.Context()).print() == pretty,
        "fingerprint is name-independent":
            ir.parse(generic, ir.Context()).fingerprint() == module.fingerprint(),
        f"pipeline '{DEMO_PIPELINE}' keeps it valid and reaches a fixed point":
            _fixed_point(module.clone(ir.Context()), DEMO_PIPELINE),
    }
    print(f"# op counts: {op_statistics(module)}")
    print(f"# fingerprint: {module.fingerprint()}")
    print(f"# parse + verify: {parse_ms:.2f} ms; record storage: {ctx.memory_bytes()} bytes")
    return checks


def opt(args):
    text = _read(args.file)
    pipeline, unregistered, path = args.pipeline, args.allow_unregistered, ""
    if args.run_reproducer:
        try:
            pipeline, unregistered, path = read_reproducer(text)
        except ValueError as e:
            raise AccyError(f"{args.file}: {e}") from None
    ctx = ir.Context(allow_unregistered=unregistered)
    module = ir.parse(text, ctx, verify=not args.no_verify)
    if pipeline:
        try:
            target = find_op(module, path)
        except ValueError as e:
            raise AccyError(f"{args.file}: {e}") from None
        instruments = []
        if args.timing:
            instruments.append(Timing())
        if args.print_ir_after_all or args.print_ir_after_change:
            instruments.append(PrintIR("all" if args.print_ir_after_all else "change",
                                       generic=args.generic))
        if args.reproducer:
            instruments.append(CrashReproducer(args.reproducer))
        PassManager(pipeline, instruments=instruments).run(target)
    text = module.print(generic=args.generic)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if args.stats:
        for name, count in op_statistics(module).items():
            print(f"// {count:8d} {name}")
    if args.fingerprint:
        print(f"// fingerprint {module.fingerprint()}")
    if args.print_plans:
        print(_plans(module))
    return 0


def _plans(module):
    """The preparation analyses of `module`, as comment lines: the target profile, then per
    function its shape/layout analysis, schedule plan, kernel outlines and buffer plan."""
    from accy.passes.plans import plans_text
    return "\n".join("// " + line for line in plans_text(module).splitlines())


def main(argv=None):
    parser = argparse.ArgumentParser(prog="accy", description="accy, a tensor compiler for GPUs")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("opt", help="read, verify and print IR text")
    p.add_argument("file", help="IR text file, or - for standard input")
    p.add_argument("--generic", action="store_true", help="print MLIR's generic form")
    p.add_argument("--no-verify", action="store_true", help="skip the verifier")
    p.add_argument("--allow-unregistered", action="store_true",
                   help="accept ops that no dialect registers")
    p.add_argument("--stats", action="store_true", help="print op counts")
    p.add_argument("--fingerprint", action="store_true", help="print the structural hash")
    p.add_argument("--print-plans", action="store_true",
                   help="after the pipeline, print the preparation plans (target profile, "
                        "shapes and index maps per function)")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--pipeline", metavar="P",
                   help="pass pipeline, e.g. 'canonicalize{max-iterations=4},func(cse),dce'; passes: "
                        + ", ".join(registered_passes()))
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--print-ir-after-all", action="store_true",
                       help="print the IR after every pass (to stderr)")
    shown.add_argument("--print-ir-after-change", action="store_true",
                       help="print the IR after each pass that changed it (to stderr)")
    p.add_argument("--timing", action="store_true",
                   help="report pass and analysis times and cache counters (to stderr)")
    p.add_argument("--reproducer", metavar="PATH",
                   help="when a pass fails, write the pipeline and input IR to PATH")
    source.add_argument("--run-reproducer", action="store_true",
                   help="FILE is a reproducer: run the pipeline written in it")
    args = parser.parse_args(argv)
    try:
        if args.command == "opt":
            return opt(args)
        return demo()
    except (AccyError, OSError) as e:
        print(f"accy: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

"""The `accy` command.

    accy                       trace the bundled model, print its IR, run it on the reference
                               interpreter and check it against numpy; then put the bundled IR
                               example through the IR core and the passes
    accy opt FILE [options]    read IR text (accy or MLIR generic form; '-' for stdin), verify
                               it, run a pass pipeline on it (--pipeline) and print the result
    accy compile SOURCE [--target sm_90] [--cubin] [-o DIR]
                               compile a function to PTX; write DIR/<stem>.ptx (and with
                               --cubin, ptxas's DIR/<stem>.cubin), the executable's bundle
                               DIR/<stem>.accy and a report, and remove those files of <stem>
                               that an earlier run left (output_stem)
    accy compile SOURCE --emit STAGE [--from STAGE]
                               print one stage's output (tensor, prepared, plans, kl, ptx,
                               cubin, host: accy/compiler.py) and write nothing; --from
                               prepared|kl|ptx reads SOURCE as that stage's printed text
    accy run SOURCE [--device emulator|cuda|reference]
                               compile, run on the example inputs and check against the
                               reference interpreter
    accy inspect FILE          check a bundle (FILE.accy) and print its header, sections,
                               signature, kernels and host program
    accy batch SOURCE... -o DIR [-j N] [--scheduler ADDRESS] [--target T]
                               compile many sources at once (accy.compile_many): one bundle
                               DIR/<stem>.accy per source that compiled, DIR/summary.jsonl
                               (a line per source), exit 1 when any failed
    accy cache info|clear|prune [--max-bytes N] [--dir DIR]
                               the compile cache's folder (default $ACCY_CACHE_DIR, else
                               ~/.cache/accy): what it holds, remove every entry, or remove
                               the least recently used down to N bytes (default its bound)
    accy config [--cflags] [--libs]
                               the flags that compile and link a C program against libaccyrt,
                               the C runtime (both when neither is asked for)

SOURCE is FILE.py:FUNC or package.module:FUNC (the module's `example_inputs()` gives the
arguments as a list or tuple; an `accy.jit` function or a plain one), or an IR text file with
one function (compiled from its signature; `run` draws its inputs at random). An existing file
is an IR file even with a ':' in its path. Every mistake, and an exception raised while
importing the user's module, calling its example_inputs() or tracing the function (naming the
user's line), is one `accy: error:` line.
"""
import argparse
import math
import os
import re
import string
import sys
import time
from importlib import resources

from accy import ir, stablehlo
from accy._core.context import op_statistics
from accy._core.text import decode_text
from accy.compiler import STAGES
from accy.errors import AccyError
from accy.files import replace_file
from accy.passes import CrashReproducer, PassManager, PrintIR, Timing, registered_passes
from accy.passes.instruments import find_op, read_reproducer
from accy.passes.target import TargetProfile
from accy.safe_names import safe_name


def _read(path):
    """The text of the file at `path` ('-': standard input); ParseError naming the byte offset
    where it is not UTF-8."""
    if path == "-":
        return decode_text(sys.stdin.buffer.read())
    with open(path, "rb") as f:
        return decode_text(f.read())


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
    compiled, device = _demo_compiled(transformer, args)
    compiled_error = float(np.max(np.abs(compiled - result) / (1 + np.abs(result))))
    return {"the traced model verifies and round-trips as text":
            ir.parse(text, ir.Context()).print() == text,
            "the reference result matches numpy within f32 rounding": error < 1e-5,
            f"'{DEMO_PIPELINE}' on the model keeps its result bit for bit":
            simplified.tobytes() == result.tobytes(),
            f"accy.compile's executable on the {device} matches the reference":
            compiled_error < 1e-5}


def _demo_compiled(transformer, args):
    """Compile the model (PTX kernels where a lowering exists, host fallbacks elsewhere) and
    run it on a GPU when there is one, else on the emulator."""
    import accy
    from accy.compiler import target_for
    from accy.runtime.devices import best_device
    device = best_device()
    exe = accy.compile(transformer.block, *args, target=target_for(device))
    print("# compiled by accy.compile:")
    print("\n".join("#   " + line for line in exe.report().splitlines()))
    return exe.run(*args, device=device), device


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


MAX_RANDOM_INPUT_BYTES = 1 << 32
DRAW_CHUNK = 1 << 20        # values drawn (as float32) per step, then cast in place


def random_inputs(source, func):
    """Arrays drawn at random (standard normal, cast to each argument's dtype) for the
    arguments of an IR file's function `func` (accy run); an AccyError when they would pass
    MAX_RANDOM_INPUT_BYTES or memory. The arrays are made in their own dtype and filled
    DRAW_CHUNK values at a time, so the peak is their size plus one chunk."""
    import numpy as np
    types = [a.type for a in func.regions[0].blocks[0].arguments]
    nbytes = sum(math.prod(t.shape) * ir.numpy_dtype(t.dtype).itemsize for t in types)
    too_large = AccyError(f"{source}: random inputs for its arguments need {nbytes} bytes, "
                          f"more than accy run draws ({MAX_RANDOM_INPUT_BYTES}); run it from "
                          f"a FILE.py:FUNC with example_inputs(), or `accy compile` it")
    if nbytes > MAX_RANDOM_INPUT_BYTES:
        raise too_large
    rng = np.random.default_rng(0)
    arrays = []
    try:
        for t in types:
            array = np.empty(t.shape, ir.numpy_dtype(t.dtype))
            flat = array.reshape(-1)
            for start in range(0, flat.size, DRAW_CHUNK):
                part = flat[start:start + DRAW_CHUNK]
                part[...] = rng.standard_normal(part.size, dtype=np.float32)
            arrays.append(array)
    except MemoryError:
        raise too_large from None
    return arrays


STAGE_NAMES = tuple(s.name for s in STAGES)
RESUMABLE = tuple(s.name for s in STAGES if s.resumes)
SOURCE_FORMS = "SOURCE is FILE.py:FUNC, package.module:FUNC or an IR text file"


def npz_inputs(path, func):
    """The arrays of an .npz file (`accy run --inputs`) for the arguments of `func`: named
    arg0, arg1, ... (other arrays, such as expected outputs, are ignored), else, when none is
    so named, the file's arrays in order, exactly one per argument. Each has its argument's
    shape and dtype; a bf16 argument also takes float32 values, rounded once, or its bits as
    uint16 under the name `argN.bf16` (an .npz holds no bf16)."""
    import zipfile
    import numpy as np
    types = [a.type for a in func.regions[0].blocks[0].arguments]
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise AccyError(f"{path}: not a readable .npz file ({e})") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise AccyError(f"{path}: not an .npz file (np.savez writes one), a single array")
    try:
        with data:
            arrays = {}
            for key in data.files:
                name, _, tag = key.partition(".")
                arrays[name] = (data[key], tag)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise AccyError(f"{path}: not a readable .npz file ({e})") from None
    named = [f"arg{i}" for i in range(len(types))]
    if any(re.fullmatch(r"arg\d+", n) for n in arrays):
        missing = [n for n in named if n not in arrays]
        if missing:
            raise AccyError(f"{path} has no {', '.join(missing)}; the function takes "
                            f"{len(types)} arguments")
        chosen = [arrays[n] for n in named]
    elif len(arrays) == len(types):
        chosen = list(arrays.values())
    else:
        raise AccyError(f"{path} holds {len(arrays)} arrays; the function takes {len(types)}")
    out = []
    for i, ((a, tag), t) in enumerate(zip(chosen, types)):
        want = ir.numpy_dtype(t.dtype)
        if t.dtype == "bf16" and tag == "bf16" and a.dtype == np.uint16:
            a = a.view(want)
        elif t.dtype == "bf16" and a.dtype == np.float32 and not tag:
            a = a.astype(want)
        if tuple(a.shape) != tuple(t.shape) or a.dtype != want or tag not in ("", "bf16"):
            raise AccyError(f"{path}: argument {i} is {t}, the file's array is "
                            f"{a.dtype}{list(a.shape)}")
        out.append(a)
    return out


def load_source(source, inputs=True):
    """(name, function or module, example arrays) for a SOURCE argument. An existing file is an
    IR file (a ':' in its path is no FUNC); its arrays are drawn at random only when `inputs`
    is true (accy.compile needs none for a module)."""
    import os
    if os.path.isfile(source) or ":" not in source:
        if source.endswith(".py"):
            raise AccyError(f"{source}: a Python file needs the function to compile: "
                            f"{source}:FUNC")
        return _load_ir(source, inputs)
    where, name = source.rsplit(":", 1)
    if not name.isidentifier() or not where:
        raise AccyError(f"{source}: no such file, and not a FILE.py:FUNC or "
                        f"package.module:FUNC ({SOURCE_FORMS})")
    pymod = _import(where)
    fn = getattr(pymod, name, None)
    if fn is None or not callable(fn):
        raise AccyError(f"{where} has no function '{name}'")
    example_inputs = getattr(pymod, "example_inputs", None)
    if example_inputs is None:
        raise AccyError(f"{where} needs an example_inputs() giving {name}'s arguments")
    try:
        arrays = example_inputs()
    except Exception as e:
        raise AccyError(f"{where}: example_inputs() raised {type(e).__name__}: {e}") from e
    if not isinstance(arrays, (list, tuple)):
        raise AccyError(f"{where}: example_inputs() must return a list or tuple of {name}'s "
                        f"arguments, got {type(arrays).__name__}")
    return name, fn, list(arrays)


def read_module(source):
    """The tensor-level module of an IR file: StableHLO (pretty or generic form, imported) or
    accy's own IR text."""
    text = _read(source)
    if stablehlo.is_stablehlo(text):
        return stablehlo.load(text)
    return ir.parse(text, ir.Context())


def _load_ir(source, inputs):
    module = read_module(source)
    funcs = [op for op in module.body if op.name == "builtin.func"]
    if len(funcs) != 1:
        raise AccyError(f"{source}: an IR file for accy compile holds one function, got "
                        f"{len(funcs)}")
    if isinstance(inputs, str):
        arrays = npz_inputs(inputs, funcs[0])
    else:
        arrays = random_inputs(source, funcs[0]) if inputs else []
    return str(funcs[0].attributes.get("sym_name", "main")), module, arrays


def _import(where):
    """The Python module of a SOURCE's FILE.py or package.module; an AccyError when it is not
    there, or when importing it raises (the user's exception named, with its message)."""
    import importlib
    import importlib.util
    import os
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise OSError(f"{where}: no such file")
    elif not all(part.isidentifier() for part in where.split(".")):
        raise AccyError(f"{where}: not a module name ({SOURCE_FORMS})")
    try:
        if where.endswith(".py"):
            spec = importlib.util.spec_from_file_location(
                os.path.splitext(os.path.basename(where))[0], where)
            pymod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(pymod)
            return pymod
        if importlib.util.find_spec(where) is None:     # (imports the parent packages)
            raise ModuleNotFoundError(name=where)
        return importlib.import_module(where)
    except Exception as e:
        missing = getattr(e, "name", None) if isinstance(e, ModuleNotFoundError) else None
        if missing and (where + ".").startswith(missing + "."):
            raise AccyError(f"{where}: no module named {missing!r} ({SOURCE_FORMS})") from None
        raise AccyError(f"{where}: importing it raised {type(e).__name__}: {e}") from e


_FILE_NAME = frozenset(string.ascii_letters + string.digits + "_.-")
MAX_STEM = 200      # leaves room for ".report.txt" within the usual 255-byte name limit


def output_stem(name):
    """The file name stem `accy compile` writes a function `name` under, inside its -o folder
    whatever the name holds (it may come from an IR file), by the rule kernel names follow
    (accy/safe_names.py): ASCII letters, digits, '_', '-' and '.' are kept and every other
    character (path separators, NUL, spaces, non-ASCII) becomes '_'; a name starting with
    anything but a letter, digit or '_' (a '.', a '-' read as an option, nothing) gets '_' in
    front; at most MAX_STEM characters. A name that had to change ends in '+h' and a hash of
    the original, so two functions never share a stem ('a/b' and 'a_b' are two files)."""
    return safe_name(name, _FILE_NAME, _FILE_NAME - set(".-"), "+", MAX_STEM)


def _compile(compile_, name, fn, arrays, target):
    """compile_(fn, *arrays, target=target) (accy.compile, or a compilation); an exception raised in the user's own code while it is traced
    (a bug of theirs, or a numpy call on a Tensor) becomes an AccyError naming its type, its
    message and the innermost line of the user's file, instead of a traceback. Other
    exceptions (accy's own) go on."""
    import os
    from accy.frontend.location import user_line
    try:
        return compile_(fn, *arrays, target=target)
    except AccyError:
        raise
    except Exception as e:
        code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
        where = code and user_line(e.__traceback__, {os.path.abspath(code.co_filename)})
        if where is None:
            raise
        raise AccyError(f"tracing {name} raised {type(e).__name__}: {e} (at {where})") from e


OUTPUT_SUFFIXES = (".ptx", ".cubin", ".accy", ".report.txt")


def _write_outputs(folder, name, exe):
    """Write DIR/<stem>.ptx (when accy emitted kernels), .cubin (when the target makes one),
    .accy (the bundle) and .report.txt; a file of the same stem and one of those suffixes that
    this run does not write is removed (it belongs to an earlier run, and would be read as this
    one's)."""
    import os
    from accy.runtime import bundle
    os.makedirs(folder, exist_ok=True)
    base = os.path.join(folder, output_stem(name))
    report = exe.report()
    contents = {".ptx": exe.ptx or None, ".cubin": exe.cubin, ".accy": bundle.write(exe),
                ".report.txt": report + "\n"}
    written, removed = [], []
    for suffix in OUTPUT_SUFFIXES:
        path, data = base + suffix, contents[suffix]
        if data is not None:
            replace_file(path, data if isinstance(data, bytes) else data.encode("utf-8"))
            written.append(path)
        elif os.path.isfile(path) or os.path.islink(path):
            os.remove(path)
            removed.append(path)
    print(report)
    if not exe.ptx:
        print("# no PTX written: accy emitted no kernel of its own (a kernel_call runs the "
              "PTX given in the IR, as it is; host work runs on the host)")
    print(f"# wrote {', '.join(written)}")
    if removed:
        print(f"# removed {', '.join(removed)}: left by an earlier run, not written by this one")
    return 0


def resume_command(args):
    """`accy compile --from kl|ptx --emit ptx|cubin`: PTX or a cubin from printed kl or PTX."""
    from accy import compiler
    if args.emit not in ("ptx", "cubin"):
        why = ("needs the plans, which printed kl or PTX does not hold: compile from the "
               "tensor or prepared IR" if args.emit in ("plans", "host") else
               f"is not a stage after {args.start}")
        raise AccyError(f"from printed {args.start}, accy compile reaches ptx and cubin only "
                        f"(--emit {args.emit} {why})")
    target = args.target
    if args.cubin or args.emit == "cubin":
        target = {"arch": args.target or TargetProfile().arch, "artifact_format": "cubin"}
    text = _read(args.source)
    c = (compiler.resume_kl(text, target, stop=args.emit) if args.start == "kl"
         else compiler.resume_ptx(text, target))
    sys.stdout.write(c.text(args.emit))
    return 0


def compile_command(args):
    import numpy as np
    import accy
    from accy import compiler
    emit, start = getattr(args, "emit", None), getattr(args, "start", None) or "tensor"
    if start != "tensor" and emit is None:
        raise AccyError(f"--from {start} needs --emit STAGE (the stage to print)")
    if emit is not None and STAGE_NAMES.index(emit) < STAGE_NAMES.index(start):
        raise AccyError(f"--emit {emit} is not after --from {start}: emit a later stage")
    if start in ("kl", "ptx"):
        return resume_command(args)
    inputs = getattr(args, "inputs", None)
    if inputs is not None and not (os.path.isfile(args.source) or ":" not in args.source):
        raise AccyError("--inputs is for an IR file; a FILE.py:FUNC gives example_inputs()")
    name, fn, arrays = load_source(args.source, inputs=inputs or args.command == "run")
    target = args.target
    if target is None and args.command == "run":
        from accy.compiler import target_for
        from accy.passes.target import ATTRIBUTE
        from accy.runtime.devices import best_device
        own = fn.attributes.get(ATTRIBUTE) if hasattr(fn, "body") else None
        target = target_for(args.device or best_device(),   # the GPU's arch if it needs one
                            dict(own.items()) if own is not None else None)
    if getattr(args, "cubin", False):     # the module's own target, with a cubin artifact
        from accy.passes.target import ATTRIBUTE
        own = fn.attributes.get(ATTRIBUTE) if hasattr(fn, "body") else None
        target = {**(dict(own.items()) if own is not None else {}),
                  **({"arch": args.target} if args.target else {}), "artifact_format": "cubin"}
    if emit is not None:
        c = _compile(lambda *a, **k: compiler.compilation(*a, start=start, stop=emit, **k),
                     name, fn, arrays, target)
        sys.stdout.write(c.text(emit))
        return 0
    exe = _compile(accy.compile, name, fn, arrays, target)
    if args.command == "compile":
        return _write_outputs(args.output, name, exe)
    got = exe.run(*arrays, device=args.device)
    want = exe.run(*arrays, device="reference")
    got, want = (got, want) if isinstance(got, (tuple, list)) else ((got,), (want,))
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        same_nan = np.array_equal(np.isnan(g), np.isnan(w))
        diff = np.abs(np.where(np.isnan(w), 0, g - w)) / (1 + np.abs(np.where(np.isnan(w), 0, w)))
        worst = max(worst, float(diff.max()) if diff.size else 0.0, 0.0 if same_nan else np.inf)
    print(exe.report())
    ok = worst <= 1e-4
    print(f"# {'ok' if ok else 'FAILED'}: {name} on {args.device or 'the best device'} "
          f"matches the reference (largest relative difference {worst:.2e})")
    return 0 if ok else 1


def batch_stems(sources):
    """The file name stem of each `accy batch` SOURCE, one per source: FILE.py:FUNC gives
    'FILE.FUNC', package.module:FUNC 'package.module.FUNC', an IR file its name without the
    extension; made safe by output_stem, and a stem already given to an earlier source gets
    '+2', '+3', ... ('+' is outside what an unchanged stem holds, so none is taken twice)."""
    import os
    stems, taken = [], set()
    for source in sources:
        where, _, name = source.rpartition(":")
        if os.path.isfile(source) or not where:
            base = os.path.splitext(os.path.basename(source))[0]
        elif where.endswith(".py"):
            base = os.path.basename(where)[:-3] + "." + name
        else:
            base = where + "." + name
        stem, n = output_stem(base), 1
        while stem in taken:
            n += 1
            stem = output_stem(base) + f"+{n}"
        taken.add(stem)
        stems.append(stem)
    return stems


def batch_command(args):
    """`accy batch`: load each source (a source that cannot be loaded is a failed job), compile
    them all with accy.compile_many, write the bundles and DIR/summary.jsonl. Nothing is
    written outside DIR (the user's .py files are imported without writing bytecode)."""
    import json
    import os
    from accy.batch import CompileFailure, Job, compile_batch, dask_executor
    from accy.runtime import bundle
    stems = batch_stems(args.sources)
    os.makedirs(args.output, exist_ok=True)     # before the compiles: a bad DIR wastes none
    jobs, failed = {}, {}
    writes_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        for i, source in enumerate(args.sources):
            t0 = time.perf_counter()
            try:
                _, fn, arrays = load_source(source, inputs=False)
                jobs[i] = Job(module=fn, name=source) if isinstance(fn, ir.Module) \
                    else Job(function=fn, args=tuple(arrays), name=source)
            except (AccyError, OSError) as e:
                failed[i] = (type(e).__name__, str(e), time.perf_counter() - t0)
    finally:
        sys.dont_write_bytecode = writes_bytecode
    executor = dask_executor(args.scheduler) if args.scheduler else None
    try:
        outcomes = dict(zip(jobs, compile_batch(list(jobs.values()), workers=args.jobs,
                                                executor=executor, target=args.target)))
    finally:
        if executor is not None:
            executor.shutdown()
    lines, compiled, cached = [], 0, 0
    for i, source in enumerate(args.sources):
        path = os.path.join(args.output, stems[i] + ".accy")
        record = {"job": source, "status": "failed", "seconds": None, "cache_hit": False,
                  "kernels": None, "bundle": None, "error": None}
        o = outcomes.get(i)
        if o is not None and not isinstance(o.result, CompileFailure):
            replace_file(path, bundle.write(o.result))
            record.update(status="ok", kernels=len(o.result.kernels),
                          bundle=os.path.basename(path), cache_hit=o.cache_hit)
            compiled += 1
            cached += o.cache_hit
        else:
            kind, message, seconds = failed[i] if o is None else (
                o.result.error_type, o.result.message, o.seconds)
            record["error"] = {"type": kind, "message": message}
            print(f"accy: error: {source}: {kind}: {message}", file=sys.stderr)
            if os.path.isfile(path) or os.path.islink(path):
                os.remove(path)         # an earlier run's bundle, which is not this one's
        record["seconds"] = round(o.seconds if o is not None else failed[i][2], 6)
        lines.append(json.dumps(record) + "\n")
    summary = os.path.join(args.output, "summary.jsonl")
    replace_file(summary, "".join(lines).encode("utf-8"))
    total = len(args.sources)
    print(f"# {total} jobs: {compiled} compiled ({cached} from the cache), "
          f"{total - compiled} failed; wrote {compiled} bundles and {summary}")
    return 0 if compiled == total else 1


def inspect_command(args):
    from accy.runtime import bundle
    sys.stdout.write(bundle.describe(bundle.read_bytes(args.file)))
    return 0


def cache_command(args):
    from accy.cache import Cache, default_max_bytes
    cache = Cache(args.dir, default_max_bytes())
    if args.action == "info":
        info = cache.info()
        print(f"compile cache {info.path}: {info.executables} executables, {info.kernels} "
              f"kernels, {info.bytes} bytes (bound {info.max_bytes} bytes)"
              + (f"; {info.temporary} unfinished writes" if info.temporary else ""))
    elif args.action == "clear":
        removed, nbytes = cache.clear()
        print(f"compile cache {cache.path}: removed {removed} entries ({nbytes} bytes)")
    else:
        removed, left = cache.prune(args.max_bytes)
        print(f"compile cache {cache.path}: removed {removed} entries; {left} bytes left")
    return 0


def config_command(args):
    from accy.runtime.native import config_flags
    both = not (args.cflags or args.libs)
    print(config_flags(cflags=args.cflags or both, libs=args.libs or both))
    return 0


def _opt_arguments(p):
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


def _parser():
    parser = argparse.ArgumentParser(prog="accy", description="accy, a tensor compiler for GPUs")
    sub = parser.add_subparsers(dest="command")
    _opt_arguments(sub.add_parser("opt", help="read, verify and print IR text"))
    for name, text in (("compile", "compile a function to PTX and write it with a report"),
                       ("run", "compile a function, run it on its example inputs and check it "
                               "against the reference interpreter")):
        c = sub.add_parser(name, help=text)
        c.add_argument("source", help="FILE.py:FUNC, package.module:FUNC, or an IR text file")
        c.add_argument("--target", metavar="ARCH", help="sm_80, sm_86, sm_89, sm_90 or sm_90a "
                       "(default: the module's accy.target, else sm_90)")
        if name == "compile":
            c.add_argument("-o", "--output", metavar="DIR", default=".",
                           help="folder for <name>.ptx, <name>.accy and <name>.report.txt "
                                "(default: .)")
            c.add_argument("--cubin", action="store_true",
                           help="also assemble the PTX with ptxas (one call) into "
                                "<name>.cubin: the target's artifact_format = cubin")
            c.add_argument("--emit", choices=STAGE_NAMES, metavar="STAGE",
                           help="print this stage's output instead of writing files: "
                                + ", ".join(STAGE_NAMES))
            c.add_argument("--from", dest="start", choices=RESUMABLE,
                           metavar="STAGE", help="SOURCE is this stage's printed text "
                           "(tensor, prepared, kl or ptx; default tensor)")
        else:
            c.add_argument("--device", choices=("cuda", "emulator", "reference"),
                           help="default: a GPU when there is one, else the emulator")
            c.add_argument("--inputs", metavar="X.npz",
                           help="an IR file's arguments (arg0, arg1, ...) instead of random ones")
    m = sub.add_parser("import", help="import a StableHLO file and print its tensor IR")
    m.add_argument("file", help="StableHLO text (pretty or generic form), or - for standard "
                                "input")
    m.add_argument("--generic", action="store_true", help="print MLIR's generic form")
    b = sub.add_parser("batch", help="compile many sources at once into a folder of bundles "
                                     "and a summary.jsonl")
    b.add_argument("sources", nargs="+", metavar="SOURCE",
                   help="FILE.py:FUNC, package.module:FUNC, or an IR text file")
    b.add_argument("-o", "--output", metavar="DIR", required=True,
                   help="folder for <stem>.accy per source and summary.jsonl")
    b.add_argument("-j", "--jobs", type=int, metavar="N",
                   help="worker processes (default: one per CPU; 0: compile in this process)")
    b.add_argument("--scheduler", metavar="ADDRESS",
                   help="compile on a Dask cluster (tcp://host:8786) instead of local processes")
    b.add_argument("--target", metavar="ARCH",
                   help="sm_80, sm_86, sm_89, sm_90 or sm_90a (default: each module's "
                        "accy.target, else sm_90)")
    i = sub.add_parser("inspect", help="check a bundle and print what it holds")
    i.add_argument("file", help="a bundle (.accy), as accy compile or Executable.save writes")
    k = sub.add_parser("cache", help="the compile cache: what it holds, clear it, prune it")
    k.add_argument("action", choices=("info", "clear", "prune"))
    k.add_argument("--max-bytes", type=int, metavar="N",
                   help="prune: keep at most N bytes (default: the bound, "
                        "$ACCY_CACHE_MAX_BYTES or 1 GiB)")
    k.add_argument("--dir", metavar="DIR",
                   help="the cache folder (default $ACCY_CACHE_DIR, else ~/.cache/accy)")
    c = sub.add_parser("config", help="compiler flags for C programs using libaccyrt")
    c.add_argument("--cflags", action="store_true", help="the -I flag for accyrt.h")
    c.add_argument("--libs", action="store_true", help="the -L, -l and rpath flags")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "opt":
            return opt(args)
        if args.command in ("compile", "run"):
            return compile_command(args)
        if args.command == "inspect":
            return inspect_command(args)
        if args.command == "import":
            sys.stdout.write(stablehlo.load(_read(args.file)).print(generic=args.generic))
            return 0
        if args.command == "batch":
            return batch_command(args)
        if args.command == "cache":
            return cache_command(args)
        if args.command == "config":
            return config_command(args)
        return demo()
    except (AccyError, OSError) as e:
        print(f"accy: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

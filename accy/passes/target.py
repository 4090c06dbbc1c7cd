"""`TargetProfile`: what the kernels are compiled for, read from the module attribute
`accy.target` (a dictionary), with defaults for what it leaves out.

    builtin.module {accy.target = {arch = "sm_90", ptx_version = "8.0", artifact_format = "ptx",
                                   math_tier = "exact",
                                   row_pipeline_schedules = [{row_length = 1024, dtype = "f32",
                                                              threads_per_row = 256,
                                                              elements_per_thread = 4}],
                                   scan_schedules = [{length = 4096, dtype = "f32",
                                                      threads = 512, elements_per_thread = 8}],
                                   dot_schedules = [{m = 4096, n = 4096, k = 4096,
                                                     dtype = "bf16", tile_m = 128,
                                                     tile_n = 256, tile_k = 32,
                                                     stages = 4, splits = 1}],
                                   attention_schedules = [{seq_q = 4096, seq_k = 4096,
                                                           head_dim = 64, dtype = "bf16",
                                                           block_q = 128, block_k = 64}]}}

- arch: sm_80, sm_86, sm_89, sm_90, sm_90a, each with its machine facts (`ARCH_FACTS`: SM
  count, shared memory per block and per SM, registers, warp size, threads per block), which
  every launch decision reads through `TargetProfile.facts`; ptx_version: the PTX ISA version
  the emitter writes (ptxas 13 reads 7.8 to 9.0; sm_90a needs 8.0 or later); artifact_format:
  ptx, or cubin (`accy.compile` also assembles the PTX module with ptxas, one call for all its
  kernels, and keeps the bytes as `Executable.cubin`, which a GPU of that arch loads instead of
  the PTX); math_tier: exact (IEEE + - * / sqrt correctly rounded, transcendentals within a
  stated ulp bound; an unsupported kernel falls back to the host) or fast (approximate
  instructions, flush-to-zero; an unsupported kernel is an error).
- Generated schedules are per-shape launch parameters that an autotuner writes; kernels whose
  shape has none use `default_row_schedule` / `default_scan_schedule`, and tensor-core dots
  the rule of `accy.lowering.dot` (`_tiles`, `_slice_depth`). A dot schedule is keyed by the
  dot's M and N (each operand's free dims merged), K and operand dtype, for every batch
  size; it names a block tile of `DOT_TILES`, the K elements of one pipeline stage (32, or 64
  for 16-bit operands), the stages (their shared memory must fit the arch's limit, checked
  when the dot is lowered) and its split-K slices (1: none). A flash-attention schedule is
  keyed by the query and key sequence lengths, the head dim and the dtype; it names the query
  rows of a block (`block_q`: 64 or 128, 16 a warp) and the keys of a K/V tile (`block_k`: 32
  or 64, at least half of block_q, so that the Q tile fits one stage).
Anything malformed raises TargetError naming the key, never a silent default.
"""
from dataclasses import dataclass

from accy._core.attributes import DictAttr
from accy._core.types import DTYPES
from accy.errors import AccyError
from accy.passes.core import AnalysisDescriptor

ATTRIBUTE = "accy.target"


@dataclass(frozen=True)
class ArchFacts:
    """What the kernels may assume of one GPU architecture: its streaming multiprocessors (of
    the data-centre part, which the throughput schedules are planned to fill), shared memory
    (bytes: what a block may declare statically, the most a block may have with the dynamic
    opt-in, what one SM holds), 32-bit registers (per SM, the most per thread), the warp
    size and the most threads a block may have."""
    sms: int
    static_shared: int
    max_shared_per_block: int
    shared_per_sm: int
    registers_per_sm: int
    registers_per_thread: int
    warp_size: int
    max_threads_per_block: int


def _ampere_or_later(sms, max_shared_kib, per_sm_kib):
    return ArchFacts(sms, 48 * 1024, max_shared_kib * 1024, per_sm_kib * 1024, 65536, 255,
                     32, 1024)


ARCH_FACTS = {
    "sm_80": _ampere_or_later(108, 163, 164),      # A100
    "sm_86": _ampere_or_later(84, 99, 100),        # A40
    "sm_89": _ampere_or_later(142, 99, 100),       # L40S
    "sm_90": _ampere_or_later(132, 227, 228),      # H100 SXM
    "sm_90a": _ampere_or_later(132, 227, 228),
}
ARCHS = tuple(ARCH_FACTS)
PTX_VERSIONS = ("7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0")
ARTIFACT_FORMATS = ("ptx", "cubin")
MATH_TIERS = ("exact", "fast")


class TargetError(AccyError):
    """A malformed `accy.target` attribute; names the key and what it accepts."""


@dataclass(frozen=True)
class RowSchedule:
    """Launch parameters of a row pipeline (softmax, norms) over rows of `row_length`."""
    row_length: int
    dtype: str
    threads_per_row: int
    elements_per_thread: int


@dataclass(frozen=True)
class ScanSchedule:
    """Launch parameters of a scan over `length` elements."""
    length: int
    dtype: str
    threads: int
    elements_per_thread: int


@dataclass(frozen=True)
class DotSchedule:
    """Tiles, stages and split-K slices of a tensor-core dot of M x N outputs over K."""
    m: int
    n: int
    k: int
    dtype: str
    tile_m: int
    tile_n: int
    tile_k: int
    stages: int
    splits: int


DOT_TILES = ((64, 64), (128, 128), (128, 256))     # the tensor-core kernel's block tiles
DOT_DTYPES = ("f16", "bf16", "f32")
DOT_TILE_K = {"f16": (32, 64), "bf16": (32, 64), "f32": (32,)}   # K elements of one stage
MAX_STAGES = 8


@dataclass(frozen=True)
class AttentionSchedule:
    """Query rows per block and keys per K/V tile of a flash-attention kernel."""
    seq_q: int
    seq_k: int
    head_dim: int
    dtype: str
    block_q: int
    block_k: int


ATTENTION_BLOCKS_Q, ATTENTION_BLOCKS_K, ATTENTION_DTYPES = (64, 128), (32, 64), ("f16", "bf16")


@dataclass(frozen=True)
class TargetProfile:
    arch: str = "sm_90"
    ptx_version: str = "8.0"
    artifact_format: str = "ptx"
    math_tier: str = "exact"
    row_pipeline_schedules: tuple = ()
    scan_schedules: tuple = ()
    dot_schedules: tuple = ()
    attention_schedules: tuple = ()

    @property
    def facts(self):
        """The ArchFacts of the target's arch."""
        return ARCH_FACTS[self.arch]

    def row_schedule(self, row_length, dtype):
        """The generated schedule for rows of this length and dtype, else the default."""
        for s in self.row_pipeline_schedules:
            if (s.row_length, s.dtype) == (row_length, dtype):
                return s
        return default_row_schedule(row_length, dtype)

    def scan_schedule(self, length, dtype):
        for s in self.scan_schedules:
            if (s.length, s.dtype) == (length, dtype):
                return s
        return default_scan_schedule(length, dtype)

    def dot_schedule(self, m, n, k, dtype):
        """The generated schedule of this tensor-core dot, else None (the default rule)."""
        for s in self.dot_schedules:
            if (s.m, s.n, s.k, s.dtype) == (m, n, k, dtype):
                return s
        return None

    def attention_schedule(self, seq_q, seq_k, head_dim, dtype):
        """The generated schedule of this flash attention, else None (the default blocks)."""
        for s in self.attention_schedules:
            if (s.seq_q, s.seq_k, s.head_dim, s.dtype) == (seq_q, seq_k, head_dim, dtype):
                return s
        return None

    def text(self):
        lines = [f"target {self.arch}, PTX {self.ptx_version}, {self.artifact_format}, "
                 f"math tier {self.math_tier}"]
        lines += [f"  row schedule {s.row_length} x {s.dtype}: {s.threads_per_row} threads/row, "
                  f"{s.elements_per_thread} elements/thread" for s in self.row_pipeline_schedules]
        lines += [f"  scan schedule {s.length} x {s.dtype}: {s.threads} threads, "
                  f"{s.elements_per_thread} elements/thread" for s in self.scan_schedules]
        lines += [f"  dot schedule {s.m} x {s.n} x {s.k} {s.dtype}: {s.tile_m} x {s.tile_n} "
                  f"tiles, {s.stages} stages of {s.tile_k}, {s.splits} K slices"
                  for s in self.dot_schedules]
        lines += [f"  attention schedule {s.seq_q} x {s.seq_k} x {s.head_dim} {s.dtype}: "
                  f"{s.block_q} query rows, {s.block_k} keys a tile"
                  for s in self.attention_schedules]
        return "\n".join(lines)


def default_row_schedule(row_length, dtype):
    """The row in registers where it fits: a warp per row up to 256 elements (at most 8 a
    thread), beyond that a block of up to 1024 threads holding 4 elements each (a
    1024-element row: 256 threads), 8 each from 4096 to 8192 elements; longer rows take 1024
    threads x 8 and loop for the rest. (4 rather than 8 elements a thread halves the unrolled
    code of a row pipeline, so it compiles in half the time, at the same memory traffic.)"""
    if row_length <= 256:
        threads = 32
    else:
        threads = min(1024, _next_power_of_two(-(-row_length // 4)))
    return RowSchedule(row_length, dtype, threads, max(1, min(8, -(-row_length // threads))))


def default_scan_schedule(length, dtype):
    """One block of up to 1024 threads, 4 elements each per pass."""
    threads = min(1024, max(32, _next_power_of_two(-(-length // 4))))
    return ScanSchedule(length, dtype, threads, 4)


def _next_power_of_two(n):
    return 1 << max(0, int(n) - 1).bit_length()


def read_target_profile(op):
    """The TargetProfile of module `op` (its `accy.target` attribute; defaults when absent)."""
    return target_from_attribute(op.attributes.get(ATTRIBUTE))


def target_from_attribute(attr):
    """The TargetProfile an `accy.target` attribute value describes (None: the defaults)."""
    if attr is None:
        return TargetProfile()
    if not isinstance(attr, DictAttr):
        raise TargetError(f"{ATTRIBUTE} must be a dictionary, got {attr!r}")
    items = dict(attr.items())
    known = {"arch", "ptx_version", "artifact_format", "math_tier", "row_pipeline_schedules",
             "scan_schedules", "dot_schedules", "attention_schedules"}
    unknown = sorted(set(items) - known)
    if unknown:
        raise TargetError(f"{ATTRIBUTE} has unknown keys {unknown}; known: {sorted(known)}")
    d = TargetProfile()
    profile = TargetProfile(
        arch=_choice(items, "arch", ARCHS, d.arch),
        ptx_version=_choice(items, "ptx_version", PTX_VERSIONS, d.ptx_version),
        artifact_format=_choice(items, "artifact_format", ARTIFACT_FORMATS, d.artifact_format),
        math_tier=_choice(items, "math_tier", MATH_TIERS, d.math_tier),
        row_pipeline_schedules=_schedules(items, "row_pipeline_schedules", RowSchedule,
                                          ("row_length",), ("threads_per_row",
                                                            "elements_per_thread")),
        scan_schedules=_schedules(items, "scan_schedules", ScanSchedule, ("length",),
                                  ("threads", "elements_per_thread")),
        dot_schedules=_schedules(items, "dot_schedules", DotSchedule, ("m", "n", "k"),
                                 ("tile_m", "tile_n", "tile_k", "stages", "splits")),
        attention_schedules=_schedules(items, "attention_schedules", AttentionSchedule,
                                       ("seq_q", "seq_k", "head_dim"), ("block_q", "block_k")))
    if profile.arch == "sm_90a" and PTX_VERSIONS.index(profile.ptx_version) < 1:
        raise TargetError("sm_90a needs ptx_version 8.0 or later")
    return profile


def _choice(items, key, allowed, default):
    value = items.get(key, default)
    if value not in allowed:
        raise TargetError(f"{ATTRIBUTE}.{key} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _schedules(items, key, kind, shape_fields, int_fields):
    """The `kind` schedules listed under `key`: each a dictionary of exactly its fields, the
    shape fields positive int32s, the other fields in [1, 1024], one per shape and dtype."""
    value = items.get(key, ())
    if not isinstance(value, tuple):
        raise TargetError(f"{ATTRIBUTE}.{key} must be a list of dictionaries, got {value!r}")
    out, seen = [], set()
    for i, entry in enumerate(value):
        where = f"{ATTRIBUTE}.{key}[{i}]"
        if not isinstance(entry, DictAttr):
            raise TargetError(f"{where} must be a dictionary, got {entry!r}")
        fields = dict(entry.items())
        expected = set(shape_fields) | set(int_fields) | {"dtype"}
        if set(fields) != expected:
            raise TargetError(f"{where} needs exactly the keys {sorted(expected)}, got "
                              f"{sorted(fields)}")
        if fields["dtype"] not in DTYPES:
            raise TargetError(f"{where}.dtype must be a dtype name, got {fields['dtype']!r}")
        for name in shape_fields + int_fields:
            v, top = fields[name], 2**31 - 1 if name in shape_fields else 1024
            if type(v) is not int or not 1 <= v <= top:
                raise TargetError(f"{where}.{name} must be an integer in [1, {top}], got {v!r}")
        if kind is RowSchedule and not (32 % fields["threads_per_row"] == 0
                                         or fields["threads_per_row"] % 32 == 0):
            raise TargetError(f"{where}.threads_per_row must divide 32 or be a multiple of 32 "
                              f"(a row may not straddle warps), got {fields['threads_per_row']}")
        if kind is DotSchedule:
            _check_dot(fields, where)
        if kind is AttentionSchedule:
            _check_attention(fields, where)
        schedule = kind(**fields)
        shape = tuple(getattr(schedule, name) for name in shape_fields) + (schedule.dtype,)
        if shape in seen:
            raise TargetError(f"{where} repeats the schedule for {shape}")
        seen.add(shape)
        out.append(schedule)
    return tuple(out)


def _check_dot(fields, where):
    if fields["dtype"] not in DOT_DTYPES:
        raise TargetError(f"{where}.dtype must be one of {', '.join(DOT_DTYPES)} (the tensor "
                          f"cores' operands), got {fields['dtype']!r}")
    if (fields["tile_m"], fields["tile_n"]) not in DOT_TILES:
        raise TargetError(f"{where}: tile_m x tile_n must be one of "
                          f"{', '.join(f'{m} x {n}' for m, n in DOT_TILES)}, got "
                          f"{fields['tile_m']} x {fields['tile_n']}")
    if fields["tile_k"] not in DOT_TILE_K[fields["dtype"]]:
        raise TargetError(f"{where}.tile_k must be one of "
                          f"{', '.join(map(str, DOT_TILE_K[fields['dtype']]))} for "
                          f"{fields['dtype']} operands, got {fields['tile_k']}")
    if not 2 <= fields["stages"] <= MAX_STAGES:
        raise TargetError(f"{where}.stages must be 2 to {MAX_STAGES} (one tile in flight at "
                          f"least), got {fields['stages']}")


def _check_attention(fields, where):
    if fields["dtype"] not in ATTENTION_DTYPES:
        raise TargetError(f"{where}.dtype must be one of {', '.join(ATTENTION_DTYPES)} (the "
                          f"flash kernel's), got {fields['dtype']!r}")
    bq, bk = fields["block_q"], fields["block_k"]
    if bq not in ATTENTION_BLOCKS_Q or bk not in ATTENTION_BLOCKS_K or bq > 2 * bk:
        raise TargetError(f"{where}: block_q must be 64 or 128 and block_k 32 or 64, with "
                          f"block_q at most 2 x block_k (the Q tile is staged in one K/V "
                          f"stage), got {bq} and {bk}")


TARGET_PROFILE = AnalysisDescriptor("TargetProfile")


def target_profile(pass_context, module):
    """The module's TargetProfile through the analysis cache (computed once per module epoch)."""
    return pass_context.get_analysis(module, TARGET_PROFILE, lambda op, scope: read_target_profile(op))

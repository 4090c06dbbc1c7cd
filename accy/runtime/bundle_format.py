"""The bundle format's numbers (docs/runtime.md, format version 1), shared by its writer
(accy/runtime/bundle_writer.py) and its reader (accy/runtime/bundle.py). They are the format's,
fixed for version 1: a dtype or limit that accy adds later is a new format version."""
import struct

MAGIC = b"ACCYBNDL"
VERSION = 1
HEADER_BYTES = 72
ENTRY_BYTES = 24
MAX_SECTIONS = 64
VERSION_FIELD = 24          # bytes of the accy version that wrote it, ASCII, NUL-padded
TARGET_FIELD = 16           # bytes of the target arch
CRC_AT = 64                 # offset of the header's CRC

# magic, format version, section count, file size, accy version, target, CRC, reserved
HEADER = struct.Struct("<8sIIQ24s16sII")
# kind, CRC, offset, length
ENTRY = struct.Struct("<IIQQ")

MANIFEST, PROGRAM, PTX, CUBIN, KERNEL_MODULES, MODULE_TEXT, INFO = range(1, 8)
SECTION_NAMES = {MANIFEST: "manifest", PROGRAM: "program", PTX: "ptx", CUBIN: "cubin",
                 KERNEL_MODULES: "kernel modules", MODULE_TEXT: "module text", INFO: "info"}
REQUIRED = (MANIFEST, PROGRAM, MODULE_TEXT, INFO)

# bytes per element, by dtype name (i1: one byte per element)
DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i16": 2, "i8": 1,
               "u8": 1, "i1": 1}
MAX_RANK = 64
MAX_TENSOR_BYTES = 2 ** 63      # elements times size stays below this
MAX_SLOT_BYTES = 2 ** 48
MAX_LOOP_DEPTH = 16
MAX_BLOCK_THREADS = 1024
MAX_SHARED_BYTES = 227 * 1024

# kernel modules: the ptx section, or the kernel modules section (a kernel_call's own PTX)
IN_PTX, IN_KERNEL_MODULES = 0, 1
# slot kinds by code: the order of accy.runtime.program.SLOT_KINDS
SLOT_CODES = ("argument", "result", "constant", "arena", "scratch", "state")
LAUNCH, MEMSET, COPY, LOOP, HOST = range(1, 6)
PARAM_REF, PARAM_SCALAR = 1, 2

# the fewest bytes one item of a counted list takes, which a reader checks a count against
# before it reads the items
STR_MIN = 4
SHAPE_MIN = 4
REF_BYTES = 12
OPERAND_MIN = REF_BYTES + STR_MIN + SHAPE_MIN
SLOT_MIN = 1 + 8 + 8 + 8 + STR_MIN
STEP_MIN = {LAUNCH: 1 + STR_MIN + 12 + 12 + 4 + 4, MEMSET: 1 + REF_BYTES + 8 + 1,
            COPY: 1 + 2 * REF_BYTES + 8, LOOP: 1 + 4 + 4 + REF_BYTES + 4 + 4,
            HOST: 1 + 4 + STR_MIN + STR_MIN + 4 + 4}
ANY_STEP_MIN = min(STEP_MIN.values())
STATE_BYTES = 4 + 4 + 2 * REF_BYTES
PARAM_MIN = 1 + 8
TENSOR_MIN = STR_MIN + SHAPE_MIN      # a manifest argument or result: dtype, shape
KERNEL_MIN = STR_MIN + 1
MODULE_MIN = 2 * STR_MIN

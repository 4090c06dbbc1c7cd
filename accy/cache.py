"""The compile cache: executables and kernels compiled before, kept in a folder and found by a
key that names everything their output depends on (docs/batch.md, "The compile cache").

    exe = accy.compile(fn, *args)                        # the default cache
    exe = accy.compile(fn, *args, cache=Cache("/shared/accy", max_bytes=8 << 30))
    exe = accy.compile(fn, *args, cache=False)           # compiled from nothing
    Cache().info(), .clear(), .prune(max_bytes)          # what `accy cache` runs

Two levels share one folder and one bound: whole executables (bundles, keyed by
`ExecutableKey`) and kernels (one kernel's PTX text, keyed by `KernelKey`: its kl, name left
out, and the emitter's target), so that graphs sharing a kernel share its emission, and a
kernel repeated inside one executable or one batch is emitted once. Every entry is written to
a temporary file in its own folder, then renamed onto its name, under the folder's lock, which
also keeps the byte count and evicts the least recently used entries past the bound. An entry
that fails its checks is dropped and compiled again, never served.
"""
import contextlib
import dataclasses
import errno
import fcntl
import functools
import hashlib
import importlib.machinery
import importlib.metadata
import json
import os
import re
import secrets
import struct
import subprocess
import sys
import threading
import time
import warnings
import weakref
import zlib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from accy import version
from accy._core.text import attr_text
from accy._core.types import TensorType
from accy.errors import AccyError, BundleError, TypeError as DTypeError
from accy.lowering import ptxas
from accy.lowering.ptx import emit_kernel
from accy.passes.target import read_target_profile
from accy.runtime import bundle

FORMAT = 1                      # the key's recipe and the entries' layout; bumped when either changes
DEFAULT_MAX_BYTES = 1 << 30
LOCK_TIMEOUT_S = 30.0           # a writer that cannot take the lock by then skips its write
LOCK_BACKOFF_S = 300.0          # after such a wait, this Cache stores nothing for this long
MEMO_BYTES = 32 << 20           # kernel texts a Cache keeps in memory (a batch in one process)
MAX_STATE_BYTES = 1 << 20       # of the lock file's state
EXECUTABLES, KERNELS = "executables", "kernels"
SUFFIX = {EXECUTABLES: ".accy", KERNELS: ".ptx"}
TEMPORARY = ".tmp-"             # the prefix of a file not yet renamed onto its entry

# Environment variables accy reads, by whether they change what a compile makes. Every
# variable named in accy's sources is in one of the two (tests/test_cache.py checks).
ENVIRONMENT = {
    "ACCY_VERIFY_KERNELS": "kernelization verifies the kl it writes: a compile that the "
                           "verifier would refuse must not be served from one that skipped it",
}
NOT_IN_KEY = {
    "PATH": "which ptxas runs: its --version output is in the key of a cubin",
    "ACCY_PTXAS_TIMEOUT": "how long ptxas may run, not what it writes",
    "ACCY_CACHE": "whether the default cache is used",
    "ACCY_CACHE_DIR": "where the default cache is",
    "ACCY_CACHE_MAX_BYTES": "the default cache's bound",
}

_ENTRY_NAME = re.compile(r"(executables|kernels)/[0-9a-f]{2}/[0-9a-f]{64}\.(accy|ptx)\Z")
_TEMPORARY_NAME = re.compile(r"((executables|kernels)/[0-9a-f]{2}/)?\.tmp-[A-Za-z0-9_]+\Z")
_KERNEL_MAGIC = b"ACCYKPTX"
_KERNEL_HEAD = struct.Struct("<8s64sIQ")     # magic, key (hex), CRC-32 of the text, its length
STAND_IN = "__accy_kernel__"                 # a kernel's name in its cached text


class CacheError(AccyError, ValueError):
    """A cache asked for with a bad setting (a bound, an environment variable)."""


class CacheWarning(UserWarning):
    """The cache folder cannot be written (read-only, full, locked): compiles go on without
    storing; given once per Cache."""


# ---- the key -------------------------------------------------------------------------------

PACKAGE = os.path.dirname(os.path.abspath(__file__))
_BUILT = tuple(importlib.machinery.EXTENSION_SUFFIXES)


@functools.lru_cache(maxsize=None)
def source_digest(root=PACKAGE):
    """sha256 of accy's own code under `root`: every .py, .pyx and .pxd file and every built
    extension, by relative path and contents (read once per process and root). For the
    running package, the files are also the ones this process imported: where one changed
    since (an upgrade under a long-lived worker), the process runs other code than the files
    hold, and its digest is its own (a random one, shared with no other process)."""
    h = hashlib.sha256()
    for rel in sorted(_code_files(root)):
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    if root == PACKAGE and _file_stats(root) != _IMPORTED_STATS:
        warnings.warn("accy's files changed since this process imported accy: its compiles "
                      "are not shared through the compile cache", CacheWarning, stacklevel=3)
        return "changed-since-import-" + secrets.token_hex(16)
    return h.hexdigest()


def _file_stats(root):
    """{relative path: (size, mtime)} of accy's code files under `root`."""
    out = {}
    for rel in _code_files(root):
        try:
            st = os.stat(os.path.join(root, rel))
        except OSError:
            continue
        out[rel] = (st.st_size, st.st_mtime_ns)
    return out


def _code_files(root):
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        for name in files:
            if name.endswith((".py", ".pyx", ".pxd")) or name.endswith(_BUILT):
                yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


_IMPORTED_STATS = _file_stats(PACKAGE)     # the files as this process imported them

_PTXAS_VERSIONS = {}            # (path, size, mtime) -> its --version output


def ptxas_version():
    """What `ptxas --version` prints for the ptxas a cubin compile would run ("none" when
    there is none), asked once per ptxas file."""
    path = ptxas.find_ptxas()
    if path is None:
        return "none"
    try:
        st = os.stat(path)
    except OSError:
        return "none"
    memo = (path, st.st_size, st.st_mtime_ns)
    if memo not in _PTXAS_VERSIONS:
        try:
            done = subprocess.run([path, "--version"], capture_output=True, timeout=60)
            text = done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 \
                else f"exit status {done.returncode}"
        except (OSError, subprocess.SubprocessError) as e:
            text = f"cannot run: {type(e).__name__}"
        _PTXAS_VERSIONS[memo] = text
    return _PTXAS_VERSIONS[memo]


def _build():
    """The key's fields for the compiler itself: format, accy version, sources, numpy (constant
    folding computes through it), Python."""
    return {"format": FORMAT, "accy_version": version.VERSION, "sources": source_digest(),
            "numpy": np.__version__, "ml_dtypes": _ml_dtypes_version(),
            "python": sys.implementation.cache_tag}


@functools.lru_cache(maxsize=None)
def _ml_dtypes_version():
    """bf16 constants fold through ml_dtypes; its version, without importing it (read once per
    process: importlib.metadata parses the package's METADATA, most of a warm hit's time)."""
    try:
        return importlib.metadata.version("ml_dtypes")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def _fields(record):
    """A dataclass's fields as a dict (dataclasses.asdict's deep copy costs a third of a warm
    hit); dataclass values nested in tuples (the target's schedules) as dicts too."""
    out = {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            value = [_fields(v) for v in value]
        out[f.name] = value
    return out


def _digest(fields):
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class ExecutableKey:
    """What an executable depends on; `digest()` is its entry's name."""
    module: str             # the tensor module's fingerprint, its accy.target attribute set
    start: str              # "tensor" or "prepared" (whether preparation runs)
    arguments: tuple        # ((shape, dtype), ...) of its function's arguments
    target: dict            # every TargetProfile field (defaults filled in)
    context: dict           # the module's Context: allow_unregistered and Capacity limits
    ptxas: str              # `ptxas --version` when the target makes a cubin, else ""
    environment: tuple      # (name, value or None) of each ENVIRONMENT variable
    format: int
    accy_version: str
    sources: str            # source_digest()
    numpy: str
    ml_dtypes: str          # bf16 constants fold through it
    python: str

    def digest(self):
        return _digest({"executable": _fields(self)})


def executable_key(module, start="tensor"):
    """The ExecutableKey of compiling tensor module `module` (its target set) from `start`, or
    None when it is not one function of tensor arguments (which the compile then refuses)."""
    arguments = signature(module)
    if arguments is None:
        return None
    profile = read_target_profile(module)
    context = module.context
    return ExecutableKey(
        module=module.fingerprint(), start=start, arguments=arguments,
        target=_fields(profile),
        context={"allow_unregistered": bool(context.allow_unregistered),
                 **context.capacity.as_limits()},
        ptxas=ptxas_version() if profile.artifact_format == "cubin" else "",
        environment=tuple((name, os.environ.get(name)) for name in sorted(ENVIRONMENT)),
        **_build())


def signature(module):
    """((shape, dtype), ...) of the arguments of `module`'s one function, or None when it has
    more or fewer functions or an argument that is not a tensor."""
    funcs = [op for op in module.body if op.name == "builtin.func"]
    if len(funcs) != 1:
        return None
    function_type = funcs[0].attributes.get("function_type")
    inputs = getattr(function_type, "inputs", None)
    if inputs is None or not all(isinstance(t, TensorType) for t in inputs):
        return None
    return tuple((tuple(t.shape), t.dtype) for t in inputs)


@dataclass(frozen=True)
class KernelKey:
    """What one kernel's PTX text depends on: its kl (name left out) and what the emitter
    reads of the target. (The generated schedules act through the kl.)"""
    kernel: str             # kernel_fingerprint()
    arch: str
    ptx_version: str
    math_tier: str
    format: int
    accy_version: str
    sources: str
    numpy: str
    ml_dtypes: str
    python: str

    def digest(self):
        return _digest({"kernel": _fields(self)})


def kernel_fingerprint(op):
    """sha256 of a `kl.kernel`'s generic text with its name left out, or None when the name
    cannot be told apart in that text (the kernel is then emitted, not looked up)."""
    text = op.print(generic=True)
    head, newline, body = text.partition("\n")      # the op's own attributes are on its line
    token = f"sym_name = {attr_text(op.attributes['sym_name'])}"
    at = [m.start() for m in re.finditer(re.escape(token), head)
          if m.start() > 0 and head[m.start() - 1] in "{ "]
    if len(at) != 1:
        return None
    head = head[:at[0]] + "sym_name = \"\"" + head[at[0] + len(token):]
    return hashlib.sha256((head + newline + body).encode("utf-8")).hexdigest()


def kernel_key(fingerprint, target, math_tier):
    return KernelKey(kernel=fingerprint, arch=target.arch, ptx_version=target.ptx_version,
                     math_tier=math_tier, **_build())


# ---- the cache -----------------------------------------------------------------------------

@dataclass(frozen=True)
class CacheInfo:
    """A cache folder's contents, as `info()` finds them on disk."""
    path: str
    executables: int
    kernels: int
    bytes: int              # of every entry
    temporary: int          # files of writes that never finished (removed under the lock)
    max_bytes: int


def _default_path():
    return os.environ.get("ACCY_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                            "accy")


def _positive(value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise CacheError(f"{what} must be a positive number of bytes, got {value!r}")
    return value


class _LockTimeout(Exception):
    pass


_FOLDER_LOCKS = {}              # a cache folder's real path -> the lock its threads take first
_FOLDER_LOCKS_GUARD = threading.Lock()
_LIVE = weakref.WeakSet()       # every Cache of this process, for the fork handler below


def _after_fork_in_child():
    """A child forked while another thread held one of these locks would wait on it for ever
    (that thread is not in the child): the child starts with new ones."""
    global _FOLDER_LOCKS_GUARD, _CACHES_GUARD
    _FOLDER_LOCKS_GUARD, _CACHES_GUARD = threading.Lock(), threading.Lock()
    _FOLDER_LOCKS.clear()
    for cache in list(_LIVE):
        cache._guard = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class Cache:
    """A cache folder (default `$ACCY_CACHE_DIR`, else ~/.cache/accy) holding at most
    `max_bytes` of entries. Counters of this object: hits, misses (executables), kernel_hits,
    kernel_misses, evictions (entries this object removed to keep the bound), bytes_written,
    bytes_read. Pickles as its folder and bound (a process pool's workers each get their own
    counters)."""

    def __init__(self, path=None, max_bytes=DEFAULT_MAX_BYTES):
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise DTypeError(f"a cache path is a str or os.PathLike, got {type(path).__name__}")
        self.path = os.path.abspath(os.fspath(path if path is not None else _default_path()))
        self.max_bytes = _positive(max_bytes, "max_bytes")
        self.hits = self.misses = self.kernel_hits = self.kernel_misses = 0
        self.evictions = self.bytes_written = self.bytes_read = 0
        self._writable = True
        self._stores_resume = 0.0       # time.monotonic() before which nothing is stored
        self._warned = False
        self._memo = OrderedDict()      # kernel key -> text
        self._memo_bytes = 0
        self._guard = threading.Lock()
        _LIVE.add(self)
        self._lock_fd = None            # while this object holds the folder's lock

    def __repr__(self):
        return f"Cache({self.path!r}, max_bytes={self.max_bytes})"

    def __reduce__(self):
        return (Cache, (self.path, self.max_bytes))

    def stats(self):
        """This object's counters, as a dict."""
        return {name: getattr(self, name) for name in (
            "hits", "misses", "kernel_hits", "kernel_misses", "evictions", "bytes_written",
            "bytes_read")}

    # ---- executables ---------------------------------------------------------------------
    def executable(self, key, arguments, target):
        """The Executable stored under ExecutableKey digest `key`, or None (a miss). An entry
        that is not a valid bundle, or not one of these arguments and target, is dropped."""
        rel = self._rel(EXECUTABLES, key)
        data, seen = self._read(rel)
        exe = None
        if data is not None:
            try:
                exe = bundle.read(data, parse_modules=False)   # its own entry: texts it printed
            except BundleError:
                exe = None
            if exe is not None and (exe.arguments != tuple(arguments) or exe.target != target):
                exe = None          # another executable's bundle under this name
            if exe is None:
                self._drop(rel, seen)
        with self._guard:
            if exe is None:
                self.misses += 1
            else:
                self.hits += 1
                self.bytes_read += len(data)
        if exe is not None:
            self._touch(rel)
        return exe

    def store(self, key, exe, kernels=()):
        """Write Executable `exe` under ExecutableKey digest `key` (None: no executable), and
        `kernels`, (KernelKey digest, text) pairs, in one locked step."""
        writes = [(self._rel(KERNELS, k), _frame_kernel(k, text)) for k, text in kernels]
        if exe is not None:
            try:
                writes.append((self._rel(EXECUTABLES, key), bundle.write(exe)))
            except BundleError:
                pass                # not writable as a bundle: compiled again next time
        if writes:
            self._commit(writes)

    # ---- kernels -------------------------------------------------------------------------
    def kernel(self, key):
        """The PTX text (its name `STAND_IN`) under KernelKey digest `key`, or None."""
        with self._guard:
            text = self._memo.get(key)
            if text is not None:
                self._memo.move_to_end(key)
                self.kernel_hits += 1
                return text
        rel = self._rel(KERNELS, key)
        data, seen = self._read(rel)
        text = _unframe_kernel(data, key) if data is not None else None
        if data is not None and text is None:
            self._drop(rel, seen)
        with self._guard:
            if text is None:
                self.kernel_misses += 1
                return None
            self.kernel_hits += 1
            self.bytes_read += len(data)
        self._touch(rel)
        self.remember_kernel(key, text)
        return text

    def remember_kernel(self, key, text):
        """Keep a kernel's text in memory (for later compiles in this process)."""
        with self._guard:
            if key in self._memo:
                return
            self._memo[key] = text
            self._memo_bytes += len(text)
            while self._memo_bytes > MEMO_BYTES and len(self._memo) > 1:
                _, old = self._memo.popitem(last=False)
                self._memo_bytes -= len(old)

    # ---- the folder ----------------------------------------------------------------------
    def info(self):
        """A CacheInfo of what the folder holds now."""
        entries, temporary = self._scan(clean=False)
        kinds = [rel.split("/", 1)[0] for _, _, rel in entries]
        return CacheInfo(self.path, kinds.count(EXECUTABLES), kinds.count(KERNELS),
                         sum(size for _, size, _ in entries), len(temporary), self.max_bytes)

    def clear(self):
        """Remove every entry; (entries removed, their bytes)."""
        return self._under_lock(lambda: self._evict_to(0, count=False))

    def prune(self, max_bytes=None):
        """Remove the least recently used entries until at most `max_bytes` (default: the
        bound) remain; (entries removed, bytes left)."""
        limit = self.max_bytes if max_bytes is None else _positive(max_bytes, "max_bytes")

        def prune():
            removed, _ = self._evict_to(limit, count=True)
            return removed, self._settled_bytes
        return self._under_lock(prune)

    # ---- reading -------------------------------------------------------------------------
    def _rel(self, kind, key):
        if not re.fullmatch(r"[0-9a-f]{64}", key):
            raise CacheError(f"a cache key is 64 hex digits, got {key!r}")
        return f"{kind}/{key[:2]}/{key}{SUFFIX[kind]}"

    def _read(self, rel):
        """(bytes, (inode, size, mtime)) of entry `rel`, or (None, None) when it is not there
        or is larger than this cache's bound (which it would not have stored)."""
        try:
            with open(os.path.join(self.path, rel), "rb") as f:
                st = os.fstat(f.fileno())
                if st.st_size > self.max_bytes:
                    return None, None
                return f.read(self.max_bytes + 1), (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            return None, None

    def _touch(self, rel):
        """Mark an entry used now (its mtime orders eviction)."""
        try:
            os.utime(os.path.join(self.path, rel), follow_symlinks=False)
        except OSError:
            pass                    # a read-only folder still serves

    def _drop(self, rel, seen):
        """Remove entry `rel`, which failed its checks, unless it changed since it was read."""
        if not self._writable or seen is None:
            return

        def drop():
            path = os.path.join(self._folder(os.path.dirname(rel)), os.path.basename(rel))
            try:
                st = os.stat(path)
            except FileNotFoundError:
                return
            if (st.st_ino, st.st_size, st.st_mtime_ns) == seen:
                os.unlink(path)
                # counted afresh: the damage may have changed the entry's size
                entries, _ = self._scan(clean=True)
                self._settled_bytes = sum(size for _, size, _ in entries)
        with contextlib.suppress(_LockTimeout, OSError):
            self._under_lock(drop, timeout=1.0)

    # ---- writing -------------------------------------------------------------------------
    def _commit(self, writes):
        """Write every (rel, bytes) of `writes` and keep the bound, under the lock."""
        if not self._writable or time.monotonic() < self._stores_resume:
            return
        fitting = [(rel, data) for rel, data in writes if len(data) <= self.max_bytes]
        if len(fitting) < len(writes):
            self._warn(f"the compile cache {self.path} holds at most {self.max_bytes} bytes, "
                       f"less than an entry of {max(len(d) for _, d in writes)} bytes: such "
                       f"entries are not stored")
        if not fitting:
            return
        try:
            for rel in {os.path.dirname(rel) for rel, _ in fitting}:
                self._folder(rel, create=True)
            self._under_lock(lambda: self._write_entries(fitting))
        except _LockTimeout:        # a stuck holder: no more waits for a while
            self._stores_resume = time.monotonic() + LOCK_BACKOFF_S
            self._warn(f"the compile cache {self.path}: its lock was held for more than "
                       f"{LOCK_TIMEOUT_S:.0f} s; compiling without storing for "
                       f"{LOCK_BACKOFF_S:.0f} s")
        except OSError as e:
            self._writable = False
            why = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
                   errno.EROFS: "it is on a read-only file system",
                   errno.EACCES: "it is not writable", errno.EPERM: "it is not writable",
                   errno.ENOTDIR: "a part of its path is a file",
                   errno.ELOOP: "a folder in it is a symbolic link"}.get(e.errno, str(e))
            self._warn(f"the compile cache {self.path} cannot be written ({why}): compiling "
                       f"without storing (entries already there are still used)")

    def _write_entries(self, writes):
        temps = [(rel, f"{os.path.dirname(rel)}/{TEMPORARY}{secrets.token_hex(8)}", data,
                  _size(os.path.join(self.path, rel))) for rel, data in writes]
        # what a writer killed from here on leaves is settled by the next lock holder
        self._write_state([(rel, temp, old) for rel, temp, _, old in temps])
        made = []
        try:
            for rel, temp, data, old in temps:
                path = os.path.join(self._folder(os.path.dirname(rel)), os.path.basename(temp))
                fd = _create(path)
                made.append(path)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(path, os.path.join(self.path, rel))
                made.pop()
                self._settled_bytes += len(data) - old
                with self._guard:
                    self.bytes_written += len(data)
        except BaseException:
            for path in made:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            raise
        if self._settled_bytes > self.max_bytes:
            self._evict_to(self.max_bytes * 3 // 4, count=True,
                           keep={rel for rel, _ in writes})

    def _folder(self, rel_folder, create=False):
        """The path of this cache's folder `rel_folder` (made when `create`), refused (OSError)
        when it or a folder above it in the cache is a symbolic link: nothing is written, or
        removed, outside the cache folder."""
        path = self.path
        if create:
            os.makedirs(path, exist_ok=True)
        for part in rel_folder.split("/"):
            path = os.path.join(path, part)
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(path)
            if os.path.islink(path):
                raise OSError(errno.ELOOP, f"{path} is a symbolic link")
        return path

    def _evict_to(self, limit, count, keep=()):
        """Remove entries, least recently used first (those in `keep` last), until at most
        `limit` bytes remain; (entries removed, bytes removed). Under the lock."""
        entries, _ = self._scan(clean=True)
        total = sum(size for _, size, _ in entries)
        entries.sort(key=lambda e: (e[2] in keep, e[0], e[2]))
        removed = removed_bytes = 0
        for _, size, rel in entries:
            if total <= limit:
                break
            try:
                os.unlink(os.path.join(self.path, rel))
            except FileNotFoundError:
                pass                # another process evicted it: gone all the same
            except OSError:
                continue            # cannot be removed (another user's, a stale NFS handle):
                #                     it still counts; the next entry goes instead
            total -= size
            removed += 1
            removed_bytes += size
        if count:
            with self._guard:
                self.evictions += removed
        self._settled_bytes = total
        return removed, removed_bytes

    def _scan(self, clean):
        """([(mtime, size, rel)] of every entry, [rel] of temporary files); under the lock,
        `clean` removes the temporary files (every writer holds the lock while it has one)."""
        entries, temporary = [], []
        for kind in (EXECUTABLES, KERNELS):
            try:
                shards = sorted(os.listdir(self._folder(kind)))
            except OSError:
                continue
            for shard in shards:
                try:
                    folder = self._folder(f"{kind}/{shard}")
                    names = os.listdir(folder)
                except OSError:
                    continue
                for name in names:
                    rel = f"{kind}/{shard}/{name}"
                    if _TEMPORARY_NAME.match(rel):
                        temporary.append(rel)
                        if clean:
                            with contextlib.suppress(OSError):
                                os.unlink(os.path.join(folder, name))
                    elif _ENTRY_NAME.match(rel):
                        with contextlib.suppress(OSError):
                            st = os.stat(os.path.join(folder, name))
                            entries.append((st.st_mtime_ns, st.st_size, rel))
        return entries, temporary

    # ---- the lock and the byte count -----------------------------------------------------
    def _under_lock(self, work, timeout=LOCK_TIMEOUT_S):
        """work() under the folder's lock, with `self._settled_bytes` the entries' total
        (settled from the lock file, or counted); the new total is written back after."""
        os.makedirs(self.path, exist_ok=True)
        # the threads of one process first take a lock of the process's: where flock is
        # emulated by POSIX locks (NFS), those belong to the process, not to one thread
        with _FOLDER_LOCKS_GUARD:
            threads = _FOLDER_LOCKS.setdefault(os.path.realpath(self.path), threading.Lock())
        if not threads.acquire(timeout=timeout):
            raise _LockTimeout()
        try:
            fd = os.open(os.path.join(self.path, "lock"),
                         os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
            try:
                _flock(fd, timeout)
                self._lock_fd = fd
                self._settled_bytes = self._settle()
                result = work()
                self._write_state([])
                return result
            finally:
                self._lock_fd = None
                os.close(fd)        # releases the lock
        finally:
            threads.release()

    def _settle(self):
        """The entries' total bytes: the lock file's count, after what a writer killed
        mid-write left there (its temporary files removed, its entries counted as they are);
        counted afresh when the count is missing or fails its check."""
        state = self._read_state()
        if state is None:
            entries, _ = self._scan(clean=True)
            return sum(size for _, size, _ in entries)
        total, pending = state
        for rel, temp, old in pending:
            with contextlib.suppress(OSError):
                folder = self._folder(os.path.dirname(temp)) if "/" in temp else self.path
                os.unlink(os.path.join(folder, os.path.basename(temp)))
            total += _size(os.path.join(self.path, rel)) - old
        return max(total, 0)

    def _read_state(self):
        """(bytes, pending writes) from the lock file (JSON, a newline, its CRC-32 in hex), or
        None when it holds no valid state (every field checked: a pending path names an entry
        or a temporary file of this folder)."""
        try:
            data = os.pread(self._lock_fd, MAX_STATE_BYTES + 1, 0)
            text, _, crc = data.decode("ascii").rpartition("\n")
            if len(data) > MAX_STATE_BYTES or crc != f"{zlib.crc32(text.encode()):08x}":
                return None
            state = json.loads(text)
            total, pending = state["bytes"], state["pending"]
            if type(total) is not int or total < 0 or not isinstance(pending, list):
                return None
            for item in pending:
                rel, temp, old = item
                if not (isinstance(rel, str) and _ENTRY_NAME.match(rel) and isinstance(temp, str)
                        and _TEMPORARY_NAME.match(temp) and type(old) is int and old >= 0):
                    return None
            return total, [tuple(item) for item in pending]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _write_state(self, pending):
        """Write the count and `pending` into the lock file in place (a torn write fails the
        CRC and is counted afresh)."""
        text = json.dumps({"bytes": self._settled_bytes, "pending": pending})
        data = f"{text}\n{zlib.crc32(text.encode()):08x}".encode("ascii")
        if len(data) > MAX_STATE_BYTES:
            data = b""              # too many pending writes to record: counted afresh
        os.pwrite(self._lock_fd, data, 0)
        os.ftruncate(self._lock_fd, len(data))

    def _warn(self, message):
        if not self._warned:
            self._warned = True
            warnings.warn(message, CacheWarning, stacklevel=4)


def _flock(fd, timeout):
    deadline, delay = time.monotonic() + timeout, 0.0002
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise _LockTimeout() from None
            time.sleep(delay)
            delay = min(2 * delay, 0.002)      # a writer holds the lock for a few ms


def _size(path):
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def _create(path):
    """A new file's descriptor, made with mode 0666 for the kernel to apply the umask (a shared
    folder's entries are readable as it allows; reading the umask would set it for a moment)."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                   0o666)


def _frame_kernel(key, text):
    data = text.encode("utf-8")
    return _KERNEL_HEAD.pack(_KERNEL_MAGIC, key.encode("ascii"), zlib.crc32(data),
                             len(data)) + data


def _unframe_kernel(data, key):
    """The text of a kernel entry, or None when it is not a whole, valid one for `key`."""
    if len(data) < _KERNEL_HEAD.size:
        return None
    magic, stored, crc, length = _KERNEL_HEAD.unpack_from(data)
    payload = data[_KERNEL_HEAD.size:]
    if magic != _KERNEL_MAGIC or stored != key.encode("ascii") or length != len(payload) \
            or zlib.crc32(payload) != crc:
        return None
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return None


# ---- what a compile uses -------------------------------------------------------------------

class KernelReuse:
    """One compilation's kernel level: `emit_module`'s kernel_text, giving each kernel's text
    from the cache when it was emitted before (here, in this process or in the folder), else
    emitting it; `new` holds the (key, text) pairs it emitted, for `Cache.store`."""

    def __init__(self, cache, target):
        self.cache, self.target = cache, target
        self.new = []

    def __call__(self, op, math_tier):
        fingerprint = kernel_fingerprint(op)
        if fingerprint is None:
            return emit_kernel(op, math_tier)
        key = kernel_key(fingerprint, self.target, math_tier).digest()
        text = self.cache.kernel(key)
        if text is None:
            text = emit_kernel(op, math_tier, symbol=STAND_IN)
            self.cache.remember_kernel(key, text)
            self.new.append((key, text))
        return text.replace(STAND_IN, op.attributes["sym_name"])


_CACHES = {}            # (folder, bound) -> the Cache that default_cache or a path names
_CACHES_GUARD = threading.Lock()


def default_cache():
    """The default Cache ($ACCY_CACHE_DIR, else ~/.cache/accy, bound default_max_bytes()), or
    None under ACCY_CACHE=0; one object per folder and bound."""
    switch = os.environ.get("ACCY_CACHE", "")
    if switch == "0":
        return None
    if switch not in ("", "1"):
        raise CacheError(f"ACCY_CACHE must be 0 (no cache) or 1, got {switch!r}")
    return _named(_default_path(), default_max_bytes())


def default_max_bytes():
    """$ACCY_CACHE_MAX_BYTES (a positive integer), else DEFAULT_MAX_BYTES."""
    text = os.environ.get("ACCY_CACHE_MAX_BYTES", "")
    if not text:
        return DEFAULT_MAX_BYTES
    try:
        return _positive(int(text), "ACCY_CACHE_MAX_BYTES")
    except (ValueError, CacheError):
        raise CacheError(f"ACCY_CACHE_MAX_BYTES must be a positive number of bytes, got "
                         f"{text!r}") from None


def _named(path, max_bytes):
    key = (os.path.abspath(os.fspath(path)), max_bytes)
    with _CACHES_GUARD:
        if key not in _CACHES:
            _CACHES[key] = Cache(key[0], max_bytes)
        return _CACHES[key]


def cache_for(cache):
    """The Cache that accy.compile's `cache` argument names: None the default cache (None
    under ACCY_CACHE=0), False none, a Cache itself, a path the Cache of that folder (one
    object per folder, with the default bound)."""
    if cache is None:
        return default_cache()
    if cache is False:
        return None
    if isinstance(cache, Cache):
        return cache
    if isinstance(cache, (str, os.PathLike)):
        return _named(cache, DEFAULT_MAX_BYTES)
    raise DTypeError(f"cache must be None (the default cache), False (none), an accy.cache.Cache "
                     f"or a folder's path, got {type(cache).__name__} {cache!r}")

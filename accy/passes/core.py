"""The values a pass pipeline is made of: work contracts, analysis descriptors, options, passes,
and the `PassContext` a pass runs with."""
import hashlib
from collections import Counter
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from accy._core.analysis import AnalysisScope


@dataclass(frozen=True)
class WorkContract:
    """What a pass or analysis promises about its work. `identity` = (name, version) goes into
    every artifact's cache key, so bump the version whenever the output changes. `estimate`:
    for an analysis, value -> estimated bytes held (for the cache budget; default
    `sys.getsizeof`); for a pass, op -> estimated work units."""
    identity: tuple
    estimate: object = None

    def __post_init__(self):
        if (not isinstance(self.identity, tuple) or len(self.identity) != 2
                or not isinstance(self.identity[0], str)):
            raise ValueError(f"a work contract's identity is (name, version), "
                             f"got {self.identity!r}")
        if self.estimate is not None and not callable(self.estimate):
            raise TypeError("a work contract's estimate must be callable")


def stable_id(name):
    """A 64-bit id derived from `name` alone: the same in every process."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


@dataclass(frozen=True)
class AnalysisDescriptor:
    """Names an analysis. Its `id` is derived from the name, so two descriptors with one name are
    one analysis to the cache."""
    name: str
    work_contract: WorkContract = None
    id: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("an analysis needs a non-empty name")
        if self.work_contract is None:
            object.__setattr__(self, "work_contract", WorkContract((self.name, 1)))
        object.__setattr__(self, "id", stable_id(self.name))


@dataclass(frozen=True)
class Option:
    """A pass option: its name as written in pipelines (`max-iterations`), type, default, help,
    and for numbers an optional range."""
    name: str
    type: type
    default: object
    help: str = ""
    minimum: object = None
    maximum: object = None

    def coerce(self, value):
        """`value` (a Python value, or pipeline text) as this option's type."""
        if isinstance(value, str) and self.type is not str:
            text = value.strip()
            if self.type is bool:
                if text not in ("true", "false", "1", "0"):
                    raise ValueError(f"option '{self.name}' takes true or false, got '{value}'")
                return text in ("true", "1")
            try:
                value = self.type(text)
            except ValueError:
                raise ValueError(f"option '{self.name}' expects a value of type "
                                 f"{self.type.__name__}, got '{value}'") from None
        elif self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not self.type:
            raise ValueError(f"option '{self.name}' expects a value of type "
                             f"{self.type.__name__}, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"option '{self.name}' must be at least {self.minimum}, "
                             f"got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"option '{self.name}' must be at most {self.maximum}, "
                             f"got {value!r}")
        return value

    def text(self, value):
        if self.type is bool:
            return "true" if value else "false"
        if self.type is str:
            return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return repr(value)


@dataclass(frozen=True)
class Pass:
    """An immutable pass: `run(op, pass_context)` returns None or True on success, False on
    failure (or raises). `options` declares the options; `values` holds those set, sorted by
    name. `anchor`: the op name it must run on (None: any op)."""
    name: str
    run: object
    description: str = ""
    options: tuple = ()
    values: tuple = ()
    work_contract: WorkContract = None
    anchor: str = None

    def __post_init__(self):
        if self.work_contract is None:
            object.__setattr__(self, "work_contract", WorkContract((self.name, 1)))
        object.__setattr__(self, "options", tuple(self.options))
        object.__setattr__(self, "values", tuple(sorted(self.values)))
        known = {o.name for o in self.options}
        for key, _ in self.values:
            if key not in known:
                raise ValueError(f"pass '{self.name}' has no option '{key}' "
                                 f"(options: {', '.join(sorted(known)) or 'none'})")
        values = {o.name: o.default for o in self.options}
        values.update(self.values)
        # every run's PassContext reads them: made once, read-only
        object.__setattr__(self, "_option_values", MappingProxyType(values))

    def with_options(self, values=None, **kw):
        """A copy with options set; names may use '_' for '-'. Values are checked and coerced."""
        given = dict(values or {})
        given.update({k.replace("_", "-"): v for k, v in kw.items()})
        decl = {o.name: o for o in self.options}
        merged = dict(self.values)
        for key, value in given.items():
            if key not in decl:
                raise ValueError(f"pass '{self.name}' has no option '{key}' "
                                 f"(options: {', '.join(sorted(decl)) or 'none'})")
            merged[key] = decl[key].coerce(value)
        return replace(self, values=tuple(merged.items()))

    @property
    def option_values(self):
        """Every option's value, defaults filled in (a read-only mapping)."""
        return self._option_values

    def text(self):
        """The pass as pipeline text: `name` or `name{key=value ...}` for the options set."""
        if not self.values:
            return self.name
        decl = {o.name: o for o in self.options}
        return self.name + "{" + " ".join(f"{k}={decl[k].text(v)}" for k, v in self.values) + "}"


class PassFailure(Exception):
    """Raised by `PassContext.fail` to end a pass with a failure and a message."""


class PassContext(AnalysisScope):
    """What a running pass sees: the op, its Context, analyses (cached, shared by the run),
    preservation, options and statistics."""

    def __init__(self, cache, op, pass_, lease=0):
        super().__init__(cache, op, pass_.name, lease)
        self.pass_ = pass_
        self.options = pass_.option_values
        self.statistics = Counter()

    @property
    def context(self):
        return self.op.context

    def fail(self, message):
        raise PassFailure(message)


def erasing_pass(name, erase, description):
    """A pass that runs `erase(op) -> count of ops erased`, counts them as the statistic
    `erased`, and preserves every analysis when it erased nothing."""
    def run(op, ctx):
        erased = erase(op)
        if erased:
            ctx.statistics["erased"] += erased
        else:
            ctx.preserve_all_analyses()
    return Pass(name, run, description)


def analysis_pass(name, get, what):
    """A pass that computes an analysis of every `builtin.func` below its op through the cache
    (`get(pass_context, func)`) and changes no IR, so it preserves every analysis."""
    def run(op, pass_context):
        for func in op.walk(name="builtin.func"):
            get(pass_context, func)
        pass_context.preserve_all_analyses()
    return Pass(name, run, f"compute {what} for every function; changes no IR")

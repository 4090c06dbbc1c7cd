"""The errors accy raises. Every failure a user can cause maps to one of these."""
import builtins


class AccyError(Exception):
    """Base class of every accy error."""


class ParseError(AccyError):
    """Text that is not valid accy/MLIR IR. Carries line, column and a caret snippet."""

    def __init__(self, message, line=0, column=0, snippet=""):
        self.message = message
        self.line = line
        self.column = column
        self.snippet = snippet
        text = f"{line}:{column}: {message}" if line else message
        if snippet:
            text += "\n" + snippet
        super().__init__(text)


class VerifyError(AccyError):
    """IR that breaks a structural rule or an op's own constraint; names and prints the op."""

    def __init__(self, message, op_text=""):
        self.message = message
        self.op_text = op_text
        super().__init__(f"{message}\n  in: {op_text}" if op_text else message)


class CapacityError(AccyError):
    """A Context (or cache) limit from `Capacity` would be exceeded; nothing was changed."""


class IRError(AccyError):
    """A misuse of the IR API: an erased handle, a refused erase, a move that makes a cycle."""


class ShapeError(AccyError, ValueError):
    """Operand shapes an op cannot take (tracing, type inference); names the op and, when traced,
    the user's source line."""


class TypeError(AccyError, builtins.TypeError):  # noqa: A001 - accy.TypeError, by design
    """Operand dtypes an op cannot take (tracing, type inference); names the op and, when
    traced, the user's source line. Also a builtins.TypeError, so `except TypeError` works."""


class UnsupportedError(AccyError):
    """Something this path cannot do (e.g. the reference interpreter running a user PTX
    kernel); the message says what and where to go instead."""


class BundleError(AccyError):
    """Bytes that are not a well-formed accy bundle (docs/runtime.md), or an executable that
    cannot be written as one; names the section and field at fault."""


class AnalysisError(AccyError):
    """An analysis failed to compute (or to clean up), or was misused; names the analysis and the
    pass that asked for it."""

    def __init__(self, message, pass_name="", analysis_name=""):
        self.pass_name = pass_name
        self.analysis_name = analysis_name
        super().__init__(message)


class PassError(AccyError):
    """A pass failed (returned failure, raised, or left invalid IR); names the pass and the op it
    ran on, and the reproducer file when one was written."""

    def __init__(self, message, pass_name="", op_name="", reproducer=None):
        self.message = message
        self.pass_name = pass_name
        self.op_name = op_name
        self.reproducer = reproducer    # set by the crash reproducer instrument
        super().__init__(message)

    def __str__(self):
        if self.reproducer:
            return (f"{self.message}\n  reproducer: {self.reproducer} "
                    f"(replay: accy opt {self.reproducer} --run-reproducer)")
        return self.message

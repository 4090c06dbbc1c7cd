"""The errors accy raises. Every failure a user can cause maps to one of these."""


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

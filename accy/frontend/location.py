"""Where in the user's code a tracing error happened: the innermost frame outside accy."""
import os

_ACCY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_line(tb, files=None):
    """'file.py:12' for the innermost frame of traceback `tb` outside the accy package (with
    `files`, a set of absolute paths: the innermost frame in one of them), or None."""
    found = None
    while tb is not None:
        path = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if path in files if files is not None else not path.startswith(_ACCY + os.sep):
            found = f"{os.path.basename(path)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def locate(exc):
    """Append ' (at file.py:12)' to `exc`'s message (once), from its traceback."""
    where = user_line(exc.__traceback__)
    if where and not getattr(exc, "located", False):
        exc.args = (f"{exc.args[0]} (at {where})",) + exc.args[1:]
        exc.located = True
    return exc

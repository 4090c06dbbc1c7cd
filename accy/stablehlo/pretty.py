"""(placeholder until the pretty-form reader lands)"""
from accy.errors import UnsupportedError


def is_pretty(text):
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "//")):
            return not line.startswith('"')
    return False


def to_generic(text):
    raise UnsupportedError("the pretty form is not read yet")

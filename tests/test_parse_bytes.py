"""accy.ir.parse on bytes: ASCII input is parsed from the bytes as they are (no decoded copy
of the whole text is made only to check it); other input is checked to be UTF-8, a ParseError
naming the byte offset where it is not."""
import tracemalloc

import pytest

import accy.ir as ir
from accy.errors import ParseError

from cli_helpers import function_ir

BIG = 20_000_000


def test_ascii_bytes_are_parsed_without_a_decoded_copy():
    data = b"// " + b"x" * BIG + b"\n" + function_ir("f").encode()
    tracemalloc.start()
    try:
        module = ir.parse(data, ir.Context())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [op.name for op in module.body] == ["builtin.func"]
    assert peak < BIG // 4, peak


@pytest.mark.parametrize("text", [function_ir("caf\u00e9"), "// \u00e9\u4e2d\n" + function_ir("f")])
def test_utf8_bytes_parse_as_their_text_does(text):
    assert ir.parse(text.encode(), ir.Context()).print() == ir.parse(text, ir.Context()).print()


def test_bytes_that_are_not_utf8_name_the_offset():
    data = function_ir("f").encode() + b"// \xc3\x28\n"
    with pytest.raises(ParseError, match=f"not valid UTF-8 .*at byte offset {len(data) - 3}"):
        ir.parse(data, ir.Context())

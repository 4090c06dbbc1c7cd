"""`dce`: erase pure ops whose results are unused, to a fixed point."""
from accy.passes.core import erasing_pass
from accy.passes.rewrite import eliminate_dead_code

PASS = erasing_pass("dce", eliminate_dead_code, "Erase dead pure operations")

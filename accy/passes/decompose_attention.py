"""`decompose-attention`: replace each `tensor.attention` composite by the primitive ops of its
definition (accy.tensor.decompose), for targets or tools that want no composite."""
from accy._core.context import Builder
from accy.passes.core import Pass
from accy.tensor.decompose import decompose_attention


def _run(op, ctx):
    found = list(op.walk(name="tensor.attention"))
    for attention in found:
        value = decompose_attention(attention, Builder(attention.context))
        attention.result.replace_all_uses_with(value)
        attention.erase()
    if found:
        ctx.statistics["decomposed"] += len(found)
    else:
        ctx.preserve_all_analyses()


PASS = Pass("decompose-attention", _run,
            "Replace tensor.attention by dot_general, softmax and dot_general")

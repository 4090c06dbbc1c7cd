"""Lowering of `sort` work items to a `kl.kernel` (schedule `rank`): a thread per element (a
grid-stride loop over every position of the operands' shape). The thread walks the element's
row (every position along the sort dimension, in order), runs the comparator both ways on
each pair, and counts the row's elements that go before its own: those the comparator puts
first, and the earlier ones it ties with (neither goes first). That count is the element's
place in the sorted row, where the thread stores every operand's element: the reference
interpreter's rule (a stable sort for a strict weak order), so results match it bit for bit.
O(L) comparisons per element, L the row's length; no shared memory, no workspace.

The operands are the item's inputs (an alone item: producers run in earlier kernels); values
the comparator reads from outside the op are loaded as rank-0 inputs. Results nothing reads
are not stored.
"""
import math

from accy.lowering.launch import lowered, plan_thread_per_element
from accy.lowering.rows import lower_body
from accy.lowering.values import Lowering, start_kernel
from accy.passes.shape_layout import row_major_strides


# a thread per element
plan_sort = plan_thread_per_element("rank")


def lower_sort(context, block, outline, item, layout, target=None):
    op = item.hero
    shape = op.operand_types[0].shape
    axis = op.attributes["dimension"]
    length, stride = shape[axis], row_major_strides(shape)[axis]
    kb, pointers = start_kernel(context, block, outline, item)
    lowering = Lowering(kb, layout, pointers, item)
    comparator = op.regions[0].entry
    sources = [pointers[v] for v in op.operands]
    stores = [(pointers[r], i) for i, r in enumerate(op.results) if r in pointers]
    i64 = lambda n: kb.constant(n, "i64")        # noqa: E731

    def goes_before(lhs, rhs):
        pairs = [x for pair in zip(lhs, rhs) for x in pair]
        (before,) = lower_body(lowering, comparator, pairs)
        return before

    def element(kb, p):
        i = kb.op("rem", kb.op("div", p, i64(stride)), i64(length))
        row = kb.op("sub", p, kb.op("mul", i, i64(stride)))
        mine = [kb.load(ptr, p) for ptr in sources]

        def step(kb, j, rank):
            lowering.push()
            other = [kb.load(ptr, kb.op("add", row, kb.op("mul", j, i64(stride))))
                     for ptr in sources]
            first, last = goes_before(other, mine), goes_before(mine, other)
            # strictly: a comparator that puts an element before itself (LE) or each of a
            # pair before the other still gives every element a place in the row
            ahead = kb.op("and", first, kb.op("not", last))
            behind = kb.op("and", last, kb.op("not", first))
            tie = kb.op("not", kb.op("or", ahead, behind))
            counts = kb.op("or", ahead, kb.op("and", kb.cmp("LT", j, i), tie))
            lowering.pop()
            return [kb.op("add", rank, kb.convert(counts, "i64"))]
        (rank,) = kb.for_(i64(0), i64(length), i64(1), [i64(0)], step, unroll=False)
        place = kb.op("add", row, kb.op("mul", rank, i64(stride)))
        for ptr, k in stores:
            kb.store(mine[k], ptr, place)

    kb.for_(kb.global_index(), i64(math.prod(shape)), kb.grid_size(), [], element)
    return lowered(outline, kb.finish(), outline.schedule)

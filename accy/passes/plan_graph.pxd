# The planner's graph, for the planner's other Cython modules (plan_merge, plan_judges).
from libc.stdint cimport int32_t

from accy._core.context cimport Context


cdef class PlanNode:
    cdef public object op, name, role, shape, size, operand_shapes, access, producers, \
        readers, captures, results
    cdef public Py_ssize_t index
    cdef public bint moves_inner, expensive, reads_across
    cdef int32_t oid            # the op's record


cdef class PlanGraph:
    cdef public object block, layout, nodes, term, local, constants, chains, captured, \
        planned, dead, cheap, value_readers, rules
    cdef public dict _maps, _linears
    cdef Context c
    cdef dict producer          # value record -> producing node of this block

    cdef tuple _chain(self, int32_t value)
    cdef _materialize(self, list body)
    cdef list _accesses(self, PlanNode n)
    cdef set _live(self, list candidates)

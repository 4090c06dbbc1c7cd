"""Passes: the pass manager, analyses and their cache, pattern rewriting, generic passes.

    from accy.passes import PassManager
    PassManager("canonicalize,cse,dce").run(module)

Pass modules are imported only when a pipeline names them.
"""
from accy._core.analysis import AnalysisCache
from accy.errors import AnalysisError, PassError
from accy.passes.core import (AnalysisDescriptor, Option, Pass, PassContext, PassFailure,
                              WorkContract)
from accy.passes.instruments import CrashReproducer, Instrument, PrintIR, Timing
from accy.passes.manager import PassManager
from accy.passes.pipeline import (Nest, lookup_pass, parse_pipeline, register_pass,
                                  registered_passes)

__all__ = [
    "AnalysisCache", "AnalysisDescriptor", "AnalysisError", "CrashReproducer", "Instrument",
    "Nest", "Option", "Pass", "PassContext", "PassError", "PassFailure", "PassManager",
    "PrintIR", "Timing", "WorkContract", "lookup_pass", "parse_pipeline", "register_pass",
    "registered_passes",
]

"""accy's IR core: storage, handles, text, verifier (Cython; declarations in the .pxd files).

`context` holds the storage and the handles; `text` and `verify` walk that storage, so they
cimport `context` and sit above it. The handles' `verify`, `print` and `fingerprint` reach them
through the entry points installed here, when the core is first imported.
"""
from accy._core import context, text, verify

context.install_verifier_and_printer(verify.verify, text.print_op, text.fingerprint)

"""accy's IR core: storage, handles, text, verifier (Cython; declarations in the .pxd files)."""

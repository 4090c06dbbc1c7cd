"""StableHLO text as JAX and MLIR print it, read into accy."""

"""accy's version (also in pyproject.toml): `accy.__version__`, and what a bundle records as
the version that wrote it."""
VERSION = "0.1.0"

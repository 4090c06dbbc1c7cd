"""Helpers for tests of the `accy` command."""
from accy.__main__ import main


def cli_error(capsys, *argv, one_line=False):
    """The stderr of `accy ARGV`, which must fail (exit 1) with an `accy: error:` message and no
    traceback; with `one_line`, a message of one line."""
    assert main(list(argv)) == 1
    err = capsys.readouterr().err
    assert err.startswith("accy: error: ") and "Traceback" not in err, err
    if one_line:
        assert len(err.strip().splitlines()) == 1, err
    return err

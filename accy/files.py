"""Writing a whole file in place of another: what `accy compile` and `Executable.save` write."""
import os
import tempfile


def replace_file(path, data):
    """Write `data` (bytes) to a new file in `path`'s folder and rename it onto `path`: a
    symbolic link planted at `path` is replaced, never followed out of the folder, no reader
    sees half a file, and a write that fails leaves `path` as it was and no temporary file."""
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".accy-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask

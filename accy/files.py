"""Writing a whole file in place of another: what `accy compile` and `Executable.save` write."""
import os
import secrets


def replace_file(path, data):
    """Write `data` (bytes) to a new file in `path`'s folder and rename it onto `path`: a
    symbolic link planted at `path` is replaced, never followed out of the folder, no reader
    sees half a file, and a write that fails leaves `path` as it was and no temporary file.
    The new file gets the mode a plain create gives (0666 less the umask, which the kernel
    applies: reading the umask would set it for the whole process for a moment)."""
    folder = os.path.dirname(path) or "."
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = os.path.join(folder, f".accy-{secrets.token_hex(8)}")
        try:
            fd = os.open(temporary, flags, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name in {folder}")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise

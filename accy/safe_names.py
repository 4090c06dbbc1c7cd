"""One rule for turning a user's name (a function's sym_name, which may come from any IR text)
into a restricted one: a PTX identifier prefix for its kernels, a file name stem for `accy
compile`'s outputs.

    safe_name(original, kept, first, marker, limit)

Every character outside `kept` becomes '_'; '_' is put in front when the first one is not in
`first`; a result past `limit` characters is cut. A name that had to change in any of these
ways gets `marker`, 'h' and a hash of the original (within `limit`). `marker` is outside
`kept`, so an unchanged name never holds it: two different names never give the same result
(up to a 32-bit hash collision between two changed ones).
"""
import hashlib


def safe_name(original, kept, first, marker, limit):
    suffix = marker + "h" + hashlib.blake2b(original.encode("utf-8", "surrogatepass"),
                                            digest_size=4).hexdigest()
    name = "".join(c if c in kept else "_" for c in original)
    if name[:1] not in first:       # an empty name too
        name = "_" + name
    if name == original and len(name) <= limit:
        return name
    return name[:limit - len(suffix)] + suffix

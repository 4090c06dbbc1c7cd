"""Worker functions for tests of accy.batch's dispatch, importable by spawned processes (they
get the test session's sys.path): each takes a list of texts, as accy.batch.worker.compile_texts
does, and answers in its form."""
import os


def echo_or_die(texts):
    """Each text back as a success; the whole process exits at once (as a crash would) when a
    text is 'die'."""
    if "die" in texts:
        os._exit(3)
    return [(True, text, 0.0, False) for text in texts]

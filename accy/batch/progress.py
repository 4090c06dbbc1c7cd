"""A batch's progress bar (tqdm, on standard error): jobs done of all, with the cached and
failed counts. Shown on a terminal, or when asked for; tqdm is imported only when a bar is."""
import sys


class Progress:
    def __init__(self, total, show=None):
        """`show`: True or False, or None for a bar only when standard error is a terminal."""
        self.cached = self.failed = 0
        if show is None:
            show = sys.stderr.isatty()
        self.bar = None
        if show and total:
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="job", desc="accy", file=sys.stderr,
                            dynamic_ncols=True)

    def done(self, cached=False, failed=False):
        self.cached += cached
        self.failed += failed
        if self.bar is not None:
            self.bar.set_postfix_str(f"cached {self.cached}, failed {self.failed}",
                                     refresh=False)
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.close()

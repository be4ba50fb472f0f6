"""checks.py: the "ok"/"FAIL" line a test script prints for each check, and
the closing count of those that passed and failed."""


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        self.passed += bool(ok)
        self.failed += not ok

    def summary(self, name):
        """Prints the count; the script's exit status."""
        print("%s: %d passed, %d failed" % (name, self.passed, self.failed))
        return 1 if self.failed else 0

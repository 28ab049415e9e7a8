"""What the Python benches share: finding the contest binary they measure."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def contest_binary(bench):
    """The contest to measure: $CONTEST, else the build tree's; exits naming `bench` if absent."""
    path = os.environ.get("CONTEST", os.path.join(HERE, "..", "build", "contest"))
    if not os.access(path, os.X_OK):
        sys.exit("%s: no contest binary at %s (make, or CONTEST=...)" % (bench, path))
    return path

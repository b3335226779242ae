"""The import guard of the test reference scripts (networkx_paths.py, networkx_louvain.py): a
missing package exits with status 3 and its pip line, which the Rust test reports as such."""

import importlib
import sys


def require(package):
    """The imported `package`, or exit with status 3 if it is not installed."""
    try:
        return importlib.import_module(package)
    except ImportError:
        print(f"{package} is not installed: pip install {package}", file=sys.stderr)
        sys.exit(3)

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # for schema_examples

try:
    import acphost.schema  # noqa: F401
except ImportError:  # not installed: run from the source tree
    sys.path.insert(0, str(HERE.parents[1] / "src"))

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_generated_modules_are_fresh():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_schema.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, (
        "src/acphost/schema/_types.py or _methods.py is stale; run "
        f"`python tools/gen_schema.py`\n{proc.stderr}"
    )

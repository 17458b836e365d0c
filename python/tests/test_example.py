"""python/examples/crowd_picture.py runs and writes its PNG (the picture of
docs/python.md), in a smaller crowd."""
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "crowd_picture.py"


def test_example_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "crowd.png"
    subprocess.run([sys.executable, str(EXAMPLE), str(out), "--agents", "400", "--steps",
                    "30"], check=True, capture_output=True)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10000

"""The README's Python example runs as printed and brings the agents to the goal."""
import re

import numpy as np

from conftest import REPO


def test_readme_python_example_runs():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Python\n", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)
    distance = np.hypot(scope["px"] - 10, scope["py"])
    assert np.all(distance <= 0.5)

"""The README's quick start is two commands, and .ci/run runs exactly the second."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command_word_for_word():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Quick start\s+```sh\n(.*?)```", readme, re.S)
    assert block, "README has no Quick start code block"
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert "simcore run" in commands[0] and "pytest" in commands[1]
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == [commands[1]]

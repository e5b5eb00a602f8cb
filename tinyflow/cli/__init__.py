"""The command-line tools: the runner (python -m tinyflow), the memory report, the coverage report."""

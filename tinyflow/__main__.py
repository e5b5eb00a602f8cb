"""`python -m tinyflow SCRIPT.py [args]`: run an unmodified TF1 script on tinyflow (tinyflow/cli/runner.py)."""
import sys

from tinyflow.cli.runner import main

if __name__ == "__main__":
    sys.exit(main())

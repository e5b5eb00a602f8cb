"""Where the test suite's files are, for tests in any of its subfolders."""
import os

TESTS = os.path.dirname(os.path.abspath(__file__))   # tests/ (fixtures/, data/, opspecs/ are here)
ROOT = os.path.dirname(TESTS)                          # the repository

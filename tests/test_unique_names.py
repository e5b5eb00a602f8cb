"""pytest imports test files by their base name (no packages under tests/): two files with one name
stop the whole run at collection, so every test file's name is unique."""
import collections
import os


def test_test_file_names_are_unique():
    here = os.path.dirname(os.path.abspath(__file__))
    names = collections.Counter(f for _, _, files in os.walk(here) for f in files
                                if f.startswith("test_") and f.endswith(".py"))
    assert [n for n, k in names.items() if k > 1] == []

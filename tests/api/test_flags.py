"""tf.flags / tf.app.flags / tf.app.run: absl-py's flags, as in TF 1.15. The script runs are compared
with TF 1.15's output for the same script and arguments (tests/fixtures/flags/flagscript.py, recorded
with the oracle)."""
import os
import subprocess
import sys

import pytest

import tinyflow as tf
from paths import ROOT, TESTS

SCRIPT = os.path.join(TESTS, "fixtures", "flags", "flagscript.py")


def _run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "tinyflow", SCRIPT, *args], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)


def test_tf_flags_is_absl_flags():
    from absl import flags as absl_flags
    flags = tf.app.flags
    assert flags is tf.flags
    for name in ("DEFINE_multi_string", "DEFINE_multi_integer", "DEFINE_multi_float", "DEFINE_multi_enum",
                 "DEFINE_enum", "DEFINE_list", "DEFINE_spaceseplist", "mark_flag_as_required",
                 "mark_flags_as_required", "mark_flags_as_mutual_exclusive", "register_validator", "FlagValues",
                 "Error", "IllegalFlagValueError", "UnrecognizedFlagError", "disclaim_key_flags"):
        assert hasattr(flags, name), name
    assert flags.DEFINE_multi_string is absl_flags.DEFINE_multi_string
    assert flags.IllegalFlagValueError is absl_flags.IllegalFlagValueError


def test_flags_parse_into_their_own_flag_values():
    flags = tf.flags
    fv = flags.FlagValues()
    flags.DEFINE_integer("steps", 10, "training steps", flag_values=fv)
    flags.DEFINE_boolean("fast", False, "go fast", flag_values=fv)
    flags.DEFINE_multi_string("tag", [], "tags", flag_values=fv)
    flags.DEFINE_string(flag_name="data_dir", default_value="/tmp/x", docstring="data", flag_values=fv)
    assert fv(["prog", "--steps=5", "--fast", "--tag=a", "--tag", "b", "extra"]) == ["prog", "extra"]
    assert fv.flag_values_dict() == {"steps": 5, "fast": True, "tag": ["a", "b"], "data_dir": "/tmp/x"}
    with pytest.raises(flags.IllegalFlagValueError, match="flag --steps=many: invalid literal"):
        fv(["prog", "--steps=many"])
    with pytest.raises(flags.UnrecognizedFlagError, match="Unknown command line flag 'nope'"):
        fv(["prog", "--nope=1"])
    with pytest.raises(flags.DuplicateFlagError):
        flags.DEFINE_integer("steps", 1, "again", flag_values=fv)


@pytest.mark.slow
def test_app_run_parses_like_tf():
    out = _run("--name=z", "--tag", "a", "--tag=b", "--k=4", "--k", "5", "--nofast", "--mode=b", "--items=x,y,z",
               "--lr", "0.25", "extra", "--unknown=1", "more")
    assert out.returncode == 0, out.stderr
    # TF 1.15's output: unknown flags go to main with the other arguments
    assert out.stdout.splitlines() == ["argv ['extra', '--unknown=1', 'more']",
                                       "values ['z', 3, 0.25, False, ['a', 'b'], [4, 5], 'b', ['x', 'y', 'z'], 'o']"]
    assert "Use of the keyword argument names (flag_name, default_value, docstring) is deprecated" in out.stderr


@pytest.mark.slow
def test_flagfile(tmp_path):
    (tmp_path / "ff.txt").write_text("--n=9\n--tag=fromfile\n")
    out = _run("--name", "z", "--flagfile=ff.txt", cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["argv []",
                                       "values ['z', 9, 0.5, False, ['fromfile'], [1], 'a', ['p', 'q'], 'o']"]


@pytest.mark.slow
@pytest.mark.parametrize("args,message", [
    ((), "absl.flags._exceptions.IllegalFlagValueError: flag --name=None: Flag --name must have a value other "
         "than None."),
    (("--name=z", "--mode=c"), "absl.flags._exceptions.IllegalFlagValueError: flag --mode=c: value should be one "
                               "of <a|b>"),
    (("--name=z", "--n=-1"), "absl.flags._exceptions.IllegalFlagValueError: flag --n=-1: -1 is not a "
                             "non-negative integer"),
    (("--implicit", "--n=4"), "absl.flags._exceptions.IllegalFlagValueError: flag --name=None: Flag --name must "
                              "have a value other than None."),
])
def test_flag_errors_are_absls(args, message):
    out = _run(*args)
    assert out.returncode == 1 and out.stdout == ""
    lines = [line for line in out.stderr.splitlines() if "TINYFLOW_FULL_TRACEBACK" not in line]  # the runner's hint
    assert lines[-1] == message   # TF 1.15's last line for the same arguments


@pytest.mark.slow
def test_help_and_helpfull_print_and_exit_without_running_main():
    out = _run("--help")
    assert out.returncode == 1 and "argv" not in out.stdout   # absl's --help exits 1, as in TF 1.15
    text = out.stdout + out.stderr
    assert "Flags demo: the docstring absl prints for --help." in text
    for line in ("  --[no]fast: go fast", "  --mode: <a|b>: mode", "  --k: ks;", "    (a non-negative integer)",
                 "Try --helpfull to get a list of all flags."):
        assert line in text.splitlines(), line
    full = _run("--helpfull")
    assert full.returncode == 1 and "--flagfile: Insert flag definitions from the given file" in full.stdout + \
        full.stderr

"""The docs site stays true to the code: it builds strictly (a broken link, a missing anchor, a page left
out of the navigation or a bad API reference fails), every code block marked runnable runs, every error
message the troubleshooting list quotes is still raised by tinyflow, and the README's links resolve.

A runnable block is a fenced block whose fence line is exactly "```python {.runnable}" (in docs/**/*.md
and README.md), or "```python {.runnable .slow}" for one that takes over a second (a slow test: CI
runs it, the fast subset does not); it runs in a fresh default graph, in a temporary folder, and states
what the reader should see with `assert`. docs/contributing.md says how to write one."""
import glob
import importlib.util
import os
import re
import subprocess
import sys

import pytest

from paths import ROOT

DOCS = os.path.join(ROOT, "docs")
RUNNABLE = re.compile(r"^```python \{\.runnable( \.slow)?\}\n(.*?)^```", re.S | re.M)
MESSAGE = re.compile(r"<!-- message: (.+?) -->")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _pages():
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(DOCS, "**", "*.md"), recursive=True))


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def runnable_blocks():
    """[(id, source, slow)]: each runnable block once (the README's example is also getting-started's)."""
    seen, out = set(), []
    for page in _pages():
        for i, (slow, source) in enumerate(RUNNABLE.findall(_read(page))):
            if source not in seen:
                seen.add(source)
                out.append(("%s:%d" % (os.path.relpath(page, ROOT), i + 1), source, bool(slow)))
    return out


BLOCKS = runnable_blocks()


def test_the_docs_have_runnable_blocks():
    pages = {name.split(":")[0] for name, _, _ in BLOCKS}
    assert len(BLOCKS) >= 7 and {"README.md", "docs/migrating.md", "docs/guides/teachers.md"} <= pages, BLOCKS


@pytest.mark.parametrize("name,source", [pytest.param(name, source, marks=[pytest.mark.slow] if slow else [], id=name)
                                         for name, source, slow in BLOCKS])
def test_runnable_block(name, source, tmp_path, monkeypatch):
    from tinyflow.passes import memory
    monkeypatch.chdir(tmp_path)
    planners = dict(memory.PLANNERS)       # a block may register a planner: it must not outlive the block
    try:
        exec(compile(source, "<%s>" % name, "exec"), {"__name__": "__docs__"})
    finally:
        memory.PLANNERS.clear()
        memory.PLANNERS.update(planners)


def test_the_check_finds_blocks_and_only_marked_ones():
    text = "a\n```python {.runnable}\nx = 1\n```\n```python\ny = 2\n```\n    ```python {.runnable}\n    z\n    ```\n"
    assert RUNNABLE.findall(text) == [("", "x = 1\n")]
    assert RUNNABLE.findall("```python {.runnable .slow}\nz = 3\n```\n") == [(" .slow", "z = 3\n")]


def _tinyflow_source():
    return "\n".join(_read(f) for f in glob.glob(os.path.join(ROOT, "tinyflow", "**", "*.py"), recursive=True))


def test_troubleshooting_messages_are_tinyflows():
    """Each `<!-- message: TEXT -->` of the migration guide's troubleshooting list is text tinyflow's
    code still raises (or prints): a reworded message must be reworded in the guide too."""
    messages = MESSAGE.findall(_read(os.path.join(DOCS, "migrating.md")))
    assert len(messages) >= 20
    source = _tinyflow_source()
    assert [m for m in messages if m not in source] == []


def _anchors(path):
    """The heading anchors of a Markdown page, as MkDocs (Python-Markdown's toc) makes them."""
    from markdown.extensions.toc import slugify
    text = re.sub(r"^```.*?^```", "", _read(path), flags=re.S | re.M)
    return {slugify(re.sub(r"[`*]", "", h), "-") for h in re.findall(r"^#{1,6} (.+?)\s*$", text, re.M)}


def test_readme_links_resolve():
    """MkDocs checks the links of docs/; the README is outside it, so its links are checked here."""
    readme = _read(os.path.join(ROOT, "README.md"))
    bad = []
    for target in LINK.findall(readme):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.join(ROOT, path)
        if not os.path.exists(full):
            bad.append(target)
        elif anchor and anchor not in _anchors(full):
            bad.append(target)
    assert bad == []
    assert len(readme.splitlines()) < 200, "the README is the short way in: put a new section on a page of docs/"


def test_readme_commands_are_cis():
    """The README's test command is the one .ci/run runs (keep the two identical)."""
    command = 'pip install -e ".[test]" && python -m pytest -n auto'
    assert command in _read(os.path.join(ROOT, "README.md"))
    assert command in _read(os.path.join(ROOT, ".ci", "run")).splitlines()
    assert 'pip install -e ".[examples]" && python examples/mnist_softmax.py' in _read(os.path.join(ROOT, "README.md"))


def test_the_plots_read_the_performance_tables():
    spec = importlib.util.spec_from_file_location("make_plots", os.path.join(DOCS, "plots", "make_plots.py"))
    plots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plots)
    tables = plots.tables()
    for name, rows in tables.items():
        assert len(rows) >= 3, (name, rows)
        assert os.path.exists(os.path.join(DOCS, "plots", name + ".png")), name


def _docs_tools_missing():
    return [m for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")
            if importlib.util.find_spec(m.split(".")[0]) is None
            or (m == "mkdocstrings_handlers.python" and importlib.util.find_spec(m) is None)]


@pytest.mark.slow
@pytest.mark.skipif(bool(_docs_tools_missing()),
                    reason="the docs extra is not installed (pip install -e \".[docs]\"), so the site is not built "
                           "here; CI installs it (.ci/run)")
def test_site_builds_strictly(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert os.path.exists(tmp_path / "site" / "migrating" / "index.html")

"""The README's Python example runs as written (from the repository's folder, with
../shared/assets beside it), and prints what its comments say."""

import contextlib
import io
import re

import pytest

from conftest import CMU_BVH, ROOT


def test_readme_python_example_runs(tmp_path, monkeypatch):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("\n## Python\n") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    if not CMU_BVH.exists():
        pytest.skip(f"{CMU_BVH} is absent")
    # Inputs where the README says, outputs in a temporary folder.
    code = code.replace('"../shared/', f'"{ROOT.parent}/shared/').replace('"fixtures/', f'"{ROOT}/fixtures/')
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    for name in ["vrm0_cmu.vrm", "cmu_normalized.glb", "vrm0_normalized.vrm"]:
        assert (tmp_path / name).stat().st_size > 0, name
    # Each commented print says what it prints (the arrays' repr up to the comment's text).
    printed = out.getvalue().splitlines()
    prints = [line for line in code.splitlines() if line.startswith("print(")]
    said = [line.split("#", 1)[1].strip() if "#" in line else "" for line in prints]
    assert len(printed) == len(said)
    for got, comment in zip(printed, said):
        if comment and comment[0] in "([":
            assert got == comment.split(":")[0].strip(), (got, comment)

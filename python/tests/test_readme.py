"""The Python examples of the README and of docs/python.md run as written (from the repository's
folder, with ../shared/assets beside it), and print what their comments say."""

import contextlib
import io
import re

import pytest

from conftest import CMU_BVH, ROOT

# (file, the heading its example follows, whether it reads the CMU BVH, the files it writes)
EXAMPLES = [
    ("README.md", "\n### Python\n", False, ["mixamo_normalized.glb", "vrm0_walk.vrm"]),
    ("docs/python.md", "\n## Example\n", True, ["vrm0_cmu.vrm", "cmu_normalized.glb", "vrm0_normalized.vrm"]),
]


@pytest.mark.parametrize("name, heading, needs_cmu, outputs", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_python_example_runs(tmp_path, monkeypatch, name, heading, needs_cmu, outputs):
    text = (ROOT / name).read_text()
    section = text[text.index(heading) :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    if needs_cmu and not CMU_BVH.exists():
        pytest.skip(f"{CMU_BVH} is absent")
    # Inputs where the example says, outputs in a temporary folder.
    code = code.replace('"../shared/', f'"{ROOT.parent}/shared/').replace('"fixtures/', f'"{ROOT}/fixtures/')
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, name, "exec"), {})
    for output in outputs:
        assert (tmp_path / output).stat().st_size > 0, output
    # Each commented print says what it prints (the arrays' repr up to the comment's text).
    printed = out.getvalue().splitlines()
    prints = [line for line in code.splitlines() if line.startswith("print(")]
    said = [line.split("#", 1)[1].strip() if "#" in line else "" for line in prints]
    assert len(printed) == len(said)
    for got, comment in zip(printed, said):
        if comment and comment[0] in "([":
            assert got == comment.split(":")[0].strip(), (got, comment)

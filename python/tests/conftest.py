"""Shared fixtures: the repository's fixture files and the CLI binary to compare against.

The CLI is `$SKELNORM_BIN`, else `${CARGO_TARGET_DIR:-<repo>/target}/release/skelnorm`
(build it with `cargo build --release`)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
ASSETS = ROOT.parent / "shared" / "assets"
CMU_BVH = ASSETS / "bvh" / "cmu_131_03_maxfriendly.bvh"

# A two-bone BVH of three frames, for tests that need a small one.
BVH = """HIERARCHY
ROOT Hips
{
\tOFFSET 0 90 0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Spine
\t{
\t\tOFFSET 0 10 0
\t\tCHANNELS 3 Zrotation Xrotation Yrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 10 0
\t\t}
\t}
}
MOTION
Frames: 3
Frame Time: 0.0333333
0 90 0 0 0 0 0 0 0
1 91 2 10 20 30 5 -5 15
2 92 4 20 40 60 10 -10 30
"""


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("SKELNORM_BIN") or str(
        pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "skelnorm"
    )
    if not os.path.exists(path):
        pytest.fail(f"no skelnorm CLI at {path}: run `cargo build --release` or set SKELNORM_BIN")

    def run(*args):
        return subprocess.run([path, *map(str, args)], check=True, capture_output=True, text=True).stdout

    return run


@pytest.fixture(scope="session")
def runtime_poses():
    """The Rust example python/examples/runtime_poses.rs (the Rust runtime retargeter over one
    clip): `$SKELNORM_RUNTIME_POSES`, else built with cargo in the package's target folder."""
    path = os.environ.get("SKELNORM_RUNTIME_POSES")
    if not path:
        manifest = ROOT / "python" / "Cargo.toml"
        subprocess.run(
            ["cargo", "build", "--quiet", "--release", "--example", "runtime_poses", "--manifest-path", manifest],
            check=True,
        )
        target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "python" / "target"))
        path = target / "release" / "examples" / "runtime_poses"

    def run(*args):
        subprocess.run([str(path), *map(str, args)], check=True, capture_output=True, text=True)

    return run

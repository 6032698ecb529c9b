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

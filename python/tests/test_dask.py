"""skelnorm.dask (issue 41): a batch on a Dask LocalCluster of 2 worker processes, one task per
file, gives the report and the outputs a local `skelnorm batch` gives over the same folder, times
aside; and so it does when a worker dies in the middle of a task. Skips without
`dask[distributed]` (`.ci/run` installs it)."""

import os
import pathlib
import shutil

import pytest

import skelnorm
from conftest import ASSETS, BVH, FIXTURES

distributed = pytest.importorskip("distributed")
import skelnorm.dask  # noqa: E402


def library(root):
    """A folder of the fixtures, the shared assets (when present) and a few files batch must
    report as they are: a corrupt GLB, a model format it does not read, a folder's settings file, and
    two inputs whose outputs collide."""
    lib = root / "lib"
    (lib / "fixtures").mkdir(parents=True)
    for f in sorted(FIXTURES.iterdir()):
        if f.suffix in (".glb", ".gltf", ".vrm"):
            shutil.copy(f, lib / "fixtures" / f.name)
    if ASSETS.is_dir():
        for f in sorted(ASSETS.rglob("*")):
            if f.is_file() and f.suffix.lower() in (".glb", ".gltf", ".vrm", ".vrma", ".fbx", ".bvh"):
                dest = lib / "shared" / f.relative_to(ASSETS)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(f, dest)
                if f.suffix == ".gltf":
                    # A .gltf's buffers and images stand beside it.
                    for side in f.parent.iterdir():
                        if side.suffix in (".bin", ".png", ".jpg"):
                            shutil.copy(side, dest.parent / side.name)
    odd = lib / "odd"
    odd.mkdir()
    (odd / "broken.glb").write_bytes(b"glTF\x02\x00\x00\x00" + b"\x00" * 12)
    (odd / "model.obj").write_text("o cube\nv 0 0 0\n")
    (odd / "skelnorm.ron").write_text("(rest: (rebind: true))")
    shutil.copy(FIXTURES / "mixamo.glb", odd / "walker.glb")
    # Its output is walker.glb too: batch reports the second as colliding with the first.
    (odd / "walker.bvh").write_text(BVH)
    return lib


def without_times(value, out):
    """The report with every time (`*_ms`) left out and the output folder `out` named OUT."""
    if isinstance(value, dict):
        return {k: without_times(v, out) for k, v in value.items() if not k.endswith("_ms")}
    if isinstance(value, list):
        return [without_times(v, out) for v in value]
    if isinstance(value, str):
        return value.replace(str(out), "OUT")
    return value


def tree(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(pathlib.Path(folder).rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c, distributed.Client(c) as client:
        yield client


@pytest.fixture(scope="module")
def local(tmp_path_factory, cli):
    root = tmp_path_factory.mktemp("dask")
    lib = library(root)
    out = root / "cli_out"
    report = root / "cli.json"
    try:
        cli("batch", lib, "-o", out, "--report", report, "--quiet")
    except Exception:  # noqa: BLE001 (a batch with failures exits non-zero and still reports)
        pass
    import json

    return lib, out, json.loads(report.read_text())


def test_a_dask_batch_reports_and_writes_what_a_local_batch_does(local, cluster, tmp_path):
    lib, cli_out, cli_report = local
    out = tmp_path / "dask_out"
    report = skelnorm.dask.batch(lib, out, cluster)
    assert report["schema"] == "skelnorm/2"
    assert len(report["files"]) == len(cli_report["files"]) > 10
    statuses = {f["status"] for f in report["files"]}
    assert {"ok", "failed", "skipped"} <= statuses, statuses
    assert without_times(report, out) == without_times(cli_report, cli_out)
    assert tree(out) == tree(cli_out)


def test_a_worker_that_dies_loses_no_file(local, cluster, tmp_path):
    lib, cli_out, cli_report = local
    marker = tmp_path / "killed"
    files = skelnorm.batch_files(lib)
    victim = len(files) // 2

    class KillOnce(distributed.WorkerPlugin):
        """Kills its worker's process the first time any worker starts the chosen task."""

        def transition(self, key, start, finish, **kwargs):
            if finish == "executing" and str(key).endswith(f"-{victim}"):
                try:
                    fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    return
                os.close(fd)
                os._exit(1)

    cluster.register_plugin(KillOnce(), name="kill-once")
    try:
        out = tmp_path / "dask_out"
        report = skelnorm.dask.batch(lib, out, cluster)
    finally:
        cluster.unregister_worker_plugin("kill-once")
    assert marker.exists(), "no worker was killed"
    assert without_times(report, out) == without_times(cli_report, cli_out)
    assert tree(out) == tree(cli_out)


def test_errors_are_clear(tmp_path, cluster):
    with pytest.raises(ValueError, match="hands out the files itself"):
        skelnorm.dask.batch(tmp_path, tmp_path / "o", cluster, jobs=2)
    with pytest.raises(OSError, match="no such folder"):
        skelnorm.dask.batch(tmp_path / "missing", tmp_path / "o", cluster)
    empty = skelnorm.dask.batch(tmp_path, tmp_path.parent / "empty_out", cluster)
    assert empty["files"] == []

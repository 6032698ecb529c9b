"""Batches on a Dask cluster: ``skelnorm.dask.batch(input_dir, output_dir, client)``.

Each task is one file of the folder, run through the library (``skelnorm.batch(input_dir,
output_dir, files=[path])``: the same per-folder settings, output names and collision rules as
``skelnorm batch``, which still sees the whole folder). The task reports are joined in the order a
local batch lists its files (``skelnorm.merge_reports``), so the report, and the outputs, are what
``skelnorm batch input_dir -o output_dir`` writes, times aside. A file that fails is a failed
entry, as in ``batch``. A worker that dies while running a task is replaced by Dask, and the task
runs again elsewhere (``retries``): outputs are written to a temporary file and renamed into place,
so a task run twice writes the same bytes, and no file's result is lost.

Needs ``dask[distributed]`` (``pip install "skelnorm[dask]"``). See docs/batch.md for Slurm
(dask-jobqueue) and Kubernetes (dask-kubernetes).
"""

from typing import Any, Optional

from . import _native


def _one(path: str, input_dir: str, output_dir: str, options: dict) -> dict:
    """One task: the batch of one file (single-threaded: the cluster is the parallelism)."""
    return _native.batch(input_dir, output_dir, files=[path], jobs=1, **options)


def batch(
    input_dir: str,
    output_dir: str,
    client: Optional[Any] = None,
    *,
    retries: int = 3,
    **options: Any,
) -> dict:
    """Runs ``skelnorm batch input_dir -o output_dir`` over a ``distributed`` client, one task
    per file, and returns the report (schema ``skelnorm/2``) as a dict. ``client``: a
    ``distributed.Client`` (default: the current one, ``distributed.get_client()``).
    ``options``: as ``skelnorm.batch`` takes them (``existing``, ``prefix``, ``suffix``,
    ``replace``, ``retarget_to``, ``retarget_output``, ``bvh_scale``, ``settings``, and settings
    sections such as ``rest={"rebind": True}``); not ``files``, ``shard`` or ``jobs``. ``retries``:
    how many times Dask runs a task again after its worker died or it raised.
    """
    for own in ("files", "shard", "jobs"):
        if own in options:
            raise ValueError(f"{own}=: skelnorm.dask.batch hands out the files itself")
    try:
        import distributed
    except ImportError as e:
        raise ImportError(
            'skelnorm.dask needs Dask\'s distributed scheduler: pip install "dask[distributed]"'
        ) from e
    import os
    import uuid

    input_dir, output_dir = os.fspath(input_dir), os.fspath(output_dir)
    files = _native.batch_files(input_dir)
    if not files:
        # Nothing to hand out: the local run says so in its report (no file), as batch does.
        return _native.batch(input_dir, output_dir, jobs=1, **options)
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError as e:
            raise ValueError(
                "skelnorm.dask.batch: no Dask client: pass client=, or create a "
                "distributed.Client first"
            ) from e
    futures = client.map(
        _one,
        files,
        input_dir=input_dir,
        output_dir=output_dir,
        options=options,
        key=[f"skelnorm-batch-{uuid.uuid4().hex[:12]}-{i}" for i in range(len(files))],
        retries=retries,
        pure=False,
    )
    reports = client.gather(futures)
    merged = _native.merge_reports(reports)
    merged["command"] = "batch"
    return merged

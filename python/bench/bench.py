"""Timings of the Python package (issue 18), printed as a Markdown table.

1. BVH to numpy: the 1102-frame CMU file (../shared/assets/bvh) and a generated 10 000-frame BVH
   (the CMU hierarchy, its frames repeated), read and sampled into local rotations and
   translations, with and without world positions; next to bvhio (pure Python, from PyPI) on the
   same files: its raw parse (`readAsBvh`, Euler numbers only), its joint hierarchy
   (`readAsHierarchy`, local transforms per frame, each joint's turned so +Y points to its
   child) turned into numpy arrays, and world positions. The two are checked to give the same
   world positions first (relative to the hips, up to the unit).
2. `Retargeter` throughput: the CMU clip, normalized, onto the normalized VRM fixture, one call
   per frame and one call per batch, in microseconds per frame.

Run from the repository (the package and bvhio installed in the interpreter):

    .venv-py/bin/pip install bvhio
    .venv-py/bin/python python/bench/bench.py [--repeat 5]

Each figure is the median of `--repeat` runs (bvhio: of min(repeat, 3) runs).
"""

import argparse
import os
import pathlib
import statistics
import tempfile
import time

import numpy as np

import skelnorm

ROOT = pathlib.Path(__file__).resolve().parents[2]
CMU = ROOT.parent / "shared" / "assets" / "bvh" / "cmu_131_03_maxfriendly.bvh"


def median_ms(fn, repeat):
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs)


def generated_bvh(folder, frames):
    """The CMU hierarchy with its frames repeated to `frames` frames."""
    text = CMU.read_text()
    head, motion = text.split("MOTION", 1)
    lines = [line for line in motion.strip().splitlines()[2:] if line.strip()]
    frame_time = motion.strip().splitlines()[1]
    body = [lines[i % len(lines)] for i in range(frames)]
    path = pathlib.Path(folder) / f"generated_{frames}.bvh"
    path.write_text(f"{head}MOTION\nFrames: {frames}\n{frame_time}\n" + "\n".join(body) + "\n")
    return path


def skelnorm_arrays(path):
    m = skelnorm.load(path).clips[0].sample()
    return m, m.rotations, m.translations


def bvhio_arrays(path):
    import bvhio

    root = bvhio.readAsHierarchy(str(path))
    joints = [j for j, _, _ in root.layout()]
    q = np.array([[(k.Rotation.x, k.Rotation.y, k.Rotation.z, k.Rotation.w) for _, k in j.Keyframes] for j in joints], np.float32)
    p = np.array([[tuple(k.Position) for _, k in j.Keyframes] for j in joints], np.float32)
    return joints, q.transpose(1, 0, 2), p.transpose(1, 0, 2)


def bvhio_world(path, frames=None):
    """World positions per frame with bvhio (`loadPose`, then each joint's `PositionWorld`)."""
    import bvhio

    root = bvhio.readAsHierarchy(str(path))
    joints = [j for j, _, _ in root.layout()]
    frames = range(len(root.Keyframes)) if frames is None else frames
    out = []
    for f in frames:
        root.loadPose(f)
        out.append([tuple(j.PositionWorld) for j in joints])
    return joints, np.array(out, np.float32)


def same_motion(path):
    """skelnorm and bvhio read the same motion: every joint's world position relative to the
    hips, at every 50th frame, agrees up to the unit skelnorm picks (fitted); the largest
    difference as a fraction of the skeleton's size."""
    m = skelnorm.load(path).clips[0].sample()
    frames = list(range(0, len(m), 50))
    ours = m.world_positions()[frames]
    joints, theirs = bvhio_world(path, frames)
    ours = ours[:, [m.skeleton.names.index(j.Name) for j in joints]]
    ours, theirs = ours - ours[:, :1], theirs - theirs[:, :1]
    unit = np.sum(ours * theirs) / np.sum(theirs * theirs)
    return float(np.abs(ours - unit * theirs).max() / np.abs(ours).max())


def bvh_rows(path, label, repeat):
    import bvhio

    frames = len(skelnorm.load(path).clips[0].sample())
    slow = min(repeat, 3)
    rows = [
        (label, frames, "skelnorm: load + sample → rotations, translations", median_ms(lambda: skelnorm_arrays(path), repeat)),
        (label, frames, "skelnorm: … + world_positions()", median_ms(lambda: skelnorm_arrays(path)[0].world_positions(), repeat)),
        (label, frames, "bvhio.readAsBvh (parse only, Euler numbers)", median_ms(lambda: bvhio.readAsBvh(str(path)), slow)),
        (label, frames, "bvhio.readAsHierarchy → local rotations, positions as numpy", median_ms(lambda: bvhio_arrays(path), slow)),
        (label, frames, "bvhio: … + world positions (loadPose, PositionWorld)", median_ms(lambda: bvhio_world(path), slow)),
    ]
    return rows


def retarget_rows(folder, repeat):
    src, dst = pathlib.Path(folder) / "cmu.glb", pathlib.Path(folder) / "vrm0.vrm"
    skelnorm.normalize(CMU, src)
    skelnorm.normalize(ROOT / "fixtures" / "vrm0.vrm", dst)
    source, target = skelnorm.load(src), skelnorm.load(dst)
    m = source.clips[0].sample()
    r = skelnorm.Retargeter(source.skeletons[0], target.skeletons[0])
    q, hips = m.rotations, m.translations[:, r.source_hips]
    n = len(m)

    def per_frame():
        for i in range(n):
            r.retarget(q[i], hips[i])

    what = f"{len(source.skeletons[0])} → {len(target.skeletons[0])} bones, {n} frames"
    return [
        ("one call per frame", what, median_ms(per_frame, repeat) * 1000 / n),
        ("one call per batch (N, J, 4)", what, median_ms(lambda: r.retarget(q, hips), repeat) * 1000 / n),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--frames", type=int, default=10_000)
    args = ap.parse_args()
    if not CMU.exists():
        raise SystemExit(f"{CMU} is absent")
    with tempfile.TemporaryDirectory() as folder:
        big = generated_bvh(folder, args.frames)
        for path in [CMU, big]:
            worst = same_motion(path)
            assert worst < 1e-4, f"{path.name}: skelnorm and bvhio differ by {worst} of the size"
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, median of {args.repeat} runs (bvhio: {min(args.repeat, 3)})\n")
        print("| file | frames | what | ms |\n|---|---|---|---|")
        for row in bvh_rows(CMU, CMU.name, args.repeat) + bvh_rows(big, f"generated ({CMU.stem} repeated)", args.repeat):
            print("| {} | {} | {} | {:.1f} |".format(*row))
        print("\n| Retargeter | pair | µs per frame |\n|---|---|---|")
        for row in retarget_rows(folder, args.repeat):
            print("| {} | {} | {:.2f} |".format(*row))


if __name__ == "__main__":
    main()

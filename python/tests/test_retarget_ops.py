"""Issue 21 in Python: the retargeter's op stack from the settings keywords (the Rust runtime's
poses, float for float), `retarget_at` with its time step, and `reset`."""

import numpy as np
import pytest

import skelnorm
from conftest import FIXTURES

OPS_RON = "(retarget: (ops: [Plant(()), Floor(()), Filter(()), Mirror(())]))"
OPS = {"retarget": {"ops": [{"Plant": {}}, {"Floor": {}}, {"Filter": {}}, {"Mirror": {}}]}}


@pytest.fixture
def pair(tmp_path):
    """mixamo.glb and long_legs.glb, normalized."""
    for name in ["mixamo.glb", "long_legs.glb"]:
        skelnorm.normalize(FIXTURES / name, tmp_path / name)
    return tmp_path / "mixamo.glb", tmp_path / "long_legs.glb"


def test_ops_as_keywords_give_the_rust_runtime_poses(runtime_poses, pair, tmp_path):
    ron = tmp_path / "ops.ron"
    ron.write_text(OPS_RON)
    runtime_poses(*pair, 24, tmp_path / "rust.f32", ron)
    source, target = skelnorm.load(pair[0]), skelnorm.load(pair[1])
    clip, ts = source.clips[0], target.skeletons[0]
    r = skelnorm.Retargeter(clip.skeleton, ts, **OPS)
    m = clip.sample(24)
    hips = m.translations[:, r.source_hips]
    q, t = r.retarget(m.rotations, hips, all_translations=True)
    raw = np.fromfile(tmp_path / "rust.f32", "<f4")
    n, j = len(m), len(ts)
    assert np.array_equal(q, raw[: n * j * 4].reshape(n, j, 4))
    assert np.array_equal(t, raw[n * j * 4 :].reshape(n, j, 3))
    # The ops did something: without them the poses differ.
    plain, _ = skelnorm.Retargeter(clip.skeleton, ts).retarget(m.rotations, hips)
    assert np.abs(plain - q).max() > 0.1


def test_retarget_at_takes_the_time_step_and_reset_forgets(pair):
    source, target = skelnorm.load(pair[0]), skelnorm.load(pair[1])
    clip, ts = source.clips[0], target.skeletons[0]
    settings = {"retarget": {"ops": [{"Plant": {}}, {"Filter": {}}]}}

    def fresh():
        return skelnorm.Retargeter(clip.skeleton, ts, **settings)

    m = clip.sample(30)
    hips = m.translations[:, fresh().source_hips]
    a = fresh()
    qa, ta = a.retarget(m.rotations, hips)
    # `retarget` steps by 1 / fps (30 by default): `retarget_at` with that step is the same,
    # batched or frame by frame.
    qb, tb = fresh().retarget_at(m.rotations, hips, 1 / 30)
    assert np.array_equal(qa, qb) and np.array_equal(ta, tb)
    f = fresh()
    frames = [f.retarget_at(m.rotations[k], hips[k], dt=1 / 30)[0] for k in range(len(m))]
    assert np.array_equal(np.stack(frames), qa)
    # The filter's cutoff depends on the step: another step, other poses.
    qc, _ = fresh().retarget_at(m.rotations, hips, 1 / 120)
    assert np.abs(qc - qa).max() > 1e-3
    # State carries over between calls until `reset`.
    tail = slice(15, None)
    want, _ = fresh().retarget(m.rotations[tail], hips[tail])
    carried, _ = a.retarget(m.rotations[tail], hips[tail])
    assert np.abs(carried - want).max() > 1e-3
    a.reset()
    again, _ = a.retarget(m.rotations[tail], hips[tail])
    assert np.array_equal(again, want)


def test_bad_steps_and_ops_raise_valueerror(pair):
    source, target = skelnorm.load(pair[0]), skelnorm.load(pair[1])
    s, t = source.skeletons[0], target.skeletons[0]
    r = skelnorm.Retargeter(s, t)
    rest = s.rest_rotations
    for dt in [0.0, -1 / 30, float("nan"), float("inf")]:
        with pytest.raises(ValueError, match="dt"):
            r.retarget_at(rest, None, dt)
    with pytest.raises(ValueError, match="dt"):
        r.retarget_at(rest)
    with pytest.raises(ValueError, match="snap_deg"):
        skelnorm.Retargeter(s, t, retarget={"ops": [{"Mirror": {"snap_deg": 60.0}}]})
    with pytest.raises(ValueError, match="mirror comes last"):
        skelnorm.Retargeter(s, t, retarget={"ops": [{"Mirror": {}}, {"Plant": {}}]})
    with pytest.raises(ValueError, match="Mirorr|unknown variant"):
        skelnorm.Retargeter(s, t, retarget={"ops": [{"Mirorr": {}}]})


def test_treadmill_and_contacts_are_set_on_the_retargeter(pair):
    """`set_treadmill` is the settings' `Plant` treadmill given at runtime; `set_contacts` gives
    each foot's contact (left, right) instead of detecting them, until set back to None."""
    source, target = skelnorm.load(pair[0]), skelnorm.load(pair[1])
    clip, ts = source.clips[0], target.skeletons[0]
    plant = {"blend_s": 0.0, "max_offset": 10.0}

    def fresh(**more):
        return skelnorm.Retargeter(clip.skeleton, ts, retarget={"ops": [{"Plant": {**plant, **more}}]})

    m = clip.sample(30)
    hips = m.translations[:, fresh().source_hips]
    detected, _ = fresh().retarget(m.rotations, hips)
    r = fresh()
    assert r.treadmill is None and r.contacts is None
    r.set_contacts((True, False))
    assert r.contacts == (True, False)
    held, _ = r.retarget(m.rotations, hips)
    assert np.abs(held - detected).max() > 1e-3
    # Frame by frame, the same flags each frame: the same poses.
    f = fresh()
    frames = []
    for k in range(len(m)):
        f.set_contacts((True, False))
        frames.append(f.retarget(m.rotations[k], hips[k])[0])
    assert np.array_equal(np.stack(frames), held)
    # Back to detection: the detected poses again (after a reset of planting's state).
    r.set_contacts(None)
    r.reset()
    again, _ = r.retarget(m.rotations, hips)
    assert r.contacts is None and np.array_equal(again, detected)
    # The treadmill set at runtime is the one the settings give.
    t = fresh()
    t.set_treadmill((0.0, -1.2))
    assert t.treadmill == pytest.approx((0.0, 0.0, -1.2))
    on_treadmill, _ = t.retarget(m.rotations, hips)
    given, _ = fresh(treadmill={"velocity": [0.0, -1.2]}).retarget(m.rotations, hips)
    assert np.array_equal(on_treadmill, given)
    assert np.abs(on_treadmill - detected).max() > 1e-3
    t.set_treadmill(None)
    assert t.treadmill is None
    for bad in [(1.0,), (1.0, 2.0, 3.0, 4.0), (float("nan"), 0.0)]:
        with pytest.raises(ValueError, match="velocity"):
            t.set_treadmill(bad)

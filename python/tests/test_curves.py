"""Issue 21 in Python: a file's float curves (FBX animated user properties, Unreal's animation
curves such as `FootLock_L`) as `Clip.curves` and sampled with the bones as `Motion.curves`;
per-frame contacts in the batch retarget (`contacts=`), the same as `set_contacts` frame by
frame.

The FBX files are written here as tests/common/fbx_curves.rs writes them for the Rust tests:
its `MINIMAL` file (read from that source, the one copy) with curves added in the structure
Unreal's exporter writes."""

import numpy as np
import pytest

import skelnorm
from conftest import FIXTURES, ROOT

KTIME = 46_186_158_000
LINEAR = 24836


def minimal_fbx():
    """`MINIMAL` of tests/common/fbx_curves.rs: a two-bone skeleton (Root, Hips) with one clip,
    `Walk`, 1 s at 30 fps."""
    source = (ROOT / "tests" / "common" / "fbx_curves.rs").read_text()
    return source.split('pub const MINIMAL: &str = r#"', 1)[1].split('"#;', 1)[0]


def block_end(text, head):
    start = text.index(head)
    return start + text[start:].index("\n}\n") + 1


def add_float_curves(text, node, curves):
    """`add_float_curves` of tests/common/fbx_curves.rs: `text` with float curves on the node
    `node`, each name → [(seconds, value), ...], linear."""
    model = next(
        int(line.split(",")[0].split(":")[1])
        for line in text.splitlines()
        if line.startswith("\tModel: ") and f'"Model::{node}"' in line
    )
    layer = next(
        int(line.split(",")[0].split(":")[1])
        for line in text.splitlines()
        if line.startswith("\tAnimationLayer: ")
    )
    props, objects, links = "", "", ""
    base = 9_100_000_000 + 2 * text.count("\tAnimationCurveNode: ")
    for k, (name, keys) in enumerate(curves.items()):
        v0 = keys[0][1]
        node_id, curve_id = base + 2 * k, base + 2 * k + 1
        props += f'\t\t\tP: "{name}", "double", "Number", "A+U", {v0}\n'
        times = ",".join(str(round(t * KTIME)) for t, _ in keys)
        values = ",".join(str(v) for _, v in keys)
        n = len(keys)
        objects += (
            f'\tAnimationCurveNode: {node_id}, "AnimCurveNode::{name}", "" {{\n'
            f"\t\tProperties70:  {{\n"
            f'\t\t\tP: "d|{name}", "Number", "", "A", {v0}\n'
            f"\t\t}}\n\t}}\n"
            f'\tAnimationCurve: {curve_id}, "AnimCurve::", "" {{\n'
            f"\t\tDefault: {v0}\n\t\tKeyVer: 4008\n"
            f"\t\tKeyTime: *{n} {{\n\t\t\ta: {times}\n\t\t}}\n"
            f"\t\tKeyValueFloat: *{n} {{\n\t\t\ta: {values}\n\t\t}}\n"
            f"\t\tKeyAttrFlags: *1 {{\n\t\t\ta: {LINEAR}\n\t\t}}\n"
            f"\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,0,0\n\t\t}}\n"
            f"\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: {n}\n\t\t}}\n\t}}\n"
        )
        links += (
            f'\tC: "OO", {node_id}, {layer}\n'
            f'\tC: "OP", {node_id}, {model}, "{name}"\n'
            f'\tC: "OP", {curve_id}, {node_id}, "d|{name}"\n'
        )
    at = block_end(text, "\nConnections:  {")
    text = text[:at] + links + text[at:]
    at = block_end(text, "\nObjects:  {")
    text = text[:at] + objects + text[at:]
    decl = text.index(f"\tModel: {model}, ")
    at = decl + text[decl:].index("Properties70:  {\n") + len("Properties70:  {\n")
    return text[:at] + props + text[at:]


def test_a_files_curves_are_the_clips_and_the_motions(tmp_path):
    lock_l = [(0.0, 0.0), (0.5, 1.0), (1.0, 0.0)]
    text = add_float_curves(minimal_fbx(), "Root", {"FootLock_L": lock_l, "FootLock_R": [(0.0, 1.0), (1.0, 1.0)]})
    text = add_float_curves(text, "Hips", {"Speed": [(0.0, 2.0), (1.0, 4.0)]})
    path = tmp_path / "curves.fbx"
    path.write_text(text)
    clip = skelnorm.load(path).clips[0]
    curves = clip.curves
    assert list(curves) == ["FootLock_L", "FootLock_R", "Speed"]
    times, values = curves["FootLock_L"]
    assert times.dtype == np.float32 and values.dtype == np.float32
    assert times.shape == values.shape and times.ndim == 1
    # Linear keys stay the file's keys (ufbx bakes them as they are).
    assert np.allclose(times, [0.0, 0.5, 1.0], atol=1e-6)
    assert np.allclose(values, [0.0, 1.0, 0.0], atol=1e-6)
    # Sampled with the bones: one value per motion time.
    m = clip.sample(60)
    assert list(m.curves) == ["FootLock_L", "FootLock_R", "Speed"]
    assert m.curves["FootLock_L"].shape == (len(m),)
    assert np.allclose(m.curves["FootLock_L"], np.interp(m.times, *zip(*lock_l)), atol=1e-5)
    assert np.allclose(m.curves["Speed"], 2.0 + 2.0 * m.times, atol=1e-5)
    assert np.all(m.curves["FootLock_R"] == 1.0)
    # A file without curves: none.
    bare = tmp_path / "bare.fbx"
    bare.write_text(minimal_fbx())
    assert skelnorm.load(bare).clips[0].curves == {}
    assert skelnorm.load(FIXTURES / "mixamo.glb").clips[0].sample(10).curves == {}


def test_a_motion_from_arrays_takes_curves():
    n, j = 4, 2
    rot = np.tile([0.0, 0.0, 0.0, 1.0], (n, j, 1))
    times = np.arange(n) / 30
    lock = np.array([0.0, 1.0, 1.0, 0.0])
    m = skelnorm.Motion(times, rot, np.zeros((n, j, 3)), curves={"FootLock_L": lock})
    assert list(m.curves) == ["FootLock_L"]
    assert np.array_equal(m.curves["FootLock_L"], lock.astype(np.float32))
    assert skelnorm.Motion(times, rot, np.zeros((n, j, 3))).curves == {}
    for bad in [np.zeros(n + 1), np.zeros((n, 1)), np.array([0.0, np.nan, 0.0, 0.0])]:
        with pytest.raises(ValueError, match="FootLock_L"):
            skelnorm.Motion(times, rot, np.zeros((n, j, 3)), curves={"FootLock_L": bad})


@pytest.fixture
def pair(tmp_path):
    """mixamo.glb and long_legs.glb, normalized."""
    for name in ["mixamo.glb", "long_legs.glb"]:
        skelnorm.normalize(FIXTURES / name, tmp_path / name)
    return skelnorm.load(tmp_path / "mixamo.glb"), skelnorm.load(tmp_path / "long_legs.glb")


def test_per_frame_contacts_are_set_contacts_frame_by_frame(pair):
    source, target = pair
    clip, ts = source.clips[0], target.skeletons[0]
    plant = {"retarget": {"ops": [{"Plant": {"blend_s": 0.0, "max_offset": 10.0}}]}}

    def fresh():
        return skelnorm.Retargeter(clip.skeleton, ts, **plant)

    m = clip.sample(30)
    hips = m.translations[:, fresh().source_hips]
    n = len(m)
    # Feet that take turns, as foot-lock curves say it: left for the first half, right after,
    # both in the middle.
    k = np.arange(n)
    contacts = np.stack([k < 2 * n // 3, k >= n // 3], axis=1)
    for call in ["retarget", "retarget_at"]:
        extra = {"dt": 1 / 30} if call == "retarget_at" else {}
        r = fresh()
        r.set_contacts((False, True))
        q, t = getattr(r, call)(m.rotations, hips, contacts=contacts, **extra)
        # The contacts set before are back after the batch.
        assert r.contacts == (False, True)
        f = fresh()
        frames, roots = [], []
        for i in range(n):
            f.set_contacts(tuple(bool(c) for c in contacts[i]))
            fq, ft = getattr(f, call)(m.rotations[i], hips[i], **extra)
            frames.append(fq)
            roots.append(ft)
        assert np.array_equal(np.stack(frames), q), call
        assert np.array_equal(np.stack(roots), t), call
        # One frame takes (2,).
        g = fresh()
        one = [getattr(g, call)(m.rotations[i], hips[i], contacts=contacts[i], **extra)[0] for i in range(n)]
        assert np.array_equal(np.stack(one), q), call
        assert g.contacts is None
    # The flags matter: one pair for the whole batch plants other poses.
    r = fresh()
    r.set_contacts((True, True))
    same, _ = r.retarget(m.rotations, hips)
    assert np.abs(same - q).max() > 1e-3
    # Refused: not booleans, or not one pair per frame.
    r = fresh()
    with pytest.raises(ValueError, match="contacts: expected booleans"):
        r.retarget(m.rotations, hips, contacts=contacts.astype(np.float32))
    for bad in [contacts[:-1], contacts[:, :1], contacts[0]]:
        with pytest.raises(ValueError, match="contacts: shape"):
            r.retarget(m.rotations, hips, contacts=bad)
    with pytest.raises(ValueError, match=r"contacts: shape \[3\] is not \(2,\)"):
        r.retarget(m.rotations[0], hips[0], contacts=[True, False, True])
    assert r.contacts is None

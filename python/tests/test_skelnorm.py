"""The Python package against the CLI and the files it reads: same floats, same bytes, clear
exceptions."""

import json
import struct

import numpy as np
import pytest

import skelnorm
from conftest import CMU_BVH, FIXTURES

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


def glb_json(path):
    data = path.read_bytes()
    length = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20 : 20 + length])


def test_skeleton_arrays_are_the_gltf_nodes():
    asset = skelnorm.load(FIXTURES / "mixamo.glb")
    nodes = glb_json(FIXTURES / "mixamo.glb")["nodes"]
    s = asset.skeletons[0]
    assert s.parents.dtype == np.int32 and s.parents.shape == (len(s),)
    assert s.rest_rotations.shape == (len(s), 4) and s.rest_translations.dtype == np.float32
    for j, n in enumerate(s.nodes):
        node = nodes[n]
        assert s.names[j] == node["name"]
        want_r = np.float32(node.get("rotation", [0, 0, 0, 1]))
        assert np.array_equal(s.rest_rotations[j], want_r)
        assert np.array_equal(s.rest_rotations_as("wxyz")[j], want_r[[3, 0, 1, 2]])
        assert np.array_equal(s.rest_translations[j], np.float32(node.get("translation", [0, 0, 0])))
        p = s.parents[j]
        assert p == -1 or n in nodes[s.nodes[p]].get("children", [])


def test_sample_holds_rest_and_world_positions_follow_the_parents():
    asset = skelnorm.load(FIXTURES / "mixamo.glb")
    clip = asset.clips[0]
    m = clip.sample()
    s = clip.skeleton
    assert m.rotations.shape == (len(m), len(s), 4)
    assert m.times[0] == 0 and abs(m.times[-1] - clip.duration) < 1e-6
    assert np.allclose(np.linalg.norm(m.rotations, axis=-1), 1, atol=1e-5)
    w = m.world_positions()
    assert w.shape == (len(m), len(s), 3)
    grid = clip.sample(fps=10)
    assert len(grid) == int(clip.duration * 10 + 1e-3) + 1
    wxyz = clip.sample(order="wxyz")
    assert np.array_equal(wxyz.rotations, m.rotations[..., [3, 0, 1, 2]])


def test_normalize_writes_what_the_cli_writes(cli, tmp_path):
    for name in ["mixamo.glb", "ue_zup.glb", "vrm0.vrm"]:
        ours, theirs = tmp_path / ("py_" + name), tmp_path / ("cli_" + name)
        report = skelnorm.normalize(FIXTURES / name, ours)
        cli_report = json.loads(cli("normalize", FIXTURES / name, "-o", theirs, "--json"))
        assert ours.read_bytes() == theirs.read_bytes(), name
        assert report["skeletons"] == cli_report["skeletons"]


def test_normalize_settings_match_the_settings_file(cli, tmp_path):
    ron = tmp_path / "s.ron"
    ron.write_text("(rest: (fix_silhouette: false), normalize: (rename_bones: false))")
    skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "a.glb", rest={"fix_silhouette": False}, normalize={"rename_bones": False})
    cli("normalize", FIXTURES / "mixamo.glb", "-o", tmp_path / "b.glb", "--settings", ron)
    skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "c.glb")
    assert (tmp_path / "a.glb").read_bytes() == (tmp_path / "b.glb").read_bytes()
    assert (tmp_path / "a.glb").read_bytes() != (tmp_path / "c.glb").read_bytes()


def test_bvh_round_trip_keeps_hierarchy_and_motion(cli, tmp_path):
    src = tmp_path / "walk.bvh"
    src.write_text(BVH)
    motion = skelnorm.load(src).clips[0].sample()
    motion.to_bvh(tmp_path / "py.bvh")
    cli("convert", src, tmp_path / "cli.bvh")
    ours, theirs = (tmp_path / "py.bvh").read_text(), (tmp_path / "cli.bvh").read_text()
    assert ours.split("MOTION")[0] == theirs.split("MOTION")[0]
    back = skelnorm.load(tmp_path / "py.bvh").clips[0].sample()
    assert np.array_equal(back.times, motion.times)
    assert np.allclose(back.rotations, motion.rotations, atol=1e-6)
    assert np.allclose(back.translations, motion.translations, atol=1e-6)


@pytest.mark.xfail(strict=True, reason="Pose sampling at key times re-normalizes quaternions: last-digit differences (see report)")
def test_bvh_round_trip_is_byte_exact(cli, tmp_path):
    if not CMU_BVH.exists():
        pytest.skip(f"{CMU_BVH} is absent")
    skelnorm.load(CMU_BVH).clips[0].sample().to_bvh(tmp_path / "py.bvh")
    cli("convert", CMU_BVH, tmp_path / "cli.bvh")
    assert (tmp_path / "py.bvh").read_text() == (tmp_path / "cli.bvh").read_text()


def test_retargeter_frames_and_batches_agree(tmp_path):
    for name in ["mixamo.glb", "long_legs.glb"]:
        skelnorm.normalize(FIXTURES / name, tmp_path / name)
    src, dst = skelnorm.load(tmp_path / "mixamo.glb"), skelnorm.load(tmp_path / "long_legs.glb")
    r = skelnorm.Retargeter(src.skeletons[0], dst.skeletons[0])
    m = src.clips[0].sample(30)
    hips = m.translations[:, r.source_hips]
    q, root = r.retarget(m.rotations, hips)
    assert q.shape == (len(m), len(dst.skeletons[0]), 4) and root.shape == (len(m), 3)
    q1, root1 = r.retarget(m.rotations[5], hips[5])
    assert np.array_equal(q1, q[5]) and np.array_equal(root1, root[5])
    qw, _ = r.retarget(m.rotations[..., [3, 0, 1, 2]], hips, order="wxyz")
    assert np.array_equal(qw, q[..., [3, 0, 1, 2]])


def test_bad_inputs_raise(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.glb"):
        skelnorm.load(tmp_path / "nope.glb")
    (tmp_path / "bad.glb").write_bytes(b"glTF\x02\x00\x00\x00garbage")
    with pytest.raises(ValueError, match="bad.glb"):
        skelnorm.load(tmp_path / "bad.glb")
    with pytest.raises(ValueError, match="silhouete"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.glb", rest={"silhouete_threshold_deg": 1.0})
    with pytest.raises(ValueError, match="must end in"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.txt")
    s = skelnorm.load(FIXTURES / "mixamo.glb").skeletons[0]
    r = skelnorm.Retargeter(s, s)
    j = len(s)
    for bad, msg in [
        (np.zeros((j, 3), np.float32), "shape"),
        (np.zeros((2, j + 1, 4), np.float32), "joints"),
        (np.full((j, 4), np.nan, np.float32), "not finite"),
        (np.zeros((j, 4), np.int64), "dtype int64"),
        (np.zeros((j, 4), np.float32), "unit length"),
        ([[0, 0, 0, 1]] * j, "numpy array"),
    ]:
        with pytest.raises(ValueError, match=msg):
            r.retarget(bad)
    with pytest.raises(ValueError, match="order"):
        s.rest_rotations_as("zyxw")
    with pytest.raises(ValueError, match="fps"):
        skelnorm.load(FIXTURES / "mixamo.glb").clips[0].sample(fps=-1)

"""The Python package against the CLI and the files it reads: same floats, same bytes, clear
exceptions."""

import json
import pathlib
import struct

import numpy as np
import pytest

import skelnorm
from conftest import ASSETS, BVH, CMU_BVH, FIXTURES, ROOT


def read_glb(path):
    """A GLB's JSON chunk (a dict) and BIN chunk (bytes, or None)."""
    data = path.read_bytes()
    assert data[:4] == b"glTF", path
    doc, binary, at = None, None, 12
    while at < len(data):
        length, kind = struct.unpack_from("<II", data, at)
        chunk = data[at + 8 : at + 8 + length]
        if kind == 0x4E4F534A:
            doc = json.loads(chunk)
        elif kind == 0x004E4942:
            binary = chunk
        at += 8 + length
    return doc, binary


def accessor(doc, binary, index):
    """The float32 values of accessor `index` as (count, width), read straight from the file."""
    a = doc["accessors"][index]
    assert a["componentType"] == 5126 and "sparse" not in a, "only plain float accessors"
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[a["type"]]
    view = doc["bufferViews"][a["bufferView"]]
    stride = view.get("byteStride", 4 * width)
    start = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    rows = [np.frombuffer(binary, np.float32, count=width, offset=start + k * stride) for k in range(a["count"])]
    return np.array(rows, np.float32).reshape(a["count"], width)


# glTF files checked against their own numbers: fixtures, and real assets when present.
GLTF_FILES = [
    FIXTURES / "mixamo.glb",
    FIXTURES / "vrm0.vrm",
    ASSETS / "khronos" / "Fox.glb",
    ASSETS / "threejs" / "RobotExpressive.glb",
    ASSETS / "vrm" / "test.vrma",
]


def present(path):
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


@pytest.mark.parametrize("path", GLTF_FILES, ids=lambda p: p.name)
def test_skeleton_arrays_are_the_gltf_nodes(path):
    path = present(path)
    nodes = read_glb(path)[0]["nodes"]
    for s in skelnorm.load(path).skeletons:
        assert s.parents.dtype == np.int32 and s.parents.shape == (len(s),)
        assert s.rest_rotations.shape == (len(s), 4) and s.rest_translations.dtype == np.float32
        for j, n in enumerate(s.nodes):
            node = nodes[n]
            assert s.names[j] == node.get("name", s.names[j])
            want_r = np.float32(node.get("rotation", [0, 0, 0, 1]))
            assert np.array_equal(s.rest_rotations[j], want_r), (s.names[j], s.rest_rotations[j], want_r)
            assert np.array_equal(s.rest_rotations_as("wxyz")[j], want_r[[3, 0, 1, 2]])
            assert np.array_equal(s.rest_translations[j], np.float32(node.get("translation", [0, 0, 0])))
            assert np.array_equal(s.rest_scales[j], np.float32(node.get("scale", [1, 1, 1])))
            p = s.parents[j]
            assert p == -1 or n in nodes[s.nodes[p]].get("children", [])


@pytest.mark.parametrize("path", GLTF_FILES + [CMU_BVH], ids=lambda p: p.name)
def test_skeleton_arrays_are_what_inspect_prints(cli, path):
    """Names, parents, nodes, rest rotations and rest world positions equal the floats of
    `skelnorm inspect --json` (rest world positions through Motion.world_positions)."""
    path = present(path)
    printed = json.loads(cli("inspect", path, "--json"))["files"][0]["inspect"]
    asset = skelnorm.load(path)
    assert len(asset.skeletons) == len(printed["skeletons"])
    for s, info in zip(asset.skeletons, printed["skeletons"]):
        bones = info["bones"]
        assert s.name == info["name"] and s.names == [b["name"] for b in bones]
        assert s.parents.tolist() == [-1 if b["parent"] is None else b["parent"] for b in bones]
        assert s.nodes == [b["node"] for b in bones]
        assert np.array_equal(s.rest_rotations, np.float32([b["rest_rotation"] for b in bones]))
        rest = skelnorm.Motion(
            np.zeros(1, np.float32), s.rest_rotations[None], s.rest_translations[None], scales=s.rest_scales[None], skeleton=s
        )
        world = rest.world_positions()[0]
        assert np.array_equal(world, np.float32([b["world_position"] for b in bones]))
    assert [(c.name, c.duration) for c in asset.clips] == [
        (c["name"], np.float32(c["duration"])) for c in printed["clips"]
    ]


@pytest.mark.parametrize("path", GLTF_FILES, ids=lambda p: p.name)
def test_motion_at_the_key_times_is_the_animation_accessors(path):
    """Sampled at the clip's key times, every animated rotation and translation is the float
    stored in the file's accessor (CUBICSPLINE: the key, not the tangents), bit for bit; only
    rotation keys off unit length by more than rounding (test.vrma stores 0.7071) come back
    normalized."""
    path = present(path)
    doc, binary = read_glb(path)
    asset = skelnorm.load(path)
    checked = normalized = 0
    for anim, clip in zip(doc.get("animations", []), asset.clips):
        assert clip.name == anim.get("name", clip.name)
        m = clip.sample()
        bone = {n: j for j, n in enumerate(clip.skeleton.nodes)}
        for ch in anim["channels"]:
            prop = ch["target"]["path"]
            if prop not in ("rotation", "translation") or ch["target"].get("node") not in bone:
                continue
            sampler = anim["samplers"][ch["sampler"]]
            times = accessor(doc, binary, sampler["input"])[:, 0]
            values = accessor(doc, binary, sampler["output"])
            if sampler.get("interpolation") == "CUBICSPLINE":
                values = values[1::3]
            assert np.array_equal(m.times, times), (clip.name, "times")
            got = (m.rotations if prop == "rotation" else m.translations)[:, bone[ch["target"]["node"]]]
            if prop == "rotation":
                unit = np.abs(np.sum(values * values, axis=1, dtype=np.float32) - 1) <= 2e-6
                assert np.allclose(got[~unit], values[~unit] / np.linalg.norm(values[~unit], axis=1)[:, None], atol=1e-7)
                got, values = got[unit], values[unit]
                normalized += int((~unit).sum())
            assert np.array_equal(got, values), (clip.name, ch)
            checked += 1
    assert checked > 0 or not doc.get("animations")
    assert normalized == 0 or path.name == "test.vrma", normalized


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


def test_map_is_what_the_cli_prints(cli, tmp_path):
    """skelnorm.map equals `skelnorm map FILE --json`: declared (VRM) and auto maps, a profile
    file, a bone-map file (its entries marked as overrides), one skeleton."""
    cli("map", FIXTURES / "mixamo.glb", "-o", tmp_path / "map.ron")
    profile = ROOT / "profiles" / "humanoid.ron"
    for name, flags, kwargs in [
        ("mixamo.glb", [], {}),
        ("ue_zup.glb", [], {}),
        ("vrm0.vrm", [], {}),
        ("vrm0.vrm", ["--ignore-vrm"], {"map": {"ignore_vrm": True}}),
        ("mixamo.glb", ["--profile", profile], {"profile": profile}),
        ("mixamo.glb", ["--bone-map", tmp_path / "map.ron"], {"bone_map": tmp_path / "map.ron"}),
        ("mixamo.glb", ["--skeleton", "0"], {"skeleton": 0}),
    ]:
        printed = json.loads(cli("map", FIXTURES / name, "--json", *flags))
        ours = skelnorm.map(skelnorm.load(FIXTURES / name), **kwargs)
        assert ours["skeletons"] == printed["files"][0]["map"], (name, flags)
    origins = {b["origin"] for b in skelnorm.map(skelnorm.load(FIXTURES / "mixamo.glb"), bone_map=tmp_path / "map.ron")["skeletons"][0]["bones"].values()}
    assert origins == {"override"}
    assert skelnorm.map(skelnorm.load(FIXTURES / "quadruped.glb"))["skeletons"][0]["missing_required"]
    with pytest.raises(ValueError, match="no skeleton 3"):
        skelnorm.map(skelnorm.load(FIXTURES / "mixamo.glb"), skeleton=3)
    with pytest.raises(ValueError, match="nope.ron"):
        skelnorm.map(skelnorm.load(FIXTURES / "mixamo.glb"), profile=tmp_path / "nope.ron")


def test_normalize_writes_what_the_cli_writes(cli, tmp_path):
    for name in ["mixamo.glb", "ue_zup.glb", "vrm0.vrm"]:
        ours, theirs = tmp_path / ("py_" + name), tmp_path / ("cli_" + name)
        report = skelnorm.normalize(FIXTURES / name, ours)
        cli_report = json.loads(cli("normalize", FIXTURES / name, "-o", theirs, "--json"))
        assert ours.read_bytes() == theirs.read_bytes(), name
        assert report["schema"] == cli_report["schema"] == "skelnorm/2"
        ours_file, cli_file = report["files"][0], cli_report["files"][0]
        assert ours_file["normalize"] == cli_file["normalize"], name
        assert ours_file["warnings"] == cli_file["warnings"], name


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


def test_bvh_round_trip_is_byte_exact(cli, tmp_path):
    """BVH -> numpy -> BVH writes what `skelnorm convert x.bvh y.bvh` writes, character for
    character: sampling at the key times gives the stored keys (issue 18), and a Motion made
    from the arrays alone writes the same file."""
    for src in [CMU_BVH, tmp_path / "walk.bvh"]:
        if src == CMU_BVH and not CMU_BVH.exists():
            continue
        if not src.exists():
            src.write_text(BVH)
        m = skelnorm.load(src).clips[0].sample()
        m.to_bvh(tmp_path / "py.bvh")
        rebuilt = skelnorm.Motion(
            np.array(m.times), np.array(m.rotations), np.array(m.translations), skeleton=m.skeleton, name=m.name
        )
        rebuilt.to_bvh(tmp_path / "numpy.bvh")
        cli("convert", src, tmp_path / "cli.bvh")
        want = (tmp_path / "cli.bvh").read_text()
        assert (tmp_path / "py.bvh").read_text() == want, src
        assert (tmp_path / "numpy.bvh").read_text() == want, src
    if not CMU_BVH.exists():
        pytest.skip(f"{CMU_BVH} is absent: only the small BVH was checked")


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


RETARGET_PAIRS = [
    ("mixamo.glb", "long_legs.glb", {}),
    ("mixamo.glb", "vrm0.vrm", {}),
    ("ue_zup.glb", "spine5.glb", {}),
    # Settings as keywords against the same settings in a RON file: leg IK off, arm IK on, in
    # place, scaled vertical motion.
    (
        "mixamo.glb",
        "long_legs.glb",
        {"retarget": {"in_place": True, "vertical_scale": 0.8, "chains": {"LeftLeg": {"ik": False}, "LeftArm": {"ik": True}}}},
    ),
    ("cmu_131_03_maxfriendly.bvh", "vrm0.vrm", {}),
]
SETTINGS_RON = '(retarget: (in_place: true, vertical_scale: 0.8, chains: {"LeftLeg": (ik: Some(false)), "LeftArm": (ik: Some(true))}))'


@pytest.mark.parametrize("src,dst,settings", RETARGET_PAIRS, ids=lambda v: v if isinstance(v, str) else "settings" * bool(v))
def test_retargeter_gives_the_rust_runtime_poses(runtime_poses, tmp_path, src, dst, settings):
    """skelnorm.Retargeter equals the Rust API's Retargeter (python/examples/runtime_poses.rs)
    pose for pose, float for float: rotations and every bone's translation of the target."""
    paths = []
    for name in (src, dst):
        path = present(CMU_BVH) if name.endswith(".bvh") else FIXTURES / name
        out = tmp_path / ("n_" + pathlib.Path(name).stem + ".glb")
        skelnorm.normalize(path, out)
        paths.append(out)
    fps = 24
    ron = tmp_path / "settings.ron"
    ron.write_text(SETTINGS_RON if settings else "()")
    runtime_poses(*paths, fps, tmp_path / "rust.f32", ron)
    source, target = skelnorm.load(paths[0]), skelnorm.load(paths[1])
    clip = source.clips[0]
    r = skelnorm.Retargeter(clip.skeleton, target.skeletons[0], **settings)
    m = clip.sample(fps)
    q, t = r.retarget(m.rotations, m.translations[:, r.source_hips], all_translations=True)
    raw = np.fromfile(tmp_path / "rust.f32", "<f4")
    n, j = len(m), len(target.skeletons[0])
    assert raw.size == n * j * 7
    want_q, want_t = raw[: n * j * 4].reshape(n, j, 4), raw[n * j * 4 :].reshape(n, j, 3)
    assert np.array_equal(q, want_q)
    assert np.array_equal(t, want_t)
    # The frames move: this compares motion, not rest poses.
    assert np.ptp(q, axis=0).max() > 0.1
    if settings:
        plain, _ = skelnorm.Retargeter(clip.skeleton, target.skeletons[0]).retarget(m.rotations, m.translations[:, r.source_hips])
        assert not np.array_equal(plain, q)


def test_bad_paths_raise_oserror(tmp_path):
    """Files that cannot be read or written: OSError subclasses naming the path; content that is
    not a model: ValueError naming the file."""
    with pytest.raises(FileNotFoundError, match="nope.glb"):
        skelnorm.load(tmp_path / "nope.glb")
    with pytest.raises(IsADirectoryError, match="it is a folder"):
        skelnorm.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="nope.bvh"):
        skelnorm.normalize(tmp_path / "nope.bvh", tmp_path / "x.glb")
    with pytest.raises(FileNotFoundError, match="nope.vrm"):
        skelnorm.retarget(FIXTURES / "mixamo.glb", tmp_path / "nope.vrm")
    with pytest.raises(FileNotFoundError, match="none.ron: cannot read"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.glb", settings=tmp_path / "none.ron")
    motion = skelnorm.load(FIXTURES / "mixamo.glb").clips[0].sample()
    with pytest.raises(IsADirectoryError, match="cannot write"):
        motion.to_bvh(tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError, match="file"):
        motion.to_bvh(tmp_path / "file" / "under_a_file.bvh")
    with pytest.raises(OSError, match="file"):
        skelnorm.load(FIXTURES / "mixamo.glb").save(tmp_path / "file" / "under_a_file.glb")
    with pytest.raises(TypeError):
        skelnorm.load(123)


@pytest.mark.parametrize(
    "content,msg",
    [(b"", "empty"), (b"glTF\x02\x00\x00\x00garbage", "bad.glb"), (b"HIERARCHY\nROOT {", "bad.glb")],
)
def test_bad_files_raise_valueerror(tmp_path, content, msg):
    (tmp_path / "bad.glb").write_bytes(content)
    with pytest.raises(ValueError, match=msg):
        skelnorm.load(tmp_path / "bad.glb")


def test_bad_settings_raise_valueerror(tmp_path):
    with pytest.raises(ValueError, match="silhouete"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.glb", rest={"silhouete_threshold_deg": 1.0})
    with pytest.raises(ValueError, match="must end in"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.txt")
    with pytest.raises(ValueError, match="expected a boolean"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.glb", rest={"fix_silhouette": "yes"})
    with pytest.raises(ValueError, match="NaN is not a finite number"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.glb", rest={"silhouette_threshold_deg": float("nan")})
    with pytest.raises(ValueError, match="unknown settings section `foo`"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.glb", foo={})
    with pytest.raises(ValueError, match="no skeleton 9"):
        skelnorm.normalize(FIXTURES / "mixamo.glb", tmp_path / "x.glb", skeleton=9)
    with pytest.raises(ValueError, match="no skeleton fits"):
        skelnorm.normalize(FIXTURES / "quadruped.glb", tmp_path / "x.glb")
    with pytest.raises(ValueError, match="bvh_scale"):
        skelnorm.load(FIXTURES / "mixamo.glb", bvh_scale=-1)
    assert not (tmp_path / "x.glb").exists()


@pytest.fixture(scope="module")
def mixamo():
    s = skelnorm.load(FIXTURES / "mixamo.glb").skeletons[0]
    return s, skelnorm.Retargeter(s, s), len(s)


BAD_ROTATIONS = [
    (lambda j: np.zeros((j, 3), np.float32), "shape \\[65, 3\\] is not \\(J, 4\\) or \\(N, J, 4\\)"),
    (lambda j: np.zeros((1, 2, j, 4), np.float32), "shape \\[1, 2, 65, 4\\]"),
    (lambda j: np.array(np.float32(1)), "shape \\[\\]"),
    (lambda j: np.zeros((2, j + 1, 4), np.float32), "66 joints, the source skeleton `Armature` has 65"),
    (lambda j: np.zeros((j - 1, 4), np.float32), "64 joints"),
    (lambda j: np.full((j, 4), np.nan, np.float32), "value NaN at flat index 0 is not finite"),
    (lambda j: np.full((3, j, 4), np.inf), "value inf at flat index 0 is not finite"),
    (lambda j: np.zeros((j, 4), np.int64), "dtype int64"),
    (lambda j: np.zeros((j, 4), np.float16), "dtype float16"),
    (lambda j: np.zeros((j, 4), bool), "dtype bool"),
    (lambda j: np.array([[None] * 4] * j), "dtype object"),
    (lambda j: np.zeros((j, 4), np.float32), "frame 0, joint 0: the rotation .*unit length"),
    (lambda j: [[0, 0, 0, 1]] * j, "expected a float32 or float64 numpy array, got a list"),
    (lambda j: np.float32(1), "got a float32"),
]


@pytest.mark.parametrize("make,msg", BAD_ROTATIONS, ids=[m for _, m in BAD_ROTATIONS])
def test_bad_rotations_raise_valueerror(mixamo, make, msg):
    s, r, j = mixamo
    with pytest.raises(ValueError, match=msg):
        r.retarget(make(j))


def test_bad_root_translations_raise_valueerror(mixamo):
    s, r, j = mixamo
    one = np.tile(np.float32([0, 0, 0, 1]), (j, 1))
    three = np.stack([one] * 3)
    for rot, root, msg in [
        (one, np.float32([np.nan, 0, 0]), "root_translation: value NaN"),
        (one, np.zeros(4, np.float32), "shape \\[4\\] is not \\(3,\\) or \\(N, 3\\)"),
        (three, np.zeros((2, 3), np.float32), "shape \\[2, 3\\] does not go with rotations \\[3, 65, 4\\]"),
        (three, np.zeros(3, np.float32), "shape \\[3\\] does not go with"),
        (one, np.zeros((1, 3), np.float32), "shape \\[1, 3\\] does not go with"),
        (one, np.zeros(3, np.int32), "dtype int32"),
    ]:
        with pytest.raises(ValueError, match=msg):
            r.retarget(rot, root)
    with pytest.raises(ValueError, match="order `zyxw`"):
        r.retarget(one, order="zyxw")
    # Layouts numpy makes without copying are accepted: strided, Fortran order, float64.
    q, _ = r.retarget(three)
    assert np.array_equal(r.retarget(np.stack([one] * 6)[::2])[0], q)
    assert np.array_equal(r.retarget(np.asfortranarray(one))[0], q[0])
    assert np.array_equal(r.retarget(one.astype(np.float64))[0], q[0])
    assert r.retarget(three[:0])[0].shape == (0, j, 4)


def test_bad_motion_arrays_raise_valueerror(mixamo, tmp_path):
    s, _, j = mixamo
    m = skelnorm.load(FIXTURES / "mixamo.glb").clips[0].sample()
    t, q, p = m.times, m.rotations, m.translations
    other = skelnorm.load(FIXTURES / "long_spine.glb").skeletons[0]
    for args, kw, msg in [
        ((t, q[..., :3], p), {}, "rotations: shape \\[25, 65, 3\\] is not \\(N, J, 4\\)"),
        ((t, q, p[..., :2]), {}, "translations: shape"),
        ((t[:, None], q, p), {}, "times: shape \\(25, 1\\) is not \\(N,\\)"),
        ((t[:-1], q, p), {}, "disagree on N or J"),
        ((t, q, p[:, :-1]), {}, "disagree on N or J"),
        ((t, q, p), {"scales": np.ones((25, 64, 3), np.float32)}, "scales .* disagree"),
        ((t[::-1].copy(), q, p), {}, "times: must not decrease"),
        ((t * np.nan, q, p), {}, "times: value NaN"),
        ((t, q * np.nan, p), {}, "rotations: value NaN"),
        ((t, q, p + np.inf), {}, "translations: value inf"),
        ((t, q * 2, p), {}, "frame 0, joint 0: the transform rotation is not unit length"),
        ((t, q.astype(np.int32), p), {}, "rotations: .* dtype int32"),
        ((t.tolist(), q, p), {}, "times: .* got a list"),
        ((t, q, p), {"skeleton": other}, "skeleton `Armature` has 67 bones and the arrays 65"),
        ((t, q, p), {"order": "xyz"}, "order `xyz`"),
    ]:
        with pytest.raises(ValueError, match=msg):
            skelnorm.Motion(*args, **kw)
    with pytest.raises(ValueError, match="has 67 bones and the motion 65"):
        m.world_positions(other)
    with pytest.raises(ValueError, match="knows no skeleton"):
        skelnorm.Motion(t, q, p).world_positions()
    with pytest.raises(ValueError, match="unit `km`"):
        m.to_bvh(tmp_path / "x.bvh", unit="km")
    with pytest.raises(ValueError, match="bvh order `abc`"):
        m.to_bvh(tmp_path / "x.bvh", bvh_order="abc")
    with pytest.raises(ValueError, match="fps 0 is not a positive number"):
        m.to_bvh(tmp_path / "x.bvh", fps=0)
    clip = skelnorm.load(FIXTURES / "mixamo.glb").clips[0]
    for fps in [-1, 0, float("nan"), 1e6]:
        with pytest.raises(ValueError, match="fps"):
            clip.sample(fps=fps)
    with pytest.raises(ValueError, match="order"):
        s.rest_rotations_as("zyxw")

//! Issue 43, item 1: a rest that cannot decide. The Bandai-Namco Research motion dataset's BVH
//! files name their bones `Hips`, `Spine`, `UpperArm_L`… but rest every bone along its parent's
//! X axis with zero rotations: the body lies flat, its pose only in the frames. The skeletons
//! here are that dataset's real layout (joint names, hierarchy, OFFSETs and channels copied
//! from `dataset-1_walk_normal_001.bvh`); the frames are written here: a body standing in the
//! first frame, or the flat rest itself.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::fmt::Write as _;
use std::path::Path;

/// The dataset's joints: (name, parent, OFFSET); every joint has an `End Site` child when it
/// has no joint child, at OFFSET 0 0 0 as in the walk takes.
const BANDAI: [(&str, Option<&str>, [f32; 3]); 22] = [
    ("joint_Root", None, [0.0, 0.0, 0.0]),
    ("Hips", Some("joint_Root"), [0.0, 93.9241, -3.0]),
    ("Spine", Some("Hips"), [15.7357, 0.0, 0.0]),
    ("Chest", Some("Spine"), [8.98455, -0.406207, 0.0]),
    ("Neck", Some("Chest"), [16.3773, 0.0, 0.0]),
    ("Head", Some("Neck"), [6.45672, 0.0, 0.0]),
    ("Shoulder_L", Some("Chest"), [12.9942, -0.242716, 4.98039]),
    ("UpperArm_L", Some("Shoulder_L"), [5.34809, 0.0, 0.0]),
    (
        "LowerArm_L",
        Some("UpperArm_L"),
        [24.3286, 1.87007e-05, 0.0],
    ),
    ("Hand_L", Some("LowerArm_L"), [22.2916, 0.0, 0.0]),
    ("Shoulder_R", Some("Chest"), [12.9945, -0.242716, -4.98039]),
    ("UpperArm_R", Some("Shoulder_R"), [-5.34813, 0.0, 0.0]),
    (
        "LowerArm_R",
        Some("UpperArm_R"),
        [-24.3289, 0.000322201, 0.0],
    ),
    ("Hand_R", Some("LowerArm_R"), [-22.2915, -0.000108084, 0.0]),
    ("UpperLeg_L", Some("Hips"), [-2.19248, -6.46944, 0.0]),
    (
        "LowerLeg_L",
        Some("UpperLeg_L"),
        [39.0811, 0.0, -1.23785e-05],
    ),
    ("Foot_L", Some("LowerLeg_L"), [40.9854, 0.0, -1.26872e-05]),
    ("Toes_L", Some("Foot_L"), [11.7543, 0.0, 0.0]),
    ("UpperLeg_R", Some("Hips"), [-2.19251, 6.46944, 0.0]),
    (
        "LowerLeg_R",
        Some("UpperLeg_R"),
        [-39.0811, -0.00228153, -0.0401928],
    ),
    ("Foot_R", Some("LowerLeg_R"), [-40.9854, 0.0, 0.0]),
    ("Toes_R", Some("Foot_R"), [-11.7543, 0.0, 0.0]),
];

/// The profile bone each named joint is.
const ROLES: [(&str, &str); 22] = [
    ("Root", "joint_Root"),
    ("Hips", "Hips"),
    ("Spine", "Spine"),
    ("Chest", "Chest"),
    ("Neck", "Neck"),
    ("Head", "Head"),
    ("LeftShoulder", "Shoulder_L"),
    ("LeftUpperArm", "UpperArm_L"),
    ("LeftLowerArm", "LowerArm_L"),
    ("LeftHand", "Hand_L"),
    ("RightShoulder", "Shoulder_R"),
    ("RightUpperArm", "UpperArm_R"),
    ("RightLowerArm", "LowerArm_R"),
    ("RightHand", "Hand_R"),
    ("LeftUpperLeg", "UpperLeg_L"),
    ("LeftLowerLeg", "LowerLeg_L"),
    ("LeftFoot", "Foot_L"),
    ("LeftToes", "Toes_L"),
    ("RightUpperLeg", "UpperLeg_R"),
    ("RightLowerLeg", "LowerLeg_R"),
    ("RightFoot", "Foot_R"),
    ("RightToes", "Toes_R"),
];

/// Rotations (Z, X, Y in degrees, the file's channel order) that stand the flat rest up facing
/// +Z: the hips turn the spine (+X) up, the spine turns the chest so the shoulders (its +Z)
/// lie to the left as the hip joints do, the shoulders turn the arms out sideways, the left leg
/// (laid up along +X) turns down, and the feet turn the toes forward.
fn standing(name: &str) -> [f32; 3] {
    match name {
        "Hips" => [90.0, 0.0, 0.0],
        "Spine" => [0.0, 90.0, 0.0],
        "Shoulder_L" | "Shoulder_R" => [0.0, 0.0, -90.0],
        "UpperLeg_L" => [180.0, 0.0, 0.0],
        "LowerLeg_L" | "LowerLeg_R" => [0.0, 0.0, 0.0],
        "Foot_L" => [0.0, 0.0, -90.0],
        "Foot_R" => [0.0, 0.0, 90.0],
        _ => [0.0; 3],
    }
}

/// The dataset's hierarchy as BVH text (6 channels per joint, `Zrotation Xrotation Yrotation`),
/// with `frames` frames each posed by `pose` (positions repeat the offsets, as the dataset's do).
fn bvh(frames: usize, pose: fn(&str) -> [f32; 3]) -> String {
    bvh_named(frames, pose, |i| BANDAI[i].0.to_string())
}

/// [`bvh`] with one frame per pose of `poses`.
fn bvh_frames(poses: &[fn(&str) -> [f32; 3]]) -> String {
    let text = bvh(1, poses[0]);
    let (head, _) = text.split_once("MOTION").unwrap();
    let mut out = format!(
        "{head}MOTION\nFrames: {}\nFrame Time: 0.0333333\n",
        poses.len()
    );
    for pose in poses {
        let line: Vec<String> = BANDAI
            .iter()
            .flat_map(|(name, _, o)| {
                let r = pose(name);
                [o[0], o[1], o[2], r[0], r[1], r[2]]
            })
            .map(|v| v.to_string())
            .collect();
        writeln!(out, "{}", line.join(" ")).unwrap();
    }
    out
}

/// [`bvh`] with joint `i` named `name(i)`.
fn bvh_named(frames: usize, pose: fn(&str) -> [f32; 3], name: fn(usize) -> String) -> String {
    fn joint(out: &mut String, i: usize, depth: usize, rename: fn(usize) -> String) {
        let (name, parent, o) = BANDAI[i];
        let shown = rename(i);
        let pad = "  ".repeat(depth);
        let kind = if parent.is_none() { "ROOT" } else { "JOINT" };
        writeln!(out, "{pad}{kind} {shown}\n{pad}{{").unwrap();
        writeln!(out, "{pad}  OFFSET {} {} {}", o[0], o[1], o[2]).unwrap();
        writeln!(
            out,
            "{pad}  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"
        )
        .unwrap();
        let children: Vec<usize> = (0..BANDAI.len())
            .filter(|&c| BANDAI[c].1 == Some(name))
            .collect();
        if children.is_empty() {
            writeln!(
                out,
                "{pad}  End Site\n{pad}  {{\n{pad}    OFFSET 0 0 0\n{pad}  }}"
            )
            .unwrap();
        }
        for c in children {
            joint(out, c, depth + 1, rename);
        }
        writeln!(out, "{pad}}}").unwrap();
    }
    let mut out = String::from("HIERARCHY\n");
    joint(&mut out, 0, 0, name);
    writeln!(out, "MOTION\nFrames: {frames}\nFrame Time: 0.0333333").unwrap();
    for _ in 0..frames {
        let line: Vec<String> = BANDAI
            .iter()
            .flat_map(|(name, _, o)| {
                let r = pose(name);
                [o[0], o[1], o[2], r[0], r[1], r[2]]
            })
            .map(|v| v.to_string())
            .collect();
        writeln!(out, "{}", line.join(" ")).unwrap();
    }
    out
}

fn json(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = common::skelnorm(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {err}"));
    (out.status.code(), v, err)
}

/// `skelnorm map --json FILE`: exit code, the skeleton's map and its warning codes.
fn map(file: &Path) -> (Option<i32>, serde_json::Value, Vec<String>) {
    let (code, v, _) = json(&["map", "--json", file.to_str().unwrap()]);
    let m = common::file_stage(&v, "map");
    let codes = v["files"][0]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap().to_string())
        .collect();
    (code, m["skeletons"][0].clone(), codes)
}

/// Every named joint is mapped to its role, with no bone map.
fn assert_roles(sk: &serde_json::Value) {
    for (role, bone) in ROLES {
        assert_eq!(sk["bones"][role]["source"], bone, "{role}: {sk}");
    }
    assert_eq!(sk["missing_required"].as_array().unwrap().len(), 0, "{sk}");
}

/// `normalize` writes a T-pose: every mapped bone within 1° of the profile's direction.
fn assert_t_pose(file: &Path, dir: &Path) {
    let out = dir.join("out.glb");
    let (code, v, err) = json(&[
        "normalize",
        "--json",
        file.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let n = common::file_stage(&v, "normalize");
    let rest = &n["skeletons"][0]["measured"]["rest"];
    eprintln!("{}: rest {rest}", file.display());
    assert!(rest["max_direction_deg"].as_f64().unwrap() <= 1.0, "{rest}");
    assert_eq!(rest["faces_plus_z"], true, "{rest}");
    // No bone left out of the measure: the hips' tail lies square to +Y at rest (the spine
    // leaves them sideways) and still counts.
    assert_eq!(
        rest["reversed_tails"].as_array().unwrap().len(),
        0,
        "{rest}"
    );
    // The shoulders (or upper arms) lie beside the spine, left at +X, not one before and one
    // behind it: the flat rest's chest frame turns a quarter from its hips'.
    let model = skelnorm::gltf_io::read(&out).unwrap().model;
    let s = &model.skeletons[0];
    let at = |names: [&str; 2]| {
        let b = names.iter().find_map(|n| s.find(n)).unwrap();
        s.rest_world()[b.index()].w_axis.truncate()
    };
    let line = at(["LeftShoulder", "LeftUpperArm"]) - at(["RightShoulder", "RightUpperArm"]);
    let deg = skelnorm::model::angle_deg(line, glam::Vec3::X);
    assert!(deg <= 1.0, "shoulder line {line} is {deg}° from +X");
}

#[test]
fn a_flat_rest_is_mapped_on_the_first_frame_and_normalizes_to_a_t_pose() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bandai_standing.bvh");
    std::fs::write(&file, bvh(2, standing)).unwrap();
    let (code, sk, codes) = map(&file);
    assert_eq!(code, Some(0));
    assert_roles(&sk);
    assert!(codes.contains(&"rest_from_frame".to_string()), "{codes:?}");
    assert_t_pose(&file, dir.path());
}

#[test]
fn a_flat_rest_with_a_flat_frame_is_mapped_by_names_and_hierarchy_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bandai_flat.bvh");
    std::fs::write(&file, bvh(1, |_| [0.0; 3])).unwrap();
    let (code, sk, codes) = map(&file);
    assert_eq!(code, Some(0));
    assert_roles(&sk);
    assert!(codes.contains(&"names_only".to_string()), "{codes:?}");
    assert!(
        !codes.contains(&"required_missing".to_string()),
        "{codes:?}"
    );
    assert_t_pose(&file, dir.path());
}

/// The refusal that remains: the same flat layout with its names gone (`joint_0`…`joint_21`)
/// and a flat frame shows no body anywhere. The rest along one line is not read as a body (the
/// auto-mapper would find hips and arms in it), `map` and `normalize` exit 3, and the warning
/// says what was tried (the rest and the clip's first frame) and that names gave too little.
#[test]
fn a_flat_rest_without_names_is_refused_saying_what_was_tried() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flat_unnamed.bvh");
    std::fs::write(&file, bvh_named(1, |_| [0.0; 3], |i| format!("joint_{i}"))).unwrap();
    let out = common::skelnorm(&["map", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "no hips found: the rest lies along one line or at one point (neither at rest nor in the first frame of clip `flat_unnamed`), and names give too few of the required bones; a bone map can name them"
        ),
        "{text}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a humanoid skeleton") && err.contains("lacks Hips"),
        "{err}"
    );
    let dst = dir.path().join("out.glb");
    let out = common::skelnorm(&[
        "normalize",
        file.to_str().unwrap(),
        "-o",
        dst.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("lacks Hips"), "{err}");
    assert!(!dst.exists());
}

/// The standing layout retargets onto the Mixamo fixture within issue 6's bounds: with FK only,
/// bone directions within 0.5° where chains have equal bone counts and chain ends within 2°
/// otherwise; with the default leg IK, feet within 1% of the target's height; no length drift.
#[test]
fn a_flat_rest_retargets_within_issue_6_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bandai_standing.bvh");
    std::fs::write(&file, bvh(2, standing)).unwrap();
    let target = common::root().join("fixtures/mixamo.glb");
    let out = dir.path().join("out.glb");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "retarget",
            "--json",
            "--source",
            file.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, v, err) = json(&args);
        assert_eq!(code, Some(0), "{err}");
        common::file_stage(&v, "retarget")
    };
    let fk = run(&["--no-ik"]);
    let m = &fk["clips"][0]["measured"];
    for c in m["chains"].as_array().unwrap() {
        match (c["bones_deg"].as_f64(), c["end_deg"].as_f64()) {
            (Some(d), _) => assert!(d <= 0.5, "{c}"),
            (None, Some(d)) => assert!(d <= 2.0, "{c}"),
            (None, None) => assert_eq!(c["measured"], false, "{c}"),
        }
    }
    let ik = run(&[]);
    let m = &ik["clips"][0]["measured"];
    let feet: Vec<&serde_json::Value> = m["effectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ik"] == true)
        .collect();
    assert_eq!(feet.len(), 2, "{m}");
    for e in feet {
        assert!(e["max_error"].as_f64().unwrap() <= 0.01, "{e}");
    }
    assert!(m["length_drift"].as_f64().unwrap() <= 1e-5, "{m}");
}

/// The node layout of the VRM Add-on for Blender's test clip `hips_spine_twisting.vrma` (MIT),
/// copied from its nodes with the `VRMC_vrm_animation` extension left out: plain nodes named as
/// the profile's bones under an `Armature` node, the hips resting at the origin (height 0) with
/// every bone laid along its parent's −Z. (name, parent index, translation, rotation xyzw).
#[allow(clippy::type_complexity, reason = "a table of the file's nodes")]
const VRMA_PLAIN: [(&str, Option<usize>, [f32; 3], [f32; 4]); 18] = [
    ("Armature", None, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]),
    (
        "Hips",
        Some(0),
        [0.0, 0.0, 0.0],
        [0.8535534, 0.14644662, -0.35355338, 0.35355344],
    ),
    (
        "Spine",
        Some(1),
        [0.0, 0.0, -1.0],
        [0.19134169, 0.19134176, -0.46193975, 0.8446232],
    ),
    ("Chest", Some(2), [0.0, 0.0, -0.25], [0.0, 0.0, 0.0, 1.0]),
    ("Neck", Some(3), [0.0, 0.0, -0.25], [0.0, 0.0, 0.0, 1.0]),
    ("Head", Some(4), [0.0, 0.0, -0.25], [0.0, 0.0, 0.0, 1.0]),
    (
        "LeftUpperArm",
        Some(3),
        [0.25, 0.0, -0.25],
        [-0.5, -0.5, 0.5, 0.5],
    ),
    (
        "LeftLowerArm",
        Some(6),
        [0.0, 0.0, -0.25],
        [0.0, 0.0, 0.0, 1.0],
    ),
    ("LeftHand", Some(7), [0.0, 0.0, -0.25], [0.0, 0.0, 0.0, 1.0]),
    (
        "RightUpperArm",
        Some(3),
        [-0.25, 0.0, -0.25],
        [-0.5, 0.5, -0.5, 0.5],
    ),
    (
        "RightLowerArm",
        Some(9),
        [0.0, 0.0, -0.25],
        [0.0, 0.0, 0.0, 1.0],
    ),
    (
        "RightHand",
        Some(10),
        [0.0, 0.0, -0.25],
        [0.0, 0.0, 0.0, 1.0],
    ),
    (
        "LeftUpperLeg",
        Some(1),
        [0.25, 0.0, -1.0],
        [1.0, 0.0, 0.0, 0.0],
    ),
    (
        "LeftLowerLeg",
        Some(12),
        [0.0, 0.0, -0.5],
        [0.0, 0.0, 0.0, 1.0],
    ),
    ("LeftFoot", Some(13), [0.0, 0.0, -0.5], [0.0, 0.0, 0.0, 1.0]),
    (
        "RightUpperLeg",
        Some(1),
        [-0.25, 0.0, -1.0],
        [1.0, 0.0, 0.0, 0.0],
    ),
    (
        "RightLowerLeg",
        Some(15),
        [0.0, 0.0, -0.5],
        [0.0, 0.0, 0.0, 1.0],
    ),
    (
        "RightFoot",
        Some(16),
        [0.0, 0.0, -0.5],
        [0.0, 0.0, 0.0, 1.0],
    ),
];

/// `VRMA_PLAIN` as a `.gltf` (buffer in a `.bin` beside it) with one clip turning the hips and
/// the spine (LINEAR, 1 s, three keys), as the file's clip does.
fn vrma_plain(dir: &Path) -> std::path::PathBuf {
    use glam::Quat;
    let q = |i: usize| Quat::from_array(VRMA_PLAIN[i].3).normalize();
    let twist = Quat::from_rotation_z(0.4);
    let keys = |i: usize| [q(i), q(i) * twist, q(i)];
    let mut bin: Vec<u8> = Vec::new();
    for t in [0.0f32, 0.5, 1.0] {
        bin.extend(t.to_le_bytes());
    }
    for i in [1, 2] {
        for k in keys(i) {
            for v in k.to_array() {
                bin.extend(v.to_le_bytes());
            }
        }
    }
    std::fs::write(dir.join("vrma_plain.bin"), &bin).unwrap();
    let nodes: Vec<serde_json::Value> = VRMA_PLAIN
        .iter()
        .enumerate()
        .map(|(i, (name, _, t, r))| {
            let children: Vec<usize> = (0..VRMA_PLAIN.len())
                .filter(|&c| VRMA_PLAIN[c].1 == Some(i))
                .collect();
            let mut n = serde_json::json!({"name": name, "translation": t, "rotation": r});
            if !children.is_empty() {
                n["children"] = serde_json::json!(children);
            }
            n
        })
        .collect();
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "buffers": [{"uri": "vrma_plain.bin", "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 12},
            {"buffer": 0, "byteOffset": 12, "byteLength": 48},
            {"buffer": 0, "byteOffset": 60, "byteLength": 48}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"}
        ],
        "animations": [{
            "name": "twist",
            "samplers": [
                {"input": 0, "output": 1, "interpolation": "LINEAR"},
                {"input": 0, "output": 2, "interpolation": "LINEAR"}
            ],
            "channels": [
                {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 1, "target": {"node": 2, "path": "rotation"}}
            ]
        }]
    });
    let path = dir.join("vrma_plain.gltf");
    std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    path
}

/// A clip-only VRMA rig without its extension maps its 17 bones by their names with no bone
/// map and no `required_missing` warning, normalizes to a T-pose, and retargets onto the Mixamo
/// fixture (its hips rest at height 0: the motion is scaled by the legs) within issue 6's FK
/// bounds.
#[test]
fn a_vrma_rig_without_its_extension_maps_normalizes_and_retargets() {
    let dir = tempfile::tempdir().unwrap();
    let file = vrma_plain(dir.path());
    let (code, sk, codes) = map(&file);
    assert_eq!(code, Some(0));
    for (name, parent, _, _) in &VRMA_PLAIN[1..] {
        assert!(parent.is_some());
        assert_eq!(sk["bones"][name]["source"], *name, "{sk}");
    }
    assert!(
        !codes.contains(&"required_missing".to_string()),
        "{codes:?}"
    );
    assert_t_pose(&file, dir.path());
    let target = common::root().join("fixtures/mixamo.glb");
    let out = dir.path().join("retargeted.glb");
    let (code, v, err) = json(&[
        "retarget",
        "--json",
        "--no-ik",
        "--source",
        file.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let r = common::file_stage(&v, "retarget");
    assert_eq!(r["plan"]["scale_basis"], "legs", "{}", r["plan"]);
    let m = &r["clips"][0]["measured"];
    for c in m["chains"].as_array().unwrap() {
        match (c["bones_deg"].as_f64(), c["end_deg"].as_f64()) {
            (Some(d), _) => assert!(d <= 0.5, "{c}"),
            (None, Some(d)) => assert!(d <= 2.0, "{c}"),
            (None, None) => assert_eq!(c["measured"], false, "{c}"),
        }
    }
    assert!(m["length_drift"].as_f64().unwrap() <= 1e-5, "{m}");
}

/// A rest that is no line yet shows no body (every joint a child of the root, spread in space,
/// as a generated Rigify rig's deform bones export), its names giving every required bone but
/// the hips: the refusal says the rest shows no body, not that it lies along one line.
#[test]
fn a_spread_rest_that_shows_no_body_is_refused_as_such() {
    const NAMES: [&str; 14] = [
        "Spine",
        "Head",
        "LeftUpperArm",
        "LeftLowerArm",
        "LeftHand",
        "RightUpperArm",
        "RightLowerArm",
        "RightHand",
        "LeftUpperLeg",
        "LeftLowerLeg",
        "LeftFoot",
        "RightUpperLeg",
        "RightLowerLeg",
        "RightFoot",
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("star.bvh");
    let mut text = String::from("HIERARCHY\nROOT joint_root\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n");
    for (i, name) in NAMES.iter().enumerate() {
        let a = i as f32 * std::f32::consts::TAU / NAMES.len() as f32;
        let (x, y, z) = (40.0 * a.cos(), 20.0 * (i % 4) as f32, 30.0 * a.sin());
        writeln!(
            text,
            "  JOINT {name}\n  {{\n    OFFSET {x} {y} {z}\n    CHANNELS 3 Zrotation Xrotation Yrotation\n    End Site\n    {{\n      OFFSET 0 5 0\n    }}\n  }}"
        )
        .unwrap();
    }
    text.push_str("}\nMOTION\nFrames: 1\nFrame Time: 0.0333333\n");
    let zeros = vec!["0"; 6 + NAMES.len() * 3];
    writeln!(text, "{}", zeros.join(" ")).unwrap();
    std::fs::write(&file, text).unwrap();
    let out = common::skelnorm(&["map", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no hips found: the rest shows no body"),
        "{text}"
    );
    assert!(!text.contains("one line"), "{text}");
}

/// Issue 43: the standing Bandai-Namco layout and the VRMA rig without its extension retarget
/// onto the `../shared` characters and the Mixamo fixture within issue 6's bounds
/// (tests/common/bounds.rs: FK directions, feet placed by leg IK, skate, no drift). The standing
/// frame is followed by a step: the hips turn and lean, and an arm and a leg swing.
///
/// The VRMA rig's feet are held to FK's bounds only, its foot and skate figures printed: its
/// legs hang straight at full reach while the hips twist over them, so the leg IK's goal (the
/// source's reach scaled, plus the target's own stance turned with the hips' yaw) lies beyond
/// the target's reach (ModularMen_Casual 1.7%), and the twisting hips sweep a wide-legged
/// target's stance under planted feet (RobotExpressive: skate 0.49% → 0.93% of the leg per
/// frame). The real `hips_spine_twisting.vrma` does the same (issue 43's report, h-bounds).
#[test]
fn the_real_layouts_retarget_onto_the_shared_characters_within_issue_6_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let bandai = dir.path().join("bandai_standing.bvh");
    std::fs::write(&bandai, bvh_frames(&[standing, stepping])).unwrap();
    let vrma = vrma_plain(dir.path());
    for target in common::bounds::targets() {
        for (source, feet) in [(&bandai, true), (&vrma, false)] {
            let line =
                common::bounds::retarget_within_issue_6(source, &target, dir.path(), &[], feet);
            eprintln!("{line}");
        }
    }
}

/// [`standing`] turned into a step: the hips turned and leaning, the left arm and the right
/// leg swung forward, the left knee bent.
fn stepping(name: &str) -> [f32; 3] {
    let [z, x, y] = standing(name);
    match name {
        "Hips" => [z + 5.0, x + 4.0, y + 15.0],
        "UpperArm_L" => [z, x, y + 30.0],
        "UpperLeg_R" => [z + 25.0, x, y],
        "LowerLeg_L" => [z - 30.0, x, y],
        _ => [z, x, y],
    }
}

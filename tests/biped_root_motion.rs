//! Issue 43: a 3ds Max Biped keeps its body's motion in `Bip001`, the node above `Bip001 Pelvis`
//! (the top of the skin's joints), which no vertex is weighted to. An FBX export (wiseMan.FBX and
//! the other Biped files of issue 43) puts that node at the scene root with the file's unit
//! scale (0.01) and its Z-up turn, and keys its translation, rotation and scale in the take.
//! Read as a fixed base above the skeleton, its motion was lost and every retarget measured the
//! source in centimetres with Z up (wiseMan onto mixamo.glb: "legs 14.400 → 0.871", directions
//! mean 91.47°). A node above the joints that a clip animates is a bone.
//!
//! The rig here has the Biped layout of `tests/conventions/real/max_biped_robe.txt` (wiseMan's
//! names, parents and skin joints, placed on the canonical humanoid), in centimetres with Z up
//! under `Bip001` as the export has it (scale 0.01, turned to Y up); its clip walks `Bip001`
//! forward and turns it a quarter turn about the vertical, swings a thigh and an upper arm, nods
//! the neck and curls a finger.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;
mod conventions;

use glam::{Mat4, Quat, Vec3};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Frames of the clip (30 fps, 1 s).
const FRAMES: usize = 31;

/// The Biped rig as a GLB: `animate_bip001` keys `Bip001` in the clip (as the export does) or
/// leaves it still (then it is a fixed node above the skeleton).
fn biped_glb(animate_bip001: bool) -> Vec<u8> {
    let rig = conventions::real_rigs()
        .into_iter()
        .find(|(f, _)| f == "max_biped_robe.txt")
        .expect("tests/conventions/real/max_biped_robe.txt")
        .1;
    let mut joints = conventions::real_joints(&rig);
    let base = conventions::place_in_scene(&mut joints, false, true);
    let mut sk = conventions::skeleton(&joints, &|n: &str| n.to_string(), base);
    assert_eq!(sk.bones[0].name, "Bip001", "Bip001 is the layout's root");
    // `Bip001` holds the unit scale and the Z-up turn itself, as in the export (no node above).
    let (s, r, t) = (base * sk.bones[0].rest.to_mat4()).to_scale_rotation_translation();
    sk.bones[0].rest = skelnorm::model::Transform {
        translation: t,
        rotation: r,
        scale: s,
    };
    let world = sk.accumulate(Mat4::IDENTITY, sk.bones.iter().map(|b| b.rest), |p, l| {
        p * l.to_mat4()
    });
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut push = |data: Vec<f32>, kind: &str, count: usize, minmax: bool| -> usize {
        let offset = bin.len();
        for v in &data {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4}));
        let mut a = json!({"bufferView": views.len() - 1, "componentType": 5126, "count": count, "type": kind});
        if minmax {
            a["min"] = json!([data.iter().copied().fold(f32::INFINITY, f32::min)]);
            a["max"] = json!([data.iter().copied().fold(f32::NEG_INFINITY, f32::max)]);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let nodes: Vec<Value> = sk
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let kids: Vec<usize> = (0..sk.bones.len())
                .filter(|&c| sk.bones[c].parent.map(|p| p.index()) == Some(i))
                .collect();
            let mut n = json!({
                "name": b.name,
                "translation": b.rest.translation.to_array(),
                "rotation": b.rest.rotation.to_array(),
                "scale": b.rest.scale.to_array(),
            });
            if !kids.is_empty() {
                n["children"] = json!(kids);
            }
            n
        })
        .collect();
    let skin_joints: Vec<usize> = (0..sk.bones.len())
        .filter(|&i| sk.bones[i].is_joint)
        .collect();
    let ibm: Vec<f32> = skin_joints
        .iter()
        .flat_map(|&i| world[i].inverse().to_cols_array())
        .collect();
    let ibm = push(ibm, "MAT4", skin_joints.len(), false);
    let times: Vec<f32> = (0..FRAMES).map(|k| k as f32 / 30.0).collect();
    let input = push(times.clone(), "SCALAR", FRAMES, true);
    let bone = |name: &str| sk.bones.iter().position(|b| b.name == name).unwrap();
    let mut channels = Vec::new();
    let mut samplers = Vec::new();
    let mut key = |node: usize, path: &str, data: Vec<f32>, kind: &str| {
        let output = push(data, kind, FRAMES, false);
        samplers.push(json!({"input": input, "output": output, "interpolation": "LINEAR"}));
        channels
            .push(json!({"sampler": samplers.len() - 1, "target": {"node": node, "path": path}}));
    };
    let phase = |t: f32| (t * std::f32::consts::TAU).sin();
    if animate_bip001 {
        let b = &sk.bones[0].rest;
        let walk: Vec<f32> = (times.iter())
            .flat_map(|&t| (b.translation + Vec3::new(0.0, 0.0, 0.6 * t)).to_array())
            .collect();
        let turn: Vec<f32> = (times.iter())
            .flat_map(|&t| {
                (Quat::from_rotation_y(t * std::f32::consts::FRAC_PI_2) * b.rotation).to_array()
            })
            .collect();
        let scale: Vec<f32> = times.iter().flat_map(|_| b.scale.to_array()).collect();
        key(0, "translation", walk, "VEC3");
        key(0, "rotation", turn, "VEC4");
        key(0, "scale", scale, "VEC3");
    }
    // The neck nods (carrying the clavicles that hang from it) and the middle finger's second
    // bone curls past its first: a chain end measured through either was off on wiseMan.FBX.
    for (name, axis, amp) in [
        ("Bip001 L Thigh", Vec3::X, 0.5),
        ("Bip001 R UpperArm", Vec3::Z, 0.4),
        ("Bip001 Neck", Vec3::X, 0.3),
        ("Bip001 L Finger11", Vec3::Z, 0.6),
    ] {
        let i = bone(name);
        let r = sk.bones[i].rest.rotation;
        let keys: Vec<f32> = (times.iter())
            .flat_map(|&t| (r * Quat::from_axis_angle(axis, amp * phase(t))).to_array())
            .collect();
        key(i, "rotation", keys, "VEC4");
    }
    let gltf = json!({
        "asset": {"version": "2.0", "generator": "skelnorm tests/biped_root_motion.rs"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes,
        "skins": [{"joints": skin_joints, "inverseBindMatrices": ibm}],
        "animations": [{"name": "walk", "channels": channels, "samplers": samplers}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": views,
        "accessors": accessors,
    });
    common::join_glb(&gltf, &bin)
}

/// `Bip001`, keyed by the clip, is the skeleton's root bone and carries its keys; still, it is
/// the fixed node above the skeleton (the joints' top, `Bip001 Pelvis`, is the root).
#[test]
fn an_animated_node_above_the_joints_is_a_bone() {
    let dir = tempfile::tempdir().unwrap();
    for animated in [true, false] {
        let path = dir.path().join(format!("biped_{animated}.glb"));
        std::fs::write(&path, biped_glb(animated)).unwrap();
        let doc = skelnorm::gltf_io::read(&path).unwrap();
        let s = &doc.model.skeletons[0];
        let names: Vec<&str> = s.bones.iter().map(|b| b.name.as_str()).collect();
        if animated {
            assert_eq!(names[0], "Bip001", "{names:?}");
            assert!(names.contains(&"Bip001 Footsteps"), "{names:?}");
            assert!(s.base_nodes.is_empty(), "{:?}", s.base_nodes);
            assert!(s.base.abs_diff_eq(Mat4::IDENTITY, 0.0));
            let clip = &doc.model.clips[0];
            let t = &clip.tracks[0];
            assert!(
                t.translation.is_some() && t.rotation.is_some(),
                "Bip001's keys"
            );
            assert!(
                clip.opaque.is_empty(),
                "no channel left outside the skeleton"
            );
        } else {
            assert_eq!(names[0], "Bip001 Pelvis", "{names:?}");
            assert!(!names.contains(&"Bip001"), "{names:?}");
            assert_eq!(s.base_nodes.len(), 1);
            let (scale, ..) = s.base.to_scale_rotation_translation();
            assert!((scale.x - 0.01).abs() < 1e-6, "{scale}");
        }
    }
}

/// Retargeted onto a character, the Biped's motion (its walk and turn in `Bip001`, its limbs'
/// swings) is measured in metres with Y up: the legs' ratio is the characters' (not 0.01 of
/// it), every segment's direction follows the source within the rests' own difference, and
/// three.js, playing the source and the written output, finds the same errors.
#[test]
fn a_biped_retargets_with_its_root_motion() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("biped.glb");
    std::fs::write(&source, biped_glb(true)).unwrap();
    let target = common::root().join("fixtures/mixamo.glb");
    let out = dir.path().join("out.glb");
    let stage = common::retarget_stage(&source, &target, &out, &["--clip", "walk"]);
    // The source's legs in metres: the canonical humanoid's, not a hundred times them.
    let plan = &stage["plan"];
    let (ls, lt) = (
        plan["source_leg_length"].as_f64().unwrap(),
        plan["target_leg_length"].as_f64().unwrap(),
    );
    eprintln!("legs {ls:.3} → {lt:.3} (ratio {:.3})", lt / ls);
    assert!((0.5..1.5).contains(&ls), "source legs {ls}");
    let c = &stage["clips"][0];
    let segments = c["measured"]["segments"].as_array().unwrap();
    assert!(segments.len() >= 10, "{} segments", segments.len());
    let mean = segments
        .iter()
        .map(|g| g["mean_deg"].as_f64().unwrap())
        .sum::<f64>()
        / segments.len() as f64;
    let worst = common::worst_segment(segments);
    eprintln!(
        "Biped → mixamo.glb: {} segments, mean {mean:.3}°, worst {:.3}° ({})",
        segments.len(),
        worst.0,
        worst.1
    );
    assert!(mean < 1.0, "mean {mean:.3}°");
    assert!(worst.0 < 5.0, "worst {:.3}° ({})", worst.0, worst.1);
    three_agrees(&source, &out, c, dir.path());
}

/// Profile bone → glTF node index in `file` (by the bone names `map` gives for `map_of`).
fn nodes_by_profile(map_of: &Path, file: &Path) -> BTreeMap<String, u64> {
    let run = common::skelnorm(&["map", map_of.to_str().unwrap(), "--json", "--allow-partial"]);
    assert!(run.status.success());
    let report: Value = serde_json::from_slice(&run.stdout).unwrap();
    let bones = &report["files"][0]["map"][0]["bones"];
    let (gltf, _) = common::split_glb(&std::fs::read(file).unwrap());
    let nodes = gltf["nodes"].as_array().unwrap();
    let joints: Vec<u64> = (gltf["skins"].as_array().into_iter().flatten())
        .flat_map(|s| s["joints"].as_array().unwrap().iter())
        .map(|j| j.as_u64().unwrap())
        .collect();
    let index = |name: &str| {
        let named = |i: &u64| nodes[*i as usize]["name"] == name;
        (joints.iter().copied().find(named))
            .or_else(|| (0..nodes.len() as u64).find(named))
            .unwrap_or_else(|| panic!("{}: no node `{name}`", file.display()))
    };
    (bones.as_object().unwrap().iter())
        .map(|(p, m)| (p.clone(), index(m["source"].as_str().unwrap())))
        .collect()
}

/// three.js's direction errors (tests/tools/three_directions.mjs) on the files agree with the
/// report's within 0.1° per segment (skipped when three.js is not installed).
fn three_agrees(source: &Path, out: &Path, clip: &Value, dir: &Path) {
    let segments = clip["measured"]["segments"].as_array().unwrap();
    let (sn, tn) = (
        nodes_by_profile(source, source),
        nodes_by_profile(&common::root().join("fixtures/mixamo.glb"), out),
    );
    let side = |n: &BTreeMap<String, u64>, g: &Value| {
        let tails: Vec<u64> = (g["tails"].as_array().unwrap().iter())
            .map(|t| n[t.as_str().unwrap()])
            .collect();
        json!([n[g["bone"].as_str().unwrap()], tails])
    };
    let job = json!({
        "fps": 30,
        "source": {"path": source, "clip": "walk"},
        "target": {"path": out, "clip": clip["clip"]},
        "segments": segments.iter().map(|g| json!({
            "bone": g["bone"], "source": side(&sn, g), "target": side(&tn, g),
        })).collect::<Vec<_>>(),
    });
    let path = dir.join("job.json");
    std::fs::write(&path, job.to_string()).unwrap();
    let Some(three) = common::three_directions(&path) else {
        return;
    };
    assert_eq!(three["frames"], clip["measured"]["frames"]);
    let mut most = 0.0f64;
    for (g, r) in segments.iter().zip(three["segments"].as_array().unwrap()) {
        for key in ["mean_deg", "worst_deg"] {
            let (ours, theirs) = (g[key].as_f64().unwrap(), r[key].as_f64().unwrap());
            most = most.max((ours - theirs).abs());
            assert!(
                (ours - theirs).abs() <= 0.1,
                "{} {key}: reported {ours:.4}°, three.js {theirs:.4}°",
                g["bone"]
            );
        }
    }
    eprintln!("three.js agrees within {most:.5}°");
}

/// A shared asset with the same layout: RiggedFigure_blender.fbx (Blender's FBX export of
/// Khronos's RiggedFigure) keys its armature node `Armature`, above the joints, with a whole
/// turn about the vertical in its first clip. Read as a fixed base, that turn and the file's
/// Z-up node above it were left out of the retarget's measure: directions mean 111.39°, worst
/// 180° onto mixamo.glb. As a bone (the map's Root), the turn is retargeted.
#[test]
fn an_armature_keyed_above_the_joints_retargets() {
    let Some(source) = common::asset("fbx/RiggedFigure_blender.fbx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let target = common::root().join("fixtures/mixamo.glb");
    let stage = common::retarget_stage(&source, &target, &out, &[]);
    for c in stage["clips"].as_array().unwrap() {
        let segments = c["measured"]["segments"].as_array().unwrap();
        let mean = segments
            .iter()
            .map(|g| g["mean_deg"].as_f64().unwrap())
            .sum::<f64>()
            / segments.len() as f64;
        eprintln!(
            "{}: {} segments, mean {mean:.3}°",
            c["clip"],
            segments.len()
        );
        assert!(mean < 6.0, "{}: mean {mean:.3}°", c["clip"]);
    }
}

/// The nodes kept above a skeleton (`rest.apply_node_transforms: false`): a uniform scale is
/// absorbed by the legs' ratio (mixamo.glb's 0.01 armature), and a Z-up armature node
/// (ue_zup.glb's −90° about X) is folded into the root bones for the retarget and out of the
/// clips it writes. Read without it, that turn put every direction off (mean 29.87°, worst
/// 174.62° from ue_zup.glb onto identity.gltf) and the report only said so
/// (`base_not_folded`); now neither side warns, the directions follow the source, and a clip
/// retargeted onto the kept, turned ue_zup.glb plays in the scene (its nodes above included)
/// as the same clip retargeted onto ue_zup.glb with its nodes folded: every joint within 1e-4
/// of the height at every frame.
#[test]
fn a_kept_turned_base_is_taken_into_account_by_the_retarget() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("keep.ron");
    std::fs::write(&keep, "(rest: (apply_node_transforms: false))\n").unwrap();
    let fixture = |n: &str| common::root().join("fixtures").join(n);
    let keep_arg = keep.to_str().unwrap();
    let mut outputs = Vec::new();
    for (source, target, settings) in [
        ("ue_zup.glb", "identity.gltf", None),
        ("ue_zup.glb", "identity.gltf", Some(keep_arg)),
        ("mixamo.glb", "identity.gltf", Some(keep_arg)),
        ("mixamo.glb", "ue_zup.glb", None),
        ("mixamo.glb", "ue_zup.glb", Some(keep_arg)),
    ] {
        let out = dir.path().join(format!("out{}.glb", outputs.len()));
        let mut extra = vec!["--clip", "walk", "--on-clash", "replace"];
        extra.extend(settings.iter().flat_map(|s| ["--settings", *s]));
        let stage = common::retarget_stage(&fixture(source), &fixture(target), &out, &extra);
        let at = format!("{source} → {target} {settings:?}");
        let base: Vec<&Value> = (stage["plan"]["warnings"].as_array().unwrap().iter())
            .filter(|w| w["code"] == "base_not_folded")
            .collect();
        assert!(base.is_empty(), "{at}: {base:?}");
        let segments = stage["clips"][0]["measured"]["segments"]
            .as_array()
            .unwrap();
        let worst = (segments.iter())
            .map(|g| g["worst_deg"].as_f64().unwrap())
            .fold(0.0, f64::max);
        eprintln!("{at}: worst segment {worst:.4}°");
        assert!(worst < 0.5, "{at}: worst segment {worst}°");
        outputs.push(out);
    }
    // Onto ue_zup.glb folded (outputs[3]) and kept (outputs[4]): the same scene.
    let scene = |path: &Path| {
        let model = skelnorm::gltf_io::read(path).unwrap().model;
        let s = model.skeletons[0].clone();
        let clip = model
            .clips
            .iter()
            .find(|c| c.name == "walk")
            .unwrap()
            .clone();
        (s, clip)
    };
    let ((a, ca), (b, cb)) = (scene(&outputs[3]), scene(&outputs[4]));
    assert!(
        !b.base.abs_diff_eq(Mat4::IDENTITY, 1e-3),
        "the kept nodes above: {}",
        b.base
    );
    let height = a.stature();
    let mut worst = 0.0f32;
    for f in 0..=(ca.duration() * 30.0) as usize {
        let t = f as f32 / 30.0;
        let (wa, wb) = (
            skelnorm::model::Pose::sample(&a, &ca, t).world(&a),
            skelnorm::model::Pose::sample(&b, &cb, t).world(&b),
        );
        for (i, bone) in a.bones.iter().enumerate() {
            let j = b.find(&bone.name).unwrap();
            let pa = a.base.transform_point3(wa[i].w_axis.truncate());
            let pb = b.base.transform_point3(wb[j.index()].w_axis.truncate());
            worst = worst.max(pa.distance(pb) / height);
        }
    }
    eprintln!("kept against folded ue_zup.glb: joints within {worst:.2e} of the height");
    assert!(worst <= 1e-4, "joints {worst} of the height apart");
}

/// Issue 43: the Biped layout (wiseMan's: clavicles on the neck, a two-bone middle finger ending
/// in a nub, its body's motion in `Bip001`) retargets onto the `../shared` characters and the
/// Mixamo fixture within issue 6's bounds (tests/common/bounds.rs). Before a chain end read its
/// nub as its tail, the curled finger's end measured 20.36° off onto the Mixamo fixture (the
/// source's first finger bone against the target's last; 16–66° on the real Biped files).
#[test]
fn a_biped_retargets_onto_the_shared_characters_within_issue_6_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("biped.glb");
    std::fs::write(&source, biped_glb(true)).unwrap();
    for target in common::bounds::targets() {
        let line = common::bounds::retarget_within_issue_6(&source, &target, dir.path(), &[], true);
        eprintln!("{line}");
    }
}

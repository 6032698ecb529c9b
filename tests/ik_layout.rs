//! Issue 40, items 4 and 5: IK-layout rigs (a foot hanging from the root, not from its shin)
//! T-pose like the others, bones with a non-uniform scale keep an exact skin and say what it
//! costs, and the hips point at the spine whatever way the rig's pelvis pointed.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::{Mat4, Quat, Vec3};
use skelnorm::check;
use skelnorm::gltf_io::{self, Document};
use skelnorm::io::{self, ReadOptions};
use skelnorm::mapping::BoneMap;
use skelnorm::model::{BoneId, Skeleton, SkeletonId, WarningCode};
use skelnorm::pipeline::{normalize, NormalizeOptions, SkeletonReport};
use skelnorm::profile::Profile;
use std::path::PathBuf;

fn options() -> NormalizeOptions {
    NormalizeOptions {
        measure: true,
        ..NormalizeOptions::default()
    }
}

/// The input, normalized in memory, with the report of its first skeleton.
fn normalized(doc: &Document) -> (Document, SkeletonReport) {
    let mut out = doc.clone();
    let report = normalize(&mut out.model, Profile::humanoid(), &options()).unwrap();
    (out, report.skeletons.into_iter().next().unwrap())
}

/// World rest positions of `s` below its base.
fn world(s: &Skeleton) -> Vec<Vec3> {
    let locals = s.bones.iter().map(|b| b.rest.to_mat4());
    s.accumulate(s.base, locals, |p, l| p * l)
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
}

/// World rest rotations of `s` below its base.
fn rotations(s: &Skeleton) -> Vec<Quat> {
    let locals = s.bones.iter().map(|b| b.rest.to_mat4());
    s.accumulate(s.base, locals, |p, l| p * l)
        .iter()
        .map(|m| {
            Quat::from_mat4(&Mat4::from_cols(
                m.x_axis.normalize(),
                m.y_axis.normalize(),
                m.z_axis.normalize(),
                glam::Vec4::W,
            ))
        })
        .collect()
}

fn bone(map: &BoneMap, name: &str) -> BoneId {
    map.by_name(Profile::humanoid(), name)
        .unwrap_or_else(|| panic!("{name} is mapped"))
}

/// Largest angle between a leg segment (thigh to knee, knee to ankle, in the world) and
/// straight down, degrees.
fn legs_off_vertical(s: &Skeleton, map: &BoneMap) -> f32 {
    let at = world(s);
    let mut worst = 0.0f32;
    for side in ["Left", "Right"] {
        let [hip, knee, ankle] =
            ["UpperLeg", "LowerLeg", "Foot"].map(|b| at[bone(map, &format!("{side}{b}")).index()]);
        for d in [knee - hip, ankle - knee] {
            worst = worst.max(d.angle_between(Vec3::NEG_Y).to_degrees());
        }
    }
    worst
}

/// IK-layout fixtures (built from real Quaternius and KayKit layouts) and real files.
fn ik_rigs() -> Vec<PathBuf> {
    let mut v = vec![
        common::root().join("fixtures/quaternius_ik.glb"),
        common::root().join("fixtures/kaykit.glb"),
    ];
    for a in [
        "threejs/RobotExpressive.glb",
        "quaternius/ModularMen_Casual.glb",
        "fbx/quaternius_Male_Casual.fbx",
    ] {
        // (A missing asset says so itself: `common::asset`.)
        if let Some(p) = common::asset(a) {
            v.push(p);
        }
    }
    v
}

#[test]
fn ik_layout_legs_t_pose_in_the_world_with_the_skin_kept() {
    let dir = tempfile::tempdir().unwrap();
    for path in ik_rigs() {
        let file = path.display().to_string();
        let input = io::read(&path, &ReadOptions::default()).unwrap();
        let (out, report) = normalized(&input);
        let map = &report.bone_map;
        let (before, after) = (
            legs_off_vertical(input.model.skeleton(SkeletonId(0)), map),
            legs_off_vertical(out.model.skeleton(SkeletonId(0)), map),
        );
        eprintln!("{file}: legs {before:.3}° → {after:.5}° from straight down");
        assert!(after <= 1.0, "{file}: legs {after}° from the T-pose");
        let r = check::rest(out.model.skeleton(SkeletonId(0)), map, Profile::humanoid());
        assert!(r.max_direction_deg <= 1.0, "{file}: {r:?}");
        assert!(r.max_tail_deg <= 0.01, "{file}: {r:?}");
        let warned_elsewhere = report
            .rest
            .as_ref()
            .unwrap()
            .warnings
            .iter()
            .any(|w| w.code == WarningCode::NoTail && w.message.contains("hangs elsewhere"));
        assert!(!warned_elsewhere, "{file}: a shin was left as it was");
        let skin = check::skin(&input.model, &out.model, SkeletonId(0));
        eprintln!(
            "{file}: skin {:e} over {} frames",
            skin.max_error, skin.frames
        );
        assert!(skin.max_error <= 1e-5, "{file}: {skin:?}");
        // Written, read back and normalized again: the same bytes.
        let (once, twice) = (dir.path().join("once.glb"), dir.path().join("twice.glb"));
        out.write(&once).unwrap();
        let (again, _) = normalized(&gltf_io::read(&once).unwrap());
        again.write(&twice).unwrap();
        assert!(
            std::fs::read(&once).unwrap() == std::fs::read(&twice).unwrap(),
            "{file}: normalizing the output changed it"
        );
        // What three.js plays is what the input played, clip by clip.
        let gltf = path.extension().is_some_and(|e| e == "glb");
        if gltf && !input.model.clips.is_empty() {
            if let Some((_, e)) = common::three_per_clip(&path, &once) {
                eprintln!("{file}: three.js {e:e}");
                assert!(e <= 1e-5, "{file}: three.js error {e}");
            }
        }
    }
}

/// The shared three.js check (`../shared/tools/three_check.mjs`), which compares every joint's
/// skinning matrix while playing each clip, on the IK-layout rigs with clips normalized with
/// `--keep-bind` (the default moves the vertices into a new bind, which changes those matrices by
/// design: `tests/bind.rs` compares the vertices instead; a rig without clips is compared at its
/// rest, which the T-pose changes by design). Issue 40 asks for 1e-5 of the size, which the
/// fixtures hold.
///
/// RobotExpressive cannot reach it in this measure (see the next test): its hand meshes are
/// scaled 100× (linear elements of ~100, compared absolutely), and its finger bones' rest scales
/// carry f32 noise, up to 4e-7 apart across axes, which no TRS node can carry once its frame turns
/// by other than quarter turns. three.js puts the output's finger joints 5.5e-5 from the input's
/// (`Thumb2.R` in `Wave`; 9.8e-5 before keys were made unit length in f64 and turned scales took
/// their nearest diagonal, 1.36e-4 before issue 40) where the crate's own check and three.js's
/// vertices agree within 1.2e-6: it is held there.
#[test]
fn the_shared_three_check_holds_with_the_bind_kept() {
    const ROBOT_FLOOR: f64 = 6e-5;
    let dir = tempfile::tempdir().unwrap();
    for path in ik_rigs() {
        let has_clips =
            io::read(&path, &ReadOptions::default()).is_ok_and(|d| !d.model.clips.is_empty());
        if path.extension().is_none_or(|e| e != "glb") || !has_clips {
            continue;
        }
        let out = dir.path().join(path.file_name().unwrap());
        let run = common::skelnorm(&[
            "normalize",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--keep-bind",
        ]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let Some((e, turn)) = common::shared_three_check(&path, &out) else {
            return;
        };
        let file = path.display().to_string();
        eprintln!("{file}: shared three.js check {e:e} (scene turned {turn}°)");
        if file.ends_with("RobotExpressive.glb") {
            assert!(e <= ROBOT_FLOOR, "{file}: three_check.mjs {e}");
        } else {
            assert!(e <= 1e-5, "{file}: three_check.mjs {e}");
        }
    }
}

/// Why RobotExpressive is held to its floor above: its own f32 noise is worth more than 1e-5 in
/// the shared check. The input with only its noisy rest scales (every axis within 1e-4 of 1, not
/// all equal) made uniform, and nothing else changed, is 4e-5 or more from the input at the
/// finger joints, as three.js plays it. (The legs, whose scales are 1.6e-5 apart, are left out:
/// the rest fix turns their frames by quarter turns only, which keeps such scales exact.)
#[test]
fn robot_expressive_scale_noise_alone_exceeds_the_goal() {
    let Some(path) = common::asset("threejs/RobotExpressive.glb") else {
        return;
    };
    let (mut json, bin) = common::split_glb(&std::fs::read(&path).unwrap());
    let mut evened = Vec::new();
    for node in json["nodes"].as_array_mut().unwrap() {
        let name = node["name"].as_str().unwrap_or("").to_string();
        let Some(scale) = node.get_mut("scale").and_then(|s| s.as_array_mut()) else {
            continue;
        };
        let k: Vec<f64> = scale.iter().map(|v| v.as_f64().unwrap()).collect();
        let (lo, hi) = k
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
        let noise = hi > lo && k.iter().all(|v| (v - 1.0).abs() < 1e-4);
        if noise && !name.contains("Leg") {
            let mean = k.iter().sum::<f64>() / 3.0;
            *scale = vec![mean.into(); 3];
            evened.push(name);
        }
    }
    assert!(evened.iter().any(|n| n.starts_with("Ring")), "{evened:?}");
    let dir = tempfile::tempdir().unwrap();
    let even = dir.path().join("even.glb");
    std::fs::write(&even, common::join_glb(&json, &bin)).unwrap();
    let Some((e, turn)) = common::shared_three_check(&path, &even) else {
        return;
    };
    eprintln!("RobotExpressive with its noisy scales made uniform: {e:e} (turned {turn}°)");
    assert!(e > 4e-5, "{e}");
}

#[test]
fn the_control_rigs_need_their_legs_turned() {
    // The control for the tests above: the fixture's legs stand 12° apart and RobotExpressive's
    // 22° off straight down, and their feet hang from the root (Quaternius's IK layout), where
    // turning the shins alone would not carry them.
    let mut rigs = vec![common::root().join("fixtures/quaternius_ik.glb")];
    rigs.extend(common::asset("threejs/RobotExpressive.glb"));
    for path in rigs {
        let file = path.display().to_string();
        let input = gltf_io::read(&path).unwrap();
        let (out, report) = normalized(&input);
        let s = input.model.skeleton(SkeletonId(0));
        let map = &report.bone_map;
        let (shin, foot) = (bone(map, "LeftLowerLeg"), bone(map, "LeftFoot"));
        assert!(
            !s.is_ancestor(shin, foot),
            "{file}: the foot hangs elsewhere"
        );
        assert!(legs_off_vertical(s, map) > 10.0, "{file}");
        // The foot moved with its shin at rest; clips keep it where it stood.
        let moved = out.model.skeleton(SkeletonId(0)).bones[foot.index()]
            .rest
            .translation;
        assert!(
            moved.distance(s.bones[foot.index()].rest.translation) > 0.01,
            "{file}"
        );
        for clip in &out.model.clips {
            let t = clip.tracks[foot.index()].translation.as_ref();
            assert!(
                t.is_some(),
                "{file}: `{}` keeps the foot's old place",
                clip.name
            );
        }
    }
}

#[test]
fn non_uniform_scale_keeps_the_skin_and_names_what_it_costs() {
    for (asset, frame_at_most) in [
        // The thighs' frames are a quarter turn from the profile's: exact both ways.
        ("fbx/quaternius_Male_Casual.fbx", Some(0.05f32)),
        // The thighs roll 10° and 16° off the profile's frame, and say so.
        ("threejs/RobotExpressive.glb", None),
    ] {
        let Some(path) = common::asset(asset) else {
            continue;
        };
        let input = io::read(&path, &ReadOptions::default()).unwrap();
        let (out, report) = normalized(&input);
        let rest = report.rest.as_ref().unwrap();
        let w = rest
            .warnings
            .iter()
            .find(|w| w.code == WarningCode::NonUniformScale)
            .unwrap_or_else(|| panic!("{asset}: no non_uniform_scale warning"));
        assert!(
            w.bones.contains(&"UpperLeg.L".to_string()) && w.message.contains("UpperLeg.L: frame"),
            "{asset}: {w:?}"
        );
        let skin = check::skin(&input.model, &out.model, SkeletonId(0));
        assert!(skin.max_error <= 1e-5, "{asset}: {skin:?}");
        let r = check::rest(
            out.model.skeleton(SkeletonId(0)),
            &report.bone_map,
            Profile::humanoid(),
        );
        assert!(r.max_tail_deg <= 0.01, "{asset}: {r:?}");
        if let Some(most) = frame_at_most {
            assert!(r.max_frame_deg <= most, "{asset}: {r:?}");
        }
    }
}

/// `identity.gltf` (identity rests, as VRM files have) with Godette's pelvis, tummy and chest
/// (the Blender-made VRM of V-Sekai/godot-vrm, vrm_samples/Godette_vrm_v4.vrm, CC-BY 3.0
/// SirRichard94, VRM by Lyuma) in mind: its spine joint lies `spine` from the hips joint, and
/// the chest keeps its place.
fn with_spine_at(spine: Vec3) -> Document {
    let mut doc = gltf_io::read(&common::root().join("fixtures/identity.gltf")).unwrap();
    let s = &mut doc.model.skeletons[0];
    let find = |s: &Skeleton, n: &str| s.bones.iter().position(|b| b.name == n).unwrap();
    let (sp, ch) = (find(s, "Spine"), find(s, "Chest"));
    let old = s.bones[sp].rest.translation;
    s.bones[sp].rest.translation = spine;
    s.bones[ch].rest.translation += old - spine;
    doc
}

#[test]
fn hips_point_at_the_spine_whatever_way_the_pelvis_pointed() {
    // Godette's tummy starts 8e-8 m down and back from her pelvis (rounding in Blender's
    // export): the hips point at the next joint of the chain, the chest.
    let godette = Vec3::new(-8.881_784e-15, -5.960_464_5e-8, -5.215_406_4e-8);
    // The same pelvis bone, pointing down and back for 5 cm: the spine starts below and behind
    // the hips joint (135°-ish from up).
    let down_back = godette.normalize() * 0.05;
    for (spine, reversed) in [(godette, false), (down_back, true)] {
        let input = with_spine_at(spine);
        let (out, report) = normalized(&input);
        let s = out.model.skeleton(SkeletonId(0));
        let map = &report.bone_map;
        let (at, rot) = (world(s), rotations(s));
        let hips = bone(map, "Hips");
        let aim = if reversed { "Spine" } else { "Chest" };
        let to = at[bone(map, aim).index()] - at[hips.index()];
        let y = rot[hips.index()] * Vec3::Y;
        let off = y.angle_between(to).to_degrees();
        eprintln!("spine at {spine}: hips +Y {off:.5}° from the {aim}");
        assert!(off <= 0.01, "hips +Y {off}° from the {aim}");
        let warned = report
            .rest
            .as_ref()
            .unwrap()
            .warnings
            .iter()
            .any(|w| w.code == WarningCode::TailReversed);
        assert_eq!(
            warned, reversed,
            "tail_reversed only when the spine lies reversed"
        );
        let r = check::rest(s, map, Profile::humanoid());
        assert!(
            r.max_tail_deg <= 0.01 && r.max_direction_deg <= 1.0,
            "{r:?}"
        );
        let skin = check::skin(&input.model, &out.model, SkeletonId(0));
        assert!(skin.max_error <= 1e-5, "{skin:?}");
        // Normalized again, the rest stays.
        let (again, _) = normalized(&out);
        let a = rotations(again.model.skeleton(SkeletonId(0)));
        let moved = (a[hips.index()] * Vec3::Y).angle_between(y).to_degrees();
        assert!(moved <= 0.01, "normalized again, the hips turned {moved}°");
    }
}

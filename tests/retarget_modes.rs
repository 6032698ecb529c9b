//! Issue 16: `retarget`'s three outputs. The default writes the target as it came plus the new
//! clips in its own rests; `--normalized` the normalized target; `--animation-only` the target's
//! skeleton and the new clips. The retargeted motion (joint world positions) is the same in all
//! three, and the default output's non-animation content is the target input's.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::{Quat, Vec3};
use serde_json::Value;
use skelnorm::io::{self, ReadOptions};
use skelnorm::model::{Model, Pose};
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::Profile;
use std::path::{Path, PathBuf};

/// Joint world positions of every bone of the first skeleton, by bone name, at 30 frames per
/// second over clip `name`, turned by `turn`.
fn motion(model: &Model, name: &str, turn: Quat) -> Vec<Vec<(String, Vec3)>> {
    let clip = model
        .clips
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no clip `{name}`"));
    let s = model.skeleton(clip.skeleton);
    let frames = (clip.duration() * 30.0).floor() as usize + 1;
    (0..frames)
        .map(|f| {
            let t = (f as f32 / 30.0).min(clip.duration());
            let world = Pose::sample(s, clip, t).world(s);
            s.bones
                .iter()
                .zip(world)
                .map(|(b, w)| (b.name.clone(), turn * w.w_axis.truncate()))
                .collect()
        })
        .collect()
}

/// The largest distance between the same joint (by position in the list, or by name) in two
/// motions, relative to `height`.
fn largest_difference(
    a: &[Vec<(String, Vec3)>],
    b: &[Vec<(String, Vec3)>],
    by_name: bool,
    height: f32,
) -> f32 {
    assert_eq!(a.len(), b.len(), "frame counts");
    let mut worst = 0.0f32;
    for (fa, fb) in a.iter().zip(b) {
        assert_eq!(fa.len(), fb.len(), "bone counts");
        for (i, (name, p)) in fa.iter().enumerate() {
            let q = if by_name {
                fb.iter()
                    .find(|(n, _)| n == name)
                    .unwrap_or_else(|| panic!("no bone `{name}`"))
                    .1
            } else {
                fb[i].1
            };
            let e = p.distance(q) / height;
            if e > worst {
                worst = e;
            }
        }
    }
    worst
}

/// The target's JSON without the new clips' additions (animations, accessors and views past
/// the input's) and without buffer layout.
fn content(json: &Value, counts: &Value) -> Value {
    let mut j = json.clone();
    let o = j.as_object_mut().unwrap();
    o.remove("buffers");
    for key in ["animations", "accessors", "bufferViews"] {
        let n = counts[key].as_array().map_or(0, Vec::len);
        if let Some(list) = o.get_mut(key).and_then(Value::as_array_mut) {
            // The borrow of `o` ends before a key is removed.
            list.truncate(n);
            if n == 0 {
                o.remove(key);
                continue;
            }
            if key == "bufferViews" {
                for v in list {
                    let v = v.as_object_mut().unwrap();
                    v.remove("buffer");
                    v.remove("byteOffset");
                }
            }
        }
    }
    j
}

fn run(source: &Path, target: &Path, out: &Path, mode: Option<&str>) {
    let mut args = vec![
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "--prefix",
        "new ",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend(mode);
    let o = common::skelnorm(&args);
    assert!(
        o.status.success(),
        "{} → {} {mode:?}: {}",
        source.display(),
        target.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The pairs: fixtures always, real files when ../shared is there.
fn pairs() -> Vec<(PathBuf, PathBuf)> {
    let f = |n: &str| common::root().join("fixtures").join(n);
    let mut out = vec![
        // The target faces −Z: its normalized scene is turned 180°.
        (f("mixamo.glb"), f("vrm0.vrm")),
        (f("long_legs.glb"), f("ue_zup.glb")),
    ];
    for (s, t) in [
        (
            "bvh/cmu_131_03_maxfriendly.bvh",
            "threejs/RobotExpressive.glb",
        ),
        (
            "vrm/test.vrma",
            "vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm",
        ),
        (
            "threejs/RobotExpressive.glb",
            "fbx/ufbx_maya_kenney_character_7700_binary.fbx",
        ),
    ] {
        if let Some([s, t]) = common::require([s, t]) {
            out.push((s, t));
        }
    }
    out
}

#[test]
fn the_three_outputs_move_alike_and_the_default_keeps_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let read = |p: &Path| io::read(p, &ReadOptions::default()).unwrap();
    for (n, (source, target)) in pairs().into_iter().enumerate() {
        let out = |m: &str| dir.path().join(format!("{n}_{m}.glb"));
        run(&source, &target, &out("default"), None);
        run(&source, &target, &out("normalized"), Some("--normalized"));
        run(&source, &target, &out("anim"), Some("--animation-only"));
        let input = read(&target);
        let (default, normalized, anim) = (
            read(&out("default")),
            read(&out("normalized")),
            read(&out("anim")),
        );
        // The turn the normalized scene took, relative to the target as read.
        let mut again = input.model.clone();
        normalize(
            &mut again,
            Profile::humanoid(),
            &NormalizeOptions::default(),
        )
        .unwrap();
        let back = again.scene_turn.conjugate();
        let height = input.model.skeletons[0].height().max(1e-6);
        let new: Vec<&str> = default
            .model
            .clips
            .iter()
            .map(|c| c.name.as_str())
            .filter(|c| c.starts_with("new "))
            .collect();
        assert!(!new.is_empty(), "{}: no new clips", target.display());
        let anim_clips: Vec<&str> = anim.model.clips.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(anim_clips, new, "animation-only holds only the new clips");
        for clip in &new {
            let d = motion(&default.model, clip, Quat::IDENTITY);
            let e_norm =
                largest_difference(&d, &motion(&normalized.model, clip, back), false, height);
            let e_anim =
                largest_difference(&d, &motion(&anim.model, clip, Quat::IDENTITY), true, height);
            eprintln!(
                "{} → {} `{clip}`: default vs normalized {e_norm:.2e}, vs animation-only {e_anim:.2e} of height",
                source.display(),
                target.display()
            );
            assert!(e_norm <= 1e-5, "{clip}: default vs --normalized {e_norm}");
            assert!(
                e_anim <= 1e-5,
                "{clip}: default vs --animation-only {e_anim}"
            );
        }
        // The default output is the target as it came, plus animations.
        let (a, b) = (input.json(), default.json());
        assert_eq!(
            content(b, a),
            content(a, a),
            "{}: the default output's non-animation content differs from the target's",
            target.display()
        );
        // Animation-only: the target's skeleton nodes, no meshes.
        assert!(anim
            .json()
            .get("meshes")
            .is_none_or(|m| m.as_array().is_some_and(Vec::is_empty)));
        let names = |m: &Model| -> Vec<String> {
            m.skeletons[0]
                .bones
                .iter()
                .map(|b| b.name.clone())
                .collect()
        };
        assert_eq!(names(&anim.model), names(&input.model));
        // Its armature node too, when the target had one (VRM 0.x's `Armature`).
        assert_eq!(anim.model.skeletons[0].name, input.model.skeletons[0].name);
        assert_eq!(names(&default.model), names(&input.model));
        let codes = || {
            common::is_gltf(&target)
                .then(|| {
                    common::validator_codes(&target).zip(common::validator_codes(&out("default")))
                })
                .flatten()
        };
        if let Some((before, after)) = codes() {
            for (code, count) in &after {
                let was = before.get(code).copied().unwrap_or(0);
                assert!(
                    *count <= was || code == "UNUSED_OBJECT",
                    "{}: validator {code} {count} times, the target had {was}",
                    target.display()
                );
            }
        }
    }
}

#[test]
fn an_animation_only_file_is_no_vrm() {
    let dir = tempfile::tempdir().unwrap();
    let f = |n: &str| common::root().join("fixtures").join(n);
    let out = dir.path().join("clips.vrm");
    let o = common::skelnorm(&[
        "retarget",
        "--source",
        f("mixamo.glb").to_str().unwrap(),
        "--target",
        f("vrm0.vrm").to_str().unwrap(),
        "--animation-only",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no VRM character"), "{err}");
    // It names the VRM animation to write instead.
    assert!(err.contains("clips.vrma"), "{err}");
    assert!(!out.exists());
}

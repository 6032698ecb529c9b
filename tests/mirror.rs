//! Issue 21, mirroring: `skelnorm mirror` twice gives every clip back (every joint's world
//! position, every frame at 30 fps, within 1e-5 of the height); a mirrored walk's left foot
//! follows the original right foot's path reflected (within 1e-4 of the height on symmetric
//! rests); outputs pass the Khronos validator; on the fixtures and on every humanoid with clips in
//! `../shared/assets` (the VRMA retargeted onto the VRM and onto ModularMen, which have none).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::{Mat4, Vec3};
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::mirror::{Mirror, MirrorOptions};
use skelnorm::model::{Clip, Model, Pose, Skeleton, Transform};
use skelnorm::pipeline::{mirror, MirrorJob};
use skelnorm::profile::Profile;
use std::path::{Path, PathBuf};

/// The real humanoids with clips.
const ASSETS: &[&str] = &[
    "khronos/CesiumMan.glb",
    "khronos/RiggedFigure.glb",
    "threejs/RobotExpressive.glb",
    "vrm/test.vrma",
    "bvh/cmu_131_03_maxfriendly.bvh",
    "fbx/RiggedFigure_blender.fbx",
    "fbx/cmu_07_01_isaacgym.fbx",
    "fbx/quaternius_Male_Casual.fbx",
    "fbx/ufbx_blender_293_barbarian_7400_binary.fbx",
    "fbx/ufbx_maya_kenney_character_7700_binary.fbx",
];

fn read(path: &Path) -> Model {
    skelnorm::io::read(path, &Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .model
}

fn run(args: &[&str]) {
    let out = common::skelnorm(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "skelnorm {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Joint positions of `skeleton` playing `clip` at `time`, in the skeleton's space (without its
/// base transform).
fn joints(skeleton: &Skeleton, clip: &Clip, time: f32) -> Vec<Vec3> {
    let pose = Pose::sample(skeleton, clip, time);
    skeleton
        .accumulate(Mat4::IDENTITY, pose.locals, |p, l: Transform| {
            p * l.to_mat4()
        })
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
}

/// Rest joint positions in the skeleton's space.
fn rest_joints(skeleton: &Skeleton) -> Vec<Vec3> {
    skeleton
        .accumulate(Mat4::IDENTITY, skeleton.bones.iter(), |p, b| {
            p * b.rest.to_mat4()
        })
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
}

/// The size of a skeleton in its own space (the largest extent of its rest joints), which the
/// measures divide by.
fn height(skeleton: &Skeleton) -> f32 {
    let p = rest_joints(skeleton);
    let lo = p.iter().copied().fold(Vec3::INFINITY, Vec3::min);
    let hi = p.iter().copied().fold(Vec3::NEG_INFINITY, Vec3::max);
    (hi - lo).max_element()
}

/// The fixtures with clips, the real humanoids with clips, and the VRMA retargeted onto the two
/// characters without clips (the VRM and ModularMen), made in `dir`.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ["mixamo.glb", "ue_zup.glb", "blender.glb", "long_legs.glb"]
        .iter()
        .map(|f| common::root().join("fixtures").join(f))
        .collect();
    out.extend(common::require_any(ASSETS));
    let vrma = common::asset("vrm/test.vrma");
    for (target, name) in [
        (
            "vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm",
            "vrma_on.vrm",
        ),
        ("quaternius/ModularMen_Casual.glb", "vrma_on_modularmen.glb"),
    ] {
        if let (Some(vrma), Some(target)) = (&vrma, common::asset(target)) {
            let made = dir.join(name);
            run(&[
                "retarget",
                "--source",
                vrma.to_str().unwrap(),
                "--target",
                target.to_str().unwrap(),
                "-o",
                made.to_str().unwrap(),
            ]);
            out.push(made);
        }
    }
    out
}

/// Largest distance between the joints (matched by name) of two models playing their clips of
/// the same name, every 1/30 s, divided by the skeleton's height.
fn largest_difference(a: &Model, b: &Model) -> f32 {
    let mut worst = 0.0f32;
    assert_eq!(a.clips.len(), b.clips.len());
    for ca in &a.clips {
        let cb = b.clips.iter().find(|c| c.name == ca.name).unwrap();
        let (sa, sb) = (a.skeleton(ca.skeleton), b.skeleton(cb.skeleton));
        let pairs: Vec<(usize, usize)> = (0..sa.bones.len())
            .map(|i| (i, sb.find(&sa.bones[i].name).unwrap().index()))
            .collect();
        let height = height(sa);
        for time in ca.sample_times(Some(30.0)) {
            let (ja, jb) = (joints(sa, ca, time), joints(sb, cb, time));
            for &(i, k) in &pairs {
                worst = worst.max((ja[i] - jb[k]).length() / height);
            }
        }
    }
    worst
}

#[test]
fn mirroring_twice_gives_the_input_back_and_outputs_validate() {
    let dir = tempfile::tempdir().unwrap();
    for input in inputs(dir.path()) {
        let stem = input.file_name().unwrap().to_string_lossy().to_string();
        let once = dir.path().join(format!("{stem}.once.glb"));
        let twice = dir.path().join(format!("{stem}.twice.glb"));
        run(&[
            "mirror",
            input.to_str().unwrap(),
            "-o",
            once.to_str().unwrap(),
        ]);
        run(&[
            "mirror",
            once.to_str().unwrap(),
            "-o",
            twice.to_str().unwrap(),
        ]);
        // A glTF input keeps its own errors (RobotExpressive's weights do not sum to 1); a
        // converted one (FBX, BVH) has none.
        let allowed = if common::is_gltf(&input) {
            common::validator_errors(&input)
        } else {
            Some(0)
        };
        if let (Some(errors), Some(allowed)) = (common::validator_errors(&once), allowed) {
            assert!(
                errors <= allowed,
                "{stem}: the validator finds {errors} errors in the mirrored file, {allowed} in \
                 the input"
            );
        }
        let original = read(&input);
        let moved = largest_difference(&original, &read(&once));
        assert!(
            moved > 1e-3,
            "{stem}: mirroring once moved nothing ({moved:.2e})"
        );
        let worst = largest_difference(&original, &read(&twice));
        eprintln!("{stem}: twice mirrored, largest joint difference {worst:.2e} of the height");
        assert!(worst < 1e-5, "{stem}: {worst:.2e} of the height");
    }
}

/// Per clip, the largest distance between the mirrored left foot and the original right foot
/// reflected (and the other way round), divided by the height; with the asymmetry of the legs'
/// rest, which bounds how far a foot can be off: the sum over the bones from a foot up of how
/// far each bone's rest offset from its parent is from its counterpart's reflected, plus the
/// top bone's distance from its reflection, divided by the height (0 for a symmetric rest).
fn foot_paths(input: &Path) -> (Vec<(String, f32)>, f32) {
    let profile = Profile::humanoid();
    let original = read(input);
    let mut mirrored = original.clone();
    mirror(&mut mirrored, profile, &MirrorJob::default()).unwrap();
    let mut out = Vec::new();
    let mut asymmetry = 0.0f32;
    for (k, s) in original.skeletons.iter().enumerate() {
        let map = map_skeleton(s, profile, &MapOptions::default());
        let (Some(lf), Some(rf)) = (
            map.by_name(profile, "LeftFoot"),
            map.by_name(profile, "RightFoot"),
        ) else {
            continue;
        };
        let m = Mirror::new(s, &map, profile, &MirrorOptions::default()).unwrap();
        let rest = rest_joints(s);
        let reflect = |p: Vec3| rest[0] + m.reflect_vec(p - rest[0]);
        let height = height(s);
        for foot in [lf, rf] {
            let (mut at, mut sum) = (Some(foot), 0.0f32);
            while let Some(b) = at {
                let c = m.counterpart(b);
                let off = match (s.bones[b.index()].parent, s.bones[c.index()].parent) {
                    (Some(p), Some(q)) => {
                        let own = rest[b.index()] - rest[p.index()];
                        (m.reflect_vec(rest[c.index()] - rest[q.index()]) - own).length()
                    }
                    _ => (reflect(rest[c.index()]) - rest[b.index()]).length(),
                };
                sum += off / height;
                at = s.bones[b.index()].parent;
            }
            asymmetry = asymmetry.max(sum);
        }
        for (ca, cb) in original.clips.iter().zip(&mirrored.clips) {
            if ca.skeleton.index() != k {
                continue;
            }
            let mut worst = 0.0f32;
            for time in ca.sample_times(Some(30.0)) {
                let (ja, jb) = (joints(s, ca, time), joints(s, cb, time));
                for (a, b) in [(lf, rf), (rf, lf)] {
                    worst = worst.max((jb[a.index()] - reflect(ja[b.index()])).length() / height);
                }
            }
            out.push((ca.name.clone(), worst));
        }
    }
    (out, asymmetry)
}

#[test]
fn a_mirrored_walk_follows_the_other_foot_reflected() {
    let dir = tempfile::tempdir().unwrap();
    for input in inputs(dir.path()) {
        let stem = input.file_name().unwrap().to_string_lossy().to_string();
        let (clips, asymmetry) = foot_paths(&input);
        for (clip, worst) in clips {
            eprintln!(
                "{stem} `{clip}`: feet {worst:.2e} of the height off the reflection \
                 (the legs' rest asymmetry {asymmetry:.2e})"
            );
            assert!(worst <= 1e-4 + asymmetry, "{stem} `{clip}`: {worst:.2e}");
        }
    }
}

/// three.js as an independent player: the mirrored file's left foot, as GLTFLoader and
/// AnimationMixer play it, follows the input's right foot reflected (and the other way round).
#[test]
fn three_js_plays_the_mirrored_feet_where_the_other_feet_were() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<PathBuf> = ["mixamo.glb", "ue_zup.glb"]
        .iter()
        .map(|f| common::root().join("fixtures").join(f))
        .collect();
    inputs.extend(common::require_any(&[
        "khronos/CesiumMan.glb",
        "khronos/RiggedFigure.glb",
        "vrm/test.vrma",
    ]));
    let profile = Profile::humanoid();
    let mut files = Vec::new();
    let mut expected = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        let once = dir.path().join(format!("{k}.glb"));
        run(&[
            "mirror",
            input.to_str().unwrap(),
            "-o",
            once.to_str().unwrap(),
        ]);
        let model = read(input);
        let s = &model.skeletons[0];
        let map = map_skeleton(s, profile, &MapOptions::default());
        let m = Mirror::new(s, &map, profile, &MirrorOptions::default()).unwrap();
        let foot = |name| {
            let b = map.by_name(profile, name).unwrap();
            s.bones[b.index()].node.unwrap()
        };
        let nodes = [foot("LeftFoot"), foot("RightFoot")];
        let clips: serde_json::Map<String, serde_json::Value> = model
            .clips
            .iter()
            .map(|c| {
                // three.js names an unnamed animation `animation_<index>`; skelnorm,
                // `animation<index>`.
                let name = match c.source {
                    Some(a) if c.name == format!("animation{a}") => format!("animation_{a}"),
                    _ => c.name.clone(),
                };
                (name, serde_json::json!(c.sample_times(Some(30.0))))
            })
            .collect();
        for path in [input, &once] {
            files.push(serde_json::json!({"path": path, "nodes": nodes, "clips": clips}));
        }
        // The plane in the scene: the skeleton's plane through its root's rest joint, carried
        // by the skeleton's base transform.
        let origin = rest_joints(s)[0];
        expected.push((input.clone(), s.base, origin, m.normal(), s.height()));
    }
    let jobs = dir.path().join("jobs.json");
    std::fs::write(&jobs, serde_json::json!({ "files": files }).to_string()).unwrap();
    let Some(out) = common::three_joints(&jobs) else {
        return;
    };
    let files = out["files"].as_array().unwrap();
    for (k, (input, base, origin, normal, height)) in expected.iter().enumerate() {
        let (a, b) = (&files[2 * k], &files[2 * k + 1]);
        // The skeleton's height in the scene (three's `height` spans only the two feet).
        let height = *height;
        let inverse = base.inverse();
        let reflect = |p: Vec3| {
            let local = inverse.transform_point3(p) - *origin;
            base.transform_point3(*origin + local - 2.0 * local.dot(*normal) * *normal)
        };
        let v = |x: &serde_json::Value| {
            let c: Vec<f32> = x
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_f64().unwrap() as f32)
                .collect();
            Vec3::new(c[0], c[1], c[2])
        };
        let mut worst = 0.0f32;
        for f in [a, b] {
            assert_eq!(
                f["missing_clips"],
                serde_json::json!([]),
                "{}",
                input.display()
            );
        }
        let mut compared = 0;
        for (clip, frames) in a["clips"].as_object().unwrap() {
            let mirrored = b["clips"][clip].as_array().unwrap();
            for (fa, fb) in frames.as_array().unwrap().iter().zip(mirrored) {
                for (i, j) in [(0, 1), (1, 0)] {
                    let off = (v(&fb[i]) - reflect(v(&fa[j]))).length() / height;
                    worst = worst.max(off);
                    compared += 1;
                }
            }
        }
        assert!(compared > 0, "{}: no frame compared", input.display());
        eprintln!(
            "{}: three.js feet {worst:.2e} of the height off the reflection ({compared} foot \
             positions)",
            input.display()
        );
        assert!(worst < 1e-4, "{}: {worst:.2e}", input.display());
    }
}

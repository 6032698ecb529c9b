//! The runtime `Retargeter` on a side whose nodes kept above its skeleton tilt its up axis
//! (fixtures/ue_zup.glb, a Z-up armature node turned −90° about X, normalized under
//! `rest.apply_node_transforms: false`): built from such a rig it reads it as the offline
//! retarget does, the turn folded into the root bones, so its poses play in the scene as the
//! runtime's poses on the same fixture normalized with its nodes folded. Before, a kept target
//! was posed in its Z-up skeleton space as if it were Y-up (the whole body turned a quarter
//! turn in the scene), and a kept source was read lying on its back.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::Vec3;
use skelnorm::mapping::map_skeleton;
use skelnorm::model::{Model, Pose, Skeleton};
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::Profile;
use skelnorm::retarget::{RetargetOptions, Retargeter, Rig};

/// A fixture normalized, its nodes above the skeleton folded or kept.
fn load(name: &str, keep: bool) -> Model {
    let mut doc = skelnorm::gltf_io::read(&common::root().join("fixtures").join(name)).unwrap();
    let mut options = NormalizeOptions::default();
    options.rest.apply_node_transforms = !keep;
    normalize(&mut doc.model, Profile::humanoid(), &options).unwrap();
    doc.model
}

/// Every bone's place in the scene (the skeleton's base included), by name, for each frame of
/// the source's clip `walk` retargeted by the runtime from `source` onto `target` (30 fps).
fn scene(source: &Model, target: &Model) -> Vec<Vec<(String, Vec3)>> {
    let profile = Profile::humanoid();
    let (ss, ts) = (&source.skeletons[0], &target.skeletons[0]);
    let (sm, tm) = (
        map_skeleton(ss, profile, &Default::default()),
        map_skeleton(ts, profile, &Default::default()),
    );
    let mut r = Retargeter::new(
        &Rig {
            skeleton: ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: ts,
            map: &tm,
            profile,
        },
        &RetargetOptions::default(),
    )
    .unwrap();
    let clip = source.clips.iter().find(|c| c.name == "walk").unwrap();
    let mut pose = Pose::rest(ts);
    (0..=(clip.duration() * 30.0).ceil() as usize)
        .map(|f| {
            let t = (f as f32 / 30.0).min(clip.duration());
            r.retarget(&Pose::sample(ss, clip, t), &mut pose).unwrap();
            (ts.bones.iter().zip(pose.world(ts)))
                .map(|(b, m)| (b.name.clone(), m.w_axis.truncate()))
                .collect()
        })
        .collect()
}

/// The worst distance, over frames and the bones of `a`, between a bone in `a` and the bone of
/// the same name in `b`, as a fraction of `height`.
fn worst_apart(a: &[Vec<(String, Vec3)>], b: &[Vec<(String, Vec3)>], height: f32) -> f32 {
    assert_eq!(a.len(), b.len());
    let mut worst = 0.0f32;
    for (fa, fb) in a.iter().zip(b) {
        for (name, p) in fa {
            let (_, q) = fb.iter().find(|(n, _)| n == name).unwrap();
            worst = worst.max(p.distance(*q) / height);
        }
    }
    worst
}

/// The scene height of a skeleton at rest (its base included).
fn scene_height(s: &Skeleton) -> f32 {
    let ys: Vec<f32> = (Pose::rest(s).world(s).iter())
        .map(|m| m.w_axis.y)
        .collect();
    ys.iter().copied().fold(f32::MIN, f32::max) - ys.iter().copied().fold(f32::MAX, f32::min)
}

/// The kept rig does keep a tilted base (else the test shows nothing).
fn assert_tilted(s: &Skeleton) {
    let (_, rotation, _) = s.base.to_scale_rotation_translation();
    let tilt = (rotation * Vec3::Y).angle_between(Vec3::Y).to_degrees();
    assert!(tilt > 45.0, "the kept base turns the up axis {tilt}°");
}

/// mixamo walk onto ue_zup.glb: the runtime's poses on the kept rig, under its kept nodes, put
/// every joint where they are on the folded rig, within 1e-4 of the height at every frame.
#[test]
fn the_runtime_poses_a_kept_turned_target_as_a_folded_one() {
    let source = load("mixamo.glb", false);
    let (folded, kept) = (load("ue_zup.glb", false), load("ue_zup.glb", true));
    assert_tilted(&kept.skeletons[0]);
    let height = scene_height(&folded.skeletons[0]);
    let worst = worst_apart(&scene(&source, &folded), &scene(&source, &kept), height);
    eprintln!("onto the kept ue_zup.glb: joints within {worst:.2e} of the height");
    assert!(worst <= 1e-4, "joints {worst} of the height apart");
}

/// ue_zup.glb's walk onto mixamo.glb: read from the kept rig, its root bones' locals in its
/// Z-up skeleton space, the target's poses are those read from the folded rig, within 1e-4 of
/// the height at every frame.
#[test]
fn the_runtime_reads_a_kept_turned_source_as_a_folded_one() {
    let target = load("mixamo.glb", false);
    let (folded, kept) = (load("ue_zup.glb", false), load("ue_zup.glb", true));
    assert_tilted(&kept.skeletons[0]);
    let height = scene_height(&target.skeletons[0]);
    let worst = worst_apart(&scene(&folded, &target), &scene(&kept, &target), height);
    eprintln!("from the kept ue_zup.glb: joints within {worst:.2e} of the height");
    assert!(worst <= 1e-4, "joints {worst} of the height apart");
}

//! The runtime mirror allocates nothing per call (issue 21): a counting global allocator watches
//! `Mirror::mirror_pose` over many frames of a real clip, on a skeleton with a prop on one hand
//! (a bone that takes the world formulas) as well as bones whose keys map one to one.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use common::counting::{allocations, Counting};
use glam::Vec3;
use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::mirror::{Mirror, MirrorOptions};
use skelnorm::model::{Bone, Pose, Transform};
use skelnorm::profile::Profile;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn mirror_pose_allocates_nothing_per_call() {
    let profile = Profile::humanoid();
    let doc = gltf_io::read(&common::root().join("fixtures/mixamo.glb")).unwrap();
    let mut skeleton = doc.model.skeletons[0].clone();
    let hand = skeleton.find("mixamorig:LeftHand").unwrap();
    skeleton.bones.push(Bone {
        name: "sword".into(),
        parent: Some(hand),
        rest: Transform::from_translation(Vec3::new(0.0, 10.0, 3.0)),
        is_joint: false,
        weighted: None,
        node: None,
    });
    let map = map_skeleton(&skeleton, profile, &MapOptions::default());
    let mirror = Mirror::new(&skeleton, &map, profile, &MirrorOptions::default()).unwrap();
    let sword = skeleton.find("sword").unwrap();
    assert!(
        !mirror.is_symmetric(sword),
        "the prop takes the world formulas"
    );
    let mut clip = doc.model.clips[0].clone();
    clip.tracks.push(Default::default());
    let poses: Vec<Pose> = (0..30)
        .map(|f| Pose::sample(&skeleton, &clip, f as f32 / 30.0))
        .collect();
    let mut out = Pose::rest(&skeleton);
    mirror.mirror_pose(&poses[0], &mut out).unwrap();
    let before = allocations();
    for _ in 0..10 {
        for p in &poses {
            mirror.mirror_pose(p, &mut out).unwrap();
        }
    }
    let after = allocations();
    assert_eq!(
        after - before,
        0,
        "{} allocations in 300 calls",
        after - before
    );
}

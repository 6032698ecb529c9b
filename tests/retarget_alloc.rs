//! The runtime retargeter allocates nothing per call (issue 6): a counting global allocator
//! watches `Retargeter::retarget` over many frames of a real clip, with leg IK on, and with the
//! whole op stack after it (issue 21: planting, floor and filter keep their state in the
//! retargeter), and with the `Mirror` op last.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use common::counting::{allocations, Counting};
use common::ops::{foot_locks, plant_and_floor};
use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::model::Pose;
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::Profile;
use skelnorm::retarget::{
    FilterOp, MirrorOp, Op, PlantOp, RetargetOptions, Retargeter, Rig, Treadmill,
};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// One test for both (the allocation counter is global: tests running alongside would count
/// each other's).
#[test]
fn retarget_allocates_nothing_per_call() {
    allocates_nothing(&RetargetOptions::default(), false);
    allocates_nothing(
        &plant_and_floor(PlantOp::default(), &[Op::Filter(FilterOp::default())]),
        false,
    );
    // Planting with pelvis motion (the hips moved toward a foot out of reach).
    allocates_nothing(
        &plant_and_floor(
            PlantOp {
                max_pelvis_shift: 0.3,
                ..PlantOp::default()
            },
            &[],
        ),
        false,
    );
    // Planting with the slide limiter (a foot low but sliding steps as far as the source's).
    allocates_nothing(
        &plant_and_floor(
            PlantOp {
                limit_slide: true,
                ..PlantOp::default()
            },
            &[],
        ),
        false,
    );
    // Planting on a treadmill (a source that runs in place), given as a setting.
    allocates_nothing(
        &plant_and_floor(
            PlantOp {
                treadmill: Treadmill::Velocity([0.0, -1.2]),
                ..PlantOp::default()
            },
            &[],
        ),
        false,
    );
    // Planting on contacts given per frame (the flags a clip's foot-lock curves give).
    allocates_nothing(
        &plant_and_floor(
            PlantOp {
                contacts: foot_locks(0.5),
                ..PlantOp::default()
            },
            &[],
        ),
        true,
    );
    // The Mirror op (half blended, so the blend runs too) after the stack.
    allocates_nothing(
        &plant_and_floor(
            PlantOp::default(),
            &[Op::Mirror(MirrorOp {
                alpha: 0.5,
                ..MirrorOp::default()
            })],
        ),
        false,
    );
}

/// With `contacts`, each frame's contacts are given ([`Retargeter::set_contacts`]), changing
/// every few frames.
fn allocates_nothing(options: &RetargetOptions, contacts: bool) {
    let profile = Profile::humanoid();
    let load = |f: &str| {
        let mut doc = gltf_io::read(&common::root().join("fixtures").join(f)).unwrap();
        normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
        doc.model
    };
    let (src, dst) = (load("mixamo.glb"), load("long_legs.glb"));
    let (ss, ts) = (&src.skeletons[0], &dst.skeletons[0]);
    let (sm, tm) = (
        map_skeleton(ss, profile, &MapOptions::default()),
        map_skeleton(ts, profile, &MapOptions::default()),
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
        options,
    )
    .unwrap();
    assert_eq!(
        r.plan()
            .chains
            .iter()
            .filter(|c| c.ik_end.is_some())
            .count(),
        2,
        "leg IK on"
    );
    let poses: Vec<Pose> = (0..30)
        .map(|f| Pose::sample(ss, &src.clips[0], f as f32 / 30.0))
        .collect();
    let mut out = Pose::rest(ts);
    r.retarget(&poses[0], &mut out).unwrap();
    let before = allocations();
    for _ in 0..10 {
        for (k, p) in poses.iter().enumerate() {
            if contacts {
                r.set_contacts(Some([k % 8 < 5, (k + 4) % 8 < 5]));
            }
            r.retarget(p, &mut out).unwrap();
            r.retarget_at(p, &mut out, 1.0 / 60.0).unwrap();
        }
        r.reset();
    }
    let after = allocations();
    assert_eq!(
        after - before,
        0,
        "{} allocations in 600 calls",
        after - before
    );
}

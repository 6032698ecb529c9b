//! `inspect` tells each fixture's units, up axis, facing and pose (issue 2), and the real
//! assets whose answers were checked by reading their joints.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::inspect::{inspect, Glance};
use std::path::Path;

fn glance(path: &Path) -> Glance {
    let doc = skelnorm::gltf_io::read(path).unwrap_or_else(|e| panic!("{e}"));
    inspect(&doc.model)
        .skeletons
        .into_iter()
        .next()
        .expect("a skeleton")
        .glance
}

/// (file, scene units, joint-offset units, authored up, facing, pose)
const EXPECTED: &[(&str, &str, &str, &str, &str, &str)] = &[
    ("mixamo.glb", "m", "cm", "+Y", "+Z", "A-pose"),
    ("blender.glb", "m", "m", "+Y", "+Z", "T-pose"),
    ("vrm0.vrm", "m", "m", "+Y", "-Z", "T-pose"),
    ("ue_zup.glb", "m", "m", "+Z", "+Z", "A-pose"),
    ("identity.gltf", "m", "m", "+Y", "+Z", "T-pose"),
    ("long_spine.glb", "m", "m", "+Y", "+Z", "T-pose"),
    ("long_legs.glb", "m", "m", "+Y", "+Z", "T-pose"),
    ("short_legs.glb", "m", "m", "+Y", "+Z", "T-pose"),
    ("spine2.glb", "m", "m", "+Y", "+Z", "T-pose"),
    ("spine5.glb", "m", "m", "+Y", "+Z", "T-pose"),
];

#[test]
fn inspect_tells_units_facing_and_pose_of_every_fixture() {
    for &(file, units, offset_units, authored_up, facing, pose) in EXPECTED {
        let g = glance(&common::root().join("fixtures").join(file));
        let got = (
            g.units,
            g.offset_units,
            g.authored_up,
            g.up,
            g.facing,
            g.pose,
        );
        assert_eq!(
            got,
            (units, offset_units, authored_up, "+Y", facing, pose),
            "{file}"
        );
        // People-sized in metres: from `short_legs.glb` (legs ×0.8, 1.42 m) to `long_legs.glb`.
        assert!(
            (1.4..2.0).contains(&g.height),
            "{file}: height {}",
            g.height
        );
    }
}

#[test]
fn the_quadruped_has_no_humanoid_shape() {
    let g = glance(&common::root().join("fixtures/quadruped.glb"));
    assert_eq!(
        (g.hips.as_deref(), g.facing, g.pose),
        (None, "unknown", "unknown")
    );
}

#[test]
fn fixture_rigs_have_the_promised_shapes() {
    let read = |f: &str| {
        skelnorm::gltf_io::read(&common::root().join("fixtures").join(f))
            .unwrap()
            .model
    };
    let names = |f: &str| {
        read(f).skeletons[0]
            .bones
            .iter()
            .map(|b| b.name.clone())
            .collect::<Vec<_>>()
    };
    assert!(names("mixamo.glb")
        .iter()
        .all(|n| n.starts_with("mixamorig:")));
    let mixamo = read("mixamo.glb");
    let ends: Vec<_> = mixamo.skeletons[0]
        .bones
        .iter()
        .filter(|b| b.name.ends_with("_End") || b.name.ends_with('4'))
        .collect();
    assert_eq!(ends.len(), 13, "head, toe and finger end bones");
    assert!(
        ends.iter().all(|b| !b.is_joint),
        "Mixamo end bones are not skin joints"
    );
    let blender = read("blender.glb");
    let hips = &blender.skeletons[0].bones[0];
    assert!(
        hips.rest
            .rotation
            .angle_between(glam::Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2))
            < 1e-4
    );
    assert!(blender.skeletons[0].bones.iter().skip(1).all(|b| b
        .rest
        .rotation
        .angle_between(glam::Quat::IDENTITY)
        > 1e-3));
    let ue = names("ue_zup.glb");
    for n in [
        "upperarm_twist_01_l",
        "calf_twist_01_r",
        "ik_foot_l",
        "ik_hand_gun",
    ] {
        assert!(ue.contains(&n.to_string()), "ue_zup lacks {n}");
    }
    assert!(read("identity.gltf").skeletons[0]
        .bones
        .iter()
        .all(|b| b.rest.rotation == glam::Quat::IDENTITY));
    let long = names("long_spine.glb");
    assert!(["Spine", "Spine1", "Spine2", "Spine3", "Neck", "Neck1"]
        .iter()
        .all(|n| long.contains(&n.to_string())));
    for f in [
        "mixamo.glb",
        "blender.glb",
        "vrm0.vrm",
        "ue_zup.glb",
        "identity.gltf",
        "long_spine.glb",
        "quadruped.glb",
    ] {
        let m = read(f);
        let kinds: Vec<_> = m
            .clips
            .iter()
            .flat_map(|c| {
                c.tracks
                    .iter()
                    .filter_map(|t| t.rotation.as_ref().map(|r| r.interpolation))
            })
            .collect();
        for k in [
            skelnorm::model::Interpolation::Linear,
            skelnorm::model::Interpolation::Step,
            skelnorm::model::Interpolation::CubicSpline,
        ] {
            assert!(kinds.contains(&k), "{f} lacks {k:?} clips");
        }
        assert!(m.validate().is_empty(), "{f}: {:?}", m.validate());
    }
    let vrm = skelnorm::gltf_io::read(&common::root().join("fixtures/vrm0.vrm")).unwrap();
    assert!(
        vrm.json()["extensions"]["VRM"]["humanoid"]["humanBones"]
            .as_array()
            .unwrap()
            .len()
            >= 50
    );
}

#[test]
fn real_assets_glance() {
    let cases = [
        ("khronos/CesiumMan.glb", "+Z", "A-pose"),
        ("khronos/RiggedFigure.glb", "+Z", "A-pose"),
        ("quaternius/ModularMen_Casual.glb", "+Z", "T-pose"),
        ("threejs/RobotExpressive.glb", "+Z", "A-pose"),
        ("vrm/sphere.vrm", "-Z", "T-pose"),
        ("vrm/test.vrma", "+Z", "T-pose"),
    ];
    // One missing asset skips its own check only.
    let present =
        common::require_any(&[cases.map(|c| c.0).as_slice(), &["khronos/Fox.glb"]].concat());
    let find = |rel: &str| present.iter().find(|p| p.ends_with(rel));
    for (rel, facing, pose) in cases {
        let Some(path) = find(rel) else { continue };
        let g = glance(path);
        assert_eq!((g.up, g.facing, g.pose), ("+Y", facing, pose), "{rel}");
    }
    if let Some(fox) = find("khronos/Fox.glb").cloned() {
        assert_eq!(glance(&fox).hips, None, "the fox is not humanoid-shaped");
    }
}

//! Unit tests of the BVH math and grammar.

use super::parse::ChannelKind;
use super::read::rotation;
use super::write::euler_for_tests;
use super::*;
use glam::{Quat, Vec3};

#[test]
fn rotation_channels_compose_in_listed_order() {
    // `Zrotation Xrotation Yrotation` = Rz · Rx · Ry (intrinsic, Blender's reading).
    let ch = [
        ChannelKind::Rotation(2),
        ChannelKind::Rotation(0),
        ChannelKind::Rotation(1),
    ];
    let q = rotation(&ch, &[30.0, 40.0, 50.0]);
    let want = Quat::from_rotation_z(30f32.to_radians())
        * Quat::from_rotation_x(40f32.to_radians())
        * Quat::from_rotation_y(50f32.to_radians());
    assert!(qdist(q, want) < 1e-5);
}

#[test]
fn euler_extraction_inverts_every_order() {
    let q = Quat::from_axis_angle(Vec3::new(0.3, -0.5, 0.8).normalize(), 2.1);
    for order in RotationOrder::ALL {
        let angles = euler_for_tests(q, order);
        let ch = order.axes().map(ChannelKind::Rotation);
        let back = rotation(&ch, &angles.map(|a| a as f32));
        assert!(qdist(back, q) < 1e-5, "{order:?}");
    }
}

#[test]
fn guesses_units_from_height() {
    assert_eq!(LengthUnit::guess(1.7), Some(LengthUnit::Metre));
    assert_eq!(LengthUnit::guess(170.0), Some(LengthUnit::Centimetre));
    assert_eq!(LengthUnit::guess(30.0), Some(LengthUnit::CmuUnit));
    assert_eq!(LengthUnit::guess(67.0), Some(LengthUnit::Inch));
    assert_eq!(LengthUnit::guess(1700.0), Some(LengthUnit::Millimetre));
    assert_eq!(LengthUnit::guess(10.0), None);
}

const SMALL: &str = "HIERARCHY
ROOT Hips
{
  OFFSET 0 90 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Left Leg
  {
    OFFSET 10 -45 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    End Site
    {
      OFFSET 0 -45 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 90 0 0 0 0 10 0 0
1 91 0 0 0 0 20 0 0
";

#[test]
fn reads_a_small_file() {
    let bvh = read(SMALL, &BvhOptions::default()).unwrap();
    let s = &bvh.model.skeletons[0];
    let names: Vec<&str> = s.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Hips", "Left Leg", "Left Leg_end"]);
    assert!(!s.bones[2].is_joint && s.bones[2].weighted == Some(false));
    assert_eq!(bvh.info.unit, Some(LengthUnit::Centimetre));
    assert_eq!(bvh.info.frames, 2);
    assert_eq!(
        bvh.info.rotation_orders,
        [RotationOrder::Zxy, RotationOrder::Xyz]
    );
    let clip = &bvh.model.clips[0];
    assert!(clip.validate(s).is_empty());
    let t = clip.tracks[0].translation.as_ref().unwrap();
    assert_eq!(*t.times, [0.0, 0.5]);
    assert!((t.values[1] - Vec3::new(0.01, 0.91, 0.0)).length() < 1e-6);
    assert!(clip.tracks[1].translation.is_none());
    let r = clip.tracks[1].rotation.as_ref().unwrap();
    assert!(qdist(r.values[1], Quat::from_rotation_x(20f32.to_radians())) < 1e-5);
}

#[test]
fn errors_name_the_line() {
    let cases = [
        (
            SMALL.replace("Xrotation Yrotation Zrotation", "Xrotation Yrotation"),
            10,
        ),
        (SMALL.replace("OFFSET 10 -45 0", "OFFSET 10 -45"), 9),
        (SMALL.replace("1 91 0", "1 nan 0"), 20),
        (SMALL.replace("1 91 0 0 0 0 20 0 0", "1 91 0"), 20),
        (
            SMALL.replace("Wrong", "").replace(
                "Xrotation Yrotation Zrotation",
                "Wrotation Yrotation Zrotation",
            ),
            9,
        ),
    ];
    for (text, line) in cases {
        let e = read(&text, &BvhOptions::default()).unwrap_err();
        assert!(e.to_string().starts_with(&format!("line {line}:")), "{e}");
    }
    let e = read(
        &SMALL.replace("Frames: 2", "Frames: 999999999999"),
        &BvhOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, BvhError::MissingFrames { found: 2, .. }), "{e}");
}

/// Distance between two rotations as quaternions, sign-blind.
fn qdist(a: Quat, b: Quat) -> f32 {
    (a - b).length().min((a + b).length())
}

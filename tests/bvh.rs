//! BVH in and out (issue 15): the real CMU file reads with the right unit, frames and orders;
//! write → read keeps every joint's world position at every frame (real file, rigs built in code
//! with all six rotation orders, generated rigs); damaged and hostile text gives an error, never
//! a panic.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;
use skelnorm::bvh_io::{
    self, BvhError, BvhOptions, BvhWriteOptions, LengthUnit, RotationOrder, ScaleSource,
};
use skelnorm::model::{
    Bone, BoneId, BoneTracks, Clip, Interpolation, Pose, Skeleton, Track, Transform,
};
use std::collections::HashMap;

const CMU: &str = "bvh/cmu_131_03_maxfriendly.bvh";

fn cmu_text() -> Option<String> {
    let [path] = common::require([CMU])?;
    Some(std::fs::read_to_string(path).unwrap())
}

fn metres() -> BvhOptions {
    BvhOptions {
        scale: Some(1.0),
        ..BvhOptions::default()
    }
}

/// World positions of every bone by name at `time`.
fn positions(skeleton: &Skeleton, clip: &Clip, time: f32) -> HashMap<String, Vec3> {
    let world = Pose::sample(skeleton, clip, time).world(skeleton);
    skeleton
        .bones
        .iter()
        .zip(world)
        .map(|(b, m)| (b.name.replace(' ', "_"), m.w_axis.truncate()))
        .collect()
}

/// Writes, reads back in metres, and returns the largest joint position error over `times`
/// divided by the height.
fn round_trip_error(
    skeleton: &Skeleton,
    clip: &Clip,
    options: &BvhWriteOptions,
    times: &[f32],
) -> f32 {
    let text = bvh_io::write(skeleton, clip, options).unwrap();
    let back = bvh_io::read(&text, &metres()).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let (s2, c2) = (&back.model.skeletons[0], &back.model.clips[0]);
    assert!(back.model.validate().is_empty());
    let height = skeleton.height().max(0.01);
    let mut worst = 0.0f32;
    for &t in times {
        let want = positions(skeleton, clip, t);
        let got = positions(s2, c2, t);
        for (name, p) in &want {
            // An untracked non-joint leaf is written as an End Site: it comes back as `<parent>_end`.
            let end_name = skeleton
                .find(name)
                .and_then(|b| skeleton.bones[b.index()].parent)
                .map(|p| format!("{}_end", skeleton.bones[p.index()].name.replace(' ', "_")));
            let q = got
                .get(name)
                .or_else(|| end_name.and_then(|n| got.get(&n)))
                .unwrap_or_else(|| panic!("bone `{name}` lost\n{text}"));
            worst = worst.max((*p - *q).length() / height);
        }
    }
    worst
}

fn key_times(clip: &Clip) -> Vec<f32> {
    let mut times: Vec<f32> = clip
        .tracks
        .iter()
        .flat_map(|t| t.rotation.iter().flat_map(|r| r.times.iter().copied()))
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
}

#[test]
fn reads_the_cmu_file() {
    let Some(text) = cmu_text() else { return };
    let bvh = bvh_io::read(&text, &BvhOptions::default()).unwrap();
    let info = &bvh.info;
    let skeleton = &bvh.model.skeletons[0];
    eprintln!(
        "cmu: file height {} units, unit {:?}, scale {} m/unit, height {} m, {} joints, {} end sites",
        info.file_height,
        info.unit,
        info.scale,
        skeleton.height(),
        info.joints,
        info.end_sites
    );
    assert_eq!(info.unit, Some(LengthUnit::CmuUnit));
    assert_eq!(info.scale_source, ScaleSource::Guessed);
    // Joint extent from toe end to head end site: 24.27 CMU units = 1.37 m (the head end site is
    // below the top of the head); the femur (LeftHip → LeftKnee) is 7.29 units = 41 cm.
    assert!(
        (1.3..2.0).contains(&skeleton.height()),
        "{}",
        skeleton.height()
    );
    assert_eq!(info.frames, 1102);
    assert!((info.frame_time - 0.0083333).abs() < 1e-9);
    assert_eq!(
        info.rotation_orders,
        [RotationOrder::Zyx, RotationOrder::Zxy]
    );
    assert_eq!((info.roots, info.joints, info.end_sites), (1, 31, 7));
    assert!(bvh.model.validate().is_empty());
    let clip = &bvh.model.clips[0];
    assert_eq!(clip.tracks[0].translation.as_ref().unwrap().len(), 1102);
    assert!(clip.tracks[1].translation.is_none());
    assert!(skeleton
        .bones
        .iter()
        .any(|b| b.name == "LeftToe_end" && !b.is_joint));
    // Rotations are hemisphere-continuous.
    for t in clip.tracks.iter().filter_map(|t| t.rotation.as_ref()) {
        assert!(t.values.windows(2).all(|w| w[0].dot(w[1]) >= 0.0));
    }
}

#[test]
fn the_cmu_file_round_trips() {
    let Some(text) = cmu_text() else { return };
    let bvh = bvh_io::read(&text, &BvhOptions::default()).unwrap();
    let (s, c) = (&bvh.model.skeletons[0], &bvh.model.clips[0]);
    let times = key_times(c);
    assert_eq!(times.len(), 1102);
    for order in [RotationOrder::Zxy, RotationOrder::Xyz] {
        let options = BvhWriteOptions {
            order,
            ..BvhWriteOptions::default()
        };
        let err = round_trip_error(s, c, &options, &times);
        eprintln!("cmu round trip ({order:?}): largest error {err:.2e} of the height");
        assert!(err < 1e-4, "{err}");
    }
    // The written file keeps the frame count and time and reads back as metres.
    let written = bvh_io::write(s, c, &BvhWriteOptions::default()).unwrap();
    let back = bvh_io::read(&written, &BvhOptions::default()).unwrap();
    assert_eq!(back.info.frames, 1102);
    assert_eq!(back.info.unit, Some(LengthUnit::Metre));
    assert_eq!(back.model.skeletons[0].bones.len(), s.bones.len());
}

/// A two-legged rig with a second root, rest rotations, a base with rotation, translation and a
/// 0.01 scale, a translated non-root bone and an untracked non-joint leaf.
fn rig() -> (Skeleton, Clip) {
    let bone = |name: &str, parent: Option<u32>, t: Vec3, r: Quat, is_joint: bool| Bone {
        name: name.into(),
        parent: parent.map(BoneId),
        rest: Transform {
            translation: t,
            rotation: r,
            scale: Vec3::ONE,
        },
        is_joint,
        weighted: None,
        node: None,
    };
    let bones = vec![
        bone(
            "hips",
            None,
            Vec3::new(0.0, 95.0, 0.0),
            Quat::from_rotation_y(0.3),
            true,
        ),
        bone(
            "spine",
            Some(0),
            Vec3::new(0.0, 10.0, 0.0),
            Quat::IDENTITY,
            true,
        ),
        bone(
            "left leg",
            Some(0),
            Vec3::new(10.0, -5.0, 0.0),
            Quat::from_rotation_z(3.0),
            true,
        ),
        bone(
            "left knee",
            Some(2),
            Vec3::new(0.0, 45.0, 0.0),
            Quat::from_rotation_x(0.2),
            true,
        ),
        bone(
            "head",
            Some(1),
            Vec3::new(0.0, 50.0, 2.0),
            Quat::IDENTITY,
            true,
        ),
        bone(
            "head_top",
            Some(4),
            Vec3::new(0.0, 20.0, 0.0),
            Quat::IDENTITY,
            false,
        ),
        bone(
            "prop",
            None,
            Vec3::new(50.0, 0.0, 0.0),
            Quat::from_rotation_x(1.0),
            true,
        ),
    ];
    let skeleton = Skeleton {
        name: "rig".into(),
        bones,
        skins: vec![],
        attachments: vec![],
        base: Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_rotation_x(-1.2),
            Vec3::new(1.0, 0.0, 2.0),
        ),
        base_nodes: vec![],
        declared: None,
    };
    let times: std::sync::Arc<[f32]> = (0..20).map(|i| i as f32 / 30.0).collect();
    let rot = |axis: Vec3, speed: f32| Track {
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values: times
            .iter()
            .map(|t| Quat::from_axis_angle(axis.normalize(), speed * t))
            .collect(),
    };
    let mov = |from: Vec3, dir: Vec3| Track {
        interpolation: Interpolation::Linear,
        times: times.clone(),
        values: times.iter().map(|t| from + dir * *t).collect(),
    };
    let mut tracks = vec![BoneTracks::default(); skeleton.bones.len()];
    tracks[0].translation = Some(mov(Vec3::new(0.0, 95.0, 0.0), Vec3::new(30.0, 5.0, 0.0)));
    tracks[0].rotation = Some(rot(Vec3::new(0.2, 1.0, 0.1), 6.0));
    tracks[1].rotation = Some(rot(Vec3::X, -4.0));
    tracks[2].rotation = Some(rot(Vec3::new(1.0, 0.0, 1.0), 9.0));
    tracks[3].rotation = Some(rot(Vec3::new(1.0, 1.0, 0.0), 2.0));
    tracks[4].translation = Some(mov(Vec3::new(0.0, 50.0, 2.0), Vec3::new(0.0, 3.0, 9.0)));
    let clip = Clip {
        name: "walk".into(),
        skeleton: skelnorm::model::SkeletonId(0),
        tracks,
        opaque: vec![],
        source: None,
        motion_scale: None,
        curves: Vec::new(),
    };
    assert!(skeleton.validate().is_empty() && clip.validate(&skeleton).is_empty());
    (skeleton, clip)
}

#[test]
fn rigs_round_trip_in_every_rotation_order() {
    let (s, c) = rig();
    let times = key_times(&c);
    for order in RotationOrder::ALL {
        let options = BvhWriteOptions {
            order,
            ..BvhWriteOptions::default()
        };
        let err = round_trip_error(&s, &c, &options, &times);
        eprintln!("rig round trip ({order:?}): largest error {err:.2e} of the height");
        assert!(err < 1e-4, "{order:?}: {err}");
    }
    let text = bvh_io::write(&s, &c, &BvhWriteOptions::default()).unwrap();
    assert!(
        text.contains("JOINT left_leg") && text.contains("ROOT prop"),
        "{text}"
    );
    assert!(text.contains("Frames: 20\nFrame Time: 0.033333"), "{text}");
    let back = bvh_io::read(&text, &metres()).unwrap();
    let names: Vec<&str> = back.model.skeletons[0]
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .collect();
    assert!(
        names.contains(&"head_end") && !names.contains(&"head_top"),
        "{names:?}"
    );
    // Written again, the file is the same (the structure is stable).
    let again = bvh_io::write(
        &back.model.skeletons[0],
        &back.model.clips[0],
        &BvhWriteOptions::default(),
    )
    .unwrap();
    let back2 = bvh_io::read(&again, &metres()).unwrap();
    assert_eq!(
        back2.model.skeletons[0].bones.len(),
        back.model.skeletons[0].bones.len()
    );
}

/// A uniform scale on a bone (a unit scale on a root bone, as an FBX file in centimetres reads:
/// `convert mixamo.fbx out.bvh`) is folded into the translations below it: the joints land where
/// they were. The rig's base scale moved onto its root bones, and a bone scaled within the chain
/// with its children's translations scaled back, write the same motion as the rig.
#[test]
fn uniform_bone_scales_fold_into_the_translations_below() {
    let (s, c) = rig();
    let times = key_times(&c);
    // The base's 0.01 on the root bones instead: their translations (rest and keys) in the
    // base's units.
    let (mut on_roots, mut c_roots) = (s.clone(), c.clone());
    on_roots.base =
        Mat4::from_rotation_translation(Quat::from_rotation_x(-1.2), Vec3::new(1.0, 0.0, 2.0));
    for (i, b) in on_roots.bones.iter_mut().enumerate() {
        if b.parent.is_none() {
            b.rest.scale = Vec3::splat(0.01);
            b.rest.translation *= 0.01;
            if let Some(t) = &mut c_roots.tracks[i].translation {
                t.values = t.values.iter().map(|v| *v * 0.01).collect();
            }
        }
    }
    // And `left leg` scaled 2× with `left knee` half as far from it.
    on_roots.bones[2].rest.scale = Vec3::splat(2.0);
    on_roots.bones[3].rest.translation *= 0.5;
    let want = round_trip_error(&s, &c, &BvhWriteOptions::default(), &times);
    let err = round_trip_error(&on_roots, &c_roots, &BvhWriteOptions::default(), &times);
    eprintln!("bone scales folded: {err:.2e} of the height (base scale: {want:.2e})");
    assert!(err < 1e-4, "{err}");
    let a = bvh_io::write(&s, &c, &BvhWriteOptions::default()).unwrap();
    let b = bvh_io::write(&on_roots, &c_roots, &BvhWriteOptions::default()).unwrap();
    let offsets = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.trim_start().starts_with("OFFSET"))
            .map(String::from)
            .collect()
    };
    assert_eq!(offsets(&a).len(), offsets(&b).len());
    // A scale track that holds the rest's scale is a scale too.
    let mut held = c_roots.clone();
    held.tracks[2].scale = Some(Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 0.5].into(),
        values: vec![Vec3::splat(2.0); 2].into(),
    });
    assert!(bvh_io::write(&on_roots, &held, &BvhWriteOptions::default()).is_ok());
}

/// What BVH cannot express is refused, naming the bone: a non-uniform or mirrored scale, a
/// scale keyed to change, on a bone others hang from; a non-uniform base.
#[test]
fn scales_bvh_cannot_express_are_refused() {
    let (mut s, c) = rig();
    s.bones[2].rest.scale = Vec3::new(1.0, 2.0, 1.0);
    let e = bvh_io::write(&s, &c, &BvhWriteOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains(
            "bone `left leg` has a non-uniform ([1.0, 2.0, 1.0]) scale, which BVH cannot express"
        ),
        "{e}"
    );
    s.bones[2].rest.scale = Vec3::new(-1.0, 1.0, 1.0);
    let e = bvh_io::write(&s, &c, &BvhWriteOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("bone `left leg` has a mirrored ([-1.0, 1.0, 1.0] at rest) scale"),
        "{e}"
    );
    let (s, mut c) = rig();
    c.tracks[2].scale = Some(Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 0.5].into(),
        values: vec![Vec3::ONE, Vec3::splat(1.5)].into(),
    });
    let e = bvh_io::write(&s, &c, &BvhWriteOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("bone `left leg` has a keyed scale"),
        "{e}"
    );
    let (mut s, c) = rig();
    s.base = Mat4::from_scale(Vec3::new(1.0, 2.0, 1.0));
    assert!(bvh_io::write(&s, &c, &BvhWriteOptions::default()).is_err());
}

/// Issue 43 item 3: the scale of a bone with nothing below it shows in no joint of a BVH file,
/// so any scale there is left out rather than refused: 3ds Max Biped nubs mirrored at rest
/// ((−1, −1, −1) keyed (−1, −1, −1), as wiseMan.FBX's `Bip001 R Finger0Nub`; (−1, 1, 1) keyed
/// with other signs, as magicianAll.FBX's), and a non-uniform one. Every joint lands where the
/// unscaled rig puts it.
#[test]
fn the_scale_of_a_bone_nothing_hangs_from_is_left_out() {
    let (s, c) = rig();
    let times = key_times(&c);
    let want = round_trip_error(&s, &c, &BvhWriteOptions::default(), &times);
    let keyed = |values: Vec<Vec3>| Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 0.5].into(),
        values: values.into(),
    };
    let cases = [
        (Vec3::splat(-1.0), Some(keyed(vec![Vec3::splat(-1.0); 2]))),
        (
            Vec3::new(-1.0, 1.0, 1.0),
            Some(keyed(vec![
                Vec3::new(-1.0, 1.0, 1.0),
                Vec3::new(1.0, -1.0, 1.0),
            ])),
        ),
        (Vec3::new(1.0, 3.0, 1.0), None),
    ];
    for (rest, keys) in cases {
        let (mut scaled, mut c2) = (s.clone(), c.clone());
        // `left knee` (a joint, tracked) and `head_top` (an End Site): leaves.
        for leaf in [3, 5] {
            scaled.bones[leaf].rest.scale = rest;
            c2.tracks[leaf].scale = keys.clone();
        }
        let err = round_trip_error(&scaled, &c2, &BvhWriteOptions::default(), &times);
        assert!(err <= want.max(1e-5), "{rest}: {err} (unscaled {want})");
        // The same hierarchy: offsets and End Sites as the unscaled rig's.
        let hierarchy = |t: String| t[..t.find("MOTION").unwrap()].to_string();
        let a = bvh_io::write(&s, &c, &BvhWriteOptions::default()).unwrap();
        let b = bvh_io::write(&scaled, &c2, &BvhWriteOptions::default()).unwrap();
        assert_eq!(hierarchy(a), hierarchy(b), "{rest}");
    }
}

#[test]
fn fps_option_resamples() {
    let (s, c) = rig();
    let options = BvhWriteOptions {
        fps: Some(60.0),
        ..BvhWriteOptions::default()
    };
    let text = bvh_io::write(&s, &c, &options).unwrap();
    let back = bvh_io::read(&text, &metres()).unwrap();
    assert_eq!(back.info.frames, 39);
    assert!((back.info.frame_time - 1.0 / 60.0).abs() < 1e-7);
}

/// A small valid file: the rig written out.
fn small_file() -> String {
    let (s, mut c) = rig();
    for t in c.tracks.iter_mut() {
        for tr in t.rotation.iter_mut() {
            tr.times = tr.times[..3].into();
            tr.values = tr.values[..3].into();
        }
        for tr in t.translation.iter_mut() {
            tr.times = tr.times[..3].into();
            tr.values = tr.values[..3].into();
        }
    }
    bvh_io::write(&s, &c, &BvhWriteOptions::default()).unwrap()
}

#[test]
fn truncated_files_give_errors() {
    let mut texts = vec![small_file()];
    if let Some(cmu) = cmu_text() {
        // The hierarchy and the first 3 frames, declared as 3.
        let head: Vec<&str> = cmu.lines().take(190).collect();
        texts.push(head.join("\n").replace("Frames: 1102", "Frames: 3"));
    }
    for (k, text) in texts.into_iter().enumerate() {
        assert!(bvh_io::read(&text, &metres()).is_ok());
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for n in 0..lines.len() {
            let cut = lines[..n].concat();
            let e = bvh_io::read(&cut, &metres());
            assert!(e.is_err(), "a file cut after {n} lines reads");
        }
        // Every byte of the small file (the real one is too long for a quadratic loop).
        for n in (0..text.len()).filter(|n| k == 0 && text.is_char_boundary(*n)) {
            let _ = bvh_io::read(&text[..n], &metres());
        }
    }
}

#[test]
fn hostile_inputs_give_errors() {
    let good = small_file();
    let line = |start: &str| {
        good.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap()
            .to_string()
    };
    let (frames_line, time_line, offset_line) =
        (line("Frames:"), line("Frame Time:"), line("OFFSET"));
    let cases: Vec<(&str, String)> = vec![
        (
            "huge frame count",
            good.replace(&frames_line, "Frames: 999999999999"),
        ),
        (
            "overflowing frame count",
            good.replace(&frames_line, "Frames: 99999999999999999999999999"),
        ),
        (
            "negative frame count",
            good.replace(&frames_line, "Frames: -1"),
        ),
        (
            "huge channel count",
            good.replacen("CHANNELS 6", "CHANNELS 4294967296", 1),
        ),
        (
            "wrong channel count",
            good.replacen("CHANNELS 6", "CHANNELS 5", 1),
        ),
        (
            "unknown channel",
            good.replacen("Xposition", "Wposition", 1),
        ),
        ("zero frame time", good.replace(&time_line, "Frame Time: 0")),
        (
            "nan frame time",
            good.replace(&time_line, "Frame Time: NaN"),
        ),
        (
            "infinite number",
            good.replacen(&offset_line, "OFFSET inf 0 0", 1),
        ),
        (
            "garbage number",
            good.replacen(&offset_line, "OFFSET 1x 0 0", 1),
        ),
        ("missing brace", good.replacen("{\n", "\n", 1)),
        ("extra brace", good.replacen("}\n", "}\n}\n", 1)),
        ("extra frame", format!("{good}0 0 0\n")),
        ("empty", String::new()),
        ("binary", "\u{0}\u{1}\u{2}HIERARCHY".into()),
    ];
    for (what, text) in cases {
        assert!(bvh_io::read(&text, &metres()).is_err(), "{what} reads");
    }
    // Huge values that overflow once scaled.
    let huge = good.replacen(&offset_line, "OFFSET 3e38 3e38 3e38", 1);
    let big = BvhOptions {
        scale: Some(1000.0),
        ..BvhOptions::default()
    };
    assert!(bvh_io::read(&huge, &big).is_err());
    // Deep nesting: no stack overflow.
    let mut deep = String::from(
        "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n",
    );
    for _ in 0..200_000 {
        deep.push_str("JOINT j\n{\nOFFSET 0 1 0\n");
    }
    assert!(matches!(
        bvh_io::read(&deep, &metres()),
        Err(BvhError::Syntax { .. })
    ));
}

fn arb_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -3.1f32..3.1).prop_map(|(x, y, z, a)| {
        let axis = Vec3::new(x, y, z);
        if axis.length() < 1e-3 {
            Quat::IDENTITY
        } else {
            Quat::from_axis_angle(axis.normalize(), a)
        }
    })
}

fn arb_vec() -> impl Strategy<Value = Vec3> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// A random rig: `n` bones, each parented to an earlier one or a root, with random rest
/// transforms and `frames` random keys per bone.
fn arb_rig() -> impl Strategy<Value = (Skeleton, Clip)> {
    (1usize..7, 1usize..5).prop_flat_map(|(n, frames)| {
        let parents = proptest::collection::vec(
            proptest::option::weighted(0.85, any::<prop::sample::Index>()),
            n,
        );
        let rests = proptest::collection::vec((arb_vec(), arb_quat()), n);
        let keys = proptest::collection::vec(
            proptest::collection::vec((arb_vec(), arb_quat()), frames),
            n,
        );
        let moved = proptest::collection::vec(any::<bool>(), n);
        (parents, rests, keys, moved).prop_map(move |(parents, rests, keys, moved)| {
            let bones = (0..n)
                .map(|i| Bone {
                    name: format!("b {i}"),
                    parent: if i == 0 {
                        None
                    } else {
                        parents[i].map(|p| BoneId(p.index(i) as u32))
                    },
                    rest: Transform {
                        translation: rests[i].0,
                        rotation: rests[i].1,
                        scale: Vec3::ONE,
                    },
                    is_joint: true,
                    weighted: None,
                    node: None,
                })
                .collect();
            let times: std::sync::Arc<[f32]> = (0..frames).map(|k| k as f32 * 0.1).collect();
            let tracks = (0..n)
                .map(|i| BoneTracks {
                    translation: (moved[i] || i == 0).then(|| Track {
                        interpolation: Interpolation::Linear,
                        times: times.clone(),
                        values: keys[i].iter().map(|k| k.0).collect(),
                    }),
                    rotation: Some(Track {
                        interpolation: Interpolation::Linear,
                        times: times.clone(),
                        values: keys[i].iter().map(|k| k.1).collect(),
                    }),
                    scale: None,
                })
                .collect();
            let skeleton = Skeleton {
                name: "random".into(),
                bones,
                skins: vec![],
                attachments: vec![],
                base: Mat4::IDENTITY,
                base_nodes: vec![],
                declared: None,
            };
            let clip = Clip {
                name: "random".into(),
                skeleton: skelnorm::model::SkeletonId(0),
                tracks,
                opaque: vec![],
                source: None,
                motion_scale: None,
                curves: Vec::new(),
            };
            (skeleton, clip)
        })
    })
}

fn arb_order() -> impl Strategy<Value = RotationOrder> {
    (0usize..6).prop_map(|i| RotationOrder::ALL[i])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_rigs_round_trip((skeleton, clip) in arb_rig(), order in arb_order()) {
        let times = key_times(&clip);
        let options = BvhWriteOptions { order, ..BvhWriteOptions::default() };
        let err = round_trip_error(&skeleton, &clip, &options, &times);
        prop_assert!(err < 1e-4, "{order:?}: {err}");
    }
}

/// A node above the joints that holds something (here a camera, so the reader keeps it a node
/// and not the skeleton's root bone) and that a clip turns and moves: `convert` folds its motion
/// into the BVH root's channels frame by frame, so every joint is where the file puts it at
/// every frame (written still, the body's turn and travel were lost); `bvh_io::write`, given
/// no keys of the node, refuses, naming it and the clip; a scale keyed on it is refused as BVH
/// cannot express it.
#[test]
fn an_animated_node_above_the_skeleton_is_folded_into_the_root() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let turn = |t: f32| Quat::from_rotation_y(1.0 * t) * Quat::from_rotation_x(0.3 * t);
    let moved = |t: f32| Vec3::new(0.5 * t, 0.0, -0.25 * t);
    let glb = |scale_keys: bool| {
        let mut bin: Vec<u8> = Vec::new();
        let times = [0.0f32, 0.5, 1.0];
        let mut floats: Vec<f32> = times.to_vec();
        floats.extend(times.iter().flat_map(|&t| turn(t).to_array()));
        floats.extend(times.iter().flat_map(|&t| moved(t).to_array()));
        floats.extend(times.iter().flat_map(|&t| [1.0 + t, 1.0, 1.0]));
        for v in &floats {
            bin.extend(v.to_le_bytes());
        }
        let mut channels = vec![
            json!({"sampler": 0, "target": {"node": 0, "path": "rotation"}}),
            json!({"sampler": 1, "target": {"node": 0, "path": "translation"}}),
            json!({"sampler": 3, "target": {"node": 2, "path": "rotation"}}),
        ];
        if scale_keys {
            channels.push(json!({"sampler": 2, "target": {"node": 0, "path": "scale"}}));
        }
        let gltf = json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [
                {"name": "Rig", "camera": 0, "translation": [0.0, 0.0, 0.0], "children": [1]},
                {"name": "Hips", "translation": [0.0, 1.0, 0.0], "children": [2]},
                {"name": "Spine", "translation": [0.0, 0.3, 0.0], "children": [3]},
                {"name": "Head", "translation": [0.0, 0.4, 0.1]}
            ],
            "cameras": [{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}],
            "skins": [{"joints": [1, 2, 3]}],
            "buffers": [{"byteLength": bin.len()}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 12},
                {"buffer": 0, "byteOffset": 12, "byteLength": 48},
                {"buffer": 0, "byteOffset": 60, "byteLength": 36},
                {"buffer": 0, "byteOffset": 96, "byteLength": 36}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0.0], "max": [1.0]},
                {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC4"},
                {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC3"},
                {"bufferView": 3, "componentType": 5126, "count": 3, "type": "VEC3"}
            ],
            "animations": [{
                "name": "turn",
                "samplers": [
                    {"input": 0, "output": 1, "interpolation": "LINEAR"},
                    {"input": 0, "output": 2, "interpolation": "LINEAR"},
                    {"input": 0, "output": 3, "interpolation": "LINEAR"},
                    {"input": 0, "output": 1, "interpolation": "LINEAR"}
                ],
                "channels": channels
            }]
        });
        common::join_glb(&gltf, &bin)
    };
    let input = dir.path().join("camera_rig.glb");
    std::fs::write(&input, glb(false)).unwrap();
    let out = dir.path().join("out.bvh");
    let convert = |input: &std::path::Path| {
        common::skelnorm(&[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--bvh-fps",
            "10",
            "--bvh-unit",
            "m",
        ])
    };
    let run = convert(&input);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Joints as the file places them: the rig node turned and moved, the spine turned too.
    let doc = skelnorm::gltf_io::read(&input).unwrap();
    let (gs, gc) = (&doc.model.skeletons[0], &doc.model.clips[0]);
    assert_eq!(gs.bones[0].name, "Hips", "the camera node stays above");
    let back = bvh_io::read(&std::fs::read_to_string(&out).unwrap(), &metres()).unwrap();
    let (bs, bc) = (&back.model.skeletons[0], &back.model.clips[0]);
    let mut worst = 0.0f32;
    for f in 0..=10 {
        let t = f as f32 / 10.0;
        // The rig node's keys (at 0, 0.5 and 1 s) interpolated as glTF does.
        let (a, u) = if t <= 0.5 {
            (0.0, t / 0.5)
        } else {
            (0.5, (t - 0.5) / 0.5)
        };
        let q = turn(a).slerp(turn(a + 0.5), u);
        let rig = Mat4::from_rotation_translation(q, moved(t));
        let file = Pose::sample(gs, gc, t).world(gs);
        let bvh = Pose::sample(bs, bc, t).world(bs);
        for (i, b) in gs.bones.iter().enumerate() {
            let j = bs.bones.iter().position(|x| x.name == b.name).unwrap();
            // The skeleton's joints below the rig node as it moves at `t`.
            let p = rig.transform_point3(file[i].w_axis.truncate());
            let q = bs.base.transform_point3(bvh[j].w_axis.truncate());
            worst = worst.max(p.distance(q));
        }
    }
    eprintln!("joints within {worst:.2e} m of the file's, the rig node's motion folded");
    assert!(worst < 1e-4, "joints {worst} m off");
    // The library writer alone has no keys for the node: it refuses, saying what is lost.
    let e = bvh_io::write(gs, gc, &BvhWriteOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("node 0 above the skeleton is animated (clip `turn` keys its"),
        "{e}"
    );
    // A scale keyed on the node above: BVH cannot express it.
    std::fs::write(&input, glb(true)).unwrap();
    let run = convert(&input);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{err}");
    assert!(
        err.contains("the nodes above the skeleton scale it in clip `turn`"),
        "{err}"
    );
}

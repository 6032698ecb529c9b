//! Stripping on generated rigs: the profile's skeleton with disturbed rests, unmapped bones, and
//! clips that key every bone (rest translations with f32-sized noise, a translation that really
//! moves, rotations, channels that are not bone transforms). Whatever the rig, the default strip
//! keeps the skin, and each option removes exactly what it says.

use super::*;
use crate::check;
use crate::mapping::testing::{identity_map, rig};
use crate::model::{OpaqueTrack, Track};
use crate::profile::Profile;
use proptest::prelude::*;

/// A clip keying every bone: translation at the rest (plus `noise`, a fraction of the rest
/// length), rotation turning by `turn` over the clip, and, on bone `mover`, a translation that
/// moves 5 cm. One weights channel that is not a bone transform.
fn keyed_clip(
    s: &Skeleton,
    name: &str,
    noise: f32,
    turn: Quat,
    mover: usize,
    interpolation: Interpolation,
) -> Clip {
    let times: std::sync::Arc<[f32]> = vec![0.0, 0.5, 1.0].into();
    let per_key = |v: Vec<Quat>| match interpolation {
        Interpolation::CubicSpline => v
            .iter()
            .flat_map(|q| {
                [
                    Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                    *q,
                    Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
                ]
            })
            .collect(),
        _ => v,
    };
    let per_key3 = |v: Vec<Vec3>| match interpolation {
        Interpolation::CubicSpline => v
            .iter()
            .flat_map(|x| [Vec3::ZERO, *x, Vec3::ZERO])
            .collect(),
        _ => v,
    };
    let tracks = s
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let t = b.rest.translation;
            let wobble = t * noise * if i % 2 == 0 { 1.0 } else { -1.0 };
            let moved = if i == mover {
                Vec3::new(0.0, 0.0, 0.05)
            } else {
                Vec3::ZERO
            };
            BoneTracks {
                translation: Some(Track {
                    interpolation,
                    times: times.clone(),
                    values: per_key3(vec![t, t + wobble + moved, t]).into(),
                }),
                rotation: Some(Track {
                    interpolation,
                    times: times.clone(),
                    values: per_key(vec![
                        b.rest.rotation,
                        (b.rest.rotation * turn).normalize(),
                        b.rest.rotation,
                    ])
                    .into(),
                }),
                scale: None,
            }
        })
        .collect();
    Clip {
        name: name.into(),
        skeleton: SkeletonId(0),
        tracks,
        opaque: vec![OpaqueTrack {
            kind: OpaqueKind::Weights { node: 99 },
            channel: 0,
            duration: 1.0,
        }],
        source: None,
        motion_scale: None,
        curves: Vec::new(),
    }
}

fn model_of(s: Skeleton, clips: Vec<Clip>) -> Model {
    Model {
        skeletons: vec![s],
        clips,
        other_nodes: Vec::new(),
        scene_turn: Default::default(),
        view_turn: Default::default(),
        points: Vec::new(),
    }
}

fn quat() -> impl Strategy<Value = Quat> {
    (-0.35f32..0.35, -0.35f32..0.35, -0.35f32..0.35)
        .prop_map(|(x, y, z)| Quat::from_euler(glam::EulerRot::XYZ, x, y, z))
}

fn interpolation() -> impl Strategy<Value = Interpolation> {
    prop_oneof![
        Just(Interpolation::Linear),
        Just(Interpolation::Step),
        Just(Interpolation::CubicSpline)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn default_strip_keeps_the_skin_and_only_root_hips_and_movers_translate(
        noise in proptest::collection::vec(quat(), 5),
        turn in quat(),
        wobble in prop_oneof![Just(0.0f32), Just(1e-7), Just(2e-6)],
        mover in 5usize..50,
        skip in prop_oneof![Just(0usize), Just(5), Just(7)],
        interpolation in interpolation(),
    ) {
        let profile = Profile::humanoid();
        let s = rig(&noise, Mat4::from_scale(Vec3::splat(0.01)));
        let map = identity_map(&s, skip);
        // Clip `b` does not move the mover: its track stays all the same, as in `a`.
        let clips = vec![
            keyed_clip(&s, "a", wobble, turn, mover, interpolation),
            keyed_clip(&s, "b", wobble, turn, usize::MAX, interpolation),
        ];
        let mut model = model_of(s.clone(), clips);
        let before = model.clone();
        let report = strip(&mut model, SkeletonId(0), &map, profile, &TrackOptions::default()).unwrap();
        let skin = check::skin(&before, &model, SkeletonId(0));
        prop_assert!(skin.max_error <= 2e-5, "skin {} at {:?}", skin.max_error, skin.worst);
        let hips = map.by_name(profile, "Hips").unwrap().index();
        // Root keeps its translation when mapped (every `skip`-th optional bone is not).
        let root = map.by_name(profile, "Root").map(|b| b.index());
        for clip in 0..2 {
            for (b, t) in model.clips[clip].tracks.iter().enumerate() {
                let expected = b == hips || Some(b) == root || b == mover;
                prop_assert_eq!(t.translation.is_some(), expected, "bone {}", s.bones[b].name);
                prop_assert!(t.rotation.is_some());
            }
            // The mover is reported in both clips; everything removed is listed once.
            let c = &report.clips[clip];
            prop_assert_eq!(c.kept_moving.iter().map(|m| m.bone.clone()).collect::<Vec<_>>(), vec![s.bones[mover].name.clone()]);
            prop_assert_eq!(c.removed.len(), s.bones.len() - 2 - root.is_some() as usize);
            prop_assert!(c.removed.iter().all(|r| r.reason == StripReason::UnimportantPosition && r.channel == "translation"));
            prop_assert_eq!(model.clips[clip].opaque.len(), 1, "weights are kept by default");
        }
        let w = report.warnings.iter().find(|w| w.code == WarningCode::TranslationMotion).unwrap();
        prop_assert_eq!(&w.bones, &vec![s.bones[mover].name.clone()]);
    }

    #[test]
    fn unmapped_tracks_are_removed_or_moved_to_exactly_the_companion(
        noise in proptest::collection::vec(quat(), 5),
        turn in quat(),
        skip in prop_oneof![Just(3usize), Just(5), Just(7)],
        interpolation in interpolation(),
    ) {
        let profile = Profile::humanoid();
        let s = rig(&noise, Mat4::IDENTITY);
        let map = identity_map(&s, skip);
        let unmapped = map.unmapped_source(&s);
        prop_assert!(!unmapped.is_empty());
        let clips = vec![keyed_clip(&s, "a", 0.0, turn, 1, interpolation), keyed_clip(&s, "b", 0.0, turn.inverse(), 1, interpolation)];
        let original = model_of(s.clone(), clips);
        let mut kept = original.clone();
        strip(&mut kept, SkeletonId(0), &map, profile, &TrackOptions::default()).unwrap();

        let mut removed = original.clone();
        let options = TrackOptions { unmapped_bones: UnmappedBones::Remove, ..TrackOptions::default() };
        let report = strip(&mut removed, SkeletonId(0), &map, profile, &options).unwrap();
        for clip in &removed.clips {
            for b in &unmapped {
                prop_assert!(clip.tracks[b.index()].is_empty(), "{} keeps a track", s.bones[b.index()].name);
            }
        }
        prop_assert!(report.clips.iter().flat_map(|c| &c.removed).any(|r| r.reason == StripReason::UnmappedBone));

        let mut separated = original.clone();
        let options = TrackOptions { unmapped_bones: UnmappedBones::Separate, ..TrackOptions::default() };
        let report = strip(&mut separated, SkeletonId(0), &map, profile, &options).unwrap();
        prop_assert_eq!(&report.companions, &vec!["a.unmapped".to_string(), "b.unmapped".to_string()]);
        prop_assert_eq!(separated.clips.len(), 4);
        for (name, base) in [("a.unmapped", "a"), ("b.unmapped", "b")] {
            let companion = separated.clips.iter().find(|c| c.name == name).unwrap();
            let with_all = kept.clips.iter().find(|c| c.name == base).unwrap();
            let without = separated.clips.iter().find(|c| c.name == base).unwrap();
            for b in 0..s.bones.len() {
                let is_unmapped = unmapped.contains(&BoneId(b as u32));
                // The companion holds exactly the unmapped bones' tracks, the clip the rest.
                let expected = if is_unmapped { with_all.tracks[b].clone() } else { BoneTracks::default() };
                prop_assert_eq!(&companion.tracks[b], &expected);
                prop_assert_eq!(without.tracks[b].is_empty(), is_unmapped || with_all.tracks[b].is_empty());
            }
            prop_assert!(companion.opaque.is_empty());
        }
        // Played together they are the clip before separating.
        let joined = rejoin(&separated, SkeletonId(0));
        prop_assert_eq!(&joined.clips, &kept.clips);
        // Separating again adds no companion of a companion.
        let again = strip(&mut separated.clone(), SkeletonId(0), &map, profile, &options).unwrap();
        prop_assert!(again.companions.is_empty());
    }
}

#[test]
fn except_bone_transform_removes_other_channels_and_empty_clips() {
    let profile = Profile::humanoid();
    let s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    let map = identity_map(&s, 0);
    let mut only_weights = keyed_clip(&s, "face", 0.0, Quat::IDENTITY, 1, Interpolation::Linear);
    only_weights.tracks = vec![BoneTracks::default(); s.bones.len()];
    let mut model = model_of(
        s.clone(),
        vec![
            keyed_clip(
                &s,
                "walk",
                0.0,
                Quat::from_rotation_x(0.3),
                1,
                Interpolation::Linear,
            ),
            only_weights,
        ],
    );
    let options = TrackOptions {
        except_bone_transform: true,
        ..TrackOptions::default()
    };
    let report = strip(&mut model, SkeletonId(0), &map, profile, &options).unwrap();
    assert_eq!(model.clips.len(), 1, "the weights-only clip is gone");
    assert!(model.clips[0].opaque.is_empty());
    assert!(report.clips[1].emptied);
    assert_eq!(
        report.clips[1].removed[0].reason,
        StripReason::NotBoneTransform
    );
    assert_eq!(report.clips[1].removed[0].channel, "weights");
    let w = report
        .warnings
        .iter()
        .find(|w| w.code == WarningCode::ClipEmptied)
        .unwrap();
    assert_eq!(w.clips, vec!["face".to_string()]);
}

#[test]
fn rest_channels_go_only_when_asked_and_only_when_at_rest() {
    let profile = Profile::humanoid();
    let s = rig(&[Quat::from_rotation_y(0.2)], Mat4::IDENTITY);
    let map = identity_map(&s, 0);
    let turn = Quat::from_rotation_x(0.3);
    let mut clip = keyed_clip(&s, "a", 0.0, turn, 1, Interpolation::CubicSpline);
    // Bone 3 holds its rest rotation; bone 4 too, but with a tangent that bulges between keys.
    let rest3 = s.bones[3].rest.rotation;
    clip.tracks[3].rotation.as_mut().unwrap().values = [rest3; 9]
        .iter()
        .enumerate()
        .map(|(i, q)| {
            if i % 3 == 1 {
                *q
            } else {
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)
            }
        })
        .collect();
    let rest4 = s.bones[4].rest.rotation;
    clip.tracks[4].rotation.as_mut().unwrap().values = (0..9)
        .map(|i| {
            if i % 3 == 1 {
                rest4
            } else {
                Quat::from_xyzw(0.1, 0.0, 0.0, 0.0)
            }
        })
        .collect();
    let mut model = model_of(s.clone(), vec![clip]);
    let mut defaults = model.clone();
    strip(
        &mut defaults,
        SkeletonId(0),
        &map,
        profile,
        &TrackOptions::default(),
    )
    .unwrap();
    assert!(
        defaults.clips[0].tracks[3].rotation.is_some(),
        "kept by default"
    );
    let options = TrackOptions {
        drop_rest_channels: true,
        ..TrackOptions::default()
    };
    let report = strip(&mut model, SkeletonId(0), &map, profile, &options).unwrap();
    let t = &model.clips[0].tracks;
    assert!(t[3].rotation.is_none());
    assert!(t[4].rotation.is_some(), "a bulging spline is not the rest");
    assert!(t[5].rotation.is_some(), "a turning bone is not the rest");
    let at_rest: Vec<&RemovedTrack> = report.clips[0]
        .removed
        .iter()
        .filter(|r| r.reason == StripReason::AtRest)
        .collect();
    // Bone 3's rotation, and Root's translation (a position bone, keyed at its rest).
    assert_eq!(at_rest.len(), 2, "{at_rest:?}");
    assert!(at_rest
        .iter()
        .any(|r| r.target == s.bones[3].name && r.channel == "rotation"));
    assert!(at_rest
        .iter()
        .any(|r| r.target == "Root" && r.channel == "translation"));
}

#[test]
fn bad_options_change_nothing() {
    let profile = Profile::humanoid();
    let s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    let map = identity_map(&s, 0);
    let mut model = model_of(
        s.clone(),
        vec![keyed_clip(
            &s,
            "a",
            0.0,
            Quat::IDENTITY,
            1,
            Interpolation::Linear,
        )],
    );
    let before = model.clone();
    let unknown = TrackOptions {
        position_bones: vec!["Hipz".into()],
        ..TrackOptions::default()
    };
    let err = strip(&mut model, SkeletonId(0), &map, profile, &unknown).unwrap_err();
    assert!(err.to_string().contains("Hipz"), "{err}");
    let negative = TrackOptions {
        tolerance: -1.0,
        ..TrackOptions::default()
    };
    assert!(strip(&mut model, SkeletonId(0), &map, profile, &negative).is_err());
    assert!(strip(
        &mut model,
        SkeletonId(3),
        &map,
        profile,
        &TrackOptions::default()
    )
    .is_err());
    assert_eq!(model, before);
}

#[test]
fn rebind_pairs_bones_by_name() {
    let a = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    let mut b = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    // The target lacks one bone of the source and orders its bones differently.
    b.bones.retain(|x| x.name != "LeftEye");
    let hips = b.bones.iter().position(|x| x.name == "Hips").unwrap();
    let clip = keyed_clip(
        &a,
        "a",
        0.0,
        Quat::from_rotation_z(0.4),
        1,
        Interpolation::Linear,
    );
    let r = rebind(&clip, &a, &b, SkeletonId(0));
    assert_eq!(r.missing, vec!["LeftEye".to_string()]);
    assert_eq!(r.clip.tracks.len(), b.bones.len());
    let src_hips = a.find("Hips").unwrap().index();
    assert_eq!(r.clip.tracks[hips], clip.tracks[src_hips]);
    assert!(r.clip.opaque.is_empty() && r.clip.source.is_none());
}

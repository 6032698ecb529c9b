use super::*;
use crate::mapping::testing::{identity_map, rig};
use crate::model::{
    Bone, BoneTracks, Clip, Interpolation, Pose, Reflection, Skeleton, Track, Transform,
};
use glam::{Mat4, Quat, Vec3};

/// A deterministic rotation of up to about `angle` radians from `seed`.
fn turn(seed: u32, angle: f32) -> Quat {
    let f = |k: u32| {
        ((seed.wrapping_mul(2654435761).wrapping_add(k * 40503) % 1000) as f32 / 500.0) - 1.0
    };
    let axis = Vec3::new(f(1), f(2), f(3) + 0.01).normalize();
    Quat::from_axis_angle(axis, angle * f(4))
}

/// A pose of `s`: every bone turned from its rest, the first bone moved.
fn pose(s: &Skeleton, seed: u32) -> Pose {
    let mut p = Pose::rest(s);
    for (i, l) in p.locals.iter_mut().enumerate() {
        l.rotation = (l.rotation * turn(seed * 97 + i as u32, 1.2)).normalize();
    }
    p.locals[0].translation += Vec3::new(0.3, -0.1, 0.7) * (seed as f32 * 0.37).sin();
    p
}

fn joints(s: &Skeleton, p: &Pose) -> Vec<Vec3> {
    p.world(s).iter().map(|m| m.w_axis.truncate()).collect()
}

/// The profile's skeleton with a prop under the left hand (no side: it is a center bone that
/// hangs from a side bone) and a named pair of unmapped bones under the feet.
fn rig_with_extras(noise: &[Quat]) -> (Skeleton, crate::mapping::BoneMap) {
    let mut s = rig(noise, Mat4::IDENTITY);
    let map = identity_map(&s, 0);
    let hand = s.find("LeftHand").unwrap();
    let (lf, rf) = (s.find("LeftFoot").unwrap(), s.find("RightFoot").unwrap());
    let mut add = |name: &str, parent: BoneId, at: Vec3| {
        s.bones.push(Bone {
            name: name.into(),
            parent: Some(parent),
            rest: Transform {
                translation: at,
                rotation: turn(s.bones.len() as u32, 0.5),
                scale: Vec3::ONE,
            },
            is_joint: false,
            weighted: None,
            node: None,
        });
    };
    add("sword", hand, Vec3::new(0.0, 0.1, 0.05));
    add("heel.L", lf, Vec3::new(0.0, -0.05, 0.0));
    add("heel.R", rf, Vec3::new(0.0, -0.05, 0.0));
    (s, map)
}

#[test]
fn reflection_is_a_rotation_automorphism() {
    let m = Reflection::new(&crate::model::tests::chain(1), &[BoneId(0)], Vec3::X);
    let q = Quat::from_xyzw(0.1, 0.2, 0.3, 0.9).normalize();
    let r = m.reflect(q);
    assert_eq!(r.to_array(), [q.x, -q.y, -q.z, q.w]);
    for k in 0..20 {
        let (a, b) = (turn(k, 3.0), turn(k + 100, 3.0));
        assert!(m.reflect(a * b).dot(m.reflect(a) * m.reflect(b)).abs() > 1.0 - 1e-6);
        // S R S v = S (R (S v)).
        let v = Vec3::new(0.3, -1.0, 0.2);
        let lhs = m.reflect(a) * v;
        let rhs = m.reflect_vec(a * m.reflect_vec(v));
        assert!((lhs - rhs).length() < 1e-5, "{lhs} {rhs}");
    }
}

#[test]
fn mirroring_twice_gives_the_pose_back_for_any_rest() {
    let noise: Vec<Quat> = (0..17).map(|k| turn(k, 0.6)).collect();
    let (s, map) = rig_with_extras(&noise);
    let m = Mirror::new(&s, &map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
    assert!(!m.is_symmetric(s.find("sword").unwrap()));
    assert_eq!(
        m.counterpart(s.find("heel.L").unwrap()),
        s.find("heel.R").unwrap()
    );
    let size = s.height();
    for seed in 0..8 {
        let p = pose(&s, seed);
        let (mut once, mut twice) = (Pose::rest(&s), Pose::rest(&s));
        m.mirror_pose(&p, &mut once).unwrap();
        m.mirror_pose(&once, &mut twice).unwrap();
        let (a, b) = (joints(&s, &p), joints(&s, &twice));
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (*x - *y).length())
            .fold(0.0, f32::max);
        assert!(worst < 1e-5 * size, "seed {seed}: {worst}");
    }
}

#[test]
fn symmetric_rests_give_exact_reflections() {
    let (s, map) = rig_with_extras(&[Quat::IDENTITY]);
    let m = Mirror::new(&s, &map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
    assert_eq!(m.normal(), Vec3::X);
    assert!(m.rest_asymmetry < 1e-4, "{}", m.rest_asymmetry);
    let size = s.height();
    let sword = s.find("sword").unwrap().index();
    for seed in 0..8 {
        let p = pose(&s, seed);
        let mut out = Pose::rest(&s);
        m.mirror_pose(&p, &mut out).unwrap();
        let (a, b) = (joints(&s, &p), joints(&s, &out));
        let origin = joints(&s, &Pose::rest(&s))[0];
        for i in (0..s.bones.len()).filter(|&i| i != sword) {
            let c = m.counterpart(BoneId(i as u32)).index();
            let want = origin + m.reflect_vec(a[c] - origin);
            let off = (b[i] - want).length();
            assert!(
                off < 2e-4 * size,
                "seed {seed} bone {}: {off}",
                s.bones[i].name
            );
        }
    }
}

/// A two-key clip of every bone of `s` with `interpolation`.
fn clip_of(s: &Skeleton, interpolation: Interpolation) -> Clip {
    let (p0, p1) = (pose(s, 1), pose(s, 2));
    let cubic = interpolation == Interpolation::CubicSpline;
    let rot = |i: usize| {
        let (a, b) = (p0.locals[i].rotation, p1.locals[i].rotation);
        let b = if a.dot(b) < 0.0 { -b } else { b };
        if cubic {
            vec![a * 0.2, a, turn(i as u32, 0.3) * 0.5, b * -0.1, b, b * 0.3]
        } else {
            vec![a, b]
        }
    };
    let tr = |i: usize| {
        let (a, b) = (p0.locals[i].translation, p1.locals[i].translation);
        if cubic {
            vec![Vec3::X, a, Vec3::Y * 0.2, Vec3::Z, b, -Vec3::X]
        } else {
            vec![a, b]
        }
    };
    let track = |values: Vec<Quat>| Track {
        interpolation,
        times: vec![0.0, 1.0].into(),
        values: values.into(),
    };
    Clip::new(
        "c",
        SkeletonId(0),
        (0..s.bones.len())
            .map(|i| BoneTracks {
                rotation: Some(track(rot(i))),
                translation: (i < 3 || i % 7 == 0).then(|| Track {
                    interpolation,
                    times: vec![0.0, 1.0].into(),
                    values: tr(i).into(),
                }),
                scale: None,
            })
            .collect(),
    )
}

#[test]
fn mirrored_clips_sample_as_mirrored_poses() {
    let noise: Vec<Quat> = (0..5).map(|k| turn(k + 50, 0.4)).collect();
    let (s, map) = rig_with_extras(&noise);
    let m = Mirror::new(&s, &map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
    let sword = s.find("sword").unwrap();
    for interpolation in [
        Interpolation::Linear,
        Interpolation::Step,
        Interpolation::CubicSpline,
    ] {
        let clip = clip_of(&s, interpolation);
        let (out, resampled) = mirror_clip(&m, &s, &clip, &[]);
        assert_eq!(resampled, vec![sword]);
        assert!(out.validate(&s).is_empty());
        // Key maps are exact at any time; the resampled prop at its key times.
        let times: &[f32] = &[0.0, 0.3, 0.77, 1.0];
        for &t in times {
            let mut want = Pose::rest(&s);
            m.mirror_pose(&Pose::sample(&s, &clip, t), &mut want)
                .unwrap();
            let got = Pose::sample(&s, &out, t);
            for (i, (a, b)) in want.locals.iter().zip(&got.locals).enumerate() {
                if i == sword.index() && t != 0.0 && t != 1.0 {
                    continue;
                }
                assert!(
                    a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6,
                    "{interpolation:?} {t} bone {i}"
                );
                assert!(
                    (a.translation - b.translation).length() < 1e-5,
                    "{interpolation:?} {t} bone {i}"
                );
            }
        }
        let (back, _) = mirror_clip(&m, &s, &out, &[]);
        for t in [0.0, 0.5, 1.0] {
            let (a, b) = (Pose::sample(&s, &clip, t), Pose::sample(&s, &back, t));
            let (a, b) = (joints(&s, &a), joints(&s, &b));
            let worst = a
                .iter()
                .zip(&b)
                .map(|(x, y)| (*x - *y).length())
                .fold(0.0, f32::max);
            // The prop's key times are those of the ancestors: exact at the keys only.
            let exact = t != 0.5 || interpolation == Interpolation::Step;
            assert!(
                !exact || worst < 1e-5 * s.height(),
                "{interpolation:?} {t}: {worst}"
            );
        }
    }
}

#[test]
fn the_plane_follows_the_character() {
    // The whole character turned 90° about Y inside its skeleton: its left is -Z... or +Z.
    let (mut s, map) = rig_with_extras(&[Quat::IDENTITY]);
    s.bones[0].rest.rotation = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
    let m = Mirror::new(&s, &map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
    assert!(
        m.normal().abs().abs_diff_eq(Vec3::Z, 1e-6),
        "{}",
        m.normal()
    );
    // Slightly off an axis, beyond the snap: kept as found.
    s.bones[0].rest.rotation = Quat::from_rotation_y(0.2);
    let m = Mirror::new(&s, &map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
    assert!(!m.snapped);
    assert!((m.normal().dot(Quat::from_rotation_y(0.2) * Vec3::X).abs() - 1.0).abs() < 1e-5);
}

fn model_of(s: Skeleton, clips: Vec<Clip>) -> Model {
    Model {
        skeletons: vec![s],
        clips,
        ..Default::default()
    }
}

#[test]
fn the_stage_replaces_or_adds_and_checks_first() {
    let (s, map) = rig_with_extras(&[Quat::IDENTITY]);
    let mut walk = clip_of(&s, Interpolation::Linear);
    walk.name = "walk".into();
    walk.source = Some(0);
    let mut model = model_of(s, vec![walk.clone()]);
    let p = Profile::humanoid();
    let r = mirror(
        &mut model,
        SkeletonId(0),
        &map,
        p,
        &MirrorOptions::default(),
    )
    .unwrap();
    assert_eq!(model.clips.len(), 1);
    assert_eq!(model.clips[0].name, "walk");
    assert_eq!(model.clips[0].source, Some(0));
    assert_ne!(model.clips[0].tracks, walk.tracks);
    assert_eq!(r.clips[0].output, "walk");
    assert_eq!(r.named_pairs, 1);
    assert!(r.mapped_pairs >= 20);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.code == WarningCode::MirrorResampled && w.bones == ["sword"]));
    let with_suffix = MirrorOptions {
        suffix: Some("_mirror".into()),
        ..Default::default()
    };
    mirror(&mut model, SkeletonId(0), &map, p, &with_suffix).unwrap();
    assert_eq!(model.clips.len(), 2);
    assert_eq!(model.clips[1].name, "walk_mirror");
    assert_eq!(model.clips[1].source, None);
    let before = model.clone();
    let err = mirror(&mut model, SkeletonId(0), &map, p, &with_suffix.clone()).unwrap_err();
    assert_eq!(err, MirrorError::ClipTaken("walk_mirror".into()));
    let only_run = MirrorOptions {
        clips: vec!["run".into()],
        ..Default::default()
    };
    let err = mirror(&mut model, SkeletonId(0), &map, p, &only_run).unwrap_err();
    assert!(
        matches!(err, MirrorError::NoClip { ref clip, .. } if clip == "run"),
        "{err}"
    );
    assert_eq!(model, before);
    // A chain has no left and right.
    let chain = crate::model::tests::chain(4);
    let chain_map = crate::mapping::BoneMap {
        entries: vec![None; p.bones.len()],
        warnings: vec![],
    };
    let mut model = model_of(chain, vec![]);
    let err = mirror(
        &mut model,
        SkeletonId(0),
        &chain_map,
        p,
        &MirrorOptions::default(),
    );
    assert!(matches!(err, Err(MirrorError::NoPlane { .. })));
}

#[test]
fn unpaired_side_bones_are_named() {
    let (mut s, map) = rig_with_extras(&[Quat::IDENTITY]);
    s.bones.pop(); // heel.R
    let m = Mirror::new(&s, &map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
    let w = m.symmetry.unpaired_warning(&s).unwrap();
    assert_eq!(w.bones, ["heel.L"]);
}

#[test]
fn sided_curves_trade_keys_and_others_stay() {
    // ALS's foot-lock curves (`FootLock_L`/`FootLock_R`) and its signed `Feet_Plant`, which names
    // no side; a sided curve without its counterpart stays as it is.
    let (s, map) = rig_with_extras(&[Quat::IDENTITY]);
    let curve = |name: &str, values: Vec<f32>| crate::model::Curve {
        name: name.into(),
        track: Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0, 0.5, 1.0].into(),
            values: values.into(),
        },
    };
    let mut walk = clip_of(&s, Interpolation::Linear);
    walk.curves = vec![
        curve("FootLock_L", vec![1.0, 1.0, 0.0]),
        curve("Feet_Plant", vec![-1.0, 0.0, 1.0]),
        curve("FootLock_R", vec![0.0, 0.25, 1.0]),
        curve("Enable_FootIK_L", vec![1.0, 0.5, 1.0]),
    ];
    let mut model = model_of(s, vec![walk.clone()]);
    let options = MirrorOptions::default();
    let p = Profile::humanoid();
    mirror(&mut model, SkeletonId(0), &map, p, &options).unwrap();
    let got = &model.clips[0].curves;
    let names: Vec<&str> = got.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["FootLock_L", "Feet_Plant", "FootLock_R", "Enable_FootIK_L"]
    );
    assert_eq!(got[0].track, walk.curves[2].track);
    assert_eq!(got[2].track, walk.curves[0].track);
    assert_eq!(got[1].track, walk.curves[1].track);
    assert_eq!(got[3].track, walk.curves[3].track);
    mirror(&mut model, SkeletonId(0), &map, p, &options).unwrap();
    assert_eq!(model.clips[0].curves, walk.curves);
}

//! Retargeting on rigs built in code: the profile's own skeleton and a copy of it at another
//! size, posed at random; every option and switch; chain modes and mapping; the retarget pose;
//! the errors.

use super::*;
use crate::mapping::testing::{identity_map, rig};
use crate::model::{BoneId, Transform};
use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;

/// The angle between two rotations, radians, accurate near 0 (f32 `acos` is not).
fn angle(a: Quat, b: Quat) -> f32 {
    crate::model::turn_deg(a.conjugate() * b).to_radians()
}

/// The profile rig scaled `k` times (every joint offset), a map, and the profile.
fn sized(k: f32) -> (Skeleton, BoneMap) {
    let mut s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    for b in &mut s.bones {
        b.rest.translation *= k;
    }
    let map = identity_map(&s, 0);
    (s, map)
}

fn random_pose(s: &Skeleton, turns: &[Quat], hips: Vec3) -> Pose {
    let mut p = Pose::rest(s);
    for (i, l) in p.locals.iter_mut().enumerate() {
        l.rotation = (l.rotation * turns[i % turns.len()]).normalize();
    }
    let h = s.find("Hips").unwrap().index();
    p.locals[h].translation += hips;
    p
}

/// Global rotations and positions of a pose in skeleton space.
fn globals(s: &Skeleton, p: &Pose) -> Vec<(Quat, Vec3)> {
    let w = p.world(s);
    w.iter()
        .map(|m| {
            let (_, r, t) = m.to_scale_rotation_translation();
            (r, t)
        })
        .collect()
}

/// `pose` of the rig `s` (mapped by `m`) retargeted onto the rig itself with `options`: the
/// output pose's globals.
fn onto_itself(
    s: &Skeleton,
    m: &BoneMap,
    pose: &Pose,
    options: &RetargetOptions,
) -> Vec<(Quat, Vec3)> {
    let rig = Rig {
        skeleton: s,
        map: m,
        profile: Profile::humanoid(),
    };
    let mut r = Retargeter::new(&rig, &rig, options).unwrap();
    let mut out = Pose::rest(s);
    r.retarget(pose, &mut out).unwrap();
    globals(s, &out)
}

/// The default passes followed by `ops`.
fn with_ops(ops: Vec<Op>) -> RetargetOptions {
    RetargetOptions {
        ops,
        ..RetargetOptions::default()
    }
}

/// How far apart `a` and `b` are horizontally.
fn across(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(a.x - b.x, 0.0, a.z - b.z).length()
}

fn quat() -> impl Strategy<Value = Quat> {
    (-0.6f32..0.6, -0.6f32..0.6, -0.6f32..0.6)
        .prop_map(|(x, y, z)| Quat::from_euler(glam::EulerRot::XYZ, x, y, z))
}

fn no_ik() -> RetargetOptions {
    RetargetOptions {
        ik: false,
        ..RetargetOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Between two rigs of the same shape and different size, every bone turns as the source's
    /// does, the hips move scaled by the size, bone lengths stay the target's; with leg IK the
    /// feet land exactly where the scaled source puts them.
    #[test]
    fn a_scaled_copy_follows_exactly(
        turns in proptest::collection::vec(quat(), 7),
        hips in (-0.3f32..0.3, -0.2f32..0.2, -0.3f32..0.3),
        k in 0.5f32..2.0,
        ik in any::<bool>(),
    ) {
        let profile = Profile::humanoid();
        let (ss, sm) = sized(1.0);
        let (ts, tm) = sized(k);
        let options = RetargetOptions { ik, ..RetargetOptions::default() };
        let mut r = Retargeter::new(
            &Rig { skeleton: &ss, map: &sm, profile },
            &Rig { skeleton: &ts, map: &tm, profile },
            &options,
        ).unwrap();
        prop_assert!((r.plan().hips_ratio - k).abs() < 1e-5);
        let sp = random_pose(&ss, &turns, Vec3::from(hips));
        let mut tp = Pose::rest(&ts);
        r.retarget(&sp, &mut tp).unwrap();
        let (gs, gt) = (globals(&ss, &sp), globals(&ts, &tp));
        let (rs, rt) = (globals(&ss, &Pose::rest(&ss)), globals(&ts, &Pose::rest(&ts)));
        for (i, b) in ts.bones.iter().enumerate() {
            let ds = gs[i].0 * rs[i].0.inverse();
            let dt = gt[i].0 * rt[i].0.inverse();
            prop_assert!(angle(ds, dt) < 1e-4, "{}: {}", b.name, angle(ds, dt));
            prop_assert!((gt[i].1 - gs[i].1 * k).length() < 1e-4 * k, "{} at {} not {}", b.name, gt[i].1, gs[i].1 * k);
            if b.name != "Hips" {
                prop_assert!((tp.locals[i].translation - b.rest.translation).length() < 1e-6);
            }
        }
    }
}

/// The profile rig with each shin `k` times as long (the foot's joint offset): a target whose
/// thigh:shin proportions are not the source's.
fn other_shins(k: f32) -> (Skeleton, BoneMap) {
    let (mut s, _) = sized(1.0);
    for side in ["Left", "Right"] {
        let f = s.find(&format!("{side}Foot")).unwrap().index();
        s.bones[f].rest.translation *= k;
    }
    let map = identity_map(&s, 0);
    (s, map)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Issue 42: onto legs of other proportions the leg IK keeps every thigh and shin (joint to
    /// joint) within its budget (`ik_max_leg_deg`) of the source's, as the FK pass leaves them
    /// exactly, the budget met within `kept_goal`'s tolerance (0.01°). Without the budget
    /// (180) the same poses put them up to several degrees off.
    #[test]
    fn the_leg_ik_keeps_the_legs_within_its_budget(
        turns in proptest::collection::vec(quat(), 7),
        hips in (-0.3f32..0.3, -0.2f32..0.2, -0.3f32..0.3),
        k in 0.6f32..1.6,
        budget in 0.5f32..10.0,
    ) {
        let profile = Profile::humanoid();
        let (ss, sm) = sized(1.0);
        let (ts, tm) = other_shins(k);
        let options = RetargetOptions { ik_max_leg_deg: budget, ..RetargetOptions::default() };
        let mut r = Retargeter::new(
            &Rig { skeleton: &ss, map: &sm, profile },
            &Rig { skeleton: &ts, map: &tm, profile },
            &options,
        ).unwrap();
        let sp = random_pose(&ss, &turns, Vec3::from(hips));
        let mut tp = Pose::rest(&ts);
        r.retarget(&sp, &mut tp).unwrap();
        let (gs, gt) = (globals(&ss, &sp), globals(&ts, &tp));
        for side in ["Left", "Right"] {
            let j = |g: &[(Quat, Vec3)], b: &str| g[ss.find(&format!("{side}{b}")).unwrap().index()].1;
            for (a, b) in [("UpperLeg", "LowerLeg"), ("LowerLeg", "Foot")] {
                let (s, t) = (j(&gs, b) - j(&gs, a), j(&gt, b) - j(&gt, a));
                let deg = s.angle_between(t).to_degrees();
                prop_assert!(deg <= budget + 0.02, "{side}{a}: {deg}° (budget {budget}°)");
            }
        }
    }
}

#[test]
fn in_place_and_root_motion_move_the_travel() {
    let profile = Profile::humanoid();
    let (s, m) = sized(1.0);
    let rig = Rig {
        skeleton: &s,
        map: &m,
        profile,
    };
    let hips = s.find("Hips").unwrap().index();
    let root = s.find("Root").unwrap().index();
    let turn = Quat::from_rotation_y(0.7) * Quat::from_rotation_x(0.2);
    let mut sp = Pose::rest(&s);
    sp.locals[hips].translation += Vec3::new(0.4, -0.1, 0.9);
    sp.locals[hips].rotation = turn * sp.locals[hips].rotation;
    let pose = |o: RetargetOptions| onto_itself(&s, &m, &sp, &o);
    let plain = pose(no_ik());
    let rest = globals(&s, &Pose::rest(&s));
    assert!((plain[hips].1 - (rest[hips].1 + Vec3::new(0.4, -0.1, 0.9))).length() < 1e-5);
    // In place: no horizontal travel, the height still follows.
    let still = pose(RetargetOptions {
        in_place: true,
        ..no_ik()
    });
    assert!(
        (still[hips].1 - Vec3::new(rest[hips].1.x, plain[hips].1.y, rest[hips].1.z)).length()
            < 1e-5
    );
    // Root motion: the same world pose of the hips, the travel and yaw on the root.
    let moved = pose(RetargetOptions {
        root_motion: true,
        ..no_ik()
    });
    assert!((moved[hips].1 - plain[hips].1).length() < 1e-5);
    assert!(angle(moved[hips].0, plain[hips].0) < 1e-4);
    assert!(
        (moved[root].1 - Vec3::new(0.4, rest[root].1.y, 0.9)).length() < 1e-5,
        "{}",
        moved[root].1
    );
    let yaw = moved[root].0 * rest[root].0.inverse();
    let (axis, angle) = yaw.to_axis_angle();
    assert!(
        axis.abs_diff_eq(Vec3::Y, 1e-4) && (angle - 0.7).abs() < 0.05,
        "{axis} {angle}"
    );
    // Root motion needs a root above the hips.
    let mut no_root = m.clone();
    no_root.entries[profile.find("Root").unwrap().index()] = None;
    let err = Retargeter::new(
        &rig,
        &Rig {
            skeleton: &s,
            map: &no_root,
            profile,
        },
        &RetargetOptions {
            root_motion: true,
            ..RetargetOptions::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, RetargetError::NoRootBone(_)), "{err}");
}

#[test]
fn the_global_switches_turn_passes_off() {
    let profile = Profile::humanoid();
    let (s, m) = sized(1.0);
    let rig = Rig {
        skeleton: &s,
        map: &m,
        profile,
    };
    let sp = random_pose(
        &s,
        &[Quat::from_rotation_z(0.4), Quat::from_rotation_x(-0.3)],
        Vec3::new(0.1, 0.05, 0.2),
    );
    let run = |o: RetargetOptions| {
        let mut r = Retargeter::new(&rig, &rig, &o).unwrap();
        let mut tp = Pose::rest(&s);
        r.retarget(&sp, &mut tp).unwrap();
        (tp, r.plan().limbs.len())
    };
    let hips = s.find("Hips").unwrap().index();
    let (tp, _) = run(RetargetOptions {
        root: false,
        ..RetargetOptions::default()
    });
    assert!((tp.locals[hips].translation - s.bones[hips].rest.translation).length() < 1e-6);
    let (tp, _) = run(RetargetOptions {
        fk: false,
        ik: false,
        ..RetargetOptions::default()
    });
    for (i, (l, b)) in tp.locals.iter().zip(&s.bones).enumerate() {
        if i != hips && b.name != "Root" {
            assert!(angle(l.rotation, b.rest.rotation) < 1e-5, "{}", b.name);
        }
    }
    assert_eq!(run(RetargetOptions::default()).1, 2, "leg IK by default");
    assert_eq!(run(no_ik()).1, 0);
    let mut arms = RetargetOptions::default();
    arms.chains.insert(
        "LeftArm".into(),
        ChainSettings {
            ik: Some(true),
            ..ChainSettings::default()
        },
    );
    assert_eq!(run(arms).1, 3);
}

#[test]
fn chain_modes_and_sources() {
    let profile = Profile::humanoid();
    let (s, m) = sized(1.0);
    let rig = Rig {
        skeleton: &s,
        map: &m,
        profile,
    };
    // The target lacks LeftShoulder: its arm chain has 3 bones against the source's 4.
    let mut short = m.clone();
    short.entries[profile.find("LeftShoulder").unwrap().index()] = None;
    let target = Rig {
        skeleton: &s,
        map: &short,
        profile,
    };
    let drivers = |mode: ChainMode| {
        let mut o = RetargetOptions::default();
        o.chains.insert(
            "LeftArm".into(),
            ChainSettings {
                mode,
                ..ChainSettings::default()
            },
        );
        let plan = plan::build(&rig, &target, &o).unwrap();
        let c = plan
            .chains
            .iter()
            .find(|c| c.chain == "LeftArm")
            .unwrap()
            .clone();
        let d: Vec<_> = c
            .target_ids
            .iter()
            .map(|b| plan.drivers[b.index()])
            .collect();
        (c, d)
    };
    let id = |n: &str| s.find(n).unwrap().0;
    let own = |n: &str| plan::Driver::Delta {
        a: id(n),
        b: id(n),
        w: 0.0,
    };
    // Issue 42: the source chain starts at the target's first bone, whatever the mode, so the
    // target's upper arm takes the source's upper arm's change, not its shoulder's.
    let (c, d) = drivers(ChainMode::OneToOne);
    assert_eq!(c.target_bones, ["LeftUpperArm", "LeftLowerArm", "LeftHand"]);
    assert_eq!(c.source_bones, c.target_bones);
    assert_eq!(d[0], own("LeftUpperArm"));
    let (_, d) = drivers(ChainMode::OneToOneReversed);
    assert_eq!(d[2], own("LeftHand"));
    assert_eq!(d[0], own("LeftUpperArm"));
    let (_, d) = drivers(ChainMode::None);
    assert!(d.iter().all(|x| *x == plan::Driver::Rest));
    let (c, d) = drivers(ChainMode::Interpolated);
    assert_eq!(c.target_u.first(), Some(&0.0));
    assert_eq!(c.target_u.last(), Some(&1.0));
    assert_eq!(
        d,
        [own("LeftUpperArm"), own("LeftLowerArm"), own("LeftHand")]
    );
    // The other way (the source lacks the shoulder): the target's shoulder keeps its rest below
    // the chest and the bones below it take their counterparts' changes.
    let short_source = Rig {
        skeleton: &s,
        map: &short,
        profile,
    };
    let plan = plan::build(&short_source, &rig, &RetargetOptions::default()).unwrap();
    let d = |n: &str| plan.drivers[s.find(n).unwrap().index()];
    assert_eq!(d("LeftShoulder"), plan::Driver::Rest);
    for n in ["LeftUpperArm", "LeftLowerArm", "LeftHand"] {
        assert!(
            matches!(d(n), plan::Driver::Delta { a, b, w }
                if (a == id(n) && w == 0.0) || (b == id(n) && w == 1.0)),
            "{n}: {:?}",
            d(n)
        );
    }
    // Another source chain: the left arm follows the source's right arm.
    let mut o = RetargetOptions::default();
    o.chains.insert(
        "LeftArm".into(),
        ChainSettings {
            source: Some("RightArm".into()),
            ..ChainSettings::default()
        },
    );
    let plan = plan::build(&rig, &rig, &o).unwrap();
    let hand = s.find("LeftHand").unwrap().index();
    assert_eq!(
        plan.drivers[hand],
        plan::Driver::Delta {
            a: id("RightHand"),
            b: id("RightHand"),
            w: 0.0
        }
    );
}

#[test]
fn differently_named_chains_pair_by_the_closest_name() {
    let text = include_str!("../../profiles/humanoid.ron")
        .replace("name: \"LeftArm\"", "name: \"Left_Arm\"")
        .replace("name: \"RightLeg\"", "name: \"Right_Leg\"");
    let custom = Profile::from_ron(&text, "custom").unwrap();
    let (s, m) = sized(1.0);
    let source = Rig {
        skeleton: &s,
        map: &m,
        profile: Profile::humanoid(),
    };
    let target = Rig {
        skeleton: &s,
        map: &m,
        profile: &custom,
    };
    let plan = plan::build(&source, &target, &RetargetOptions::default()).unwrap();
    let arm = plan.chains.iter().find(|c| c.chain == "Left_Arm").unwrap();
    assert_eq!(arm.source_chain.as_deref(), Some("LeftArm"));
    let fuzzy: Vec<&str> = plan
        .warnings
        .iter()
        .filter(|w| w.code == crate::model::WarningCode::ChainByFuzzyName)
        .filter_map(|w| w.chain.as_deref())
        .collect();
    assert_eq!(fuzzy, ["Left_Arm", "Right_Leg"]);
    assert!(
        plan.limbs.len() == 2,
        "IK still on both legs: {}",
        plan.limbs.len()
    );
}

#[test]
fn a_retarget_pose_stands_in_for_a_t_pose() {
    let profile = Profile::humanoid();
    let (t, tm) = sized(1.0);
    // The source's left arm rests 45° down (an A-pose nobody normalized); the offset lifts it.
    let mut a = t.clone();
    let arm = a.find("LeftUpperArm").unwrap().index();
    let down = Quat::from_rotation_z(-45f32.to_radians());
    a.bones[arm].rest.rotation = (a.bones[arm].rest.rotation * down).normalize();
    let am = identity_map(&a, 0);
    let turns = [Quat::from_rotation_x(0.3), Quat::from_rotation_y(-0.2)];
    // The same poses on both sources (the A-posed source's clip lifts the arm to where the
    // T-posed one's does): only their rests differ.
    let tp_src = random_pose(&t, &turns, Vec3::ZERO);
    let ap_src = tp_src.clone();
    let mut options = no_ik();
    options
        .pose
        .source
        .insert("LeftUpperArm".into(), [0.0, 0.0, 45.0]);
    let out = |src: &Skeleton, map: &BoneMap, pose: &Pose, o: &RetargetOptions| {
        let mut r = Retargeter::new(
            &Rig {
                skeleton: src,
                map,
                profile,
            },
            &Rig {
                skeleton: &t,
                map: &tm,
                profile,
            },
            o,
        )
        .unwrap();
        let mut tp = Pose::rest(&t);
        r.retarget(pose, &mut tp).unwrap();
        tp
    };
    let want = out(&t, &tm, &tp_src, &no_ik());
    let got = out(&a, &am, &ap_src, &options);
    for (i, (x, y)) in want.locals.iter().zip(&got.locals).enumerate() {
        assert!(
            angle(x.rotation, y.rotation) < 1e-4,
            "{}: {}",
            t.bones[i].name,
            angle(x.rotation, y.rotation)
        );
    }
    // Without the offset the arm comes out 45° off.
    let off = out(&a, &am, &ap_src, &no_ik());
    let lower = t.find("LeftLowerArm").unwrap().index();
    let g = |p: &Pose| globals(&t, p)[lower].0;
    assert!(angle(g(&off), g(&want)) > 0.5);
}

#[test]
fn bad_input_is_refused_with_the_reason() {
    let profile = Profile::humanoid();
    let (s, m) = sized(1.0);
    let rig = Rig {
        skeleton: &s,
        map: &m,
        profile,
    };
    // Hips on the floor at rest: the legs give the scale (a clip-only rig, issue 43)...
    let mut flat = s.clone();
    let h = flat.find("Hips").unwrap().index();
    let root = flat.find("Root").unwrap().index();
    flat.bones[root].rest = Transform::default();
    flat.bones[h].rest.translation = Vec3::ZERO;
    let flat_rig = Rig {
        skeleton: &flat,
        map: &m,
        profile,
    };
    let r = Retargeter::new(&flat_rig, &rig, &RetargetOptions::default()).unwrap();
    assert_eq!(r.plan().scale_basis, ScaleBasis::Legs);
    // ... without legs there is nothing to scale by.
    let mut legless = m.clone();
    for side in ["Left", "Right"] {
        for b in ["UpperLeg", "LowerLeg", "Foot", "Toes"] {
            if let Some(p) = profile.find(&format!("{side}{b}")) {
                legless.entries[p.index()] = None;
            }
        }
    }
    let err = Retargeter::new(
        &Rig {
            skeleton: &flat,
            map: &legless,
            profile,
        },
        &rig,
        &RetargetOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, RetargetError::HipsHeight { .. }), "{err}");
    assert!(err.to_string().contains("hips height"));
    let mut o = RetargetOptions::default();
    o.chains.insert("Tail".into(), ChainSettings::default());
    assert!(matches!(
        Retargeter::new(&rig, &rig, &o),
        Err(RetargetError::UnknownChain { .. })
    ));
    let mut o = RetargetOptions::default();
    o.pose.target.insert("Wing".into(), [0.0; 3]);
    assert!(matches!(
        Retargeter::new(&rig, &rig, &o),
        Err(RetargetError::UnknownBone { .. })
    ));
    let mut o = RetargetOptions::default();
    o.chains.insert(
        "LeftLeg".into(),
        ChainSettings {
            ik_blend: 2.0,
            ..ChainSettings::default()
        },
    );
    assert!(matches!(
        Retargeter::new(&rig, &rig, &o),
        Err(RetargetError::BadOption(_))
    ));
    // Poses of the wrong size are an error, not a panic.
    let mut r = Retargeter::new(&rig, &rig, &RetargetOptions::default()).unwrap();
    let mut small = Pose {
        locals: vec![Transform::default(); 3],
    };
    let err = r.retarget(&Pose::rest(&s), &mut small).unwrap_err();
    assert!(matches!(
        err,
        RetargetError::PoseSize { side: "target", .. }
    ));
}

/// The profile rig with legs `k` times as long, its thighs `spread` times as far apart, and its
/// hips joint `lift` above where it was (the thighs hanging as far below it): a robot's hips.
fn long_legged(k: f32, spread: f32, lift: f32) -> (Skeleton, BoneMap) {
    let (mut s, _) = sized(1.0);
    for side in ["Left", "Right"] {
        for b in ["LowerLeg", "Foot", "Toes"] {
            let i = s.find(&format!("{side}{b}")).unwrap().index();
            s.bones[i].rest.translation *= k;
        }
        let i = s.find(&format!("{side}UpperLeg")).unwrap().index();
        let t = &mut s.bones[i].rest.translation;
        t.x *= spread;
        t.y -= lift;
    }
    let h = s.find("Hips").unwrap().index();
    s.bones[h].rest.translation.y += lift;
    let map = identity_map(&s, 0);
    (s, map)
}

fn pelvis(s: &Skeleton, g: &[(Quat, Vec3)]) -> Vec3 {
    let at = |n: &str| g[s.find(n).unwrap().index()].1;
    (at("LeftUpperLeg") + at("RightUpperLeg")) * 0.5
}

/// The ratio compares the legs, not the hips' heights (which differ by where each rig puts its
/// hips joint), and the target's pelvis (the thighs' midpoint) moves from its rest as the
/// source's does, scaled, whatever the hips joint's place above it and the hips' tilt.
#[test]
fn the_ratio_compares_the_legs_and_the_pelvis_moves_as_the_sources() {
    let profile = Profile::humanoid();
    let (ss, sm) = sized(1.0);
    let (ts, tm) = long_legged(1.5, 1.0, 0.1);
    let mut r = Retargeter::new(
        &Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
        &no_ik(),
    )
    .unwrap();
    let plan = r.plan();
    assert_eq!(plan.scale_basis, ScaleBasis::Legs);
    assert!((plan.hips_ratio - 1.5).abs() < 1e-5, "{}", plan.hips_ratio);
    let (ls, lt) = (
        plan.source_leg_length.unwrap(),
        plan.target_leg_length.unwrap(),
    );
    assert!((lt / ls - 1.5).abs() < 1e-5);
    // The hips heights' ratio would have been another figure.
    assert!((plan.target_hips_height / plan.source_hips_height - 1.5).abs() > 0.05);
    let h = ss.find("Hips").unwrap().index();
    let mut sp = Pose::rest(&ss);
    sp.locals[h].translation += Vec3::new(0.2, -0.15, 0.3);
    sp.locals[h].rotation = Quat::from_rotation_z(0.3) * Quat::from_rotation_y(0.8);
    let mut tp = Pose::rest(&ts);
    r.retarget(&sp, &mut tp).unwrap();
    let moved =
        |s: &Skeleton, p: &Pose| pelvis(s, &globals(s, p)) - pelvis(s, &globals(s, &Pose::rest(s)));
    let (ms, mt) = (moved(&ss, &sp), moved(&ts, &tp));
    assert!(
        (mt - ms * 1.5).length() < 1e-5,
        "pelvis moved {mt}, want {}",
        ms * 1.5
    );
    // Moving the hips joint instead (the old way) would have missed by the tilt of the lift.
    let th = ts.find("Hips").unwrap().index();
    let hips_moved = globals(&ts, &tp)[th].1 - globals(&ts, &Pose::rest(&ts))[th].1;
    assert!((hips_moved - ms * 1.5).length() > 0.01);
}

/// `s` with its thighs hanging beside the hips from a `Body` bone that carries both (the
/// RobotExpressive layout: `Body` takes the hips' rest, the hips sit on its joint), re-mapped.
fn carried(s: &Skeleton) -> (Skeleton, BoneMap) {
    let h = s.find("Hips").unwrap().index();
    let shift = |b: BoneId| BoneId(if b.index() >= h { b.0 + 1 } else { b.0 });
    let mut bones: Vec<crate::model::Bone> = s.bones.clone();
    for b in &mut bones {
        b.parent = b.parent.map(shift);
    }
    let body = crate::model::Bone {
        name: "Body".into(),
        node: None,
        ..bones[h].clone()
    };
    bones[h].parent = Some(BoneId(h as u32));
    bones[h].rest = Transform::IDENTITY;
    bones.insert(h, body);
    for thigh in ["LeftUpperLeg", "RightUpperLeg"] {
        let i = bones.iter().position(|b| b.name == thigh).unwrap();
        bones[i].parent = Some(BoneId(h as u32));
    }
    let out = Skeleton {
        bones,
        skins: Vec::new(),
        ..s.clone()
    };
    let map = identity_map(&out, 0);
    (out, map)
}

/// Issue 42: where the thighs hang beside the hips from a bone that carries both
/// (RobotExpressive's `Body`), the pelvis still moves as the source's does, scaled, when the
/// hips turn: the root pass takes the pelvis where the thighs follow the hips' turn, not where
/// they hang at rest below the carrier (which missed by the turn of the pelvis's offset from
/// the hips joint: 0.084 leg lengths on CMU → RobotExpressive).
#[test]
fn the_pelvis_moves_as_the_sources_when_the_legs_hang_beside_the_hips() {
    let profile = Profile::humanoid();
    let (ss, sm) = sized(1.0);
    let (ts, tm) = carried(&long_legged(1.5, 1.6, 0.1).0);
    let (srig, trig) = (
        Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
    );
    let mut r = Retargeter::new(&srig, &trig, &no_ik()).unwrap();
    assert!(
        r.plan().target_carrier.is_some(),
        "the layout has a carrier"
    );
    let k = r.plan().hips_ratio;
    let h = ss.find("Hips").unwrap().index();
    let mut sp = Pose::rest(&ss);
    sp.locals[h].translation += Vec3::new(0.2, -0.15, 0.3);
    sp.locals[h].rotation = Quat::from_rotation_z(0.3) * Quat::from_rotation_y(1.9);
    let mut tp = Pose::rest(&ts);
    r.retarget(&sp, &mut tp).unwrap();
    let moved =
        |s: &Skeleton, p: &Pose| pelvis(s, &globals(s, p)) - pelvis(s, &globals(s, &Pose::rest(s)));
    let (ms, mt) = (moved(&ss, &sp), moved(&ts, &tp));
    assert!(
        (mt - ms * k).length() < 1e-5,
        "pelvis moved {mt}, want {}",
        ms * k
    );
}

/// With `ik_blend: 1` each foot goes where the source's moves below its pelvis, scaled, from
/// the target's own rest place turned with the hips' heading: a wider stance stays wider after
/// a turn, which is what `check::retarget` measures (0 here).
#[test]
fn feet_at_the_source_position_keep_the_target_stance_turned() {
    let profile = Profile::humanoid();
    let (ss, sm) = sized(1.0);
    let (ts, tm) = long_legged(1.2, 1.6, 0.05);
    let mut options = RetargetOptions::default();
    for leg in ["LeftLeg", "RightLeg"] {
        options.chains.insert(
            leg.into(),
            ChainSettings {
                ik_blend: 1.0,
                ..ChainSettings::default()
            },
        );
    }
    let (srig, trig) = (
        Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
    );
    let mut r = Retargeter::new(&srig, &trig, &options).unwrap();
    let k = r.plan().hips_ratio;
    let h = ss.find("Hips").unwrap().index();
    let knee = ss.find("LeftLowerLeg").unwrap().index();
    let mut sp = Pose::rest(&ss);
    let yaw = Quat::from_rotation_y(1.9);
    sp.locals[h].translation += Vec3::new(0.1, -0.08, 0.2);
    sp.locals[h].rotation = yaw * sp.locals[h].rotation;
    sp.locals[knee].rotation *= Quat::from_rotation_x(0.6);
    let mut tp = Pose::rest(&ts);
    r.retarget(&sp, &mut tp).unwrap();
    let below_pelvis = |s: &Skeleton, g: &[(Quat, Vec3)], foot: &str| {
        g[s.find(foot).unwrap().index()].1 - pelvis(s, g)
    };
    for foot in ["LeftFoot", "RightFoot"] {
        let moved = |s: &Skeleton, p: &Pose| {
            below_pelvis(s, &globals(s, p), foot)
                - yaw * below_pelvis(s, &globals(s, &Pose::rest(s)), foot)
        };
        let (ms, mt) = (moved(&ss, &sp), moved(&ts, &tp));
        assert!((mt - ms * k).length() < 1e-4, "{foot}: {mt} not {}", ms * k);
    }
}

/// Issue 42, why a retarget without planting skates more than its source in leg lengths: the
/// feet go where the previous test says, so between two frames a target foot moves as the
/// source's, scaled, plus the turn of `D`, the difference of the two stances (the target's rest
/// foot below its pelvis less the source's, scaled), by the change of the hips' heading. On a
/// scaled copy `D` is 0 and the feet move exactly as the source's (math.md's "an exact
/// transfer skates the same in leg lengths"); on a wider target a turn of the hips over a
/// planted foot moves it (CMU → RobotExpressive: `D` 0.328 leg lengths, the hips turning
/// 3.17° a frame over the left foot's contacts, 1.81% of the leg length a frame).
#[test]
fn between_frames_a_foot_moves_as_the_sources_plus_the_turn_of_the_stances_difference() {
    let profile = Profile::humanoid();
    let (ss, sm) = sized(1.0);
    let h = ss.find("Hips").unwrap().index();
    let knees = ["LeftLowerLeg", "RightLowerLeg"].map(|n| ss.find(n).unwrap().index());
    let (turn, bent) = (Quat::from_rotation_y(0.5), Quat::from_rotation_x(0.5));
    let mut frames = [Pose::rest(&ss), Pose::rest(&ss)];
    for p in &mut frames {
        for &k in &knees {
            p.locals[k].rotation *= bent;
        }
    }
    frames[1].locals[h].translation += Vec3::new(0.05, -0.02, 0.1);
    frames[1].locals[h].rotation = turn * frames[1].locals[h].rotation;
    let source = Rig {
        skeleton: &ss,
        map: &sm,
        profile,
    };
    for ((ts, tm), wide) in [(sized(1.5), false), (long_legged(1.5, 1.8, 0.05), true)] {
        let target = Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        };
        let mut r = Retargeter::new(&source, &target, &RetargetOptions::default()).unwrap();
        let k = r.plan().hips_ratio;
        let out = frames.clone().map(|sp| {
            let mut tp = Pose::rest(&ts);
            r.retarget(&sp, &mut tp).unwrap();
            globals(&ts, &tp)
        });
        let rest = |s: &Skeleton| globals(s, &Pose::rest(s));
        for foot in ["LeftFoot", "RightFoot"] {
            let at = |s: &Skeleton, g: &[(Quat, Vec3)]| g[s.find(foot).unwrap().index()].1;
            let below = |s: &Skeleton, g: &[(Quat, Vec3)]| at(s, g) - pelvis(s, g);
            let d = below(&ts, &rest(&ts)) - below(&ss, &rest(&ss)) * k;
            let sg = frames.clone().map(|p| globals(&ss, &p));
            let moved_s = at(&ss, &sg[1]) - at(&ss, &sg[0]);
            let moved_t = at(&ts, &out[1]) - at(&ts, &out[0]);
            let extra = moved_t - moved_s * k;
            assert!(
                (extra - (turn * d - d)).length() < 1e-4,
                "{foot}: {extra} not the turn of {d}"
            );
            // A scaled copy's stance is the source's, scaled: no extra move.
            assert_eq!(d.length() > 0.01, wide, "{foot}: stance difference {d}");
        }
    }
}

/// Issue 42, why CMU → ModularMen_Casual's legs are 15.46° off at worst after the leg IK: not
/// the IK near full extension but the legs' proportions. The IK pass puts the foot at the
/// source's reach (its direction from the hip and its length over the leg's); the thigh then
/// makes the angle the law of cosines gives with that line, which differs from the source's
/// where the thigh's share of the leg differs (CMU 0.513, ModularMen 0.459: at frame 197, the
/// foot 0.38 of the leg from the hip, 64.0° against 79.5°). Here the profile rig drives a copy
/// whose thigh is 0.4 of the same leg: with the knee bent (the foot 0.54 of the leg from the
/// hip), the target's thigh is off by that difference, 20.4° (not by the swivel: the knee
/// stays in the source's plane), while the foot is where the source's reach says. Moving the
/// foot within the feet's bound (1% of the height, 0.019 leg lengths) could take back about 2°
/// of CMU's frame 197 by the reach and 2.9° by its direction, not the 13.5° that issue 42's 2°
/// on the legs asks: on that pair both cannot hold. Measured with the feet placed exactly
/// (`ik_max_leg_deg: 180`); the default budget (2°) trades the foot's place for the legs'
/// directions instead: thigh and shin within 2°, the foot short of the source's reach.
#[test]
fn a_deep_knee_bend_turns_the_thigh_by_the_proportions_difference() {
    let profile = Profile::humanoid();
    let (ss, sm) = sized(1.0);
    let (mut ts, _) = sized(1.0);
    let id = |s: &Skeleton, n: &str| s.find(n).unwrap().index();
    let (knee, ankle) = (id(&ts, "LeftLowerLeg"), id(&ts, "LeftFoot"));
    let (thigh, shin) = (
        ts.bones[knee].rest.translation.length(),
        ts.bones[ankle].rest.translation.length(),
    );
    let leg = thigh + shin;
    // The same leg length, the thigh 0.4 of it.
    ts.bones[knee].rest.translation *= 0.4 * leg / thigh;
    ts.bones[ankle].rest.translation *= 0.6 * leg / shin;
    let tm = identity_map(&ts, 0);
    let mut r = Retargeter::new(
        &Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
        &RetargetOptions {
            ik_max_leg_deg: 180.0,
            ..RetargetOptions::default()
        },
    )
    .unwrap();
    let mut sp = Pose::rest(&ss);
    let (h, k) = (id(&ss, "LeftUpperLeg"), id(&ss, "LeftLowerLeg"));
    sp.locals[h].rotation *= Quat::from_rotation_x(-1.2);
    sp.locals[k].rotation *= Quat::from_rotation_x(2.0);
    let mut tp = Pose::rest(&ts);
    r.retarget(&sp, &mut tp).unwrap();
    let (gs, gt) = (globals(&ss, &sp), globals(&ts, &tp));
    let joints = |s: &Skeleton, g: &[(Quat, Vec3)]| {
        ["LeftUpperLeg", "LeftLowerLeg", "LeftFoot"].map(|n| g[id(s, n)].1)
    };
    let ([hs, ks, fs], [ht, kt, ft]) = (joints(&ss, &gs), joints(&ts, &gt));
    // The hip's angle between the thigh and the line to the foot, of legs `a`, `b` reaching
    // `c` (law of cosines).
    let at_hip = |a: f32, b: f32, c: f32| ((a * a + c * c - b * b) / (2.0 * a * c)).acos();
    let (ls, lt) = (
        hs.distance(ks) + ks.distance(fs),
        ht.distance(kt) + kt.distance(ft),
    );
    let reach = fs.distance(hs) / ls;
    assert!(reach < 0.6, "a deep bend: {reach}");
    // The foot is at the source's reach: its direction, and its length over the leg's.
    assert!(((ft - ht) / lt - (fs - hs) / ls).length() < 1e-4);
    let want = (at_hip(hs.distance(ks), ks.distance(fs), reach * ls)
        - at_hip(ht.distance(kt), kt.distance(ft), reach * lt))
    .abs();
    let off = (kt - ht).angle_between(ks - hs);
    assert!(want.to_degrees() > 5.0, "{}", want.to_degrees());
    assert!(
        (off - want).abs().to_degrees() < 0.05,
        "thigh {}° off, the proportions say {}°",
        off.to_degrees(),
        want.to_degrees()
    ); // With the default budget: thigh and shin within it, the foot short of the source's reach.
    let mut r = Retargeter::new(
        &Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
        &RetargetOptions::default(),
    )
    .unwrap();
    let mut tp = Pose::rest(&ts);
    r.retarget(&sp, &mut tp).unwrap();
    let gt = globals(&ts, &tp);
    let [ht, kt, ft] = joints(&ts, &gt);
    assert!((kt - ht).angle_between(ks - hs).to_degrees() <= 2.02);
    assert!((ft - kt).angle_between(fs - ks).to_degrees() <= 2.02);
    assert!(((ft - ht) / lt - (fs - hs) / ls).length() > 0.05);
}

/// The floor brings a height the leg cannot reach at the foot's horizontal place within reach
/// there: straight legs leaning sideways, asked to reach a floor below them, keep their feet
/// where the IK pass put them (they had straightened toward the goal below each foot and
/// dragged it toward the point below the hip), and no foot ends below the floor.
#[test]
fn the_floor_does_not_drag_a_foot_it_cannot_lower() {
    let (s, m) = sized(1.0);
    let h = s.stature();
    let mut pose = Pose::rest(&s);
    for thigh in ["LeftUpperLeg", "RightUpperLeg"] {
        let i = s.find(thigh).unwrap().index();
        pose.locals[i].rotation = Quat::from_rotation_z(0.2) * pose.locals[i].rotation;
    }
    let run = |ops: Vec<Op>| onto_itself(&s, &m, &pose, &with_ops(ops));
    let floor = -0.1 * h;
    let with_floor = Op::Floor(FloorOp {
        height: floor,
        ..FloorOp::default()
    });
    let (without, with) = (run(vec![]), run(vec![with_floor]));
    let rest = globals(&s, &Pose::rest(&s));
    for foot in ["LeftFoot", "RightFoot"] {
        let i = s.find(foot).unwrap().index();
        let (a, b) = (without[i].1, with[i].1);
        assert!(
            a.x - rest[i].1.x > 0.05 * h || rest[i].1.x - a.x > 0.05 * h,
            "{foot}: the leg leans ({a} against {})",
            rest[i].1
        );
        let moved = across(b, a);
        assert!(moved <= 1e-5 * h, "{foot}: moved {moved} by the floor");
        assert!(b.y >= floor, "{foot}: {b} below the floor");
    }
}

/// The IK pass keeps a foot whose goal is just out of reach below a leg near vertical at the
/// goal's horizontal place, held higher (a standing foot does not slide as the hips bob), and
/// takes a far-out goal (a lunge) to the nearest point the leg reaches, on the line from the hip.
/// The source is the target's own rig with its shin stretched (the foot's offset 8% longer), so
/// the goal (the source's foot) is out of the target leg's reach by that much.
#[test]
fn a_foot_out_of_reach_keeps_its_place_below_the_hips_not_in_a_lunge() {
    let (s, m) = sized(1.0);
    let h = s.stature();
    let [thigh, shin, foot] =
        ["LeftUpperLeg", "LeftLowerLeg", "LeftFoot"].map(|n| s.find(n).unwrap().index());
    let rest = globals(&s, &Pose::rest(&s));
    let length = rest[shin].1.distance(rest[thigh].1) + rest[foot].1.distance(rest[shin].1);
    for (lean, keeps_place) in [(0.2f32, true), (0.6, false)] {
        let mut pose = Pose::rest(&s);
        pose.locals[thigh].rotation = Quat::from_rotation_z(lean) * pose.locals[thigh].rotation;
        pose.locals[foot].translation *= 1.08;
        let goal = globals(&s, &pose)[foot].1;
        let g = onto_itself(&s, &m, &pose, &RetargetOptions::default());
        let (hip, end) = (g[thigh].1, g[foot].1);
        let miss = goal.distance(hip) - length;
        assert!(
            miss > 0.01 * h,
            "lean {lean}: the goal is out of reach by {miss}"
        );
        assert!(
            end.distance(hip) <= length * (1.0 + 1e-5),
            "lean {lean}: the foot is out of the leg's reach"
        );
        let across = across(end, goal);
        if keeps_place {
            assert!(
                across <= 1e-5 * h,
                "lean {lean}: the foot moved {across} across"
            );
            let lift = end.y - goal.y;
            assert!(
                lift > miss && lift <= 1.1 * miss,
                "lean {lean}: held {lift} higher for a miss of {miss}"
            );
        } else {
            // The nearest point: on the line from the hip to the goal, `length` from the hip.
            let nearest = hip + (goal - hip).normalize() * length;
            assert!(
                end.distance(nearest) <= 1e-4 * h,
                "lean {lean}: the foot is {} from the nearest point",
                end.distance(nearest)
            );
            assert!(across > 0.01 * h, "lean {lean}: it kept its place");
        }
    }
}

/// Pelvis motion (`PlantOp::max_pelvis_shift`): a foot whose goal is beyond the leg's reach in a
/// lunge (the source's shin stretched 8%, its thigh leaning 0.6 rad) is reached by moving the
/// hips toward it, horizontally and at most `max_pelvis_shift` of the height; the other foot
/// (its knee bent) keeps its place. At 0 (and without the change) the foot stops at the nearest point the leg
/// reaches, more than 1% of the height across from its goal.
#[test]
fn pelvis_motion_moves_the_hips_toward_a_foot_out_of_reach() {
    let (s, m) = sized(1.0);
    let h = s.stature();
    let [hips, thigh, foot, other_thigh, other_shin, other] = [
        "Hips",
        "LeftUpperLeg",
        "LeftFoot",
        "RightUpperLeg",
        "RightLowerLeg",
        "RightFoot",
    ]
    .map(|n| s.find(n).unwrap().index());
    let mut pose = Pose::rest(&s);
    pose.locals[thigh].rotation = Quat::from_rotation_z(0.6) * pose.locals[thigh].rotation;
    // The other knee bent, so that its foot has room to keep its place as the hips move.
    let bend = |pose: &mut Pose, i: usize, a: f32| {
        pose.locals[i].rotation = Quat::from_rotation_x(a) * pose.locals[i].rotation;
    };
    bend(&mut pose, other_thigh, -0.4);
    bend(&mut pose, other_shin, 0.8);
    pose.locals[foot].translation *= 1.08;
    let goal = globals(&s, &pose)[foot].1;
    let run = |max: f32| {
        let plant = Op::Plant(PlantOp {
            max_pelvis_shift: max,
            ..PlantOp::default()
        });
        onto_itself(&s, &m, &pose, &with_ops(vec![plant]))
    };
    let (off, on) = (run(0.0), run(0.2));
    let off_goal = |g: &[(Quat, Vec3)]| across(g[foot].1, goal);
    assert!(off_goal(&off) > 0.01 * h, "off: {}", off_goal(&off));
    assert!(
        on[foot].1.distance(goal) <= 1e-4 * h,
        "on: the foot is {} from its goal",
        on[foot].1.distance(goal)
    );
    let moved = on[hips].1 - off[hips].1;
    assert!(moved.y.abs() <= 1e-6 * h, "the hips moved up {}", moved.y);
    let flat = across(on[hips].1, off[hips].1);
    assert!(
        flat > 0.01 * h && flat <= 0.2 * h * (1.0 + 1e-5),
        "the hips moved {flat}"
    );
    assert!(
        on[other].1.distance(off[other].1) <= 1e-5 * h,
        "the other foot moved {}",
        on[other].1.distance(off[other].1)
    );
    // Limited: a shift of 1% of the height does not reach it.
    let short = run(0.01);
    assert!(across(short[hips].1, off[hips].1) <= 0.01 * h * (1.0 + 1e-4));
    assert!(off_goal(&short) > 1e-3 * h);
}

/// The hips' tilt for the legs' reach: onto hips three times as wide, the source's hips rolled
/// (and turned) with straight legs put the raised hip's foot, measured from the pelvis, beyond
/// the target's reach (its hip joint rises three times as far). The target's hips tilt back
/// about the source's own axis, keeping their heading, by just enough that the leg reaches:
/// both feet land where the source's say (from the pelvis), the pelvis stays where the root
/// pass put it and the spine keeps its turn. The same pose onto a rig as wide, or narrower,
/// tilts nothing (a miss there is not the hips' width).
#[test]
fn wide_hips_tilt_back_so_that_a_straight_leg_reaches() {
    let profile = Profile::humanoid();
    let (ss, sm) = sized(1.0);
    let (wide, wm) = long_legged(1.0, 3.0, 0.0);
    let height = wide.stature();
    let mut sp = Pose::rest(&ss);
    let [hips, spine] = ["Hips", "Spine"].map(|n| ss.find(n).unwrap().index());
    let (yaw, roll) = (Quat::from_rotation_y(0.8), Quat::from_rotation_z(0.25));
    sp.locals[hips].rotation = yaw * roll * sp.locals[hips].rotation;
    sp.locals[hips].translation += Vec3::new(0.05, -0.02, 0.1);
    let run = |ts: &Skeleton, tm: &BoneMap| {
        let mut r = Retargeter::new(
            &Rig {
                skeleton: &ss,
                map: &sm,
                profile,
            },
            &Rig {
                skeleton: ts,
                map: tm,
                profile,
            },
            &RetargetOptions::default(),
        )
        .unwrap();
        let mut tp = Pose::rest(ts);
        r.retarget(&sp, &mut tp).unwrap();
        (globals(ts, &tp), r.plan().hips_ratio)
    };
    let change = |s: &Skeleton, g: &[(Quat, Vec3)], i: usize| {
        g[i].0 * globals(s, &Pose::rest(s))[i].0.inverse()
    };
    let gs = globals(&ss, &sp);
    let source_turn = change(&ss, &gs, hips);
    // Onto the source's own rig, or narrower hips: the hips turn as the source's.
    let (same, _) = run(&ss, &sm);
    assert!(angle(change(&ss, &same, hips), source_turn) < 1e-6);
    let (narrow, nm) = long_legged(1.0, 0.5, 0.0);
    let (g, _) = run(&narrow, &nm);
    assert!(angle(change(&narrow, &g, hips), source_turn) < 1e-6);
    let (gt, k) = run(&wide, &wm);
    let (rs, rt) = (
        globals(&ss, &Pose::rest(&ss)),
        globals(&wide, &Pose::rest(&wide)),
    );
    // The pelvis moves as the source's, scaled.
    let pelvis_moved = pelvis(&wide, &gt) - pelvis(&wide, &rt);
    let source_moved = pelvis(&ss, &gs) - pelvis(&ss, &rs);
    assert!((pelvis_moved - source_moved * k).length() < 1e-5 * height);
    // Heading kept; tilted about the source's axis, by less than the source's tilt.
    let turn = change(&wide, &gt, hips);
    let heading = crate::model::yaw_of(turn);
    assert!(angle(heading, yaw) < 1e-4, "heading {heading}");
    let (axis, tilt) = (turn * heading.inverse()).to_axis_angle();
    // The source's tilt, `yaw * roll`, is a roll about +Z turned with the heading.
    assert!(axis.abs_diff_eq(yaw * Vec3::Z, 1e-3), "tilt axis {axis}");
    assert!(tilt > 0.05 && tilt < 0.25 - 0.05, "tilted {tilt} of 0.25");
    assert!(angle(change(&wide, &gt, spine), change(&ss, &gs, spine)) < 1e-4);
    let mut straight = 0;
    for [thigh, foot] in [["LeftUpperLeg", "LeftFoot"], ["RightUpperLeg", "RightFoot"]] {
        let [thigh, foot] = [thigh, foot].map(|n| wide.find(n).unwrap().index());
        // From the pelvis, as `check::retarget` measures: where the source says, scaled.
        let below = |g: &[(Quat, Vec3)], s: &Skeleton| g[foot].1 - pelvis(s, g);
        let moved_s = below(&gs, &ss) - yaw * below(&rs, &ss);
        let moved_t = below(&gt, &wide) - yaw * below(&rt, &wide);
        assert!(
            (moved_t - moved_s * k).length() < 1e-4 * height,
            "foot {foot}: {moved_t} not {}",
            moved_s * k
        );
        // With the source's whole tilt, this leg could not have reached its foot.
        let length = rt[thigh].1.distance(rt[foot].1);
        let full_hip = pelvis(&wide, &gt) + source_turn * (rt[thigh].1 - pelvis(&wide, &rt));
        let reached = gt[foot].1.distance(gt[thigh].1);
        if gt[foot].1.distance(full_hip) > length + 0.01 * height {
            // Tilted back just enough: this leg is straight.
            assert!(
                (reached - length).abs() < 1e-4 * height,
                "{reached} of {length}"
            );
            straight += 1;
        }
    }
    assert_eq!(
        straight, 1,
        "one leg was out of reach with the source's tilt"
    );
}

/// Issue 42: a bone both chains map lands on its counterpart, whatever the arc lengths (CMU's
/// arm, its shoulder longer than Mixamo's: the upper arm blended the shoulder's change in); the
/// bones between two shared ones spread by arc length between them.
#[test]
fn shared_bones_anchor_the_arc_length() {
    let tu = [0.0, 0.19, 0.61, 1.0];
    let su = [0.0, 0.31, 0.70, 1.0, 1.0];
    assert_eq!(
        plan::anchored_params(&tu, &su, &[(1, 1), (2, 2)]),
        [0.0, 0.31, 0.70, 1.0]
    );
    let at = plan::anchored_params(&[0.0, 0.25, 0.5, 1.0], &[0.0, 0.4, 1.0], &[(2, 1)]);
    assert!(
        (at[1] - 0.2).abs() < 1e-6 && at[2] == 0.4 && at[3] == 1.0,
        "{at:?}"
    );
    assert_eq!(plan::anchored_params(&tu, &su, &[]), tu);
}

/// The profile rig with a second neck bone, `Neck1`, unmapped between `Neck` and `Head` (as
/// CMU's), its joint off the line between them: the joints of the profile's bones stay where
/// they are.
fn two_necks() -> (Skeleton, BoneMap) {
    let (s, _) = sized(1.0);
    let head = s.find("Head").unwrap().index();
    let neck = s.find("Neck").unwrap();
    let moved = |b: BoneId| BoneId(if b.index() < head { b.0 } else { b.0 + 1 });
    let mut bones = Vec::new();
    for (i, b) in s.bones.iter().enumerate() {
        let mut b = b.clone();
        b.parent = b.parent.map(moved);
        if i == head {
            let half = b.rest.translation * 0.5 + Vec3::new(0.0, 0.0, 0.04);
            let mut mid = b.clone();
            mid.name = "Neck1".into();
            mid.parent = Some(neck);
            mid.rest = Transform {
                translation: half,
                ..Transform::IDENTITY
            };
            b.parent = Some(BoneId(head as u32));
            b.rest.translation -= half;
            bones.push(mid);
        }
        bones.push(b);
    }
    let s = Skeleton { bones, ..s };
    let map = identity_map(&s, 0);
    (s, map)
}

/// Issue 42: a target bone whose source segment holds an unmapped bone (CMU's second neck
/// bone) follows the segment, joint to the next mapped joint, not the turn of one of its
/// bones: the target's `Neck` → `Head` points as the source's does, every pose.
#[test]
fn a_segment_with_an_unmapped_bone_inside_is_followed() {
    let profile = Profile::humanoid();
    let (ss, sm) = two_necks();
    let (ts, tm) = sized(1.0);
    assert!(sm.profile_bone_of(ss.find("Neck1").unwrap()).is_none());
    let mut r = Retargeter::new(
        &Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
        &no_ik(),
    )
    .unwrap();
    let turns = [
        Quat::from_euler(glam::EulerRot::XYZ, 0.5, 0.2, -0.3),
        Quat::from_euler(glam::EulerRot::XYZ, -0.4, 0.6, 0.35),
        Quat::from_euler(glam::EulerRot::XYZ, 0.1, -0.5, 0.45),
    ];
    let dir = |s: &Skeleton, g: &[(Quat, Vec3)]| {
        let at = |n: &str| g[s.find(n).unwrap().index()].1;
        (at("Head") - at("Neck")).normalize()
    };
    for k in 0..turns.len() {
        let mut sp = Pose::rest(&ss);
        for (i, l) in sp.locals.iter_mut().enumerate() {
            l.rotation = turns[(i + k) % turns.len()];
        }
        let mut tp = Pose::rest(&ts);
        r.retarget(&sp, &mut tp).unwrap();
        let (a, b) = (dir(&ss, &globals(&ss, &sp)), dir(&ts, &globals(&ts, &tp)));
        let off = a.cross(b).length().atan2(a.dot(b)).to_degrees();
        assert!(off < 0.01, "pose {k}: Neck → Head {off}° off");
    }
}

/// Poses the source four ways ([`random_pose`], a different turn per bone), retargets each pose
/// and asserts that every segment (joint → joint, by bone name on both sides) points the same
/// way on the target as on the source, within 0.01°.
fn segments_follow(r: &mut Retargeter, ss: &Skeleton, ts: &Skeleton, segments: &[(&str, &str)]) {
    let turns = [
        Quat::from_euler(glam::EulerRot::XYZ, 0.5, 0.2, -0.3),
        Quat::from_euler(glam::EulerRot::XYZ, -0.4, 0.6, 0.35),
        Quat::from_euler(glam::EulerRot::XYZ, 0.1, -0.5, 0.45),
        Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.4, 0.2),
    ];
    let dir = |s: &Skeleton, g: &[(Quat, Vec3)], (a, b): (&str, &str)| {
        let at = |n: &str| g[s.find(n).unwrap().index()].1;
        (at(b) - at(a)).normalize()
    };
    for k in 0..turns.len() {
        let sp = random_pose(ss, &turns[k..], Vec3::ZERO);
        let mut tp = Pose::rest(ts);
        r.retarget(&sp, &mut tp).unwrap();
        let (gs, gt) = (globals(ss, &sp), globals(ts, &tp));
        for seg in segments {
            let (a, b) = (dir(ss, &gs, *seg), dir(ts, &gt, *seg));
            let off = a.cross(b).length().atan2(a.dot(b)).to_degrees();
            assert!(off < 0.01, "pose {k}: {} → {} {off}° off", seg.0, seg.1);
        }
    }
}

/// The bones that hang on `Root` in [`ends_on_the_root`]'s IK layout.
const ON_THE_ROOT: [&str; 4] = ["LeftFoot", "RightFoot", "LeftHand", "RightHand"];

/// The profile rig with its feet and hands hanging on `Root` where they rest (an IK layout, as
/// Quaternius's baked rigs carry their feet on their root bone `Bone`), re-mapped without its
/// toes (as Quaternius's, which has none).
fn ends_on_the_root() -> (Skeleton, BoneMap) {
    let (mut s, _) = sized(1.0);
    let root = s.find("Root").unwrap();
    let rest = globals(&s, &Pose::rest(&s));
    let (rr, rp) = rest[root.index()];
    for name in ON_THE_ROOT {
        let i = s.find(name).unwrap().index();
        let (r, p) = rest[i];
        s.bones[i].parent = Some(root);
        s.bones[i].rest.rotation = (rr.inverse() * r).normalize();
        s.bones[i].rest.translation = rr.inverse() * (p - rp);
    }
    let mut map = identity_map(&s, 0);
    for toes in ["LeftToes", "RightToes"] {
        map.entries[Profile::humanoid().find(toes).unwrap().index()] = None;
    }
    (s, map)
}

/// `pose` of the rig `a` played by the IK layout `layout` ([`ends_on_the_root`]): the same
/// locals, each bone on the root where `a` puts it, moved by `shift` (a baked end off its
/// limb's tip).
fn as_layout(a: &Skeleton, layout: &Skeleton, pose: &Pose, shift: Vec3) -> Pose {
    let g = globals(a, pose);
    let mut out = pose.clone();
    let (rr, rp) = g[layout.find("Root").unwrap().index()];
    for name in ON_THE_ROOT {
        let i = layout.find(name).unwrap().index();
        let (r, p) = g[i];
        out.locals[i].rotation = (rr.inverse() * r).normalize();
        out.locals[i].translation = rr.inverse() * (p + shift - rp);
    }
    out
}

/// Issue 42: a source whose feet and hands hang on its root (an IK layout: Quaternius's baked
/// rigs) drives a target whose limbs hang in one line bone by bone: each end takes its own
/// global change, and the segment to it points from the limb's middle joint at the end's joint
/// wherever the clip puts it (here 3 cm off the shin's and forearm's tips). Before, the source
/// chain stopped above the end: the target's shin blended the source's thigh into its own, the
/// foot turned as the shin; and a source foot without toes, the chain's last bone, was spread
/// by arc length over the target's foot and toes, the foot blending the shin in. With the leg
/// IK on, thigh and shin stay within its budget (2°).
#[test]
fn a_source_whose_ends_hang_on_the_root_drives_each_bone_by_its_own() {
    let profile = Profile::humanoid();
    let (a, _) = sized(1.0);
    let (ss, sm) = ends_on_the_root();
    let (ts, tm) = sized(1.0);
    let (srig, trig) = (
        Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
    );
    let mut fk = Retargeter::new(&srig, &trig, &no_ik()).unwrap();
    let mut ik = Retargeter::new(&srig, &trig, &RetargetOptions::default()).unwrap();
    for chain in ["LeftLeg", "RightArm"] {
        let c = fk.plan().chains.iter().find(|c| c.chain == chain).unwrap();
        let n = c.source_bones.len();
        assert_eq!(c.source_bones[..], c.target_bones[..n], "{chain}");
    }
    let (rs, rt) = (
        globals(&ss, &Pose::rest(&ss)),
        globals(&ts, &Pose::rest(&ts)),
    );
    let segments = [
        ("UpperLeg", "LowerLeg"),
        ("LowerLeg", "Foot"),
        ("UpperArm", "LowerArm"),
        ("LowerArm", "Hand"),
    ];
    let shift = Vec3::new(0.012, -0.024, 0.015);
    for k in 0..4 {
        let turns: Vec<Quat> = (0..5)
            .map(|j| {
                let x = (j + k) as f32;
                Quat::from_euler(glam::EulerRot::XYZ, 0.5 - 0.2 * x, 0.3 * x - 0.6, 0.1 * x)
            })
            .collect();
        let sp = as_layout(&a, &ss, &random_pose(&a, &turns, Vec3::ZERO), shift);
        let gs = globals(&ss, &sp);
        for (r, budget) in [(&mut fk, 0.01f32), (&mut ik, 2.02)] {
            let mut tp = Pose::rest(&ts);
            r.retarget(&sp, &mut tp).unwrap();
            let gt = globals(&ts, &tp);
            for side in ["Left", "Right"] {
                let at = |s: &Skeleton, g: &[(Quat, Vec3)], b: &str| {
                    g[s.find(&format!("{side}{b}")).unwrap().index()]
                };
                // The target's toes, which the source does not map, turn with the foot.
                for (end, by) in [("Foot", "Foot"), ("Toes", "Foot"), ("Hand", "Hand")] {
                    let (i, j) = (
                        ts.find(&format!("{side}{end}")).unwrap().index(),
                        ss.find(&format!("{side}{by}")).unwrap().index(),
                    );
                    let ds = gs[j].0 * rs[j].0.inverse();
                    let dt = gt[i].0 * rt[i].0.inverse();
                    let off = angle(ds, dt).to_degrees();
                    assert!(off < 0.01, "pose {k}: {side}{end} turned {off}° off");
                }
                for (from, to) in segments {
                    let s = at(&ss, &gs, to).1 - at(&ss, &gs, from).1;
                    let t = at(&ts, &gt, to).1 - at(&ts, &gt, from).1;
                    let deg = s.cross(t).length().atan2(s.dot(t)).to_degrees();
                    assert!(
                        deg <= budget,
                        "pose {k}: {side}{from} → {to} {deg}° off (bound {budget}°)"
                    );
                }
            }
        }
    }
}

/// Issue 43: a source whose upper arms hang beside their shoulders (Rigify's deform bones in
/// pieces: a whole rig hangs `DEF-upper_arm.L` and `DEF-shoulder.L` side by side from an
/// `ORG-` bone, a deform-only export from the armature) drives the target's arms piece by
/// piece: each arm bone turns as the source's does. The chain used to be read down to the
/// shoulder only, and the target's arm took the shoulder's change (76.8° off on Rigify's clip
/// onto ModularMen).
#[test]
fn a_source_arm_in_pieces_drives_the_targets_arm() {
    let profile = Profile::humanoid();
    let (ts, tm) = sized(1.0);
    let (whole, _) = sized(1.0);
    let turns = [
        Quat::from_rotation_z(0.4),
        Quat::from_rotation_x(-0.3),
        Quat::from_rotation_y(0.2),
    ];
    let posed = random_pose(&whole, &turns, Vec3::new(0.05, 0.0, 0.1));
    let (rest_w, pose_w) = (whole.rest_world(), posed.world(&whole));
    let (mut ss, mut sp) = (whole.clone(), posed.clone());
    for arm in ["LeftUpperArm", "RightUpperArm"] {
        let i = ss.find(arm).unwrap().index();
        ss.bones[i].parent = Some(BoneId(0));
        ss.bones[i].rest = Transform::from_mat4(&(rest_w[0].inverse() * rest_w[i]));
        sp.locals[i] = Transform::from_mat4(&(pose_w[0].inverse() * pose_w[i]));
    }
    let sm = identity_map(&ss, 0);
    let shoulder = ss.find("LeftShoulder").unwrap();
    assert!(!ss.is_ancestor(shoulder, ss.find("LeftUpperArm").unwrap()));
    let (srig, trig) = (
        Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
    );
    let mut r = Retargeter::new(&srig, &trig, &no_ik()).unwrap();
    let mut tp = Pose::rest(&ts);
    r.retarget(&sp, &mut tp).unwrap();
    let (want, got) = (globals(&whole, &posed), globals(&ts, &tp));
    for side in ["Left", "Right"] {
        for part in ["UpperArm", "LowerArm", "Hand"] {
            let name = format!("{side}{part}");
            let (w, g) = (
                whole.find(&name).unwrap().index(),
                ts.find(&name).unwrap().index(),
            );
            let off = angle(want[w].0, got[g].0).to_degrees();
            assert!(off < 0.01, "{name}: {off}° off the source's turn");
        }
    }
}

/// The rig `s` with an unmapped bone `name` inserted above the bone `child`: it hangs from
/// `child`'s parent, its joint `at` of the way to `child`'s joint (plus `off`, in the parent's
/// frame), and `child` hangs from it where it was. Bones listed in `moved` hang from it too,
/// in place. The joints of the profile's bones stay where they are.
fn with_link(
    s: &Skeleton,
    child: &str,
    name: &str,
    at: f32,
    off: Vec3,
    moved: &[&str],
) -> Skeleton {
    let c = s.find(child).unwrap().index();
    let hung = |i: usize| i == c || moved.contains(&s.bones[i].name.as_str());
    // The link goes before the first bone that hangs from it (parents before children).
    let first = (0..s.bones.len()).find(|&i| hung(i)).unwrap();
    let shift = |b: BoneId| BoneId(if b.index() < first { b.0 } else { b.0 + 1 });
    let link_t = s.bones[c].rest.translation * at + off;
    let mut bones = Vec::new();
    for (i, b) in s.bones.iter().enumerate() {
        let mut b = b.clone();
        b.parent = b.parent.map(shift);
        if i == first {
            let mut link = s.bones[c].clone();
            link.name = name.into();
            link.parent = s.bones[c].parent.map(shift);
            link.rest = Transform {
                translation: link_t,
                ..Transform::IDENTITY
            };
            bones.push(link);
        }
        if hung(i) {
            b.parent = Some(BoneId(first as u32));
            b.rest.translation -= link_t;
        }
        bones.push(b);
    }
    Skeleton { bones, ..s.clone() }
}

/// The profile rig with unmapped bones inside its arms' segments, laid out as real rigs lay
/// them: Rigify's twist links (a Blender 5 Rigify generation: `DEF-upper_arm.L.001` between
/// `DEF-upper_arm.L` and `DEF-forearm.L`, `DEF-forearm.L.001` between `DEF-forearm.L` and
/// `DEF-hand.L`, each joint halfway along its bone) on the left arm, and Quaternius's
/// `MiddleHand.R` on the right (Male_Casual.fbx: between `Palm.R`, the hand, and `Fingers.R`,
/// the middle finger, with the thumb `Thumb1.R` hanging from it), its joint a little off the
/// line.
fn linked_arms() -> (Skeleton, BoneMap) {
    let (s, _) = sized(1.0);
    let s = with_link(
        &s,
        "LeftLowerArm",
        "DEF-upper_arm.L.001",
        0.5,
        Vec3::ZERO,
        &[],
    );
    let s = with_link(&s, "LeftHand", "DEF-forearm.L.001", 0.5, Vec3::ZERO, &[]);
    let s = with_link(
        &s,
        "RightMiddleProximal",
        "MiddleHand.R",
        0.48,
        Vec3::new(0.0, 0.0, -0.004),
        &["RightThumbMetacarpal"],
    );
    let map = identity_map(&s, 0);
    (s, map)
}

/// Issue 42: unmapped source bones inside a chain (twist links between the upper arm and the
/// forearm) and past its last mapped bone (a knuckle bone between the hand and the middle
/// finger): bones mapped on both sides land on their counterparts (the arc length runs over
/// the mapped bones: the hand is at 1, not stretched by the knuckle bone below it), and every
/// arm segment points as the source's whole segment does, joint to the next mapped joint,
/// whatever the unmapped bones inside turn.
#[test]
fn unmapped_bones_inside_a_chain_are_followed_segment_by_segment() {
    let profile = Profile::humanoid();
    let (ss, sm) = linked_arms();
    let (ts, tm) = sized(1.0);
    for n in ["DEF-upper_arm.L.001", "DEF-forearm.L.001", "MiddleHand.R"] {
        assert!(sm.profile_bone_of(ss.find(n).unwrap()).is_none(), "{n}");
    }
    let mut r = Retargeter::new(
        &Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
        &no_ik(),
    )
    .unwrap();
    let arm = |name: &str| r.plan().chains.iter().find(|c| c.chain == name).unwrap();
    // The right arm reads the knuckle bone below its hand, which stays at 1; the left arm's
    // links lie inside: the mapped bones sit along both arms alike.
    let (left, right) = (arm("LeftArm"), arm("RightArm"));
    assert_eq!(right.source_bones.last().unwrap(), "MiddleHand.R");
    assert_eq!(left.source_bones.len(), 6, "{:?}", left.source_bones);
    let mapped: Vec<f32> = [0, 1, 3, 5].iter().map(|&i| left.source_u[i]).collect();
    assert_eq!(right.source_u[..4], mapped, "{:?}", right.source_u);
    assert_eq!(right.source_u[3..], [1.0, 1.0]);
    let segments = [
        ("LeftShoulder", "LeftUpperArm"),
        ("LeftUpperArm", "LeftLowerArm"),
        ("LeftLowerArm", "LeftHand"),
        ("LeftHand", "LeftMiddleProximal"),
        ("RightUpperArm", "RightLowerArm"),
        ("RightLowerArm", "RightHand"),
        ("RightHand", "RightMiddleProximal"),
        ("RightThumbMetacarpal", "RightThumbProximal"),
    ];
    segments_follow(&mut r, &ss, &ts, &segments);
}

/// Issue 42: unmapped target bones inside a segment (Rigify's twist links, [`linked_arms`]) do
/// not bend it: driven by the blend of the mapped bones' changes around them, the upper arm's
/// twist link took half the elbow's bend and the arm's segments were 5 to 7.5° off the
/// source's. Each link keeps its rest place against the mapped bone above it and takes only the
/// twist of its change: a forearm turned 60° about itself turns the link halfway between the
/// upper arm and the forearm about its own axis (a twist link's job), and bends nothing.
#[test]
fn unmapped_target_bones_inside_a_segment_twist_without_bending_it() {
    let profile = Profile::humanoid();
    let (ts, tm) = linked_arms();
    let (ss, sm) = sized(1.0);
    let mut r = Retargeter::new(
        &Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
        &no_ik(),
    )
    .unwrap();
    let segments = [
        ("LeftUpperArm", "LeftLowerArm"),
        ("LeftLowerArm", "LeftHand"),
        ("LeftHand", "LeftMiddleProximal"),
        ("RightHand", "RightMiddleProximal"),
    ];
    segments_follow(&mut r, &ss, &ts, &segments);
    // The forearm turned about its own +Y (toward the hand) by 60°: the upper arm's link turns
    // about its own +Y by half of that, the forearm's link by the blend toward the hand's.
    let mut sp = Pose::rest(&ss);
    let fore = ss.find("LeftLowerArm").unwrap().index();
    sp.locals[fore].rotation *= Quat::from_rotation_y(60f32.to_radians());
    let mut tp = Pose::rest(&ts);
    r.retarget(&sp, &mut tp).unwrap();
    let link = ts.find("DEF-upper_arm.L.001").unwrap().index();
    let turn = tp.locals[link].rotation * ts.bones[link].rest.rotation.conjugate();
    let (axis, angle) = turn.to_axis_angle();
    assert!(
        (angle.to_degrees() - 30.0).abs() < 0.5 && axis.abs().y > 0.999,
        "the link turns {}° about {axis}",
        angle.to_degrees()
    );
}

/// Issue 42: a target bone cut from its chain (an IK layout's hand on the root bone, a Rigify
/// rig's deform hand hanging apart from its forearm), which its counterpart drives alone, is
/// aimed along its source segment as the chain's bones are: Quaternius's `MiddleHand.R`
/// (in [`linked_arms`]) inside the hand's segment put the hand 35.2° off on `Man_Punch` onto
/// the generated Rigify rig.
#[test]
fn a_bone_cut_from_its_chain_is_aimed_along_its_source_segment() {
    let profile = Profile::humanoid();
    let (ss, sm) = linked_arms();
    let (ts, tm) = ends_on_the_root();
    let mut r = Retargeter::new(
        &Rig {
            skeleton: &ss,
            map: &sm,
            profile,
        },
        &Rig {
            skeleton: &ts,
            map: &tm,
            profile,
        },
        &no_ik(),
    )
    .unwrap();
    let right = r
        .plan()
        .chains
        .iter()
        .find(|c| c.chain == "RightArm")
        .unwrap();
    assert!(!right.target_bones.iter().any(|b| b == "RightHand"));
    segments_follow(&mut r, &ss, &ts, &[("RightHand", "RightMiddleProximal")]);
}

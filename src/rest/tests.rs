//! Property tests over generated rigs: the profile's own skeleton, with every rest rotation
//! disturbed, some bones unmapped, a scaled and turned armature above it, and random clips in all
//! three interpolations. Whatever the rig, skinning matrices stay the same at every frame and the
//! rest becomes the profile's T-pose.

use super::*;
use crate::check;
use crate::mapping::testing::{identity_map, rig};
use crate::model::{BoneTracks, Clip, Interpolation, Skeleton, Track};
use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;

fn clip(s: &Skeleton, keys: &[Quat], interpolation: Interpolation) -> Clip {
    let tracks = s
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            // Every third bone has no rotation track: the rest fix must add one.
            if i % 3 == 1 {
                return BoneTracks::default();
            }
            let values: Vec<Quat> = (0..3)
                .map(|k| (b.rest.rotation * keys[(i + k) % keys.len()]).normalize())
                .collect();
            let values = match interpolation {
                Interpolation::CubicSpline => values
                    .iter()
                    .flat_map(|q| [*q * 0.3, *q, *q * -0.2])
                    .collect(),
                _ => values,
            };
            BoneTracks {
                translation: (i == 1).then(|| Track {
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 1.0].into(),
                    values: vec![
                        b.rest.translation,
                        b.rest.translation + Vec3::new(0.1, 0.0, 0.3),
                    ]
                    .into(),
                }),
                rotation: Some(Track {
                    interpolation,
                    times: vec![0.0, 0.5, 1.0].into(),
                    values: values.into(),
                }),
                scale: None,
            }
        })
        .collect();
    Clip::new(format!("{interpolation:?}"), SkeletonId(0), tracks)
}

fn quat() -> impl Strategy<Value = Quat> {
    (-0.35f32..0.35, -0.35f32..0.35, -0.35f32..0.35)
        .prop_map(|(x, y, z)| Quat::from_euler(glam::EulerRot::XYZ, x, y, z))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn any_rig_keeps_its_skin_and_gets_the_t_pose(
        noise in proptest::collection::vec(quat(), 7),
        keys in proptest::collection::vec(quat(), 5),
        scale in prop_oneof![Just(1.0f32), Just(0.01), Just(100.0)],
        turn in 0..4i32,
        skip in prop_oneof![Just(0usize), Just(5), Just(7)],
    ) {
        let base = Mat4::from_scale_rotation_translation(
            Vec3::splat(scale),
            Quat::from_rotation_y(turn as f32 * std::f32::consts::FRAC_PI_2) * Quat::from_rotation_x(-0.3),
            // Offset in the character's own units: a 1.7-unit character 2 units from the origin
            // (f32 cannot hold a 0.017-unit character 2 units away to 1e-5 of its height).
            Vec3::new(1.0, 0.0, -2.0) * scale,
        );
        let s = rig(&noise, base);
        let map = identity_map(&s, skip);
        let mut model = Model {
            clips: [Interpolation::Linear, Interpolation::Step, Interpolation::CubicSpline]
                .into_iter()
                .map(|i| clip(&s, &keys, i))
                .collect(),
            skeletons: vec![s],
            other_nodes: Vec::new(),
            scene_turn: Default::default(),
            view_turn: Default::default(),
            points: Vec::new(),
        };
        let before = model.clone();
        let report = fix_rest(&mut model, SkeletonId(0), &map, Profile::humanoid(), &RestOptions::default()).unwrap();
        let disturbed = noise.iter().any(|q| q.xyz().length() > 1e-3);
        prop_assert!(report.complemented_tracks > 0 || !disturbed);
        let skin = check::skin(&before, &model, SkeletonId(0));
        prop_assert!(skin.max_error <= 1e-5, "{:?}", skin);
        prop_assert_eq!(skin.clips, 3);
        let rest = check::rest(&model.skeletons[0], &map, Profile::humanoid());
        prop_assert!(rest.max_direction_deg <= 0.01, "{:?}", rest);
        prop_assert!(rest.max_tail_deg <= 0.01, "{:?}", rest);
        prop_assert!(rest.faces_plus_z, "{:?}", rest);
        prop_assert!(rest.roll_deg.iter().all(|(_, d)| *d <= 0.01), "{:?}", rest);
    }
}

#[test]
fn refuses_a_zero_scale_without_changing_anything() {
    let mut s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    s.bones[3].rest.scale = Vec3::new(1.0, 0.0, 1.0);
    let map = identity_map(&s, 0);
    let mut model = Model {
        skeletons: vec![s],
        ..Model::default()
    };
    let before = model.clone();
    let err = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &RestOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("Chest"), "{err}");
    assert_eq!(model, before);
}

#[test]
fn faces_minus_z_rigs_turn_half_around() {
    let half = Mat4::from_rotation_y(std::f32::consts::PI);
    for keep_scene_transform in [false, true] {
        let s = rig(&[Quat::IDENTITY], half);
        let map = identity_map(&s, 0);
        let mut model = Model {
            skeletons: vec![s],
            ..Model::default()
        };
        let options = RestOptions {
            keep_scene_transform,
            ..RestOptions::default()
        };
        let r = fix_rest(
            &mut model,
            SkeletonId(0),
            &map,
            Profile::humanoid(),
            &options,
        )
        .unwrap();
        assert_eq!(r.facing_turn_deg, 180.0);
        assert_eq!(r.scene_turned, !keep_scene_transform);
        let base = model.skeletons[0].base;
        if keep_scene_transform {
            // The turn stays above the skeleton: the scene is as before.
            assert!(base.abs_diff_eq(half, 1e-6), "{base}");
            assert_eq!(model.scene_turn, Quat::IDENTITY);
        } else {
            // The whole scene turns: nothing above the skeleton, the character faces +Z in it.
            assert!(base.abs_diff_eq(Mat4::IDENTITY, 1e-6), "{base}");
            let turn = Quat::from_rotation_y(std::f32::consts::PI);
            assert!(model.scene_turn.dot(turn).abs() > 1.0 - 1e-6);
        }
    }
}

/// The rig with a nub past `RightIndexDistal` as 3ds Max Biped exports it (`Bip001 R Finger1Nub`
/// in the real files): a skin joint no vertex uses, rest scale (−1, −1, −1), keyed in the clip
/// with the same scale.
fn rig_with_mirrored_nub(weighted: bool) -> Model {
    let mut s = rig(&[Quat::from_rotation_z(0.2)], Mat4::IDENTITY);
    let parent = s.find("RightIndexDistal").unwrap();
    s.bones.push(crate::model::Bone {
        name: "Bip001 R Finger1Nub".into(),
        parent: Some(parent),
        rest: crate::model::Transform {
            translation: Vec3::new(0.0, 0.02, 0.0),
            rotation: Quat::from_rotation_x(0.4),
            scale: Vec3::splat(-1.0),
        },
        is_joint: true,
        weighted: Some(weighted),
        node: Some(99),
    });
    let world = s.rest_world();
    let nub = crate::model::BoneId(s.bones.len() as u32 - 1);
    s.skins[0].joints.push(nub);
    s.skins[0]
        .inverse_bind_matrices
        .push(world[nub.index()].inverse());
    let mut c = clip(
        &s,
        &[Quat::from_rotation_y(0.3), Quat::IDENTITY],
        Interpolation::Linear,
    );
    c.tracks[nub.index()].scale = Some(Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0].into(),
        values: vec![Vec3::splat(-1.0), Vec3::new(-1.0, -2.0, -1.0)].into(),
    });
    Model {
        clips: vec![c],
        skeletons: vec![s],
        ..Model::default()
    }
}

#[test]
fn a_mirrored_nub_is_folded_and_skins_as_before() {
    let mut model = rig_with_mirrored_nub(false);
    let map = identity_map(&model.skeletons[0], 0);
    let before = model.clone();
    let report = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &RestOptions::default(),
    )
    .unwrap();
    let folded: Vec<_> = report
        .warnings
        .iter()
        .filter(|w| w.code == crate::model::WarningCode::MirrorFolded)
        .collect();
    assert_eq!(folded.len(), 1, "{:?}", report.warnings);
    assert_eq!(folded[0].bones, ["Bip001 R Finger1Nub"]);
    let nub = &model.skeletons[0].bones.last().unwrap().rest;
    assert!(nub.scale.min_element() > 0.0, "{nub:?}");
    let skin = check::skin(&before, &model, SkeletonId(0));
    assert!(skin.max_error <= 1e-5, "{skin:?}");
    let rest = check::rest(&model.skeletons[0], &map, Profile::humanoid());
    assert!(rest.max_direction_deg <= 0.01, "{rest:?}");
}

#[test]
fn a_weighted_mirrored_bone_is_still_refused_without_changing_anything() {
    let mut model = rig_with_mirrored_nub(true);
    let map = identity_map(&model.skeletons[0], 0);
    let before = model.clone();
    let err = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &RestOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("Bip001 R Finger1Nub"), "{err}");
    assert_eq!(model, before);
}

/// The profile's rig laid out as a 3ds Max Biped is (wiseMan.FBX, issue 43): the clavicles hang
/// from the neck, behind its joint, and the head's joint lies below and in front of the neck's
/// (a stooped old man), so the silhouette fix turns the neck by over 90°.
fn biped_stooped_neck() -> Model {
    let mut s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    let neck = s.find("Neck").unwrap();
    let world = s.rest_world();
    for side in ["LeftShoulder", "RightShoulder"] {
        let b = s.find(side).unwrap();
        assert!(b > neck, "parents come first");
        // wiseMan's clavicles start 2.6 cm behind its neck joint.
        let behind = Mat4::from_translation(Vec3::new(0.0, 0.0, -0.03)) * world[b.index()];
        let local = world[neck.index()].inverse() * behind;
        let (scale, rotation, translation) = local.to_scale_rotation_translation();
        s.bones[b.index()].parent = Some(neck);
        s.bones[b.index()].rest = crate::model::Transform {
            translation,
            rotation,
            scale,
        };
    }
    let head = s.find("Head").unwrap();
    let neck_rot = world[neck.index()].to_scale_rotation_translation().1;
    s.bones[head.index()].rest.translation = neck_rot.inverse() * Vec3::new(0.0, -0.01, 0.03);
    let world = s.rest_world();
    s.skins[0].inverse_bind_matrices = world.iter().map(|m| m.inverse()).collect();
    let c = clip(
        &s,
        &[Quat::from_rotation_y(0.3), Quat::IDENTITY],
        Interpolation::Linear,
    );
    Model {
        clips: vec![c],
        skeletons: vec![s],
        ..Model::default()
    }
}

#[test]
fn a_turned_neck_leaves_the_shoulders_hanging_from_it_in_place() {
    let mut model = biped_stooped_neck();
    // A two-bone spine (wiseMan's `Bip001 Spine`, `Spine1`): Chest points at the mean of the
    // neck and shoulders, which a swing of the shoulders would move.
    let mut map = identity_map(&model.skeletons[0], 0);
    let upper = Profile::humanoid().find("UpperChest").unwrap();
    map.entries[upper.index()] = None;
    let before = model.clone();
    let options = RestOptions::default();
    let first = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &options,
    )
    .unwrap();
    let turned = |r: &RestReport, name: &str| {
        r.bones
            .iter()
            .find(|b| b.bone == name)
            .unwrap()
            .silhouette_deg
    };
    assert!(turned(&first, "Neck") > 90.0, "{:?}", first.bones);
    let skin = check::skin(&before, &model, SkeletonId(0));
    assert!(skin.max_error <= 1e-5, "{skin:?}");
    let rest = check::rest(&model.skeletons[0], &map, Profile::humanoid());
    assert!(rest.max_direction_deg <= 0.01, "{rest:?}");
    // Normalizing the output again changes nothing.
    let second = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &options,
    )
    .unwrap();
    let most = second
        .bones
        .iter()
        .map(|b| b.silhouette_deg)
        .fold(0.0, f32::max);
    assert!(most <= 0.01, "{:?}", second.bones);
}

/// The profile's rig with its left hand laid out as RobotExpressive's is (issue 43): no single
/// hand bone, but three palm bones from one wrist point on the forearm, the middle one mapped as
/// the hand and the index and ring fingers hanging from the other two (unmapped); the hand is
/// turned off its T-pose.
fn palm_bones_hand() -> Model {
    let mut s = rig(&[Quat::IDENTITY], Mat4::IDENTITY);
    let hand = s.find("LeftHand").unwrap();
    let forearm = s.find("LeftLowerArm").unwrap();
    let turn = Quat::from_rotation_x(0.5) * Quat::from_rotation_z(0.3);
    s.bones[hand.index()].rest.rotation = (turn * s.bones[hand.index()].rest.rotation).normalize();
    let world = s.rest_world();
    for (palm, finger) in [
        ("Palm1.L", "LeftIndexProximal"),
        ("Palm3.L", "LeftRingProximal"),
    ] {
        let f = s.find(finger).unwrap();
        s.bones.push(crate::model::Bone {
            name: palm.into(),
            parent: Some(forearm),
            rest: s.bones[hand.index()].rest,
            is_joint: true,
            weighted: Some(true),
            node: Some(200 + s.bones.len() as u32),
        });
        let p = crate::model::BoneId(s.bones.len() as u32 - 1);
        let local = world[hand.index()].inverse() * world[f.index()];
        let (scale, rotation, translation) = local.to_scale_rotation_translation();
        s.bones[f.index()].parent = Some(p);
        s.bones[f.index()].rest = crate::model::Transform {
            translation,
            rotation,
            scale,
        };
    }
    // Parents first: move the palm bones before the fingers they carry.
    s = reorder_parents_first(s);
    let world = s.rest_world();
    s.skins[0].joints = (0..s.bones.len() as u32)
        .map(crate::model::BoneId)
        .collect();
    s.skins[0].inverse_bind_matrices = world.iter().map(|m| m.inverse()).collect();
    let c = clip(
        &s,
        &[Quat::from_rotation_y(0.3), Quat::IDENTITY],
        Interpolation::Linear,
    );
    Model {
        clips: vec![c],
        skeletons: vec![s],
        ..Model::default()
    }
}

/// `s` with its bones reordered so that every parent comes before its children.
fn reorder_parents_first(s: Skeleton) -> Skeleton {
    let n = s.bones.len();
    let mut order: Vec<usize> = Vec::new();
    while order.len() < n {
        for i in 0..n {
            let ready = s.bones[i].parent.is_none_or(|p| order.contains(&p.index()));
            if !order.contains(&i) && ready {
                order.push(i);
            }
        }
    }
    let new_index = |old: usize| order.iter().position(|&o| o == old).unwrap() as u32;
    let bones = order
        .iter()
        .map(|&o| {
            let mut b = s.bones[o].clone();
            b.parent = b.parent.map(|p| crate::model::BoneId(new_index(p.index())));
            b
        })
        .collect();
    Skeleton { bones, ..s }
}

#[test]
fn palm_bones_beside_the_hand_turn_with_it() {
    let mut model = palm_bones_hand();
    let map = identity_map(&model.skeletons[0], 0);
    let before = model.clone();
    let options = RestOptions::default();
    let report = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &options,
    )
    .unwrap();
    let turned = |name: &str| {
        report
            .bones
            .iter()
            .find(|b| b.bone == name)
            .unwrap()
            .silhouette_deg
    };
    assert!(turned("LeftHand") > 30.0, "{:?}", report.bones);
    let skin = check::skin(&before, &model, SkeletonId(0));
    assert!(skin.max_error <= 1e-5, "{skin:?}");
    let rest = check::rest(&model.skeletons[0], &map, Profile::humanoid());
    assert!(rest.max_direction_deg <= 0.01, "{rest:?}");
    let roll = rest
        .roll_deg
        .iter()
        .find(|(b, _)| b == "LeftHand")
        .unwrap()
        .1;
    assert!(roll <= 0.01, "{rest:?}");
}

//! Property tests over generated rigs: the profile's own skeleton, with every rest rotation
//! disturbed, some bones unmapped, a scaled and turned armature above it, and random clips in all
//! three interpolations. Whatever the rig, skinning matrices stay the same at every frame and the
//! rest becomes the profile's T-pose.

use super::*;
use crate::check;
use crate::mapping::testing::{identity_map, rig};
use crate::model::{BoneId, BoneTracks, Clip, Interpolation, Skeleton, Track};
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

/// The mirror_kept warnings of a report.
fn kept(report: &RestReport) -> Vec<&Warning> {
    report
        .warnings
        .iter()
        .filter(|w| w.code == crate::model::WarningCode::MirrorKept)
        .collect()
}

/// Issue 43, item 2: a mirrored nub that vertices are weighted on cannot be folded exactly; it
/// is kept as it is, named in a warning, and the skin plays as before.
#[test]
fn a_weighted_mirrored_nub_is_kept_and_skins_as_before() {
    let mut model = rig_with_mirrored_nub(true);
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
    let kept = kept(&report);
    assert_eq!(kept.len(), 1, "{:?}", report.warnings);
    assert_eq!(kept[0].bones, ["Bip001 R Finger1Nub"]);
    assert!(
        kept[0].message.contains("vertices are weighted on it"),
        "{}",
        kept[0].message
    );
    let nub = &model.skeletons[0].bones.last().unwrap().rest;
    assert_eq!(nub.scale, Vec3::splat(-1.0));
    let skin = check::skin(&before, &model, SkeletonId(0));
    assert!(skin.max_error <= 1e-5, "{skin:?}");
    let rest = check::rest(&model.skeletons[0], &map, Profile::humanoid());
    assert!(rest.max_direction_deg <= 0.01, "{rest:?}");
}

/// role01All.FBX (3ds Max Biped, cocos-test-projects) as its converted glTF has it: `Bone036`, a
/// helper under `Bip001 L UpperArm` mirrored on one axis, weighted, with `Bone037` below it, its
/// scale keyed (−1, −1, −1) against a rest of (−1, 1, 1) (the same reflection turned), here
/// under the rig's `LeftUpperArm`, translations from centimetres to metres.
fn rig_with_mirrored_helper() -> Model {
    let mut s = rig(&[Quat::from_rotation_z(0.3)], Mat4::IDENTITY);
    let arm = s.find("LeftUpperArm").unwrap();
    let helper = crate::model::BoneId(s.bones.len() as u32);
    let bone = |name: &str, parent, rest| crate::model::Bone {
        name: String::from(name),
        parent: Some(parent),
        rest,
        is_joint: true,
        weighted: Some(true),
        node: None,
    };
    s.bones.push(bone(
        "Bone036",
        arm,
        crate::model::Transform {
            translation: Vec3::new(-1.533_517_8, 0.057_511_806, 0.216_014_86) * 0.01,
            rotation: Quat::from_xyzw(-0.069_302_59, -0.675_843_9, 0.729_504_8, -0.079_088_1)
                .normalize(),
            scale: Vec3::new(-0.999_999_7, 0.999_999_94, 0.999_999_94),
        },
    ));
    s.bones.push(bone(
        "Bone037",
        helper,
        crate::model::Transform {
            translation: Vec3::new(3.574_871, -1.907_348_6e-6, 1.192_092_9e-7) * 0.01,
            rotation: Quat::IDENTITY,
            scale: Vec3::new(0.999_999_9, 1.0, 1.000_000_1),
        },
    ));
    let world = s.rest_world();
    for id in [helper.index(), helper.index() + 1] {
        s.skins[0].joints.push(crate::model::BoneId(id as u32));
        s.skins[0].inverse_bind_matrices.push(world[id].inverse());
    }
    let mut c = clip(
        &s,
        &[Quat::from_rotation_y(0.3), Quat::from_rotation_x(-0.2)],
        Interpolation::Linear,
    );
    c.tracks[helper.index()].scale = Some(Track {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0].into(),
        values: vec![Vec3::splat(-1.0), Vec3::splat(-1.0)].into(),
    });
    Model {
        clips: vec![c],
        skeletons: vec![s],
        ..Model::default()
    }
}

/// Issue 43, item 2: the Biped's mirrored helper with a child under a mapped arm that the
/// silhouette fix turns: kept as it is (its own rest and scale keys), carried by the arm's turn,
/// named in one warning that says why; the skin plays as before and the mapped bones still
/// take the T-pose.
#[test]
fn a_mirrored_helper_with_a_child_is_kept_under_a_turned_arm() {
    let mut model = rig_with_mirrored_helper();
    let s = &model.skeletons[0];
    let map = identity_map(s, 0);
    let n = s.bones.len();
    let before = model.clone();
    let report = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &RestOptions::default(),
    )
    .unwrap();
    let arm = report
        .bones
        .iter()
        .find(|b| b.bone == "LeftUpperArm")
        .unwrap();
    assert!(arm.silhouette_deg > 1.0, "{arm:?}");
    let kept = kept(&report);
    assert_eq!(kept.len(), 1, "{:?}", report.warnings);
    assert_eq!(kept[0].bones, ["Bone036"]);
    for why in [
        "vertices are weighted on it",
        "something hangs from it",
        "its scale keys' signs differ from its rest's",
    ] {
        assert!(kept[0].message.contains(why), "{why}: {}", kept[0].message);
    }
    let (was, now) = (&before.skeletons[0].bones, &model.skeletons[0].bones);
    for i in [n - 2, n - 1] {
        assert_eq!(now[i].rest.scale, was[i].rest.scale, "{}", now[i].name);
    }
    // The child keeps its rest exactly: its parent's frame did not change.
    assert_eq!(now[n - 1].rest, was[n - 1].rest);
    let keys = model.clips[0].tracks[n - 2].scale.as_ref().unwrap();
    assert_eq!(&keys.values[..], [Vec3::splat(-1.0); 2]);
    let skin = check::skin(&before, &model, SkeletonId(0));
    assert!(skin.max_error <= 1e-5, "{skin:?}");
    let rest = check::rest(&model.skeletons[0], &map, Profile::humanoid());
    assert!(rest.max_direction_deg <= 0.01, "{rest:?}");
}

/// A mapped bone that mirrors (a finger a mirroring tool left with a scale of (−1, 1, 1)) is
/// kept too: the silhouette fix and the axes leave its frame and those below it as they were,
/// since no turn of a reflected frame on one axis is a TRS rest; the skin plays as before.
#[test]
fn a_mirrored_mapped_bone_keeps_its_frame_and_skins_as_before() {
    let mut s = rig(&[Quat::from_rotation_z(0.3)], Mat4::IDENTITY);
    let finger = s.find("RightIndexIntermediate").unwrap().index();
    s.bones[finger].rest.scale = Vec3::new(-1.0, 1.0, 1.0);
    let c = clip(&s, &[Quat::from_rotation_y(0.3)], Interpolation::Linear);
    let map = identity_map(&s, 0);
    let mut model = Model {
        clips: vec![c],
        skeletons: vec![s],
        ..Model::default()
    };
    let before = model.clone();
    let report = fix_rest(
        &mut model,
        SkeletonId(0),
        &map,
        Profile::humanoid(),
        &RestOptions::default(),
    )
    .unwrap();
    let kept = kept(&report);
    assert_eq!(kept.len(), 1, "{:?}", report.warnings);
    assert_eq!(kept[0].bones, ["RightIndexIntermediate"]);
    let after = &model.skeletons[0].bones;
    for (i, b) in report.bones.iter().enumerate() {
        let below =
            i == finger || model.skeletons[0].is_ancestor(BoneId(finger as u32), BoneId(i as u32));
        if below {
            assert_eq!((b.silhouette_deg, b.axes_deg), (0.0, 0.0), "{b:?}");
            assert_eq!(after[i].rest.scale, before.skeletons[0].bones[i].rest.scale);
        }
    }
    let skin = check::skin(&before, &model, SkeletonId(0));
    assert!(skin.max_error <= 1e-5, "{skin:?}");
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

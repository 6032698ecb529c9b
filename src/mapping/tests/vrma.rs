//! Issue 43: a VRMA whose declared map leaves the fingers out. `VRMC_vrm_animation` maps nodes
//! to humanoid bones, and a bone it does not declare is not that bone: the finger nodes stay
//! unmapped even when they are named exactly as profile bones. (A real export that leaves its
//! fingers out, bvh2vrma's, is in `tests/cli_map.rs`; these pin the rule's edges.) The rig is
//! a real one with its finger declarations removed: the node layout of the VRM Add-on for
//! Blender's test clip `tests/resources/vrma/nop.vrma` (saturday06/VRM-Addon-for-Blender, MIT
//! OR GPL-3.0-or-later): its 53 bone nodes under an identity `Armature` node, no skin, each
//! declared by its own name (`leftThumbMetacarpal` → node `LeftThumbMetacarpal`). (name,
//! parent, translation, rotation xyzw) as the file stores them.
use super::*;
use crate::model::{Bone, DeclaredMap, DeclaredSource, Transform};
use glam::{Quat, Vec3};

#[rustfmt::skip]
#[allow(
    clippy::approx_constant,
    clippy::type_complexity,
    reason = "a table of the file's nodes, with its own values"
)]
const NOP: [(&str, Option<usize>, [f32; 3], [f32; 4]); 53] = [
    ("Hips", None, [0.0, 0.7499998, -2.5671403e-08], [0.7071068, 1.2101621e-08, -1.2101621e-08, 0.7071068]),
    ("Spine", Some(0), [6.473333e-23, -1.776356e-15, -0.25000012], [-7.993606e-15, -2.342967e-22, -5.3290705e-15, 1.0]),
    ("Chest", Some(1), [1.289422e-22, -3.5527145e-15, -0.125], [-4.440892e-15, -2.7832433e-23, 1.7763568e-15, 1.0]),
    ("Neck", Some(2), [2.4766376e-23, -7.105428e-15, -0.31250012], [-4.440892e-15, -5.430221e-23, -1.7763568e-15, 1.0]),
    ("Head", Some(3), [-8.0431425e-23, -3.552714e-15, -0.12500024], [8.429372e-08, 2.885251e-15, -1.7763568e-15, 1.0]),
    ("LeftEye", Some(4), [0.12499999, -2.7331552e-08, -0.18750012], [5.3385083e-08, 0.7071068, -0.7071068, 5.3385083e-08]),
    ("RightEye", Some(4), [-0.12499999, -3.588869e-08, -0.18750012], [5.3385083e-08, 0.7071068, -0.7071068, 5.3385083e-08]),
    ("LeftShoulder", Some(2), [0.025, 8.5571017e-10, -0.375], [-0.49999997, -0.50000006, 0.5, 0.5]),
    ("LeftUpperArm", Some(7), [-1.3322676e-14, 1.1920929e-07, -0.09999999], [-1.4543833e-15, -3.5527137e-15, 3.3007524e-08, 1.0]),
    ("LeftLowerArm", Some(8), [-5.3290705e-15, 1.1920929e-07, -0.25000003], [-6.978449e-23, -1.136356e-22, 1.3322676e-15, 1.0]),
    ("LeftHand", Some(9), [-6.2172494e-15, 1.1920929e-07, -0.25000003], [-5.0719067e-15, -6.717943e-08, 1.5543122e-15, 1.0]),
    ("LeftThumbMetacarpal", Some(10), [0.049999963, 1.1543441e-07, -0.05000002], [-6.337031e-08, -0.3826835, 8.323847e-08, 0.9238795]),
    ("LeftThumbProximal", Some(11), [-1.20726895e-08, -6.208624e-09, -0.03535529], [-1.685871e-06, 6.780029e-07, 4.07137e-06, 1.0]),
    ("LeftThumbDistal", Some(12), [2.7782335e-08, -1.6269033e-07, -0.035355337], [1.6858701e-06, -8.9407e-07, -4.0700525e-06, 1.0]),
    ("LeftIndexProximal", Some(10), [0.02499998, 1.17321854e-07, -0.12500018], [7.112995e-15, 8.940679e-08, 8.480483e-11, 1.0]),
    ("LeftIndexIntermediate", Some(14), [3.9965906e-09, 1.17317605e-07, -0.03125018], [2.177865e-16, 7.574908e-09, 1.5543121e-15, 1.0]),
    ("LeftIndexDistal", Some(15), [4.6565143e-09, 1.17317605e-07, -0.03125018], [-6.7651827e-15, -8.940668e-08, 8.65974e-15, 1.0]),
    ("LeftMiddleProximal", Some(10), [-1.6794871e-08, 1.192093e-07, -0.12500018], [5.0719062e-15, 6.7179435e-08, 1.5543123e-15, 1.0]),
    ("LeftMiddleIntermediate", Some(17), [-2.2204435e-15, 1.1920929e-07, -0.03125018], [2.4192342e-22, -7.105427e-15, 1.5543122e-15, 1.0]),
    ("LeftMiddleDistal", Some(18), [-6.217248e-15, 1.1920929e-07, -0.03125018], [-5.0719003e-15, -6.717934e-08, 8.65974e-15, 1.0]),
    ("LeftRingProximal", Some(10), [-0.025000013, 1.2109675e-07, -0.12500018], [2.526858e-18, 2.9802262e-08, 8.480483e-11, 1.0]),
    ("LeftRingIntermediate", Some(20), [-3.453816e-09, 1.2110098e-07, -0.031250175], [2.823182e-15, 7.574894e-09, 1.5543122e-15, 1.0]),
    ("LeftRingDistal", Some(21), [-2.79391e-09, 1.2110098e-07, -0.03125018], [-2.2550548e-15, -2.9802157e-08, 8.65974e-15, 1.0]),
    ("LeftLittleProximal", Some(10), [-0.050000012, 1.2298419e-07, -0.12500018], [-2.3822802e-22, -7.1054274e-15, -8.4651797e-10, 1.0]),
    ("LeftLittleIntermediate", Some(23), [-6.247701e-09, 1.2289955e-07, -0.03125017], [5.5906356e-16, 7.57489e-09, 1.3322677e-15, 1.0]),
    ("LeftLittleDistal", Some(24), [-5.5877987e-09, 1.2289954e-07, -0.03125017], [4.399105e-15, 5.960453e-08, 8.65974e-15, 1.0]),
    ("RightShoulder", Some(2), [-0.025, -8.557173e-10, -0.375], [-0.5, 0.5, -0.5, 0.5]),
    ("RightUpperArm", Some(26), [8.881784e-15, 1.1920929e-07, -0.09999999], [1.4543834e-15, -3.5527137e-15, 1.2210192e-09, 1.0]),
    ("RightLowerArm", Some(27), [6.217249e-15, 1.1920929e-07, -0.25000003], [1.6844937e-23, -3.3726512e-22, -1.5543122e-15, 1.0]),
    ("RightHand", Some(28), [6.2172485e-15, 1.1920929e-07, -0.25000003], [-5.0719062e-15, 6.7179435e-08, -1.5543122e-15, 1.0]),
    ("RightThumbMetacarpal", Some(29), [-0.049999963, 1.1543441e-07, -0.05000002], [-6.337031e-08, 0.3826835, -8.3238476e-08, 0.9238795]),
    ("RightThumbProximal", Some(30), [1.20726895e-08, -6.208624e-09, -0.03535529], [-1.685871e-06, -6.780029e-07, -4.07137e-06, 1.0]),
    ("RightThumbDistal", Some(31), [-2.7782335e-08, -1.6269033e-07, -0.035355337], [1.6858701e-06, 8.9407e-07, 4.0700525e-06, 1.0]),
    ("RightIndexProximal", Some(29), [-0.02499998, 1.17321854e-07, -0.12500018], [3.5602883e-15, -8.940679e-08, -8.480483e-11, 1.0]),
    ("RightIndexIntermediate", Some(33), [-3.9965906e-09, 1.1731761e-07, -0.03125018], [3.770492e-15, -7.574908e-09, -1.5543122e-15, 1.0]),
    ("RightIndexDistal", Some(34), [-4.6565143e-09, 1.17317605e-07, -0.03125018], [-6.765181e-15, 8.940668e-08, -8.65974e-15, 1.0]),
    ("RightMiddleProximal", Some(29), [1.6794871e-08, 1.192093e-07, -0.12500018], [5.0719062e-15, -6.7179435e-08, -1.5543122e-15, 1.0]),
    ("RightMiddleIntermediate", Some(36), [2.2204435e-15, 1.1920929e-07, -0.03125018], [-5.2570014e-22, 7.105427e-15, -1.5543122e-15, 1.0]),
    ("RightMiddleDistal", Some(37), [6.217248e-15, 1.1920929e-07, -0.03125018], [-5.0718995e-15, 6.717934e-08, -8.65974e-15, 1.0]),
    ("RightRingProximal", Some(29), [0.025000013, 1.2109675e-07, -0.12500018], [3.555234e-15, -2.9802262e-08, -8.480483e-11, 1.0]),
    ("RightRingIntermediate", Some(39), [3.453816e-09, 1.2110098e-07, -0.031250175], [-7.295248e-16, -7.574894e-09, -1.5543123e-15, 1.0]),
    ("RightRingDistal", Some(40), [2.79391e-09, 1.2110098e-07, -0.03125018], [-2.2550545e-15, 2.9802157e-08, -8.65974e-15, 1.0]),
    ("RightLittleProximal", Some(29), [0.050000012, 1.2298419e-07, -0.12500018], [-2.3822802e-22, 7.1054274e-15, 8.4651797e-10, 1.0]),
    ("RightLittleIntermediate", Some(42), [6.247701e-09, 1.2289954e-07, -0.03125017], [5.590636e-16, -7.57489e-09, -1.3322676e-15, 1.0]),
    ("RightLittleDistal", Some(43), [5.5877987e-09, 1.2289954e-07, -0.03125017], [4.3991046e-15, -5.960453e-08, -8.65974e-15, 1.0]),
    ("LeftUpperLeg", Some(0), [0.24999999, 8.557135e-09, -0.25000012], [1.0, -7.549791e-08, -1.7469717e-22, 7.1054274e-15]),
    ("LeftLowerLeg", Some(45), [0.0, 1.7763568e-15, -0.49999982], [-6.2865727e-23, 2.5532638e-22, -1.3510257e-07, 1.0]),
    ("LeftFoot", Some(46), [0.0, -8.881784e-16, -0.4374999], [-0.525731, -5.7373242e-08, -2.0542911e-08, 0.8506509]),
    ("LeftToes", Some(47), [-7.450563e-09, 1.0161045e-09, -0.1397542], [-1.4113062e-08, -0.22975302, -0.9732491, 1.894986e-07]),
    ("RightUpperLeg", Some(0), [-0.24999999, -8.557138e-09, -0.25000012], [1.0, -7.549791e-08, -2.4568408e-22, 1.15463195e-14]),
    ("RightLowerLeg", Some(49), [0.0, 1.7763568e-15, -0.49999982], [8.8817837e-16, 9.660329e-22, -1.3510257e-07, 1.0]),
    ("RightFoot", Some(50), [0.0, 2.6645353e-15, -0.4374999], [-0.525731, -5.7373242e-08, -2.0542911e-08, 0.8506509]),
    ("RightToes", Some(51), [-7.450563e-09, 1.4313173e-09, -0.1397542], [-1.4113062e-08, -0.22975302, -0.9732491, 1.894986e-07]),
];

/// The finger bones, which the declarations below leave out.
fn finger(name: &str) -> bool {
    ["Thumb", "Index", "Middle", "Ring", "Little"]
        .iter()
        .any(|f| name.contains(f))
}

/// `nop.vrma`'s skeleton, its `VRMC_vrm_animation` map declaring every bone for which `keep`
/// holds (the VRM id is the node's name with a lowercase first letter).
fn rig(keep: impl Fn(&str) -> bool) -> Skeleton {
    let mut sk = Skeleton {
        name: "Armature".into(),
        bones: Vec::new(),
        skins: Vec::new(),
        attachments: Vec::new(),
        base: glam::Mat4::IDENTITY,
        base_nodes: vec![0],
        declared: None,
    };
    let mut declared = Vec::new();
    for (k, &(name, parent, t, r)) in NOP.iter().enumerate() {
        sk.bones.push(Bone {
            name: name.into(),
            parent: parent.map(|p| BoneId(p as u32)),
            rest: Transform {
                translation: Vec3::from(t),
                rotation: Quat::from_array(r).normalize(),
                ..Transform::default()
            },
            is_joint: false,
            weighted: Some(false),
            node: Some(k as u32 + 1),
        });
        if keep(name) {
            let id = name[..1].to_lowercase() + &name[1..];
            declared.push((id, BoneId(k as u32)));
        }
    }
    declared.sort();
    sk.declared = Some(DeclaredMap {
        source: DeclaredSource::VrmAnimation,
        bones: declared,
    });
    sk
}

/// The profile bones mapped, by name, with the source bone's name.
fn mapped(sk: &Skeleton, map: &BoneMap) -> Vec<(String, String)> {
    let p = Profile::humanoid();
    p.ids()
        .filter_map(|id| {
            let b = map.get(id)?;
            Some((p.bone(id).name.clone(), sk.bones[b.index()].name.clone()))
        })
        .collect()
}

#[test]
fn a_vrma_that_declares_no_fingers_gets_none() {
    let sk = rig(|n| !finger(n));
    let map = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    let got = mapped(&sk, &map);
    // Every declared bone, as declared; no finger, though each finger node carries its
    // profile bone's own name.
    let declared: Vec<(String, String)> = NOP
        .iter()
        .filter(|(n, ..)| !finger(n))
        .map(|(n, ..)| (n.to_string(), n.to_string()))
        .collect();
    assert_eq!(got.len(), 23);
    for d in &declared {
        assert!(got.contains(d), "{d:?} in {got:?}");
    }
    assert!(got.iter().all(|(p, _)| !finger(p)), "{got:?}");
    assert!(
        map.entries
            .iter()
            .flatten()
            .all(|m| m.origin == Origin::Declared),
        "{map:?}"
    );
    // The same rig mapped without its declarations (`--ignore-vrm`) has its fingers.
    let options = MapOptions {
        ignore_declared: true,
        ..MapOptions::default()
    };
    let auto = mapped(&sk, &map_skeleton(&sk, Profile::humanoid(), &options));
    let fingers = auto.iter().filter(|(p, s)| finger(p) && p == s).count();
    assert_eq!(fingers, 30, "{auto:?}");
}

/// Where the rest cannot decide (the same nodes laid along one axis), names fill the map: not
/// with the bones the file leaves out (here the fingers and the toes, which names alone would
/// map).
#[test]
fn names_do_not_add_the_bones_a_flat_vrma_leaves_out() {
    let left_out = |n: &str| finger(n) || n.ends_with("Toes");
    let mut sk = rig(|n| !left_out(n));
    for b in sk.bones.iter_mut().skip(1) {
        b.rest.translation = Vec3::X * b.rest.translation.length();
        b.rest.rotation = Quat::IDENTITY;
    }
    let map = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    let got = mapped(&sk, &map);
    assert_eq!(got.len(), 21, "{got:?}");
    assert!(got.iter().all(|(p, _)| !left_out(p)), "{got:?}");
    let options = MapOptions {
        ignore_declared: true,
        ..MapOptions::default()
    };
    let names = mapped(&sk, &map_skeleton(&sk, Profile::humanoid(), &options));
    assert!(
        names.contains(&("LeftToes".into(), "LeftToes".into())),
        "{names:?}"
    );
}

/// A bone-map file still names a finger the file leaves out.
#[test]
fn a_bone_map_still_adds_a_finger_the_file_leaves_out() {
    let sk = rig(|n| !finger(n));
    let file = BoneMapFile {
        profile: String::new(),
        bones: [("LeftIndexProximal", "LeftIndexProximal")]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        unmapped: vec![],
    };
    let options = MapOptions {
        overrides: Some(file),
        ignore_declared: false,
    };
    let map = map_skeleton(&sk, Profile::humanoid(), &options);
    let got = mapped(&sk, &map);
    let fingers: Vec<&(String, String)> = got.iter().filter(|(p, _)| finger(p)).collect();
    assert_eq!(
        fingers,
        [&(
            "LeftIndexProximal".to_string(),
            "LeftIndexProximal".to_string()
        )]
    );
}

/// A map that leaves out a required bone is no valid declaration: the mapper fills it in, and
/// the rest of what the file leaves out with it.
#[test]
fn a_declaration_without_a_required_bone_is_filled_in() {
    let sk = rig(|n| !finger(n) && n != "LeftHand");
    let map = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    let got = mapped(&sk, &map);
    assert!(
        got.contains(&("LeftHand".into(), "LeftHand".into())),
        "{got:?}"
    );
    assert!(got.iter().any(|(p, _)| finger(p)), "{got:?}");
}

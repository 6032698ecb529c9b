//! Issue 40: outputs normalize to themselves. Rigs built in code on a real Quaternius IK layout:
//! the Ultimate Animated Character Pack rig as `tests/conventions/real/quaternius_ik.txt` records
//! it (sources there: `Bone` > `Body` > `Hips`, legs on `Body`, `Foot.L/R` and `PoleTarget.L/R`
//! on the root `Bone`, `Fist` hands), which `../shared/assets/threejs/RobotExpressive.glb`
//! (Tomás Laulhé, modified by Don McCurdy, CC0) shares. Joints are RobotExpressive's as
//! normalizing it places them (T-posed, facing +Z, metres; a 4.1 m robot), rounded.

use super::*;
use crate::model::{Bone, Transform};
use glam::{Mat4, Vec3};

/// The rig, parents first: (normalized name, Quaternius name, parent, joint).
const RIG: &[(&str, &str, &str, [f32; 3])] = &[
    ("Root", "Bone", "", [0.0, 0.0, -0.2]),
    ("LeftFoot", "Foot.L", "Root", [0.63, 0.03, -0.14]),
    ("Foot.L_end", "Foot.L_end", "LeftFoot", [0.63, 0.07, 0.18]),
    ("Body", "Body", "Root", [0.0, 1.4, -0.1]),
    ("Hips", "Hips", "Body", [0.0, 1.29, -0.2]),
    ("Spine", "Abdomen", "Hips", [0.0, 1.62, -0.2]),
    ("Chest", "Torso", "Spine", [0.0, 2.1, -0.2]),
    ("Neck", "Neck", "Chest", [0.0, 2.69, -0.2]),
    ("Head", "Head", "Neck", [0.0, 3.0, -0.2]),
    ("Head_end", "Head_end", "Head", [0.0, 4.1, -0.2]),
    ("LeftShoulder", "Shoulder.L", "Chest", [0.59, 2.38, -0.18]),
    (
        "LeftUpperArm",
        "UpperArm.L",
        "LeftShoulder",
        [0.68, 2.38, -0.18],
    ),
    (
        "LeftLowerArm",
        "LowerArm.L",
        "LeftUpperArm",
        [1.33, 2.38, -0.18],
    ),
    ("LeftHand", "Fist.L", "LeftLowerArm", [1.98, 2.38, -0.18]),
    ("Fist.L_end", "Fist.L_end", "LeftHand", [2.3, 2.38, -0.18]),
    ("RightShoulder", "Shoulder.R", "Chest", [-0.59, 2.38, -0.18]),
    (
        "RightUpperArm",
        "UpperArm.R",
        "RightShoulder",
        [-0.68, 2.38, -0.18],
    ),
    (
        "RightLowerArm",
        "LowerArm.R",
        "RightUpperArm",
        [-1.33, 2.38, -0.18],
    ),
    ("RightHand", "Fist.R", "RightLowerArm", [-1.98, 2.38, -0.18]),
    ("Fist.R_end", "Fist.R_end", "RightHand", [-2.3, 2.38, -0.18]),
    ("LeftUpperLeg", "UpperLeg.L", "Body", [0.63, 1.47, -0.29]),
    (
        "LeftLowerLeg",
        "LowerLeg.L",
        "LeftUpperLeg",
        [0.63, 0.86, -0.29],
    ),
    (
        "LowerLeg.L_end",
        "LowerLeg.L_end",
        "LeftLowerLeg",
        [0.52, 0.16, -0.89],
    ),
    ("RightUpperLeg", "UpperLeg.R", "Body", [-0.63, 1.47, -0.29]),
    (
        "RightLowerLeg",
        "LowerLeg.R",
        "RightUpperLeg",
        [-0.63, 0.86, -0.29],
    ),
    (
        "LowerLeg.R_end",
        "LowerLeg.R_end",
        "RightLowerLeg",
        [-0.52, 0.16, -0.89],
    ),
    ("PoleTarget.L", "PoleTarget.L", "Root", [0.91, 1.3, 1.34]),
    (
        "PoleTarget.L_end",
        "PoleTarget.L_end",
        "PoleTarget.L",
        [0.91, 1.6, 1.29],
    ),
    ("RightFoot", "Foot.R", "Root", [-0.63, 0.03, -0.14]),
    ("Foot.R_end", "Foot.R_end", "RightFoot", [-0.63, 0.07, 0.18]),
    ("PoleTarget.R", "PoleTarget.R", "Root", [-0.91, 1.3, 1.34]),
    (
        "PoleTarget.R_end",
        "PoleTarget.R_end",
        "PoleTarget.R",
        [-0.91, 1.6, 1.29],
    ),
];

/// Which names the rig carries.
#[derive(Clone, Copy, PartialEq)]
enum Names {
    /// The Quaternius rig's own (`UpperLeg.L`).
    Quaternius,
    /// The profile's, as a normalized output carries them (`LeftUpperLeg`).
    Normalized,
}

/// The rig with some joints moved (by normalized name) and every x multiplied by `x`.
fn rig(names: Names, moved: &[(&str, [f32; 3])], x: f32) -> Skeleton {
    let name = |n: &str| -> String {
        let row = RIG.iter().find(|r| r.0 == n).expect("a bone of the rig");
        match names {
            Names::Quaternius => row.1.to_string(),
            Names::Normalized => row.0.to_string(),
        }
    };
    let at = |n: &str| -> Vec3 {
        let p = moved.iter().find(|m| m.0 == n).map_or_else(
            || RIG.iter().find(|r| r.0 == n).map_or([0.0; 3], |r| r.3),
            |m| m.1,
        );
        Vec3::new(p[0] * x, p[1], p[2])
    };
    let mut sk = Skeleton {
        name: "CharacterArmature".into(),
        bones: Vec::new(),
        skins: Vec::new(),
        attachments: Vec::new(),
        base: Mat4::IDENTITY,
        base_nodes: Vec::new(),
        declared: None,
    };
    for (n, _, parent, _) in RIG {
        let end = n.ends_with("_end");
        let up = if parent.is_empty() {
            Vec3::ZERO
        } else {
            at(parent)
        };
        sk.bones.push(Bone {
            name: name(n),
            parent: (!parent.is_empty()).then(|| sk.find(&name(parent)).expect("parents first")),
            rest: Transform {
                translation: at(n) - up,
                ..Transform::IDENTITY
            },
            is_joint: !end,
            weighted: Some(!end && !n.starts_with("PoleTarget")),
            node: None,
        });
    }
    sk
}

/// `(profile bone, source bone)` of every mapped profile bone of the body (no fingers here).
fn mapped(sk: &Skeleton) -> Vec<(String, String)> {
    let p = Profile::humanoid();
    let map = map_skeleton(sk, p, &MapOptions::default());
    p.ids()
        .filter_map(|id| {
            map.get(id)
                .map(|b| (p.bone(id).name.clone(), sk.bones[b.index()].name.clone()))
        })
        .collect()
}

/// The profile bones of the rig, each with the bone `names` gives it.
fn expected(names: Names) -> Vec<(String, String)> {
    let p = Profile::humanoid();
    p.ids()
        .filter_map(|id| {
            let n = &p.bone(id).name;
            RIG.iter().find(|r| r.0 == n).map(|r| {
                let source = if names == Names::Normalized { r.0 } else { r.1 };
                (n.clone(), source.to_string())
            })
        })
        .collect()
}

/// Shins whose end sites lie across the middle (each leg's lowest bone on the other leg's side)
/// while the knees and feet stay on their own: an IK layout's shin points at its own end site,
/// not at the foot that hangs from the root, so a rest fix that cannot point it leaves it
/// anywhere.
const CROSSED_SHINS: [(&str, [f32; 3]); 2] = [
    ("LowerLeg.L_end", [-0.3, 0.16, -0.29]),
    ("LowerLeg.R_end", [0.3, 0.16, -0.29]),
];

#[test]
fn crossed_shins_keep_their_named_sides() {
    // The auto-mapper read the facing from the lowest leaves (flipping it so that names hold)
    // but gave the legs their sides by the sum of the whole leg, which still lay the other way:
    // LeftUpperLeg <-> RightUpperLeg swapped (Quaternius Cyberpunk's output, issue 40).
    // (The feet, far from where such shins end, are left to the exact names of an output.)
    let sk = rig(Names::Quaternius, &CROSSED_SHINS, 1.0);
    let legs: Vec<(String, String)> = mapped(&sk)
        .into_iter()
        .filter(|(p, _)| p.contains("Leg"))
        .collect();
    let want: Vec<(String, String)> = expected(Names::Quaternius)
        .into_iter()
        .filter(|(p, _)| p.contains("Leg"))
        .collect();
    assert_eq!(legs, want);
}

#[test]
fn a_normalized_ik_layout_maps_to_itself() {
    // As normalizing RobotExpressive writes it: shins pointing back, their ends far from the
    // feet, which hang from the root. The feet used to be lost (32 of 34 bones mapped again).
    let sk = rig(Names::Normalized, &[], 1.0);
    assert_eq!(mapped(&sk), expected(Names::Normalized));
    // The same warnings as the first time: the feet and upper legs are an IK layout, no bone is
    // out of order.
    let map = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    let codes = |c: WarningCode| -> Vec<String> {
        let mut v: Vec<String> = map
            .warnings
            .iter()
            .filter(|w| w.code == c)
            .flat_map(|w| w.bones.clone())
            .collect();
        v.sort();
        v
    };
    let ik = ["LeftFoot", "LeftUpperLeg", "RightFoot", "RightUpperLeg"];
    assert_eq!(codes(WarningCode::IkLayout), ik);
    assert!(codes(WarningCode::ParentOrder).is_empty());
    // With the shins crossed as well.
    let sk = rig(Names::Normalized, &CROSSED_SHINS, 1.0);
    assert_eq!(mapped(&sk), expected(Names::Normalized));
}

#[test]
fn exact_names_win_over_mirrored_geometry() {
    // Every left-named bone on the character's right (x negated, still facing +Z): geometry
    // alone says every side the other way; the profile's own names say otherwise, and win.
    let sk = rig(Names::Normalized, &[], -1.0);
    assert_eq!(mapped(&sk), expected(Names::Normalized));
}

#[test]
fn a_left_hand_below_the_head_is_not_the_left_hand() {
    // The bone named `LeftHand` hangs from `Head`; the left arm ends in a bone of another name.
    let mut sk = rig(Names::Normalized, &[], 1.0);
    let hand = sk.find("LeftHand").unwrap();
    sk.bones[hand.index()].name = "Fist.L".into();
    let head = sk.find("Head").unwrap();
    sk.bones.push(Bone {
        name: "LeftHand".into(),
        parent: Some(head),
        rest: Transform {
            translation: Vec3::new(0.2, 0.5, 0.0),
            ..Transform::IDENTITY
        },
        is_joint: true,
        weighted: Some(true),
        node: None,
    });
    let got = mapped(&sk);
    let want: Vec<(String, String)> = expected(Names::Normalized)
        .into_iter()
        .map(|(p, s)| {
            let s = if s == "LeftHand" { "Fist.L".into() } else { s };
            (p, s)
        })
        .collect();
    assert_eq!(got, want);
}

//! Issue 43: MakeHuman's default skeleton splits each thigh in two numbered parts, a short
//! `upperleg01` from the hip joint and `upperleg02` from 8 cm lower; the first part is the upper
//! leg. The bones and parents are default.mhskel's (makehumancommunity/makehuman, CC0), each
//! joint where that file puts the bone's head: the mean of the base.obj vertices it lists, in
//! metres (the mesh is in decimetres), to a micrometre (the two parts' scores lie close, and
//! rounding to millimetres tips them). Node-only, identity rotations, as a rig without a skin
//! reads. The face (but `special06.L/R` at the top of the head, which set the rig's height),
//! fingers, breasts and most toes are left out.
use super::*;
use crate::model::{Bone, Transform};
use glam::Vec3;

/// (name, parent, joint), parents first.
const RIG: &[(&str, &str, [f32; 3])] = &[
    ("root", "", [0.000000, 0.056390, -0.076090]),
    ("pelvis.L", "root", [0.000000, 0.072685, 0.014450]),
    ("upperleg01.L", "pelvis.L", [0.110365, 0.048615, 0.012295]),
    (
        "upperleg02.L",
        "upperleg01.L",
        [0.108192, -0.031700, 0.022935],
    ),
    (
        "lowerleg01.L",
        "upperleg02.L",
        [0.158115, -0.369482, 0.032025],
    ),
    (
        "lowerleg02.L",
        "lowerleg01.L",
        [0.188867, -0.557134, 0.015557],
    ),
    ("foot.L", "lowerleg02.L", [0.219620, -0.744785, -0.000910]),
    ("toe1-1.L", "foot.L", [0.188850, -0.800405, 0.135575]),
    ("toe1-2.L", "toe1-1.L", [0.191390, -0.800395, 0.161995]),
    ("pelvis.R", "root", [0.000000, 0.072685, 0.014450]),
    ("upperleg01.R", "pelvis.R", [-0.110365, 0.048615, 0.012295]),
    (
        "upperleg02.R",
        "upperleg01.R",
        [-0.108192, -0.031700, 0.022935],
    ),
    (
        "lowerleg01.R",
        "upperleg02.R",
        [-0.158115, -0.369482, 0.032025],
    ),
    (
        "lowerleg02.R",
        "lowerleg01.R",
        [-0.188867, -0.557134, 0.015557],
    ),
    ("foot.R", "lowerleg02.R", [-0.219620, -0.744785, -0.000910]),
    ("toe1-1.R", "foot.R", [-0.188850, -0.800405, 0.135575]),
    ("toe1-2.R", "toe1-1.R", [-0.191390, -0.800395, 0.161995]),
    ("spine05", "root", [0.000000, 0.072685, 0.014450]),
    ("spine04", "spine05", [0.000000, 0.118685, -0.009625]),
    ("spine03", "spine04", [0.000000, 0.186665, 0.014855]),
    ("spine02", "spine03", [0.000000, 0.279665, 0.025945]),
    ("spine01", "spine02", [0.000000, 0.432855, -0.007125]),
    ("clavicle.L", "spine01", [0.026555, 0.519135, 0.069425]),
    ("shoulder01.L", "clavicle.L", [0.118335, 0.552245, 0.050745]),
    (
        "upperarm01.L",
        "shoulder01.L",
        [0.167713, 0.524580, 0.014605],
    ),
    (
        "upperarm02.L",
        "upperarm01.L",
        [0.205939, 0.476448, 0.012447],
    ),
    (
        "lowerarm01.L",
        "upperarm02.L",
        [0.312936, 0.349319, 0.013201],
    ),
    (
        "lowerarm02.L",
        "lowerarm01.L",
        [0.372061, 0.297250, 0.094428],
    ),
    ("wrist.L", "lowerarm02.L", [0.431185, 0.245181, 0.175655]),
    ("clavicle.R", "spine01", [-0.026555, 0.519135, 0.069425]),
    (
        "shoulder01.R",
        "clavicle.R",
        [-0.118335, 0.552245, 0.050745],
    ),
    (
        "upperarm01.R",
        "shoulder01.R",
        [-0.167713, 0.524580, 0.014605],
    ),
    (
        "upperarm02.R",
        "upperarm01.R",
        [-0.205939, 0.476448, 0.012447],
    ),
    (
        "lowerarm01.R",
        "upperarm02.R",
        [-0.312936, 0.349319, 0.013201],
    ),
    (
        "lowerarm02.R",
        "lowerarm01.R",
        [-0.372061, 0.297250, 0.094428],
    ),
    ("wrist.R", "lowerarm02.R", [-0.431185, 0.245181, 0.175655]),
    ("neck01", "spine01", [0.000000, 0.589025, 0.006805]),
    ("neck02", "neck01", [0.000000, 0.626808, 0.022491]),
    ("neck03", "neck02", [0.000000, 0.662028, 0.034112]),
    ("head", "neck03", [0.000000, 0.697495, 0.016075]),
    ("special06.L", "head", [0.000000, 0.840435, 0.008245]),
    ("special06.R", "head", [0.000000, 0.840435, 0.008245]),
];

fn rig() -> Skeleton {
    let mut sk = Skeleton {
        name: "makehuman".into(),
        bones: Vec::new(),
        skins: Vec::new(),
        attachments: Vec::new(),
        base: glam::Mat4::IDENTITY,
        base_nodes: Vec::new(),
        declared: None,
    };
    for (k, &(name, parent, at)) in RIG.iter().enumerate() {
        let parent = (!parent.is_empty()).then(|| sk.find(parent).expect("parent listed first"));
        let from = parent.map_or(Vec3::ZERO, |p| Vec3::from(RIG[p.index()].2));
        sk.bones.push(Bone {
            name: name.into(),
            parent,
            rest: Transform {
                translation: Vec3::from(at) - from,
                ..Transform::default()
            },
            is_joint: false,
            weighted: None,
            node: Some(k as u32),
        });
    }
    sk
}

#[test]
fn the_first_numbered_part_of_a_split_thigh_is_the_upper_leg() {
    let sk = rig();
    let map = map_skeleton(&sk, Profile::humanoid(), &MapOptions::default());
    let got = |role: &str| {
        let id = Profile::humanoid().find(role).expect("a profile bone");
        map.get(id).map(|b| sk.bones[b.index()].name.clone())
    };
    for (role, bone) in [
        ("LeftUpperLeg", "upperleg01.L"),
        ("LeftLowerLeg", "lowerleg01.L"),
        ("RightUpperLeg", "upperleg01.R"),
        ("RightLowerLeg", "lowerleg01.R"),
        ("LeftUpperArm", "upperarm01.L"),
        ("LeftLowerArm", "lowerarm01.L"),
        ("Hips", "root"),
        ("Spine", "spine05"),
    ] {
        assert_eq!(got(role).as_deref(), Some(bone), "{role}");
    }
}

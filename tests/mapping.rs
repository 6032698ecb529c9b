//! Issue 3: full expected maps (every profile bone → the exact source bone, or unmapped) for
//! every fixture file and the real assets in `../shared/assets`, written by reading each file.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;
mod conventions;

use conventions::names;
use conventions::rig::{self, Parts};
use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, BoneMap, MapOptions};
use skelnorm::model::Skeleton;
use skelnorm::profile::Profile;
use std::collections::BTreeMap;
use std::path::Path;

fn map_file(path: &Path, ignore_declared: bool) -> (Skeleton, BoneMap) {
    let doc = gltf_io::read(path).unwrap_or_else(|e| panic!("{e}"));
    let sk = doc.model.skeletons.into_iter().next().expect("a skeleton");
    let options = MapOptions {
        ignore_declared,
        ..MapOptions::default()
    };
    let map = map_skeleton(&sk, Profile::humanoid(), &options);
    (sk, map)
}

/// Compares a map with the expected one: every profile bone not listed must be unmapped.
fn assert_map(what: &str, sk: &Skeleton, map: &BoneMap, want: &BTreeMap<String, String>) {
    let p = Profile::humanoid();
    let mut wrong = Vec::new();
    for id in p.ids() {
        let name = &p.bone(id).name;
        let got = map.get(id).map(|b| sk.bones[b.index()].name.clone());
        if got.as_ref() != want.get(name) {
            wrong.push(format!("{name}: want {:?}, got {got:?}", want.get(name)));
        }
    }
    assert!(
        wrong.is_empty(),
        "{what}:\n  {}\nwarnings: {:?}",
        wrong.join("\n  "),
        map.warnings
    );
}

/// Left and right entries from one list written for the left (`{S}` is the profile side word,
/// `{s}` the source's side marker).
fn mirrored(pairs: &[(&str, &str)], sides: [&str; 2]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (p, s) in pairs {
        if p.contains("{S}") {
            out.push((p.replace("{S}", "Left"), s.replace("{s}", sides[0])));
            out.push((p.replace("{S}", "Right"), s.replace("{s}", sides[1])));
        } else {
            out.push((p.to_string(), s.to_string()));
        }
    }
    out
}

fn mtable(pairs: &[(&str, &str)], sides: [&str; 2]) -> BTreeMap<String, String> {
    mirrored(pairs, sides).into_iter().collect()
}

/// A fixture file, the naming function and the canonical parts it was generated with.
type FixtureCase = (&'static str, fn(&str) -> String, Parts);

#[test]
fn fixture_files_map_exactly() {
    let ends = Parts {
        ends: true,
        ..Parts::default()
    };
    let cases: [FixtureCase; 12] = [
        ("mixamo.glb", names::mixamo, ends),
        ("mixamo_meshopt.glb", names::mixamo, ends),
        ("blender.glb", names::rigify, ends),
        ("blender_draco.glb", names::rigify, ends),
        ("vrm0.vrm", names::vroid, ends),
        ("identity.gltf", names::godot, Parts::default()),
        (
            "long_spine.glb",
            names::human_ik_long,
            Parts {
                long_spine: true,
                ..ends
            },
        ),
        (
            "ue_zup.glb",
            names::unreal,
            Parts {
                root: true,
                twist: true,
                ik: true,
                ..Parts::default()
            },
        ),
        ("long_legs.glb", names::godot, Parts::default()),
        ("short_legs.glb", names::godot, Parts::default()),
        (
            "spine2.glb",
            names::human_ik_spine2,
            Parts {
                spine_bones: 2,
                ..ends
            },
        ),
        (
            "spine5.glb",
            names::human_ik_spine5,
            Parts {
                spine_bones: 5,
                ..ends
            },
        ),
    ];
    for (file, names, parts) in cases {
        let mut want: BTreeMap<String, String> = rig::humanoid(parts)
            .iter()
            .filter_map(|j| conventions::expected(&j.id).map(|p| (p, names(&j.id))))
            .collect();
        if parts.spine_bones == 2 {
            // Issue 14: a two-bone spine's upper bone is Chest (Godot, Unity, VRM).
            let upper = want.remove("UpperChest").expect("upper chest");
            want.insert("Chest".into(), upper);
        }
        if parts.spine_bones == 5 {
            // Five spine bones: Chest is the one nearest mid-height (the third), the second and
            // fourth stay unmapped in-between bones.
            want.insert("Chest".into(), "Spine2".into());
        }
        let (sk, map) = map_file(&common::root().join("fixtures").join(file), false);
        assert_map(file, &sk, &map, &want);
        let (sk, map) = map_file(&common::root().join("fixtures").join(file), true);
        assert_map(&format!("{file} without its VRM map"), &sk, &map, &want);
    }
}

#[test]
fn quadruped_fixture_is_not_humanoid() {
    let (_, map) = map_file(&common::root().join("fixtures/quadruped.glb"), false);
    let missing = map.missing_required(Profile::humanoid());
    assert!(
        !missing.is_empty(),
        "a quadruped must lack required humanoid bones"
    );
}

#[test]
fn khronos_collada_style_figures() {
    let body = [
        ("Hips", "torso_joint_1"),
        ("Spine", "torso_joint_2"),
        // Issue 14: a two-bone spine's upper bone is Chest (Godot, Unity, VRM).
        ("Chest", "torso_joint_3"),
        ("Neck", "neck_joint_1"),
        ("Head", "neck_joint_2"),
        ("{S}UpperLeg", "leg_joint_{s}_1"),
        ("{S}LowerLeg", "leg_joint_{s}_2"),
        ("{S}Foot", "leg_joint_{s}_3"),
        ("{S}Toes", "leg_joint_{s}_5"),
    ];
    let present = common::require_any(&["khronos/RiggedFigure.glb", "khronos/CesiumMan.glb"]);
    if let Some(path) = present
        .iter()
        .find(|p| p.ends_with("khronos/RiggedFigure.glb"))
    {
        let mut want = body.to_vec();
        want.extend([
            ("{S}UpperArm", "arm_joint_{s}_1"),
            ("{S}LowerArm", "arm_joint_{s}_2"),
            ("{S}Hand", "arm_joint_{s}_3"),
        ]);
        let (sk, map) = map_file(path, false);
        assert_map("RiggedFigure", &sk, &map, &mtable(&want, ["L", "R"]));
    }
    if let Some(path) = present
        .iter()
        .find(|p| p.ends_with("khronos/CesiumMan.glb"))
    {
        // Arm joints are numbered downward on the left and upward on the right: only the
        // hierarchy and the geometry can tell them apart.
        let mut want: Vec<(String, String)> = mirrored(&body, ["L", "R"]);
        for (p, s) in &mut want {
            if ["Hips", "Spine", "Neck", "Head"].contains(&p.as_str()) {
                *s = format!("Skeleton_{s}");
            }
        }
        want.extend(
            [
                ("LeftUpperArm", "Skeleton_arm_joint_L__4_"),
                ("LeftLowerArm", "Skeleton_arm_joint_L__3_"),
                ("LeftHand", "Skeleton_arm_joint_L__2_"),
                ("RightUpperArm", "Skeleton_arm_joint_R"),
                ("RightLowerArm", "Skeleton_arm_joint_R__2_"),
                ("RightHand", "Skeleton_arm_joint_R__3_"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string())),
        );
        let (sk, map) = map_file(path, false);
        assert_map("CesiumMan", &sk, &map, &want.into_iter().collect());
    }
}

#[test]
fn robot_expressive() {
    let Some([path]) = common::require(["threejs/RobotExpressive.glb"]) else {
        return;
    };
    // Issue 14: an IK layout. The legs hang from `Body`, a bone above the one named `Hips`,
    // from which the spine rises: the hips are `Hips`, and the legs (beside it) and the feet
    // (hanging from the IK root `Bone`, at the shins' ends) map with `ik_layout` warnings. The
    // fingers fan out of the forearm through palm bones, with no single hand bone: issue 43, the
    // middle finger's palm bone stands for the hand, as public maps of this rig have it (a
    // retargeting role table `hand.L` ← `Palm2.L`, a pose driver's `LowerArm.L` → `Palm2.L`;
    // find_string ids 70999835252 and 59701042302).
    let want = mtable(
        &[
            ("Root", "Bone"),
            ("Hips", "Hips"),
            ("Spine", "Abdomen"),
            ("Chest", "Torso"),
            ("Neck", "Neck"),
            ("Head", "Head"),
            ("{S}Shoulder", "Shoulder.{s}"),
            ("{S}UpperArm", "UpperArm.{s}"),
            ("{S}LowerArm", "LowerArm.{s}"),
            ("{S}Hand", "Palm2.{s}"),
            ("{S}ThumbProximal", "Thumb.{s}"),
            ("{S}ThumbDistal", "Thumb2.{s}"),
            ("{S}IndexProximal", "Index.{s}"),
            ("{S}IndexIntermediate", "Index2.{s}"),
            ("{S}MiddleProximal", "Middle1.{s}"),
            ("{S}MiddleIntermediate", "Middle2.{s}"),
            ("{S}RingProximal", "Ring1.{s}"),
            ("{S}RingIntermediate", "Ring2.{s}"),
            ("{S}UpperLeg", "UpperLeg.{s}"),
            ("{S}LowerLeg", "LowerLeg.{s}"),
            ("{S}Foot", "Foot.{s}"),
        ],
        ["L", "R"],
    );
    let (sk, map) = map_file(&path, false);
    assert_map("RobotExpressive", &sk, &map, &want);
    let ik: Vec<&str> = map
        .warnings
        .iter()
        .filter(|w| w.code == skelnorm::model::WarningCode::IkLayout)
        .flat_map(|w| w.bones.iter().map(String::as_str))
        .collect();
    for b in ["LeftFoot", "RightFoot", "LeftUpperLeg", "RightUpperLeg"] {
        assert!(
            ik.contains(&b),
            "no ik_layout warning for {b}: {:?}",
            map.warnings
        );
    }
    let missing: Vec<String> = map
        .missing_required(Profile::humanoid())
        .iter()
        .map(|id| Profile::humanoid().bone(*id).name.clone())
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
}

#[test]
fn modular_men() {
    let Some([path]) = common::require(["quaternius/ModularMen_Casual.glb"]) else {
        return;
    };
    // A four-bone spine: Abdomen lowest, Chest carries the neck and shoulders, Torso between.
    // The two-bone thumbs start far from the wrist: proximal and distal phalanges.
    let mut pairs = vec![
        ("Root", "Root"),
        ("Hips", "Hips"),
        ("Spine", "Abdomen"),
        ("Chest", "Torso"),
        ("UpperChest", "Chest"),
        ("Neck", "Neck"),
        ("Head", "Head"),
        ("{S}Shoulder", "Shoulder.{s}"),
        ("{S}UpperArm", "UpperArm.{s}"),
        ("{S}LowerArm", "LowerArm.{s}"),
        ("{S}Hand", "Hand.{s}"),
        ("{S}ThumbProximal", "Thumb2.{s}"),
        ("{S}ThumbDistal", "Thumb3.{s}"),
        ("{S}UpperLeg", "UpperLeg.{s}"),
        ("{S}LowerLeg", "LowerLeg.{s}"),
        ("{S}Foot", "Foot.{s}"),
    ];
    let fingers = [
        ("{S}IndexProximal", "Index2.{s}"),
        ("{S}IndexIntermediate", "Index3.{s}"),
        ("{S}IndexDistal", "Index4.{s}"),
        ("{S}MiddleProximal", "Middle2.{s}"),
        ("{S}MiddleIntermediate", "Middle3.{s}"),
        ("{S}MiddleDistal", "Middle4.{s}"),
        ("{S}RingProximal", "Ring2.{s}"),
        ("{S}RingIntermediate", "Ring3.{s}"),
        ("{S}RingDistal", "Ring4.{s}"),
        ("{S}LittleProximal", "Pinky2.{s}"),
        ("{S}LittleIntermediate", "Pinky3.{s}"),
        ("{S}LittleDistal", "Pinky4.{s}"),
    ];
    pairs.extend(fingers);
    let (sk, map) = map_file(&path, false);
    assert_map("ModularMen_Casual", &sk, &map, &mtable(&pairs, ["L", "R"]));
}

/// VRM files: the declared map, and the auto-mapper without it, give the same expected map.
#[test]
fn vrm_files_with_and_without_their_extension() {
    let blender_names = [
        ("Hips", "Hips"),
        ("Spine", "Spine"),
        ("Chest", "Chest"),
        ("UpperChest", "UpperChest"),
        ("Neck", "Neck"),
        ("Head", "Head"),
        ("{S}Shoulder", "Shoulder.{s}"),
        ("{S}UpperArm", "UpperArm.{s}"),
        ("{S}LowerArm", "LowerArm.{s}"),
        ("{S}Hand", "Hand.{s}"),
        ("{S}UpperLeg", "UpperLeg.{s}"),
        ("{S}LowerLeg", "LowerLeg.{s}"),
        ("{S}Foot", "Foot.{s}"),
        ("{S}Toes", "Toes.{s}"),
    ];
    let want = mtable(&blender_names, ["L", "R"]);
    let files = [
        "vrm/sphere.vrm",
        "vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm",
    ];
    let present = common::require_any(&files);
    for file in files {
        let Some(path) = present.iter().find(|p| p.ends_with(file)) else {
            continue;
        };
        let (sk, map) = map_file(path, false);
        assert!(sk.declared.is_some(), "{file} declares a humanoid");
        assert_map(file, &sk, &map, &want);
        let (sk, map) = map_file(path, true);
        assert_map(&format!("{file} without its extension"), &sk, &map, &want);
    }
}

#[test]
fn vrm_animation_names_its_nodes_by_vrm_id() {
    let Some([path]) = common::require(["vrm/test.vrma"]) else {
        return;
    };
    let (sk, _) = map_file(&path, false);
    // Every node is named by its VRM 1.0 bone id (`leftUpperArm`); the profile name is the same
    // with a capital first letter.
    let p = Profile::humanoid();
    let want: BTreeMap<String, String> = sk
        .bones
        .iter()
        .filter_map(|b| {
            let title = names::title(&b.name);
            p.find(&title).map(|_| (title, b.name.clone()))
        })
        .collect();
    assert_eq!(want.len(), 51);
    for ignore in [false, true] {
        let (sk, map) = map_file(&path, ignore);
        assert_map(
            &format!("test.vrma (ignore VRM map: {ignore})"),
            &sk,
            &map,
            &want,
        );
    }
}

#[test]
fn fox_is_not_humanoid() {
    let Some([path]) = common::require(["khronos/Fox.glb"]) else {
        return;
    };
    let (_, map) = map_file(&path, false);
    let missing = map.missing_required(Profile::humanoid());
    assert!(missing.len() >= 6, "the fox lacks arms: {missing:?}");
}

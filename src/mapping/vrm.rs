//! The humanoid map a VRM 0.x, VRM 1.0 or VRMA file declares, in profile names.
//!
//! A declared map is the map (issue 43): a VRM humanoid bone it does not declare is not that
//! bone, whatever a node's name or place says. `VRMC_vrm_animation` "maps the glTF node to the
//! human bone" and only the nodes it names carry humanoid motion; `VRMC_vrm`'s humanoid lists
//! which of its optional bones (chest, neck, toes, eyes, jaw, fingers) a model has. So a VRMA
//! whose map leaves the fingers out (bvh2vrma wrote such clips before it mapped fingers) keeps
//! its finger-like nodes unmapped. Profile bones that are no VRM bone (`Root`) are mapped as
//! usual. A map that leaves out a bone the profile requires (VRM requires it too) is no valid
//! declaration; then the mapper fills what it lacks, as before.

use super::{Mapped, Origin};
use crate::model::{DeclaredMap, DeclaredSource, Skeleton};
use crate::model::{Warning, WarningCode};
use crate::profile::{Profile, ProfileBoneId};

/// The humanoid bones of VRM 1.0 (`VRMC_vrm-1.0/humanoid.md`), which `VRMC_vrm_animation` uses
/// too; VRM 0.x has the same bones (its thumbs one phalanx on, see [`profile_name`]).
const HUMAN_BONES: [&str; 55] = [
    "hips",
    "spine",
    "chest",
    "upperChest",
    "neck",
    "head",
    "leftEye",
    "rightEye",
    "jaw",
    "leftUpperLeg",
    "leftLowerLeg",
    "leftFoot",
    "leftToes",
    "rightUpperLeg",
    "rightLowerLeg",
    "rightFoot",
    "rightToes",
    "leftShoulder",
    "leftUpperArm",
    "leftLowerArm",
    "leftHand",
    "rightShoulder",
    "rightUpperArm",
    "rightLowerArm",
    "rightHand",
    "leftThumbMetacarpal",
    "leftThumbProximal",
    "leftThumbDistal",
    "leftIndexProximal",
    "leftIndexIntermediate",
    "leftIndexDistal",
    "leftMiddleProximal",
    "leftMiddleIntermediate",
    "leftMiddleDistal",
    "leftRingProximal",
    "leftRingIntermediate",
    "leftRingDistal",
    "leftLittleProximal",
    "leftLittleIntermediate",
    "leftLittleDistal",
    "rightThumbMetacarpal",
    "rightThumbProximal",
    "rightThumbDistal",
    "rightIndexProximal",
    "rightIndexIntermediate",
    "rightIndexDistal",
    "rightMiddleProximal",
    "rightMiddleIntermediate",
    "rightMiddleDistal",
    "rightRingProximal",
    "rightRingIntermediate",
    "rightRingDistal",
    "rightLittleProximal",
    "rightLittleIntermediate",
    "rightLittleDistal",
];

/// The profile bones that are VRM humanoid bones `declared` does not declare, and so stay
/// unmapped. Empty when the map leaves out a bone the profile requires (no valid declaration:
/// the mapper fills it in).
pub(super) fn undeclared(declared: &DeclaredMap, profile: &Profile) -> Vec<ProfileBoneId> {
    let names: Vec<String> = declared
        .bones
        .iter()
        .map(|(vrm, _)| profile_name(vrm, declared.source))
        .collect();
    let vrm_bone = |id: ProfileBoneId| {
        let name = &profile.bone(id).name;
        HUMAN_BONES
            .iter()
            .any(|b| profile_name(b, DeclaredSource::Vrm1) == *name)
    };
    let left_out: Vec<ProfileBoneId> = profile
        .ids()
        .filter(|&id| vrm_bone(id) && !names.contains(&profile.bone(id).name))
        .collect();
    if left_out.iter().any(|&id| profile.bone(id).required) {
        return Vec::new();
    }
    left_out
}

/// The profile name of a VRM humanoid bone id: `leftUpperArm` → `LeftUpperArm`. VRM 0.x counts
/// thumb bones from the proximal phalanx (`thumbProximal/Intermediate/Distal`), VRM 1.0 and the
/// profile from the metacarpal (`ThumbMetacarpal/Proximal/Distal`).
pub fn profile_name(vrm: &str, source: DeclaredSource) -> String {
    let mut name: String = vrm
        .chars()
        .take(1)
        .flat_map(char::to_uppercase)
        .chain(vrm.chars().skip(1))
        .collect();
    if source == DeclaredSource::Vrm0 {
        for (from, to) in [
            ("ThumbProximal", "ThumbMetacarpal"),
            ("ThumbIntermediate", "ThumbProximal"),
        ] {
            if name.ends_with(from) {
                name = name.replace(from, to);
                break;
            }
        }
    }
    name
}

pub(super) fn apply(
    declared: &DeclaredMap,
    skeleton: &Skeleton,
    profile: &Profile,
    fixed: &mut [Option<Mapped>],
    forced_empty: &[bool],
    warnings: &mut Vec<Warning>,
) {
    let ext = match declared.source {
        DeclaredSource::Vrm0 => "VRM",
        DeclaredSource::Vrm1 => "VRMC_vrm",
        DeclaredSource::VrmAnimation => "VRMC_vrm_animation",
    };
    for (vrm, bone) in &declared.bones {
        let name = profile_name(vrm, declared.source);
        let Some(id) = profile.find(&name) else {
            warnings.push(Warning {
                code: WarningCode::UnknownBone,
                skeleton: None,
                message: format!("{ext}: humanoid bone `{vrm}` has no profile bone `{name}`"),
                bones: Vec::new(),
                clips: Vec::new(),
                chain: None,
            });
            continue;
        };
        let taken = fixed
            .iter()
            .any(|f| f.as_ref().is_some_and(|m| m.bone == *bone));
        if fixed[id.index()].is_some() || forced_empty[id.index()] || taken {
            continue;
        }
        fixed[id.index()] = Some(Mapped {
            bone: *bone,
            confidence: 1.0,
            origin: Origin::Declared,
            reason: format!(
                "{ext} humanoid `{vrm}` (`{}`)",
                skeleton.bones[bone.index()].name
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::BoneId;

    #[test]
    fn vrm0_thumbs_shift_by_one() {
        let v0 = DeclaredSource::Vrm0;
        assert_eq!(profile_name("leftThumbProximal", v0), "LeftThumbMetacarpal");
        assert_eq!(
            profile_name("rightThumbIntermediate", v0),
            "RightThumbProximal"
        );
        assert_eq!(profile_name("leftThumbDistal", v0), "LeftThumbDistal");
        assert_eq!(profile_name("leftIndexProximal", v0), "LeftIndexProximal");
        let v1 = DeclaredSource::Vrm1;
        assert_eq!(profile_name("leftThumbProximal", v1), "LeftThumbProximal");
        assert_eq!(profile_name("hips", v1), "Hips");
    }

    /// Every VRM humanoid bone is a profile bone; a VRM 0.x map's `leftThumbProximal` declares
    /// the profile's `LeftThumbMetacarpal`, and `Root` (no VRM bone) is never left out.
    #[test]
    fn undeclared_bones_are_vrm_bones_the_map_leaves_out() {
        let p = Profile::humanoid();
        for b in HUMAN_BONES {
            assert!(
                p.find(&profile_name(b, DeclaredSource::Vrm1)).is_some(),
                "{b}"
            );
        }
        let required = p.bones.iter().filter(|b| b.required).map(|b| &b.name);
        let mut bones: Vec<(String, BoneId)> = required
            .map(|n| (n[..1].to_lowercase() + &n[1..], BoneId(0)))
            .collect();
        bones.push(("leftThumbProximal".into(), BoneId(0)));
        let declared = DeclaredMap {
            source: DeclaredSource::Vrm0,
            bones,
        };
        let left_out: Vec<&str> = undeclared(&declared, p)
            .into_iter()
            .map(|id| p.bone(id).name.as_str())
            .collect();
        assert_eq!(left_out.len(), 55 - 16, "{left_out:?}");
        assert!(!left_out.contains(&"LeftThumbMetacarpal"));
        assert!(left_out.contains(&"LeftThumbProximal"));
        assert!(!left_out.contains(&"Root"));
        // Without a required bone the declaration binds nothing.
        let mut partial = declared.clone();
        partial.bones.retain(|(b, _)| b != "hips");
        assert!(undeclared(&partial, p).is_empty());
    }
}

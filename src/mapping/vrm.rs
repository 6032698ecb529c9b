//! The humanoid map a VRM 0.x, VRM 1.0 or VRMA file declares, in profile names.

use super::{Mapped, Origin};
use crate::model::{DeclaredMap, DeclaredSource, Skeleton};
use crate::model::{Warning, WarningCode};
use crate::profile::Profile;

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
}

//! Mapping by names and the hierarchy alone, for a skeleton whose geometry shows no body: a
//! rest laid flat along one axis, collinear or folded to one point, and no clip frame that
//! shows more (issue 43). The Bandai-Namco motion dataset names its bones `Hips`, `Spine`,
//! `UpperArm_L`… and rests them all along the X axis.
//!
//! The rule, in order:
//! 1. Entries already held (a bone-map file, a declared VRM map, exact profile names) stay.
//! 2. A free bone the auto-mapper could map at all ([`super::mappable`]) names the profile bone
//!    its name fits best, when that fit reaches [`MIN_SCORE`] and no other profile bone fits as
//!    well. Each profile bone takes the bone that names it best, the first in bone order
//!    (parents first) on a tie: `Spine` before `Spine1`.
//! 3. Parents first, a bone is dropped when the hierarchy contradicts it: its nearest ancestor
//!    holding a role holds one that is not an ancestor of its own role in the profile (as in
//!    [`super::exact`]).
//! 4. The names bind only when they hold more than half of the profile's required bones, a
//!    left and a right one among them; otherwise the map stays as the rest left it.
//!
//! Sides come from names only; geometry is not read at all.

use super::names::{score, NameInfo};
use super::{BoneMap, Mapped, Origin};
use crate::model::{BoneId, Skeleton, Warning, WarningCode};
use crate::profile::{Profile, ProfileBoneId, Side};

/// The least name fit (see [`super::names::score`]) that maps a bone by its name alone: a
/// name missing its side (0.8 of a full fit) is not enough for a sided profile bone.
pub(super) const MIN_SCORE: f32 = 0.85;

/// `map` (the rest's map, with no hips found) completed by names and the hierarchy; unchanged
/// when names add nothing. The auto-mapper's "no hips found" warning gives way to a
/// [`WarningCode::NamesOnly`] warning.
pub(super) fn map(skeleton: &Skeleton, profile: &Profile, map: BoneMap) -> BoneMap {
    let mut named = map.clone();
    let why = "no geometry: the rest shows no body";
    let found = fill(skeleton, profile, &mut named, why);
    if found == 0 || !humanoid_enough(profile, &named) {
        return map;
    }
    let mut map = named;
    map.warnings.retain(|w| !super::fallback::no_hips_found(w));
    map.warnings.insert(
        0,
        Warning {
            code: WarningCode::NamesOnly,
            skeleton: None,
            message: format!(
                "the rest shows no body (no hips with two legs reaching down and a spine reaching up), nor does a clip's first frame: {} bones were mapped by their names and the hierarchy alone",
                found
            ),
            bones: Vec::new(),
            clips: Vec::new(),
            chain: None,
        },
    );
    map
}

/// Rule 4: names alone bind only a map that holds more than half of the profile's required
/// bones, a left and a right one among them (a `pelvis` → `spine` → `head` chain is no body).
fn humanoid_enough(profile: &Profile, map: &BoneMap) -> bool {
    let required: Vec<ProfileBoneId> = profile
        .ids()
        .filter(|&id| profile.bone(id).required)
        .collect();
    let held: Vec<ProfileBoneId> = required
        .iter()
        .copied()
        .filter(|&id| map.get(id).is_some())
        .collect();
    let side = |s: Side| held.iter().any(|&id| profile.bone(id).side == s);
    2 * held.len() > required.len() && side(Side::Left) && side(Side::Right)
}

/// Adds to `map` the bones rules 2 and 3 find, each with a reason ending in `why`; returns how
/// many. Also fills what a clip frame's geometry left out of a map (a toe the frame's stride
/// hides), where the rest could not decide.
pub(super) fn fill(skeleton: &Skeleton, profile: &Profile, map: &mut BoneMap, why: &str) -> usize {
    let info: Vec<NameInfo> = skeleton
        .bones
        .iter()
        .map(|b| super::names::analyze(&b.name, profile))
        .collect();
    let found = named(skeleton, profile, &info, map);
    for &(id, b, fit) in &found {
        map.entries[id.index()] = Some(Mapped {
            bone: b,
            confidence: fit * 0.9,
            origin: Origin::Auto,
            reason: format!(
                "name `{}`; its place in the hierarchy agrees ({why})",
                skeleton.bones[b.index()].name
            ),
        });
    }
    found.len()
}

/// The (profile bone, bone, name fit) that rules 2 and 3 add to `map`, in bone order.
fn named(
    skeleton: &Skeleton,
    profile: &Profile,
    info: &[NameInfo],
    map: &BoneMap,
) -> Vec<(ProfileBoneId, BoneId, f32)> {
    let n = skeleton.bones.len();
    let mappable = super::mappable(skeleton, profile, info, &skeleton.children());
    let mut role = super::exact::roles(skeleton, &map.entries);
    // Rule 2: every free bone's best profile bone, then every profile bone's best bone.
    let mut best: Vec<Option<(BoneId, f32)>> = vec![None; profile.bones.len()];
    for i in 0..n {
        if !mappable[i] || role[i].is_some() {
            continue;
        }
        let fits: Vec<f32> = profile.bones.iter().map(|p| score(p, &info[i])).collect();
        let top = fits.iter().copied().fold(0.0, f32::max);
        if top < MIN_SCORE || fits.iter().filter(|&&f| f == top).count() > 1 {
            continue;
        }
        let Some(id) = fits.iter().position(|&f| f == top) else {
            continue;
        };
        if map.entries[id].is_some() {
            continue;
        }
        if best[id].is_none_or(|(_, f)| top > f) {
            best[id] = Some((BoneId(i as u32), top));
        }
    }
    let mut wanted: Vec<Option<(ProfileBoneId, f32)>> = vec![None; n];
    for (id, b) in best.iter().enumerate() {
        if let Some((b, f)) = b {
            wanted[b.index()] = Some((ProfileBoneId(id as u32), *f));
        }
    }
    // Rule 3, parents first.
    let mut out = Vec::new();
    for i in 0..n {
        let Some((id, fit)) = wanted[i] else { continue };
        if !super::exact::hierarchy_agrees(skeleton, profile, &role, i, id) {
            continue;
        }
        role[i] = Some(id);
        out.push((id, BoneId(i as u32), fit));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::{map_skeleton, MapOptions};
    use crate::model::{Bone, Transform};
    use glam::{Mat4, Vec3};

    /// A skeleton of `(name, parent)` pairs, parents first, every joint 1 unit along its
    /// parent's +X: a rest laid flat along one axis, as the Bandai-Namco dataset's.
    fn flat(bones: &[(&str, Option<&str>)]) -> Skeleton {
        let mut sk = Skeleton {
            name: "flat".into(),
            bones: Vec::new(),
            skins: Vec::new(),
            attachments: Vec::new(),
            base: Mat4::IDENTITY,
            base_nodes: Vec::new(),
            declared: None,
        };
        for (name, parent) in bones {
            let parent = parent.map(|p| sk.find(p).expect("parent first"));
            sk.bones.push(Bone {
                name: name.to_string(),
                parent,
                rest: Transform {
                    translation: Vec3::X,
                    ..Transform::IDENTITY
                },
                is_joint: true,
                weighted: None,
                node: None,
            });
        }
        sk
    }

    /// The dataset's joint names and hierarchy, with `Hand_L` hung from `Head` instead.
    fn bandai(hand_on_head: bool) -> Skeleton {
        let hand_parent = if hand_on_head { "Head" } else { "LowerArm_L" };
        flat(&[
            ("Hips", None),
            ("Spine", Some("Hips")),
            ("Chest", Some("Spine")),
            ("Neck", Some("Chest")),
            ("Head", Some("Neck")),
            ("Shoulder_L", Some("Chest")),
            ("UpperArm_L", Some("Shoulder_L")),
            ("LowerArm_L", Some("UpperArm_L")),
            ("Hand_L", Some(hand_parent)),
            ("Shoulder_R", Some("Chest")),
            ("UpperArm_R", Some("Shoulder_R")),
            ("LowerArm_R", Some("UpperArm_R")),
            ("Hand_R", Some("LowerArm_R")),
            ("UpperLeg_L", Some("Hips")),
            ("LowerLeg_L", Some("UpperLeg_L")),
            ("Foot_L", Some("LowerLeg_L")),
            ("UpperLeg_R", Some("Hips")),
            ("LowerLeg_R", Some("UpperLeg_R")),
            ("Foot_R", Some("LowerLeg_R")),
        ])
    }

    fn mapped(sk: &Skeleton) -> (Vec<(String, String)>, BoneMap) {
        let p = Profile::humanoid();
        let map = map_skeleton(sk, p, &MapOptions::default());
        let pairs = p
            .ids()
            .filter_map(|id| {
                let b = map.get(id)?;
                Some((p.bone(id).name.clone(), sk.bones[b.index()].name.clone()))
            })
            .collect();
        (pairs, map)
    }

    #[test]
    fn a_flat_rest_is_mapped_by_names_and_hierarchy() {
        let (pairs, map) = mapped(&bandai(false));
        assert_eq!(pairs.len(), 19, "{pairs:?}");
        for (role, bone) in [
            ("Hips", "Hips"),
            ("LeftShoulder", "Shoulder_L"),
            ("RightLowerArm", "LowerArm_R"),
            ("LeftFoot", "Foot_L"),
        ] {
            assert!(pairs.contains(&(role.into(), bone.into())), "{pairs:?}");
        }
        assert_eq!(map.warnings[0].code, WarningCode::NamesOnly);
        assert!(map.missing_required(Profile::humanoid()).is_empty());
    }

    #[test]
    fn a_hand_the_hierarchy_contradicts_is_left_out() {
        let (pairs, _) = mapped(&bandai(true));
        assert!(!pairs.iter().any(|(r, _)| r == "LeftHand"), "{pairs:?}");
        assert_eq!(pairs.len(), 18, "{pairs:?}");
    }

    #[test]
    fn a_few_names_are_no_body() {
        let (pairs, map) = mapped(&flat(&[
            ("Hips", None),
            ("Spine", Some("Hips")),
            ("Head", Some("Spine")),
            ("Hand_L", Some("Head")),
        ]));
        assert!(pairs.is_empty(), "{pairs:?}");
        assert!(map
            .warnings
            .iter()
            .all(|w| w.code != WarningCode::NamesOnly));
    }
}

//! Bones named exactly as profile bones keep those roles (issue 40: outputs normalize to
//! themselves). A normalized skeleton carries the profile's own names (`Hips`, `LeftUpperLeg`, …);
//! mapping it again must give every bone back its name, whatever its rest geometry suggests (an
//! IK layout's shins that point away from their feet, legs that cross).
//!
//! The rule, in order:
//! 1. A candidate is a bone whose whole name equals a profile bone's name (case and all), where
//!    no other bone of the skeleton has that name, that the auto-mapper could map at all (no
//!    helper, no end site: [`super::mappable`]), and where neither the profile bone nor the bone
//!    is already taken by a bone-map file or a VRM map (those win). An unmapped node keeps its
//!    name in an output (a control node `Root` above a rig's controls); it stays unmapped.
//! 2. Parents first, a candidate is dropped when the hierarchy contradicts it: its nearest
//!    ancestor that holds a role (a candidate kept so far, or a bone-map/VRM entry) holds one that
//!    is not an ancestor of its own role in the profile. A `LeftHand` below `Head` is no left
//!    hand, and the bones named below it are judged against `Head` in turn. Roles missing in
//!    between, and bones hung higher up than their profile parent (an IK layout's feet on the
//!    root), are no contradiction.
//! 3. The kept candidates bind only when the skeleton is named in the profile's own convention:
//!    they hold more than half of the profile's required bones, a left and a right one among
//!    them. Other conventions share some names with the profile, sometimes for other roles: a
//!    Quaternius `Chest` carries the shoulders (the profile's `UpperChest`), a CMU BVH's
//!    `LeftShoulder` is the upper arm and its `Spine` the second spine bone. HumanIK-style names
//!    reach 7 of the humanoid's 15 required bones (hips, spine, head, hands, feet); past that
//!    takes the profile's own limb names (`LeftUpperArm`, `LeftLowerLeg`). Below it, exact names
//!    stay what any name is to the auto-mapper: evidence.
//!
//! Sides are never judged by geometry here: a bone named `LeftUpperLeg` is the left upper leg
//! even where its rest lies across the middle.

use super::names::NameInfo;
use super::{Mapped, Origin};
use crate::model::{BoneId, Skeleton};
use crate::profile::{Profile, ProfileBoneId, Side};
use std::collections::HashMap;

/// Fills `fixed` with the profile bones that bones carrying their exact names keep (see the
/// module's rule); slots already fixed or forced empty, and bones already fixed, are left alone.
/// `info` is every bone's name as the profile reads it.
pub(super) fn apply(
    skeleton: &Skeleton,
    profile: &Profile,
    info: &[NameInfo],
    fixed: &mut [Option<Mapped>],
    forced_empty: &[bool],
) {
    let kept = kept(skeleton, profile, info, fixed, forced_empty);
    let sides = |s: Side| kept.iter().any(|(id, _)| profile.bone(*id).side == s);
    let required = profile
        .ids()
        .filter(|&id| profile.bone(id).required)
        .count();
    let held = kept
        .iter()
        .filter(|(id, _)| profile.bone(*id).required)
        .count();
    if 2 * held <= required || !(sides(Side::Left) && sides(Side::Right)) {
        return;
    }
    for (id, b) in kept {
        fixed[id.index()] = Some(Mapped {
            bone: b,
            confidence: 1.0,
            origin: Origin::Auto,
            reason: format!(
                "exact profile name `{}`; its place in the hierarchy agrees",
                skeleton.bones[b.index()].name
            ),
        });
    }
}

/// The candidates the hierarchy does not contradict (rules 1 and 2), in bone order.
fn kept(
    skeleton: &Skeleton,
    profile: &Profile,
    info: &[NameInfo],
    fixed: &[Option<Mapped>],
    forced_empty: &[bool],
) -> Vec<(ProfileBoneId, BoneId)> {
    let mappable = super::mappable(skeleton, profile, info, &skeleton.children());
    let mut count: HashMap<&str, usize> = HashMap::new();
    for b in &skeleton.bones {
        *count.entry(b.name.as_str()).or_default() += 1;
    }
    // The role each bone holds so far: bone-map and VRM entries, then kept candidates.
    let mut role = roles(skeleton, fixed);
    let mut out = Vec::new();
    for (i, bone) in skeleton.bones.iter().enumerate() {
        let Some(id) = profile.find(&bone.name) else {
            continue;
        };
        if count[bone.name.as_str()] > 1
            || !mappable[i]
            || role[i].is_some()
            || fixed[id.index()].is_some()
            || forced_empty[id.index()]
        {
            continue;
        }
        if !hierarchy_agrees(skeleton, profile, &role, i, id) {
            continue;
        }
        role[i] = Some(id);
        out.push((id, BoneId(i as u32)));
    }
    out
}

/// The profile bone each bone of `skeleton` holds in `entries` (a map's entries, by profile
/// bone).
pub(super) fn roles(skeleton: &Skeleton, entries: &[Option<Mapped>]) -> Vec<Option<ProfileBoneId>> {
    let mut role = vec![None; skeleton.bones.len()];
    for (i, e) in entries.iter().enumerate() {
        if let Some(m) = e {
            role[m.bone.index()] = Some(ProfileBoneId(i as u32));
        }
    }
    role
}

/// Whether the hierarchy lets bone `i` take profile bone `id` (rule 2): its nearest ancestor
/// holding a role in `role` holds none, or one that is a profile ancestor of `id`.
pub(super) fn hierarchy_agrees(
    skeleton: &Skeleton,
    profile: &Profile,
    role: &[Option<ProfileBoneId>],
    i: usize,
    id: ProfileBoneId,
) -> bool {
    let mut up = skeleton.bones[i].parent;
    let above = loop {
        match up {
            None => break None,
            Some(p) if role[p.index()].is_some() => break role[p.index()],
            Some(p) => up = skeleton.bones[p.index()].parent,
        }
    };
    !above.is_some_and(|a| a == id || !profile.is_ancestor(a, id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Bone, Transform};
    use glam::{Mat4, Vec3};

    /// A skeleton of `(name, parent)` pairs, parents first, every joint 1 unit above its parent.
    fn tree(bones: &[(&str, Option<&str>)]) -> Skeleton {
        let mut sk = Skeleton {
            name: "tree".into(),
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
                    translation: Vec3::Y,
                    ..Transform::IDENTITY
                },
                is_joint: true,
                weighted: None,
                node: None,
            });
        }
        sk
    }

    /// Every bone's name as the humanoid profile reads it.
    fn read(sk: &Skeleton) -> Vec<NameInfo> {
        let p = Profile::humanoid();
        sk.bones
            .iter()
            .map(|b| crate::mapping::names::analyze(&b.name, p))
            .collect()
    }

    fn kept_names(sk: &Skeleton) -> Vec<(String, String)> {
        let p = Profile::humanoid();
        let fixed = vec![None; p.bones.len()];
        let empty = vec![false; p.bones.len()];
        kept(sk, p, &read(sk), &fixed, &empty)
            .into_iter()
            .map(|(id, b)| (p.bone(id).name.clone(), sk.bones[b.index()].name.clone()))
            .collect()
    }

    #[test]
    fn a_left_hand_below_the_head_is_no_left_hand_nor_are_its_fingers() {
        let sk = tree(&[
            ("Hips", None),
            ("Spine", Some("Hips")),
            ("Head", Some("Spine")),
            ("LeftHand", Some("Head")),
            ("LeftIndexProximal", Some("LeftHand")),
            ("LeftUpperArm", Some("Spine")),
        ]);
        let names: Vec<String> = kept_names(&sk).into_iter().map(|(p, _)| p).collect();
        assert_eq!(names, ["Hips", "Spine", "Head", "LeftUpperArm"]);
    }

    #[test]
    fn bones_hung_higher_up_and_roles_missing_between_are_no_contradiction() {
        // An IK layout: the feet hang from the root, the legs from an unnamed `Body`.
        let sk = tree(&[
            ("Root", None),
            ("LeftFoot", Some("Root")),
            ("Body", Some("Root")),
            ("Hips", Some("Body")),
            ("LeftUpperLeg", Some("Body")),
            ("LeftLowerLeg", Some("LeftUpperLeg")),
            ("Chest", Some("Hips")),
        ]);
        assert_eq!(kept_names(&sk).len(), 6);
    }

    #[test]
    fn an_inverted_order_drops_the_lower_bone_and_duplicates_bind_nothing() {
        let sk = tree(&[
            ("Spine", None),
            ("Hips", Some("Spine")),
            ("LeftUpperLeg", Some("Hips")),
            ("Head", Some("Spine")),
            ("Head", Some("Spine")),
        ]);
        // `Hips` below `Spine` is contradicted; `LeftUpperLeg` is judged against `Spine`, not an
        // ancestor of the leg in the profile; both `Head`s are ambiguous.
        let names: Vec<String> = kept_names(&sk).into_iter().map(|(p, _)| p).collect();
        assert_eq!(names, ["Spine"]);
    }

    #[test]
    fn names_other_conventions_share_do_not_bind() {
        // The CMU BVH (`../shared/assets/bvh/cmu_131_03_maxfriendly.bvh`, its real names and
        // parents): `LeftShoulder` is the upper arm below `LeftCollar`, and with `Hips`, `Chest`,
        // `Neck` and `Head` its exact names hold 2 of the 15 required bones (`Hips`, `Head`).
        let p = Profile::humanoid();
        let mut owned: Vec<(String, String)> = Vec::new();
        let mut bones = vec![
            ("Hips", None),
            ("lowerback", Some("Hips")),
            ("Chest", Some("lowerback")),
            ("Chest2", Some("Chest")),
            ("lowerneck", Some("Chest2")),
            ("Neck", Some("lowerneck")),
            ("Head", Some("Neck")),
        ];
        for side in ["Left", "Right"] {
            let n = |part: &str| format!("{side}{part}");
            for (bone, parent) in [
                (n("Collar"), "Chest2".to_string()),
                (n("Shoulder"), n("Collar")),
                (n("Elbow"), n("Shoulder")),
                (n("Wrist"), n("Elbow")),
                (n("Hip"), "Hips".to_string()),
                (n("Knee"), n("Hip")),
                (n("Ankle"), n("Knee")),
            ] {
                owned.push((bone, parent));
            }
        }
        bones.extend(owned.iter().map(|(b, p)| (b.as_str(), Some(p.as_str()))));
        let sk = tree(&bones);
        assert!(kept_names(&sk)
            .iter()
            .any(|(role, bone)| role == "LeftShoulder" && bone == "LeftShoulder"));
        let mut fixed = vec![None; p.bones.len()];
        apply(&sk, p, &read(&sk), &mut fixed, &vec![false; p.bones.len()]);
        assert!(fixed.iter().all(Option::is_none));
    }

    #[test]
    fn center_names_alone_do_not_bind() {
        let p = Profile::humanoid();
        let sk = tree(&[
            ("Hips", None),
            ("Spine", Some("Hips")),
            ("Chest", Some("Spine")),
        ]);
        let mut fixed = vec![None; p.bones.len()];
        apply(&sk, p, &read(&sk), &mut fixed, &vec![false; p.bones.len()]);
        assert!(fixed.iter().all(Option::is_none));
    }
}

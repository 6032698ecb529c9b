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
//!
//! Sides come from names only; geometry is not read at all.

use super::names::{score, NameInfo};
use super::{BoneMap, Mapped, Origin};
use crate::model::{BoneId, Skeleton, Warning, WarningCode};
use crate::profile::{Profile, ProfileBoneId};

/// The least name fit (see [`super::names::score`]) that maps a bone by its name alone: a
/// name missing its side (0.8 of a full fit) is not enough for a sided profile bone.
pub(super) const MIN_SCORE: f32 = 0.85;

/// `map` (the rest's map, with no hips found) completed by names and the hierarchy; unchanged
/// when names add nothing. The auto-mapper's "no hips found" warning gives way to a
/// [`WarningCode::NamesOnly`] warning.
pub(super) fn map(skeleton: &Skeleton, profile: &Profile, mut map: BoneMap) -> BoneMap {
    let found = fill(
        skeleton,
        profile,
        &mut map,
        "no geometry: the rest shows no body",
    );
    if found == 0 {
        return map;
    }
    map.warnings
        .retain(|w| !(w.code == WarningCode::RequiredMissing && w.bones == ["Hips"]));
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
    let mappable = super::mappable(skeleton, info, &skeleton.children());
    let mut role: Vec<Option<ProfileBoneId>> = vec![None; n];
    for (i, e) in map.entries.iter().enumerate() {
        if let Some(m) = e {
            role[m.bone.index()] = Some(ProfileBoneId(i as u32));
        }
    }
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
    for (i, bone) in skeleton.bones.iter().enumerate() {
        let Some((id, fit)) = wanted[i] else { continue };
        let mut up = bone.parent;
        let above = loop {
            match up {
                None => break None,
                Some(p) if role[p.index()].is_some() => break role[p.index()],
                Some(p) => up = skeleton.bones[p.index()].parent,
            }
        };
        if above.is_some_and(|a| a == id || !profile.is_ancestor(a, id)) {
            continue;
        }
        role[i] = Some(id);
        out.push((id, BoneId(i as u32), fit));
    }
    out
}

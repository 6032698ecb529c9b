//! What a mapped bone points at (its tail), read the same way by the rest fix and by the
//! checks: the profile's tail bones, or, where their joints lie on the bone's own joint (a
//! Blender pelvis whose spine starts at the pelvis's head), the next mapped joints down the chain.

use crate::mapping::BoneMap;
use crate::profile::{Profile, ProfileBoneId};
use glam::Vec3;

/// A tail shorter than this fraction of the skeleton's size lies on the bone's joint: its
/// direction is rounding noise (Godette's spine starts 8e-8 m from its pelvis, 6e-8 of its size).
pub(crate) const MIN_TAIL: f32 = 1e-4;

/// How many steps down the chain a tail lying on the joint may be looked for.
const MAX_STEPS: usize = 4;

/// The tail bones of profile bone `pk` and the offset `offset` gives for them, from the profile's
/// tail bones on, taking the next mapped joints of the chain while the offset is shorter than
/// `min_len`. `offset` returns where the mean joint of some profile bones lies relative to `pk`'s
/// joint (`None` when it cannot tell). `None` when `pk` has no tail or every tail lies on it.
pub(crate) fn aimed_tails(
    map: &BoneMap,
    profile: &Profile,
    pk: ProfileBoneId,
    offset: impl Fn(&[ProfileBoneId]) -> Option<Vec3>,
    min_len: f32,
) -> Option<(Vec<ProfileBoneId>, Vec3)> {
    let mut tails = map.tail_bones(profile, pk)?;
    for _ in 0..MAX_STEPS {
        let v = offset(&tails)?;
        if v.length() > min_len {
            return Some((tails, v));
        }
        let mut next = Vec::new();
        for &t in &tails {
            next.extend(map.tail_bones(profile, t)?);
        }
        next.sort_unstable();
        next.dedup();
        tails = next;
    }
    None
}

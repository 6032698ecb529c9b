//! What a mapped bone points at (its tail), read the same way by the rest fix and by the
//! checks: the profile's tail bones, or, where their joints lie on the bone's own joint (a
//! Blender pelvis whose spine starts at the pelvis's head), the next mapped joints down the chain.

use super::BoneMap;
use crate::profile::{Profile, ProfileBoneId};
use glam::Vec3;

/// How many steps down the chain a tail lying on the joint may be looked for.
const MAX_STEPS: usize = 4;

/// What a bone points at.
pub(crate) struct Aim {
    /// The profile bones whose mean joint it points at.
    pub tails: Vec<ProfileBoneId>,
    /// Where that mean joint lies from the bone's joint.
    pub offset: Vec3,
    /// Whether they are further down the chain than the profile's tail bones, which lie on the
    /// bone's joint: the bone then points at them, but the silhouette fix does not turn it
    /// (the joints it would aim at move with the turns of the bones between).
    pub further: bool,
}

impl BoneMap {
    /// A tail shorter than this fraction of the skeleton's size lies on the bone's joint: its
    /// direction is rounding noise (Godette's spine starts 8e-8 m from its pelvis, 6e-8 of its
    /// size).
    pub(crate) const MIN_TAIL: f32 = 1e-4;

    /// What profile bone `pk` points at: its tail bones, or while their mean joint lies closer
    /// than `min_len` to `pk`'s, the next mapped joints of the chain. `offset` returns where the
    /// mean joint of some profile bones lies relative to `pk`'s joint (`None` when it cannot
    /// tell). `None` when `pk` has no tail or every tail lies on it.
    pub(crate) fn aimed_tails(
        &self,
        profile: &Profile,
        pk: ProfileBoneId,
        offset: impl Fn(&[ProfileBoneId]) -> Option<Vec3>,
        min_len: f32,
    ) -> Option<Aim> {
        let mut tails = self.tail_bones(profile, pk)?;
        for step in 0..MAX_STEPS {
            let v = offset(&tails)?;
            if v.length() > min_len {
                return Some(Aim {
                    tails,
                    offset: v,
                    further: step > 0,
                });
            }
            let mut next = Vec::new();
            for &t in &tails {
                next.extend(self.tail_bones(profile, t)?);
            }
            next.sort_unstable();
            next.dedup();
            tails = next;
        }
        None
    }
}

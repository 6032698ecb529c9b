//! The mapper for any profile: name scores, then the best-scoring pairs first, each accepted only
//! if it keeps the hierarchy consistent with every pair accepted before (profile parents map to
//! source ancestors, each source bone maps once). Ties break by bone order, so it is
//! deterministic.

use super::names::{analyze, scores};
use super::{Mapped, Origin};
use crate::model::{BoneId, Skeleton};
use crate::profile::{Profile, ProfileBoneId};

/// Least name score a pair needs.
const MIN_SCORE: f32 = 0.45;

pub(super) fn map(
    skeleton: &Skeleton,
    profile: &Profile,
    fixed: &[Option<Mapped>],
    forced_empty: &[bool],
) -> Vec<Option<Mapped>> {
    let scores: Vec<Vec<f32>> = skeleton
        .bones
        .iter()
        .map(|b| scores(profile, &analyze(&b.name, profile)))
        .collect();
    let mut pairs: Vec<(f32, ProfileBoneId, BoneId)> = Vec::new();
    for id in profile.ids() {
        for (i, scores) in scores.iter().enumerate() {
            let s = scores[id.index()];
            if s >= MIN_SCORE {
                pairs.push((s, id, BoneId(i as u32)));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut out: Vec<Option<Mapped>> = fixed.to_vec();
    for (s, id, b) in pairs {
        if out[id.index()].is_some() || forced_empty[id.index()] {
            continue;
        }
        if out.iter().flatten().any(|m| m.bone == b) {
            continue;
        }
        if !consistent(skeleton, profile, &out, id, b) {
            continue;
        }
        out[id.index()] = Some(Mapped {
            bone: b,
            confidence: s.min(1.0),
            origin: Origin::Auto,
            reason: format!("name `{}`", skeleton.bones[b.index()].name),
        });
    }
    out
}

/// Whether mapping `id` to `b` agrees with the mapped profile ancestors and descendants of `id`.
fn consistent(
    skeleton: &Skeleton,
    profile: &Profile,
    out: &[Option<Mapped>],
    id: ProfileBoneId,
    b: BoneId,
) -> bool {
    out.iter().enumerate().all(|(j, m)| {
        let Some(m) = m else { return true };
        let other = ProfileBoneId(j as u32);
        if profile.is_ancestor(other, id) {
            skeleton.is_ancestor(m.bone, b)
        } else if profile.is_ancestor(id, other) {
            skeleton.is_ancestor(b, m.bone)
        } else {
            true
        }
    })
}

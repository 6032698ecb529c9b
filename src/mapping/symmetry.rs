//! Which bone takes which bone's motion when a skeleton is mirrored (its counterpart: through the
//! profile for mapped bones, by side markers in the name for the others, itself for center
//! bones), and the mirror plane's normal in the skeleton's space. Shared by the mirror stage and
//! the retarget stack's `Mirror` op.

use super::BoneMap;
use crate::model::{extent, BoneId, Skeleton, Warning, WarningCode};
use crate::profile::{counterpart_names, Profile, Side};
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// The mirror plane's normal: found from the rest, or an axis of the skeleton's space (the
/// space its root bones live in; for a normalized skeleton, the scene's, where X is left–right).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MirrorAxis {
    /// The sum of left-minus-right rest joint offsets over every pair, snapped to the nearest
    /// axis within a few degrees (the `snap_deg` of the mirror options).
    #[default]
    Auto,
    /// The plane X = 0 (normalized skeletons: left is +X).
    X,
    /// The plane Y = 0.
    Y,
    /// The plane Z = 0.
    Z,
}

/// Bone pairs across the sagittal plane.
#[derive(Debug, Clone, PartialEq)]
pub struct Symmetry {
    /// Per bone, the bone on the other side (itself for center bones); an involution.
    pub counterpart: Vec<BoneId>,
    /// Per bone, the side it is on (`Center` for bones mirrored in place).
    pub side: Vec<Side>,
    /// Per bone, whether its pair was found through the profile.
    pub mapped: Vec<bool>,
    /// Pairs found through the profile.
    pub mapped_pairs: usize,
    /// Pairs found by the side markers of unmapped bones' names.
    pub named_pairs: usize,
    /// Bones whose name or profile bone states a side but that have no counterpart: they
    /// mirror in place.
    pub unpaired: Vec<BoneId>,
}

impl Symmetry {
    /// Pairs the bones of `skeleton`: a bone mapped to a left or right profile bone pairs with
    /// the bone mapped to the profile bone of the other side; any other bone whose name states a
    /// side pairs with the bone of the same name with the side swapped; the rest mirror in place.
    pub fn find(skeleton: &Skeleton, map: &BoneMap, profile: &Profile) -> Symmetry {
        let n = skeleton.bones.len();
        let mut s = Symmetry {
            counterpart: (0..n as u32).map(BoneId).collect(),
            side: vec![Side::Center; n],
            mapped: vec![false; n],
            mapped_pairs: 0,
            named_pairs: 0,
            unpaired: Vec::new(),
        };
        fn pair(s: &mut Symmetry, left: BoneId, right: BoneId) {
            s.counterpart[left.index()] = right;
            s.counterpart[right.index()] = left;
            s.side[left.index()] = Side::Left;
            s.side[right.index()] = Side::Right;
        }
        let paired = |s: &Symmetry, b: BoneId| s.counterpart[b.index()] != b;
        for pk in profile.ids() {
            let bone = profile.bone(pk);
            if bone.side != Side::Left {
                continue;
            }
            let other = counterpart_names(&bone.name, profile).and_then(|(_, names)| {
                names
                    .iter()
                    .filter_map(|n| profile.find(n))
                    .find(|&o| profile.bone(o).side == Side::Right)
            });
            if let (Some(a), Some(b)) = (map.get(pk), other.and_then(|o| map.get(o))) {
                if a != b && !paired(&s, a) && !paired(&s, b) {
                    pair(&mut s, a, b);
                    s.mapped[a.index()] = true;
                    s.mapped[b.index()] = true;
                    s.mapped_pairs += 1;
                }
            }
        }
        let center = |b: BoneId| {
            map.profile_bone_of(b)
                .is_some_and(|pk| profile.bone(pk).side == Side::Center)
        };
        for i in 0..n {
            let a = BoneId(i as u32);
            if paired(&s, a) || center(a) {
                continue;
            }
            let named = counterpart_names(&skeleton.bones[i].name, profile);
            let other = named
                .as_ref()
                .and_then(|(_, names)| names.iter().find_map(|n| skeleton.find(n)));
            match (named, other) {
                (Some((side, _)), Some(b)) if b != a && !paired(&s, b) && !center(b) => {
                    let (l, r) = if side == Side::Left { (a, b) } else { (b, a) };
                    pair(&mut s, l, r);
                    s.named_pairs += 1;
                }
                (Some(_), _) => s.unpaired.push(a),
                (None, _) => {
                    if map
                        .profile_bone_of(a)
                        .is_some_and(|pk| profile.bone(pk).side != Side::Center)
                    {
                        s.unpaired.push(a);
                    }
                }
            }
        }
        s
    }

    /// The warning about the bones that state a side but mirror in place, if any.
    pub fn unpaired_warning(&self, skeleton: &Skeleton) -> Option<Warning> {
        if self.unpaired.is_empty() {
            return None;
        }
        let mut w = Warning::new(
            WarningCode::MirrorUnpaired,
            format!(
                "{} bone(s) on one side have no counterpart on the other (no mapped profile \
                 counterpart, no bone of the swapped name): they mirror in place",
                self.unpaired.len()
            ),
        );
        w.bones = self
            .unpaired
            .iter()
            .map(|b| skeleton.bones[b.index()].name.clone())
            .collect();
        Some(w)
    }

    /// The mirror plane's unit normal in the skeleton's space (the space its roots live in),
    /// and whether it was snapped to an axis. `Auto` sums the left-minus-right rest offsets of
    /// every pair and snaps the result to the nearest axis within `snap_deg`; `None` when there
    /// is no pair to find it from (or the pairs' offsets cancel).
    pub fn normal(
        &self,
        skeleton: &Skeleton,
        axis: MirrorAxis,
        snap_deg: f32,
    ) -> Option<(Vec3, bool)> {
        match axis {
            MirrorAxis::X => return Some((Vec3::X, false)),
            MirrorAxis::Y => return Some((Vec3::Y, false)),
            MirrorAxis::Z => return Some((Vec3::Z, false)),
            MirrorAxis::Auto => {}
        }
        let p = skeleton.rest_positions();
        // Pairs through the profile are the body's own; named pairs (IK targets, props) only
        // when there are none.
        let offsets = |only_mapped: bool| -> Vec3 {
            (0..p.len())
                .filter(|&i| self.side[i] == Side::Left)
                .filter(|&i| !only_mapped || self.mapped[i])
                .map(|i| p[i] - p[self.counterpart[i].index()])
                .sum()
        };
        let sum = match offsets(true) {
            s if s != Vec3::ZERO => s,
            _ => offsets(false),
        };
        let size = extent(&p).max(f32::MIN_POSITIVE);
        if !sum.is_finite() || sum.length() <= 1e-6 * size {
            return None;
        }
        let n = sum.normalize();
        let snap = [Vec3::X, Vec3::Y, Vec3::Z]
            .into_iter()
            .find(|a| n.dot(*a).abs() >= snap_deg.to_radians().cos());
        Some(snap.map_or((n, false), |a| (a, true)))
    }
}

//! math.md's direction error per segment: for each profile bone both sides map whose tail
//! bones both sides map alike, the angle between the source's and the target's direction from
//! the bone's joint to its tail (the mean of the tail bones' joints), each in its skeleton space
//! (the source's seen under the plan's turn), at every frame of the final output (after IK and
//! every op). A segment that cannot be compared is listed with its reason, never given a 0.

use super::report::{LegCost, SegmentCheck, SegmentGap, SegmentReason};
use super::Posed;
use crate::model::{angle_deg, BoneId};
use crate::profile::{Profile, ProfileBoneId, Tail};
use crate::retarget::Rig;
use glam::Vec3;

/// One segment both sides have: the bone's joint and its tail joints on each side.
pub(super) struct Segment {
    bone: ProfileBoneId,
    tails: Vec<ProfileBoneId>,
    source: (BoneId, Vec<BoneId>),
    target: (BoneId, Vec<BoneId>),
}

/// The segments of the profile's bones and the ones not measured with why.
pub(super) fn pairs(s: &Posed, t: &Posed) -> (Vec<Segment>, Vec<SegmentGap>) {
    let profile = s.rig.profile;
    let (mut out, mut gaps) = (Vec::new(), Vec::new());
    for p in profile.ids() {
        if !has_segment(profile, p) {
            continue;
        }
        let (sb, tb) = (s.rig.map.get(p), t.rig.map.get(p));
        if sb.is_none() && tb.is_none() {
            continue;
        }
        let gap = |reason| SegmentGap {
            bone: profile.bone(p).name.clone(),
            reason,
        };
        let (Some(sb), Some(tb)) = (sb, tb) else {
            gaps.push(gap(match sb {
                None => SegmentReason::NotMappedInSource,
                Some(_) => SegmentReason::NotMappedInTarget,
            }));
            continue;
        };
        if profile.body_bone(p) {
            gaps.push(gap(SegmentReason::BodyBone));
            continue;
        }
        let (ts, tt) = match (tails(s.rig, p), tails(t.rig, p)) {
            (Some(ts), Some(tt)) => (ts, tt),
            (None, _) => {
                gaps.push(gap(SegmentReason::TailNotMappedInSource));
                continue;
            }
            (_, None) => {
                gaps.push(gap(SegmentReason::TailNotMappedInTarget));
                continue;
            }
        };
        if ts.0 != tt.0 {
            gaps.push(gap(SegmentReason::TailsDiffer));
            continue;
        }
        let seg = Segment {
            bone: p,
            tails: tt.0,
            source: (sb, ts.1),
            target: (tb, tt.1),
        };
        let (ds, dt) = (seg.source_dir(&s.rest), seg.target_dir(&t.rest));
        if ds.length() <= 1e-4 * s.height || dt.length() <= 1e-4 * t.height {
            gaps.push(gap(SegmentReason::NoDirection));
            continue;
        }
        out.push(seg);
    }
    (out, gaps)
}

/// Whether the profile gives bone `p` a tail: a named bone, or profile children to average.
fn has_segment(profile: &Profile, p: ProfileBoneId) -> bool {
    match profile.bone(p).tail {
        Tail::End => false,
        Tail::Bone(_) => true,
        Tail::Average => profile.children(p).next().is_some(),
    }
}

/// The profile bones a rig's tail of `p` is, and their skeleton bones; `None` when none is mapped.
pub(super) fn tails(rig: &Rig, p: ProfileBoneId) -> Option<(Vec<ProfileBoneId>, Vec<BoneId>)> {
    let ids = rig.map.tail_bones(rig.profile, p)?;
    let bones = ids
        .iter()
        .map(|&t| rig.map.get(t).expect("tail bones are mapped"))
        .collect();
    Some((ids, bones))
}

impl Segment {
    fn dir((joint, tails): &(BoneId, Vec<BoneId>), at: &[Vec3]) -> Vec3 {
        let sum: Vec3 = tails.iter().map(|b| at[b.index()]).sum();
        sum / tails.len() as f32 - at[joint.index()]
    }

    fn source_dir(&self, at: &[Vec3]) -> Vec3 {
        Segment::dir(&self.source, at)
    }

    fn target_dir(&self, at: &[Vec3]) -> Vec3 {
        Segment::dir(&self.target, at)
    }

    /// The angle between the two sides' directions at each frame, degrees.
    pub(super) fn series(&self, s: &Posed, t: &Posed) -> Vec<f32> {
        s.frames
            .iter()
            .zip(&t.frames)
            .map(|(a, b)| angle_deg(self.source_dir(a), self.target_dir(b)))
            .collect()
    }

    /// The segment's measure over the frames of `s` and `t`.
    pub(super) fn check(&self, s: &Posed, t: &Posed) -> SegmentCheck {
        let profile = s.rig.profile;
        let series = self.series(s, t);
        let (mut worst, mut worst_frame) = (0.0f32, 0);
        for (f, &e) in series.iter().enumerate() {
            if e > worst {
                (worst, worst_frame) = (e, f);
            }
        }
        SegmentCheck {
            bone: profile.bone(self.bone).name.clone(),
            tails: (self.tails.iter())
                .map(|&t| profile.bone(t).name.clone())
                .collect(),
            chain: profile
                .chains
                .iter()
                .find(|c| c.bones.contains(&self.bone))
                .map(|c| c.name.clone()),
            mean_deg: series.iter().sum::<f32>() / series.len().max(1) as f32,
            worst_deg: worst,
            worst_frame,
            rest_deg: angle_deg(self.source_dir(&s.rest), self.target_dir(&t.rest)),
        }
    }
}

/// The segments' measures and the segments not measured.
pub(super) fn checks(s: &Posed, t: &Posed) -> (Vec<SegmentCheck>, Vec<SegmentGap>) {
    let (segs, gaps) = pairs(s, t);
    (segs.iter().map(|g| g.check(s, t)).collect(), gaps)
}

/// The thighs' and shins' segments (`LeftUpperLeg`, `LeftLowerLeg`, and the right ones).
const LEG_BONES: [&str; 4] = [
    "LeftUpperLeg",
    "LeftLowerLeg",
    "RightUpperLeg",
    "RightLowerLeg",
];

/// The legs' direction error over their measured thigh and shin segments with the whole stack
/// (`with`) and with the core passes only (`without`): math.md's leg cost of the ops. `None`
/// when no thigh or shin is measured.
pub(super) fn leg_cost(s: &Posed, with: &Posed, without: &Posed) -> Option<LegCost> {
    let (segs, _) = pairs(s, with);
    let legs: Vec<&Segment> = segs
        .iter()
        .filter(|g| LEG_BONES.contains(&s.rig.profile.bone(g.bone).name.as_str()))
        .collect();
    if legs.is_empty() {
        return None;
    }
    let over = |t: &Posed| {
        let (mut sum, mut n, mut worst, mut bone) = (0.0f32, 0usize, 0.0f32, String::new());
        for g in &legs {
            for e in g.series(s, t) {
                sum += e;
                n += 1;
                if e > worst || bone.is_empty() {
                    worst = worst.max(e);
                    bone = s.rig.profile.bone(g.bone).name.clone();
                }
            }
        }
        (sum / n.max(1) as f32, worst, bone)
    };
    let (mean_deg, worst_deg, worst_bone) = over(with);
    let (mean_deg_without, worst_deg_without, _) = over(without);
    Some(LegCost {
        bones: legs
            .iter()
            .map(|g| s.rig.profile.bone(g.bone).name.clone())
            .collect(),
        mean_deg,
        worst_deg,
        worst_bone,
        mean_deg_without,
        worst_deg_without,
    })
}

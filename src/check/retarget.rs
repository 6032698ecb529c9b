//! The quality measures of a retargeted clip (math.md): direction error per chain, end-effector
//! error, foot skate of source and target, bone-length drift. Measures, never changes.

use crate::model::{angle_deg, BoneId, Clip, Pose, Skeleton};
use crate::retarget::{Plan, RetargetOptions, Rig};
use glam::Vec3;
use serde::Serialize;

/// Direction error of one target chain against its source chain, degrees (largest over frames).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainCheck {
    /// The target chain.
    pub chain: String,
    /// Its source chain.
    pub source_chain: String,
    /// Bones on each side (target, source).
    pub bones: (usize, usize),
    /// With equal bone counts: the largest angle between paired bones' directions (joint → next
    /// joint, the end bone → its tail), beyond the angle the same pair makes at rest (rigs whose
    /// rests differ, such as feet that keep their own pitch, keep that difference).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bones_deg: Option<f32>,
    /// The same for the chain's end bone (joint → tail, or the last segment when it has no
    /// tail), whatever the bone counts.
    pub end_deg: f32,
    /// The same for the whole chain, start joint → end joint (chains of two joints or more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_deg: Option<f32>,
    /// The largest angle between paired directions at rest: what the rigs' own rests differ by.
    pub rest_deg: f32,
    /// Whether any direction was compared: a one-bone chain whose end has no tail on one side
    /// (a head, a bone whose tail sits on its joint) has none, and its figures above are 0
    /// without meaning.
    pub measured: bool,
}

/// How far a hand or foot is from where the scaled source puts it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EffectorCheck {
    /// The profile bone.
    pub bone: String,
    /// Largest distance over frames between the target joint's movement and the source's scaled
    /// by the hips-height ratio (each relative to its hips, from where it is at rest), as a
    /// fraction of the target's height. Differences of the rests themselves (hips width, arm
    /// length) do not count.
    pub max_error: f32,
}

/// Foot skate of one foot on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkateCheck {
    /// The profile bone.
    pub bone: String,
    /// Source: mean horizontal movement per frame while in contact, fraction of its height.
    pub source: f32,
    /// The same for the target.
    pub target: f32,
}

/// Every measure of one retargeted clip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetargetCheck {
    /// Frames sampled.
    pub frames: usize,
    /// Per chain.
    pub chains: Vec<ChainCheck>,
    /// Hands and feet mapped on both sides.
    pub effectors: Vec<EffectorCheck>,
    /// Feet mapped on both sides.
    pub skate: Vec<SkateCheck>,
    /// Largest change of any target bone's length (joint to parent joint) from its rest, over
    /// frames, fraction of the height; bones whose position the retarget sets (hips, root) are
    /// left out. Must be 0 (up to rounding).
    pub length_drift: f32,
}

/// Joint positions of a skeleton in skeleton space (below its base) for each frame.
fn positions(s: &Skeleton, clip: &Clip, times: &[f32]) -> Vec<Vec<Vec3>> {
    let below = s.base.inverse();
    let mut pose = Pose::rest(s);
    times
        .iter()
        .map(|&t| {
            for (l, b) in pose.locals.iter_mut().zip(&s.bones) {
                *l = b.rest;
            }
            pose.sample_into(clip, t);
            pose.world(s)
                .iter()
                .map(|m| below.transform_point3(m.w_axis.truncate()))
                .collect()
        })
        .collect()
}

/// Segment directions of a chain at one frame: joint → next joint, and the end → its tail.
fn segments(ids: &[BoneId], tail: Option<Vec3>, at: &[Vec3]) -> Vec<Vec3> {
    let mut out: Vec<Vec3> = ids
        .windows(2)
        .map(|w| at[w[1].index()] - at[w[0].index()])
        .collect();
    if let (Some(t), Some(end)) = (tail, ids.last()) {
        out.push(t - at[end.index()]);
    }
    out
}

/// Where the end of a chain points: the mean of the profile tail bones' joints of its last
/// mapped bone (a source chain may end in unmapped bones below it, which it reads); `None` where
/// they coincide with the end's joint (mocap rigs such as CMU's put the lower neck on the chest's
/// joint): such an end has no direction, and the chain is measured by its other segments.
fn tail_of(rig: &Rig, ids: &[BoneId], at: &[Vec3]) -> Option<Vec3> {
    let end = *ids.last()?;
    let p = ids.iter().rev().find_map(|&b| rig.map.profile_bone_of(b))?;
    let tails = rig.map.tail_bones(rig.profile, p)?;
    let sum: Vec3 = tails
        .iter()
        .map(|&t| at[rig.map.get(t).expect("mapped").index()])
        .sum();
    let tail = sum / tails.len() as f32;
    let size = rig.skeleton.height().max(1e-12);
    (tail.distance(at[end.index()]) > 1e-4 * size).then_some(tail)
}

/// Measures `target`'s clip (retargeted by `plan`) against `source`'s, both sampled at
/// `options.fps`.
pub fn retarget(
    source: (&Rig, &Clip),
    target: (&Rig, &Clip),
    plan: &Plan,
    options: &RetargetOptions,
) -> RetargetCheck {
    let ((s, sclip), (t, tclip)) = (source, target);
    let duration = sclip.duration().max(tclip.duration());
    let fps = if options.fps > 0.0 { options.fps } else { 30.0 };
    let frames = (duration * fps).ceil() as usize + 1;
    let times: Vec<f32> = (0..frames)
        .map(|f| (f as f32 / fps).min(duration))
        .collect();
    let (ps, pt) = (
        positions(s.skeleton, sclip, &times),
        positions(t.skeleton, tclip, &times),
    );
    let (hs, ht) = (s.skeleton.height().max(1e-9), t.skeleton.height().max(1e-9));
    let mut out = RetargetCheck {
        frames,
        chains: Vec::new(),
        effectors: Vec::new(),
        skate: Vec::new(),
        length_drift: 0.0,
    };
    let (rest_s, rest_t) = (rest_positions(s.skeleton), rest_positions(t.skeleton));
    for (c, tids, sids) in plan.chain_bones() {
        // Directions per frame, for the frames and for the rest.
        let dirs = |at_s: &[Vec3], at_t: &[Vec3]| {
            let (ts, ss) = (tail_of(t, tids, at_t), tail_of(s, sids, at_s));
            let (tail_t, tail_s) = if ts.is_some() && ss.is_some() {
                (ts, ss)
            } else {
                (None, None)
            };
            let span =
                |ids: &[BoneId], at: &[Vec3]| at[ids[ids.len() - 1].index()] - at[ids[0].index()];
            (
                segments(tids, tail_t, at_t),
                segments(sids, tail_s, at_s),
                span(tids, at_t),
                span(sids, at_s),
            )
        };
        let (rt, rs, rspan_t, rspan_s) = dirs(&rest_s, &rest_t);
        let rest_pair: Vec<f32> = rt.iter().zip(&rs).map(|(x, y)| angle_deg(*x, *y)).collect();
        let rest_end = match (rt.last(), rs.last()) {
            (Some(x), Some(y)) => angle_deg(*x, *y),
            _ => 0.0,
        };
        let rest_span = angle_deg(rspan_t, rspan_s);
        let same = tids.len() == sids.len();
        let mut check = ChainCheck {
            chain: c.chain.clone(),
            source_chain: c.source_chain.clone().unwrap_or_default(),
            bones: (tids.len(), sids.len()),
            bones_deg: same.then_some(0.0),
            end_deg: 0.0,
            span_deg: (tids.len() > 1 && sids.len() > 1).then_some(0.0),
            rest_deg: if same {
                rest_pair.iter().copied().fold(rest_end, f32::max)
            } else {
                rest_end
            },
            measured: !rt.is_empty() && !rs.is_empty(),
        };
        for (a, b) in ps.iter().zip(&pt) {
            let (segs_t, segs_s, span_t, span_s) = dirs(a, b);
            if let Some(worst) = &mut check.bones_deg {
                for ((x, y), r) in segs_t.iter().zip(&segs_s).zip(&rest_pair) {
                    *worst = worst.max(angle_deg(*x, *y) - r);
                }
            }
            if let (Some(x), Some(y)) = (segs_t.last(), segs_s.last()) {
                check.end_deg = check.end_deg.max(angle_deg(*x, *y) - rest_end);
            }
            if let Some(worst) = &mut check.span_deg {
                *worst = worst.max(angle_deg(span_t, span_s) - rest_span);
            }
        }
        out.chains.push(check);
    }
    let (sh, th) = plan.hips();
    let scale = |v: Vec3| {
        let r = plan.hips_ratio;
        Vec3::new(
            v.x * r * options.horizontal_scale,
            v.y * r * options.vertical_scale,
            v.z * r * options.horizontal_scale,
        )
    };
    for name in ["LeftHand", "RightHand", "LeftFoot", "RightFoot"] {
        let (Some(sb), Some(tb)) = (bone(s, name), bone(t, name)) else {
            continue;
        };
        let moved = |at: &[Vec3], rest: &[Vec3], b: BoneId, h: BoneId| {
            (at[b.index()] - at[h.index()]) - (rest[b.index()] - rest[h.index()])
        };
        let max_error = ps
            .iter()
            .zip(&pt)
            .map(|(a, b)| {
                (moved(b, &rest_t, tb, th) - scale(moved(a, &rest_s, sb, sh))).length() / ht
            })
            .fold(0.0, f32::max);
        out.effectors.push(EffectorCheck {
            bone: name.into(),
            max_error,
        });
        if name.ends_with("Foot") {
            out.skate.push(SkateCheck {
                bone: name.into(),
                source: skate(&ps, sb, hs),
                target: skate(&pt, tb, ht),
            });
        }
    }
    out.length_drift = drift(t.skeleton, &pt, plan.translated_bones(), ht);
    out
}

fn bone(rig: &Rig, name: &str) -> Option<BoneId> {
    rig.profile.find(name).and_then(|p| rig.map.get(p))
}

/// Foot skate (math.md): a foot is in contact when its height is within 3% of the character's
/// height of its lowest point in the clip; skate is its mean horizontal movement between
/// consecutive contact frames, as a fraction of the height.
pub fn skate(frames: &[Vec<Vec3>], foot: BoneId, height: f32) -> f32 {
    let ys: Vec<f32> = frames.iter().map(|f| f[foot.index()].y).collect();
    let low = ys.iter().copied().fold(f32::INFINITY, f32::min);
    let contact = |k: usize| ys[k] <= low + 0.03 * height;
    let (mut sum, mut n) = (0.0, 0);
    for k in 1..frames.len() {
        if contact(k) && contact(k - 1) {
            let d = frames[k][foot.index()] - frames[k - 1][foot.index()];
            sum += Vec3::new(d.x, 0.0, d.z).length();
            n += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f32 / height
    }
}

/// Rest joint positions in skeleton space.
fn rest_positions(s: &Skeleton) -> Vec<Vec3> {
    let below = s.base.inverse();
    s.rest_world()
        .iter()
        .map(|m| below.transform_point3(m.w_axis.truncate()))
        .collect()
}

/// Largest change of a bone's length (joint to parent joint) from the rest, over frames.
fn drift(s: &Skeleton, frames: &[Vec<Vec3>], skip: &[BoneId], height: f32) -> f32 {
    let rest = rest_positions(s);
    let mut worst = 0.0f32;
    for (i, b) in s.bones.iter().enumerate() {
        let Some(p) = b.parent else { continue };
        if skip.contains(&BoneId(i as u32)) {
            continue;
        }
        let length = rest[i].distance(rest[p.index()]);
        for f in frames {
            worst = worst.max((f[i].distance(f[p.index()]) - length).abs() / height);
        }
    }
    worst
}

//! The quality measures of a retargeted clip (math.md): direction error per chain, end-effector
//! error, foot skate of source and target, bone-length drift. Measures, never changes. A figure
//! that cannot be measured (a bone one side does not map, a foot never in contact) is `None`
//! (`null` in JSON) with a [`NotMeasured`] reason beside it, never a 0.

use crate::model::{angle_deg, yaw_of, BoneId, Clip, FrameRuns, Pose, Reflection, Skeleton};
use crate::profile::Chain;
use crate::retarget::{ChainPlan, Plan, RetargetOptions, Rig};
use glam::{Mat4, Quat, Vec3};

mod report;
mod segments;
#[cfg(test)]
mod tests;

pub use report::{
    mapping_words, ChainCheck, ChainMapping, EffectorCheck, FloorCheck, LegCost, MirrorCheck,
    NotMeasured, OpsCheck, PoleCheck, RetargetCheck, SegmentCheck, SegmentGap, SegmentReason,
    SkateCheck, TreadmillCheck, WorstEnd,
};

/// A skeleton sampled at each frame, in skeleton space (below its base).
struct Sampled {
    /// Joint positions per frame.
    at: Vec<Vec<Vec3>>,
    /// The heading of the hips per frame: the yaw of their global change from their rest.
    headings: Vec<Quat>,
    /// The global change from its rest of `turned`, per frame.
    turns: Vec<Quat>,
}

/// Samples `s` playing `clip` at `times`: joint positions, the hips' heading, and the global
/// change of bone `turned` (a chain end measured by its turn, see [`chain_check`]).
fn sample(s: &Skeleton, clip: &Clip, times: &[f32], hips: BoneId, turned: &[BoneId]) -> Sampled {
    let below = s.base.inverse();
    let rotation = |m: &glam::Mat4| (below * *m).to_scale_rotation_translation().1;
    let rest_world = s.rest_world();
    let rest = rotation(&rest_world[hips.index()]).inverse();
    let rest_turned: Vec<Quat> = turned
        .iter()
        .map(|b| rotation(&rest_world[b.index()]).inverse())
        .collect();
    let mut out = Sampled {
        at: Vec::with_capacity(times.len()),
        headings: Vec::with_capacity(times.len()),
        turns: Vec::with_capacity(times.len() * turned.len()),
    };
    // The clip sampled a run of frames at a time (as `Pose::sample_into` over the rest gives
    // it), each frame's world matrices (as `Pose::world`) into one buffer.
    let mut world = vec![Mat4::IDENTITY; s.bones.len()];
    let mut runs = FrameRuns::new(s, clip, times);
    while let Some(run) = runs.next_run() {
        for (_, locals) in run.frames() {
            s.accumulate_into(s.base, locals, &mut world, |parent, local| {
                parent * local.to_mat4()
            });
            out.at.push(
                world
                    .iter()
                    .map(|m| below.transform_point3(m.w_axis.truncate()))
                    .collect(),
            );
            out.headings
                .push(yaw_of(rotation(&world[hips.index()]) * rest));
            for (b, r) in turned.iter().zip(&rest_turned) {
                out.turns.push(rotation(&world[b.index()]) * *r);
            }
        }
    }
    out
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
    Tail::of(rig, ids)?.at(at)
}

/// [`tail_of`] for one chain of a rig, looked up once for all its frames: the joints whose mean
/// is the tail, the end's joint, and the skeleton's height.
struct Tail {
    joints: Vec<usize>,
    end: usize,
    size: f32,
}

impl Tail {
    /// The tail of chain `ids` of `rig`; `None` when no bone of it is mapped, or its profile
    /// bone has no tail bones mapped and its end bone not exactly one child.
    ///
    /// - A tail bone that hangs below another of the tail bones is left out: it is carried by
    ///   that bone, not by the chain's end (a 3ds Max Biped hangs its clavicles from the neck, so
    ///   its chest's tail is the neck's joint alone; averaged with the clavicles it moved with
    ///   the neck: wiseMan.FBX's spine end 4.64° off with the spine retargeted exactly).
    /// - An end bone whose profile tail is not mapped but which has one child (a Biped finger's
    ///   `Finger1Nub`, Mixamo's `LeftHandMiddle4`) points at that child's joint; without it, such
    ///   a chain's last segment was its second last bone on one side and its end bone on the
    ///   other (wiseMan's two-bone middle finger against Mixamo's three, 16–20° off).
    fn of(rig: &Rig, ids: &[BoneId]) -> Option<Tail> {
        let end = *ids.last()?;
        let p = ids.iter().rev().find_map(|&b| rig.map.profile_bone_of(b))?;
        let joints: Vec<BoneId> = match segments::tails(rig, p) {
            Some((_, bones)) => (bones.iter().copied())
                .filter(|&b| !bones.iter().any(|&a| rig.skeleton.is_ancestor(a, b)))
                .collect(),
            None => {
                let mut kids = (rig.skeleton.bones.iter().enumerate())
                    .filter(|(_, b)| b.parent == Some(end))
                    .map(|(i, _)| BoneId(i as u32));
                match (kids.next(), kids.next()) {
                    (Some(only), None) => vec![only],
                    _ => return None,
                }
            }
        };
        Some(Tail {
            joints: joints.iter().map(|b| b.index()).collect(),
            end: end.index(),
            size: rig.skeleton.height().max(1e-12),
        })
    }

    /// The tail with joints at `at`; `None` where it coincides with the end's joint.
    fn at(&self, at: &[Vec3]) -> Option<Vec3> {
        let sum: Vec3 = self.joints.iter().map(|&j| at[j]).sum();
        let tail = sum / self.joints.len() as f32;
        (tail.distance(at[self.end]) > 1e-4 * self.size).then_some(tail)
    }
}

/// One side of the measure: its rig, its joint positions per frame and at rest (skeleton
/// space), and its height.
struct Posed<'a> {
    rig: &'a Rig<'a>,
    frames: Vec<Vec<Vec3>>,
    /// The hips' heading (yaw of their change from rest) per frame.
    headings: Vec<Quat>,
    /// The global change of each of `turned` per frame (frame-major).
    turns: Vec<Quat>,
    turned: Vec<BoneId>,
    rest: Vec<Vec3>,
    height: f32,
    /// The leg length skate is measured in (math.md: the plan's, thigh, shin and foot joints
    /// at rest; the height for a rig without legs).
    legs: f32,
}

impl<'a> Posed<'a> {
    /// The same poses seen with the whole skeleton turned by `q` about its origin (the plan's
    /// source turn: the source faced the other way).
    fn seen_by(mut self, q: Quat) -> Posed<'a> {
        if q == Quat::IDENTITY {
            return self;
        }
        for p in self.frames.iter_mut().flatten().chain(&mut self.rest) {
            *p = q * *p;
        }
        for r in self.headings.iter_mut().chain(&mut self.turns) {
            *r = (q * *r * q.inverse()).normalize();
        }
        self
    }

    fn new(
        rig: &'a Rig<'a>,
        clip: &Clip,
        times: &[f32],
        hips: BoneId,
        turned: Vec<BoneId>,
    ) -> Posed<'a> {
        let sampled = sample(rig.skeleton, clip, times, hips, &turned);
        let height = rig.skeleton.stature().max(1e-9);
        Posed {
            rig,
            frames: sampled.at,
            headings: sampled.headings,
            turns: sampled.turns,
            turned,
            rest: rest_positions(rig.skeleton),
            height,
            legs: height,
        }
    }

    /// The same with `legs` (the plan's leg length of this side, if any) as its leg length.
    fn with_legs(mut self, legs: Option<f32>) -> Posed<'a> {
        if let Some(l) = legs.filter(|&l| l > 1e-9) {
            self.legs = l;
        }
        self
    }

    /// The global change of `bone` (one of `turned`) at frame `f`.
    fn turn(&self, f: usize, bone: BoneId) -> Option<Quat> {
        let k = self.turned.iter().position(|&b| b == bone)?;
        self.turns.get(f * self.turned.len() + k).copied()
    }
}

/// Source chain ends with no direction of their own (their tail sits on their joint, as CMU's
/// upper chest carries the neck and collars) where the target's end has one: such an end is
/// measured by its turn.
fn ends_by_turn(s: &Rig, t: &Rig, plan: &Plan) -> Vec<BoneId> {
    let (srest, trest) = (rest_positions(s.skeleton), rest_positions(t.skeleton));
    plan.chain_bones()
        .filter(|(_, tids, sids)| {
            !sids.is_empty()
                && tail_of(s, sids, &srest).is_none()
                && tail_of(t, tids, &trest).is_some()
        })
        .filter_map(|(_, _, sids)| sids.last().copied())
        .collect()
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
    let (sh, _) = plan.hips();
    let turned = ends_by_turn(s, t, plan);
    let (s, t) = posed(
        (s, sclip, Posed::new(s, sclip, &times, sh, turned)),
        (t, tclip, &times),
        plan,
    );
    let chains: Vec<ChainCheck> = plan
        .chain_bones()
        .map(|(c, tids, sids)| chain_check(&s, &t, c, tids, sids))
        .collect();
    let (segments, segments_not_measured) = segments::checks(&s, &t);
    let (effectors, skate) = effectors(&s, &t, plan, options);
    let ground = Ground::of(source, plan, options, &times);
    RetargetCheck {
        frames,
        worst_end: worst_end(&chains),
        segments,
        segments_not_measured,
        chains,
        effectors,
        skate,
        length_drift: drift(t.rig.skeleton, &t.frames, plan.translated_bones(), t.height),
        ops: None,
        treadmill: ground.map(|g| TreadmillCheck {
            source_velocity: g.source.to_array(),
            target_velocity: g.target.to_array(),
            speed: g.source.length() / fps / s.legs,
            skate: g.skates(&s, &t),
        }),
    }
}

/// The treadmill of a source clip that runs in place ([`TreadmillCheck`]): its velocity on
/// each side (units per second) and the times the clips are sampled at.
struct Ground<'t> {
    source: Vec3,
    target: Vec3,
    times: &'t [f32],
}

impl<'t> Ground<'t> {
    /// The ground planting plants `source`'s clip on (`Plan::clip_treadmill`), the target's
    /// scaled as the retarget scales travel; `None` for a ground that stands still.
    fn of(
        source: (&Rig, &Clip),
        plan: &Plan,
        options: &RetargetOptions,
        times: &'t [f32],
    ) -> Option<Ground<'t>> {
        let g = plan.source_turn() * plan.clip_treadmill(source.0, source.1, options)?;
        let r = plan.hips_ratio * options.horizontal_scale;
        Some(Ground {
            source: g,
            target: Vec3::new(g.x * r, 0.0, g.z * r),
            times,
        })
    }

    /// The ground's move between consecutive frames at `velocity`.
    fn moves(&self, velocity: Vec3) -> Vec<Vec3> {
        let mut out = vec![Vec3::ZERO];
        out.extend(self.times.windows(2).map(|w| velocity * (w[1] - w[0])));
        out
    }

    /// Both feet's skate over the treadmill (as [`effectors`] measures it over a still ground).
    fn skates(&self, s: &Posed, t: &Posed) -> Vec<SkateCheck> {
        let (gs, gt) = (self.moves(self.source), self.moves(self.target));
        ["LeftFoot", "RightFoot"]
            .iter()
            .map(|name| foot_skate(s, t, name, [&gs, &gt]))
            .collect()
    }
}

/// The times `options.fps` samples a clip of `duration` at.
fn sample_times(duration: f32, options: &RetargetOptions) -> Vec<f32> {
    let fps = if options.fps > 0.0 { options.fps } else { 30.0 };
    let frames = (duration * fps).ceil() as usize + 1;
    (0..frames)
        .map(|f| (f as f32 / fps).min(duration))
        .collect()
}

/// What the ops after the core passes changed ([`OpsCheck`]): `with` is the target's clip
/// retargeted by the whole stack, `without` by the core passes only (same plan otherwise).
pub fn ops_check(
    source: (&Rig, &Clip),
    target: (&Rig, &Clip),
    without: &Clip,
    plan: &Plan,
    options: &RetargetOptions,
) -> OpsCheck {
    let ((s, sclip), (t, tclip)) = (source, target);
    let duration = sclip.duration().max(tclip.duration());
    let times = sample_times(duration, options);
    let (sh, th) = plan.hips();
    let (s, with) = posed(
        (s, sclip, Posed::new(s, sclip, &times, sh, Vec::new())),
        (t, tclip, &times),
        plan,
    );
    let bare = Posed::new(t, without, &times, th, Vec::new()).with_legs(plan.target_leg_length);
    let floor = options
        .ops
        .iter()
        .find_map(|o| match o {
            crate::retarget::Op::Floor(f) => Some(f.height),
            _ => None,
        })
        .unwrap_or(0.0);
    let (_, tp) = plan.pelvis_bones();
    let ground = Ground::of(source, plan, options, &times);
    OpsCheck {
        treadmill_skate_without: ground.map(|g| g.skates(&s, &bare)),
        floor: floor_check(&with, &tp, th, floor),
        floor_without: floor_check(&bare, &tp, th, floor),
        skate_without: effectors(&s, &bare, plan, options).1,
        legs: segments::leg_cost(&s, &with, &bare),
        poles: LIMBS
            .iter()
            .filter_map(|bones| {
                let pair = |n: &str| effector_pair(&s, &with, n).2.ok();
                let ids = [pair(bones[0])?, pair(bones[1])?, pair(bones[2])?];
                Some(PoleCheck {
                    bone: bones[1].to_string(),
                    deg: pole_error(&s, &with, ids),
                    deg_without: pole_error(&s, &bare, ids),
                })
            })
            .collect(),
        mirror: None,
        contacts: options
            .planting()
            .filter(|p| p.contacts.curves().is_some())
            .map(|p| p.contacts.clone()),
    }
}

/// What the `Mirror` op did ([`MirrorCheck`]): `mirrored` is the target's clip with the op,
/// `unmirrored` the same retarget without it, `reflection` the op's (see
/// `Retargeter::mirror_reflection`).
pub fn mirror_check(
    target: &Rig,
    mirrored: &Clip,
    unmirrored: &Clip,
    reflection: &Reflection,
    options: &RetargetOptions,
) -> MirrorCheck {
    let s = target.skeleton;
    let times = sample_times(mirrored.duration().max(unmirrored.duration()), options);
    let origin = s.rest_positions().first().copied().unwrap_or(Vec3::ZERO);
    let height = s.stature().max(1e-9);
    let below = s.base.inverse();
    let joints = |clip: &Clip, t: f32| -> Vec<Vec3> {
        let pose = Pose::sample(s, clip, t);
        let world = pose.world(s);
        world
            .iter()
            .map(|m| below.transform_point3(m.w_axis.truncate()))
            .collect()
    };
    let mut worst = 0.0f32;
    for &t in &times {
        let (a, b) = (joints(mirrored, t), joints(unmirrored, t));
        for j in (0..a.len()).map(|j| BoneId(j as u32)) {
            if !reflection.is_symmetric(j) {
                continue;
            }
            let c = reflection.counterpart(j).index();
            let want = origin + reflection.reflect_vec(b[c] - origin);
            worst = worst.max(a[j.index()].distance(want));
        }
    }
    MirrorCheck {
        normal: reflection.normal().to_array(),
        pairs: (0..reflection.len())
            .filter(|&i| reflection.counterpart(BoneId(i as u32)).index() > i)
            .count(),
        joint_error: worst / height,
    }
}

/// Upper, middle and end bones of the limbs whose poles are measured.
const LIMBS: [[&str; 3]; 4] = [
    ["LeftUpperLeg", "LeftLowerLeg", "LeftFoot"],
    ["RightUpperLeg", "RightLowerLeg", "RightFoot"],
    ["LeftUpperArm", "LeftLowerArm", "LeftHand"],
    ["RightUpperArm", "RightLowerArm", "RightHand"],
];

/// [`PoleCheck::deg`] of one limb, `ids` its (source, target) bones.
fn pole_error(s: &Posed, t: &Posed, ids: [(BoneId, BoneId); 3]) -> Option<f32> {
    let (mut sum, mut n) = (0.0, 0);
    for (a, b) in s.frames.iter().zip(&t.frames) {
        let at = |p: &[Vec3], k: usize, source: bool| {
            let (x, y) = ids[k];
            p[if source { x } else { y }.index()]
        };
        let ps = crate::model::pole(at(a, 0, true), at(a, 1, true), at(a, 2, true));
        let pt = crate::model::pole(at(b, 0, false), at(b, 1, false), at(b, 2, false));
        if let (Some(x), Some(y)) = (ps, pt) {
            sum += angle_deg(x, y);
            n += 1;
        }
    }
    (n > 0).then(|| sum / n as f32)
}

/// [`FloorCheck`] of one side: its feet against their rest height above `floor`, its hips and
/// `pelvis` bones against the floor.
fn floor_check(t: &Posed, pelvis: &[BoneId], hips: BoneId, floor: f32) -> FloorCheck {
    let feet: Vec<BoneId> = ["LeftFoot", "RightFoot"]
        .iter()
        .filter_map(|n| mapped_bone(t.rig, n, NotMeasured::NotMappedInTarget).ok())
        .collect();
    let mut out = FloorCheck {
        frames_below: 0,
        worst_depth: 0.0,
    };
    for at in &t.frames {
        let foot = feet
            .iter()
            .map(|b| floor + t.rest[b.index()].y - at[b.index()].y);
        let hip = pelvis
            .iter()
            .chain([&hips])
            .map(|b| floor - at[b.index()].y);
        let depth = foot.chain(hip).fold(0.0f32, f32::max) / t.height;
        if depth > 1e-4 {
            out.frames_below += 1;
        }
        out.worst_depth = out.worst_depth.max(depth);
    }
    out
}

/// The direction errors of one chain: `tids` along the target chain, `sids` along its source.
fn chain_check(
    s: &Posed,
    t: &Posed,
    c: &ChainPlan,
    tids: &[BoneId],
    sids: &[BoneId],
) -> ChainCheck {
    // A source end with no direction of its own, where the target's has one: the source's
    // end segment is the target's rest end segment turned as the source's end bone turns.
    let by_turn = sids.last().filter(|&&e| s.turned.contains(&e)).copied();
    let (tail_t, tail_s) = (Tail::of(t.rig, tids), Tail::of(s.rig, sids));
    let rest_end_t = tail_t
        .as_ref()
        .and_then(|tail| tail.at(&t.rest))
        .zip(tids.last())
        .map(|(tail, e)| tail - t.rest[e.index()]);
    // A source chain that ends in unmapped bones (a mocap rig's second neck bone, read below
    // its mapped `Neck`) against a target end that maps its last mapped bone: the target's
    // end segment stands for the source's whole segment, from that bone's joint to the tail.
    let chord = end_chord(s.rig, t.rig, tids, sids);
    // Directions per frame (`turn`: the source end's turn that frame), and for the rest.
    let dirs = |at_s: &[Vec3], at_t: &[Vec3], turn: Option<Quat>| {
        let ts = tail_t.as_ref().and_then(|tail| tail.at(at_t));
        let ss = tail_s.as_ref().and_then(|tail| tail.at(at_s));
        let (tail_t, tail_s) = if ts.is_some() && ss.is_some() {
            (ts, ss)
        } else {
            (None, None)
        };
        let span =
            |ids: &[BoneId], at: &[Vec3]| at[ids[ids.len() - 1].index()] - at[ids[0].index()];
        let (mut segs_t, mut segs_s) = (segments(tids, tail_t, at_t), segments(sids, tail_s, at_s));
        if let (Some(k), Some(tail), Some(end)) = (chord, tail_s, segs_s.last_mut()) {
            *end = tail - at_s[sids[k].index()];
        }
        if let (Some(turn), Some(rest), Some(tail), Some(e)) = (turn, rest_end_t, ts, tids.last()) {
            segs_t.push(tail - at_t[e.index()]);
            segs_s.push(turn * rest);
        }
        (segs_t, segs_s, span(tids, at_t), span(sids, at_s))
    };
    let (rt, rs, rspan_t, rspan_s) = dirs(&s.rest, &t.rest, by_turn.map(|_| Quat::IDENTITY));
    let measured = !rt.is_empty() && !rs.is_empty();
    let rest_pair: Vec<f32> = rt.iter().zip(&rs).map(|(x, y)| angle_deg(*x, *y)).collect();
    let rest_end = match (rt.last(), rs.last()) {
        (Some(x), Some(y)) => angle_deg(*x, *y),
        _ => 0.0,
    };
    let rest_span = angle_deg(rspan_t, rspan_s);
    let same = tids.len() == sids.len();
    let source_chain = c
        .source_chain
        .as_deref()
        .and_then(|n| chain_named(s.rig, n));
    let mut check = ChainCheck {
        chain: c.chain.clone(),
        source_chain: c.source_chain.clone().unwrap_or_default(),
        bones: (tids.len(), sids.len()),
        target_mapping: mapping(t.rig, chain_named(t.rig, &c.chain), tids),
        source_mapping: mapping(s.rig, source_chain, sids),
        bones_deg: (same && measured).then_some(0.0),
        end_deg: measured.then_some(0.0),
        span_deg: (tids.len() > 1 && sids.len() > 1).then_some(0.0),
        rest_deg: measured.then(|| {
            if same {
                rest_pair.iter().copied().fold(rest_end, f32::max)
            } else {
                rest_end
            }
        }),
        measured,
    };
    for (f, (a, b)) in s.frames.iter().zip(&t.frames).enumerate() {
        let turn = by_turn.and_then(|e| s.turn(f, e));
        let (segs_t, segs_s, span_t, span_s) = dirs(a, b, turn);
        if let Some(worst) = &mut check.bones_deg {
            for ((x, y), r) in segs_t.iter().zip(&segs_s).zip(&rest_pair) {
                *worst = worst.max(angle_deg(*x, *y) - r);
            }
        }
        if let (Some(worst), Some(x), Some(y)) = (&mut check.end_deg, segs_t.last(), segs_s.last())
        {
            *worst = worst.max(angle_deg(*x, *y) - rest_end);
        }
        if let Some(worst) = &mut check.span_deg {
            *worst = worst.max(angle_deg(span_t, span_s) - rest_span);
        }
    }
    check
}

/// Where the source chain `sids` ends in unmapped bones below its last mapped one, and the
/// target chain `tids` ends in a bone mapped to the same profile bone: that bone's index along
/// `sids`, whose joint starts the segment the target's end stands for.
fn end_chord(s: &Rig, t: &Rig, tids: &[BoneId], sids: &[BoneId]) -> Option<usize> {
    let p = t.map.profile_bone_of(*tids.last()?)?;
    if s.map.profile_bone_of(*sids.last()?).is_some() {
        return None;
    }
    let k = sids
        .iter()
        .rposition(|&b| s.map.profile_bone_of(b).is_some())?;
    let q = s.map.profile_bone_of(sids[k])?;
    (s.profile.bone(q).name == t.profile.bone(p).name).then_some(k)
}

/// The profile chain of that name on a rig.
fn chain_named<'p>(rig: &Rig<'p>, name: &str) -> Option<&'p Chain> {
    rig.profile.chains.iter().find(|c| c.name == name)
}

/// How much of `chain` the rig maps along `ids` (its bones along the chain); all zero when the
/// chain is unknown.
fn mapping(rig: &Rig, chain: Option<&Chain>, ids: &[BoneId]) -> ChainMapping {
    let Some(chain) = chain else {
        return ChainMapping::default();
    };
    let mut out = ChainMapping {
        bones: chain.bones.len(),
        ..ChainMapping::default()
    };
    for &p in &chain.bones {
        let name = rig.profile.bone(p).name.clone();
        match rig.map.get(p) {
            Some(b) if ids.contains(&b) => out.mapped += 1,
            Some(b) if ids.last().is_some_and(|&e| rig.skeleton.is_ancestor(e, b)) => {
                out.mapped += 1;
                out.past_end.push(name);
            }
            Some(b) if ids.first().is_some_and(|&f| rig.skeleton.is_ancestor(b, f)) => {
                out.mapped += 1;
                out.before_start.push(name);
            }
            Some(_) => out.detached.push(name),
            None => out.unmapped.push(name),
        }
    }
    out
}

/// The measured chain with the largest end error (the first of equals).
fn worst_end(chains: &[ChainCheck]) -> Option<WorstEnd> {
    let mut worst: Option<(&ChainCheck, f32)> = None;
    for c in chains {
        if let Some(e) = c.end_deg {
            if worst.is_none_or(|(_, w)| e > w) {
                worst = Some((c, e));
            }
        }
    }
    worst.map(|(c, end_deg)| WorstEnd {
        chain: c.chain.clone(),
        end_deg,
        mapping: mapping_words(&c.target_mapping, &c.source_mapping),
    })
}

/// A profile bone's bone in a rig, or why there is none (`unmapped` when the map lacks it).
fn mapped_bone(rig: &Rig, name: &str, unmapped: NotMeasured) -> Result<BoneId, NotMeasured> {
    let p = rig.profile.find(name).ok_or(NotMeasured::NotInProfile)?;
    rig.map.get(p).ok_or(unmapped)
}

/// The end effectors measured: hands and feet.
const EFFECTORS: [&str; 4] = ["LeftHand", "RightHand", "LeftFoot", "RightFoot"];

/// The bone of profile bone `name` on each side, each or the reason it is missing, and the
/// pair or the reason for the pair.
type Pair = (
    Result<BoneId, NotMeasured>,
    Result<BoneId, NotMeasured>,
    Result<(BoneId, BoneId), NotMeasured>,
);

fn effector_pair(s: &Posed, t: &Posed, name: &str) -> Pair {
    let sb = mapped_bone(s.rig, name, NotMeasured::NotMappedInSource);
    let tb = mapped_bone(t.rig, name, NotMeasured::NotMappedInTarget);
    let pair = match (sb, tb) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (Err(NotMeasured::NotInProfile), _) | (_, Err(NotMeasured::NotInProfile)) => {
            Err(NotMeasured::NotInProfile)
        }
        (Err(_), Err(_)) => Err(NotMeasured::NotMappedOnEitherSide),
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => Err(e),
    };
    (sb, tb, pair)
}

/// Per frame, the distance between the target effector's movement and the source's scaled by
/// the plan (each relative to its pelvis, the thighs' joints' midpoint or else the hips joint,
/// from where it is at rest), fraction of the target's height (see
/// [`EffectorCheck::max_error`]). The pelvis rather than the hips joint: rigs put the hips joint
/// anywhere from 9 cm above the thighs (CMU) to 3% of the height below them (RobotExpressive),
/// so that the same tilt of the hips moves it differently against the legs.
///
/// "Where it is at rest" is turned with the hips' heading. Each side keeps its own stance
/// (a wide-legged target stays wide-legged: the IK goal adds the target's rest stance turned
/// with the hips' yaw), so once a character has turned round, its feet sit on the other side
/// of its hips; comparing against the unturned rest charged every turn with twice the
/// difference of the two stances (issue 15: 7% of the height for ModularMen, whose legs stand
/// 5 cm wider than CMU's, after a half turn) although both feet were where they belong.
fn effector_series(
    s: &Posed,
    t: &Posed,
    plan: &Plan,
    options: &RetargetOptions,
    (sb, tb): (BoneId, BoneId),
) -> Vec<f32> {
    let (sp, tp) = plan.pelvis_bones();
    let r = plan.hips_ratio;
    let scale = |v: Vec3| {
        Vec3::new(
            v.x * r * options.horizontal_scale,
            v.y * r * options.vertical_scale,
            v.z * r * options.horizontal_scale,
        )
    };
    let mean = |at: &[Vec3], bones: &[BoneId]| {
        bones.iter().map(|b| at[b.index()]).sum::<Vec3>() / bones.len() as f32
    };
    let moved = |at: &[Vec3], rest: &[Vec3], heading: Quat, b: BoneId, pelvis: &[BoneId]| {
        (at[b.index()] - mean(at, pelvis)) - heading * (rest[b.index()] - mean(rest, pelvis))
    };
    (s.frames.iter().zip(&s.headings))
        .zip(t.frames.iter().zip(&t.headings))
        .map(|((a, &ha), (b, &hb))| {
            let want = scale(moved(a, &s.rest, ha, sb, &sp));
            (moved(b, &t.rest, hb, tb, &tp) - want).length() / t.height
        })
        .collect()
}

/// The end-effector error of `target`'s clip (retargeted by `plan`) against `source`'s at
/// each of `times` (seconds), per hand and foot (`LeftHand`, `RightHand`, `LeftFoot`,
/// `RightFoot`): the series whose largest value is [`EffectorCheck::max_error`], or why it is
/// not measured. For charts.
pub fn effector_errors(
    source: (&Rig, &Clip),
    target: (&Rig, &Clip),
    plan: &Plan,
    options: &RetargetOptions,
    times: &[f32],
) -> Vec<(String, Result<Vec<f32>, NotMeasured>)> {
    let (sh, _) = plan.hips();
    let (s, t) = posed(
        (
            source.0,
            source.1,
            Posed::new(source.0, source.1, times, sh, Vec::new()),
        ),
        (target.0, target.1, times),
        plan,
    );
    EFFECTORS
        .iter()
        .map(|&name| {
            let (_, _, pair) = effector_pair(&s, &t, name);
            let series = pair.map(|p| effector_series(&s, &t, plan, options, p));
            (name.to_string(), series)
        })
        .collect()
}

/// Hands and feet against the scaled source, and the feet's skate on both sides; each figure
/// measured or with the reason it is not.
fn effectors(
    s: &Posed,
    t: &Posed,
    plan: &Plan,
    options: &RetargetOptions,
) -> (Vec<EffectorCheck>, Vec<SkateCheck>) {
    let (mut effectors, mut skates) = (Vec::new(), Vec::new());
    for name in EFFECTORS {
        let (_, _, pair) = effector_pair(s, t, name);
        let max_error = pair.map(|p| {
            effector_series(s, t, plan, options, p)
                .into_iter()
                .fold(0.0, f32::max)
        });
        effectors.push(EffectorCheck {
            bone: name.into(),
            max_error: max_error.ok(),
            reason: max_error.err(),
            ik: plan
                .chains
                .iter()
                .any(|c| c.ik_end.as_deref() == Some(name)),
        });
        if name.ends_with("Foot") {
            skates.push(foot_skate(s, t, name, [&[], &[]]));
        }
    }
    (effectors, skates)
}

/// The skate of foot `name` on both sides ([`SkateCheck`], math.md): over the source's contact
/// pairs (the source's figure alone when the target does not map the foot), each side's horizontal movement taken relative to its ground's move per frame
/// (`ground`: source, target; empty: a still ground), in its own leg lengths.
fn foot_skate(s: &Posed, t: &Posed, name: &str, ground: [&[Vec3]; 2]) -> SkateCheck {
    let (sb, tb, _) = effector_pair(s, t, name);
    let contact = sb.map(|a| contacts(&s.frames, a, s.legs));
    let source = sb.and_then(|a| {
        let c = contact.as_deref().unwrap_or_default();
        skate_over(&s.frames, a, s.legs, c, ground[0]).ok_or(NotMeasured::NoContactInSource)
    });
    let target = source.and_then(|_| {
        let b = tb?;
        let c = contact.as_deref().unwrap_or_default();
        skate_over(&t.frames, b, t.legs, c, ground[1]).ok_or(NotMeasured::NoContactInSource)
    });
    SkateCheck {
        bone: name.into(),
        source: source.ok().map(|m| m.0),
        target: target.ok().map(|m| m.0),
        contact_pairs: source.map_or(0, |m| m.1),
        reason: target.err(),
    }
}

/// Foot skate (math.md) of one side on its own contacts: a foot is in contact when its height is
/// within 3% of `legs` (the rig's leg length) of its lowest point in the clip; skate is its mean
/// horizontal movement between consecutive contact frames, as a fraction of `legs`. `None` when
/// no two consecutive frames are in contact (a clip of one frame): there is nothing to average.
pub fn skate(frames: &[Vec<Vec3>], foot: BoneId, legs: f32) -> Option<f32> {
    skate_over(frames, foot, legs, &contacts(frames, foot, legs), &[]).map(|(v, _)| v)
}

/// Per frame, whether `foot` is in contact (math.md: within 3% of the leg length `legs` of its
/// lowest point in the clip).
fn contacts(frames: &[Vec<Vec3>], foot: BoneId, legs: f32) -> Vec<bool> {
    let ys: Vec<f32> = frames.iter().map(|f| f[foot.index()].y).collect();
    let low = ys.iter().copied().fold(f32::INFINITY, f32::min);
    ys.iter().map(|&y| y <= low + 0.03 * legs).collect()
}

/// `foot`'s mean horizontal movement between consecutive frames both in `contact`, fraction of
/// `legs`, relative to the ground's move `ground[k]` from frame k - 1 to k (none past its end:
/// an empty `ground` is a still one), and the number of such pairs.
fn skate_over(
    frames: &[Vec<Vec3>],
    foot: BoneId,
    legs: f32,
    contact: &[bool],
    ground: &[Vec3],
) -> Option<(f32, usize)> {
    let contact = |k: usize| contact.get(k).copied().unwrap_or(false);
    let (mut sum, mut n) = (0.0, 0);
    for k in 1..frames.len() {
        if contact(k) && contact(k - 1) {
            let mut d = frames[k][foot.index()] - frames[k - 1][foot.index()];
            if let Some(g) = ground.get(k) {
                d -= *g;
            }
            sum += Vec3::new(d.x, 0.0, d.z).length();
            n += 1;
        }
    }
    (n > 0).then(|| (sum / n as f32 / legs, n))
}

/// Both sides posed for measuring: the source's (given, posed) seen under the plan's turn, the
/// target's clip sampled at `times`, each with the plan's leg length.
fn posed<'a>(
    source: (&'a Rig<'a>, &Clip, Posed<'a>),
    target: (&'a Rig<'a>, &Clip, &[f32]),
    plan: &Plan,
) -> (Posed<'a>, Posed<'a>) {
    let (_, th) = plan.hips();
    let s = (source.2)
        .seen_by(plan.source_turn())
        .with_legs(plan.source_leg_length);
    let t =
        Posed::new(target.0, target.1, target.2, th, Vec::new()).with_legs(plan.target_leg_length);
    (s, t)
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

//! The plan of a retarget, found once per pair of skeletons: which source chain drives each
//! target chain, where each target bone sits along its chain, which source bones it blends,
//! the ratio the hips' motion is scaled by (legs, or hips heights), the pelvis, and the IK limbs.

use super::{ChainMode, ChainSettings, RetargetError, RetargetOptions, Rig};
use crate::model::{BoneId, Skeleton, Transform, Warning, WarningCode};
use crate::profile::{Profile, ProfileBoneId};
use glam::{EulerRot, Quat, Vec3};
use serde::Serialize;

/// How one target chain is driven.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ChainPlan {
    /// The target chain (profile chain name).
    pub chain: String,
    /// The source chain driving it, if any.
    pub source_chain: Option<String>,
    /// How the target bones take their rotation from the source chain.
    pub mode: ChainMode,
    /// The target skeleton's bones along the chain, start to end (unmapped in-between bones
    /// included).
    pub target_bones: Vec<String>,
    /// The source skeleton's bones along its chain.
    pub source_bones: Vec<String>,
    /// Normalized arc length of each target bone's joint along the chain (0 at the start, 1 at
    /// the end bone).
    pub target_u: Vec<f32>,
    /// The same for the source bones, over its mapped bones: the unmapped bones read past the
    /// last mapped one (down to its tail) are at 1.
    pub source_u: Vec<f32>,
    /// The profile bone the IK pass places, if it runs on this chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ik_end: Option<String>,
    #[serde(skip)]
    pub(crate) target_ids: Vec<BoneId>,
    #[serde(skip)]
    pub(crate) source_ids: Vec<BoneId>,
}

/// What drives one target bone's rotation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Driver {
    /// Keeps its local rest rotation.
    Rest,
    /// Takes the global change of source bones `a` and `b`, blended by `w` (0: all `a`).
    Delta { a: u32, b: u32, w: f32 },
}

impl Driver {
    /// The one source bone whose change this driver takes whole (a blend weighted all to one
    /// end included), if any.
    pub(crate) fn single(self) -> Option<BoneId> {
        match self {
            Driver::Delta { a, b, w } if a == b || w <= 0.0 => Some(BoneId(a)),
            Driver::Delta { b, w, .. } if w >= 1.0 => Some(BoneId(b)),
            _ => None,
        }
    }
}

/// A target bone whose source counterpart's segment holds unmapped bones (a mocap rig's second
/// neck bone between the mapped `Neck` and `Head`): its driven change is turned further, by
/// the shortest arc, so that the direction from the counterpart's joint to the source's tail
/// joint (the next mapped one) turns as the source's does. The change of the segment's last
/// source bone alone turns it only as that bone does, and the counterpart's alone misses the
/// bones below it (CMU's neck: 4.1° mean, 11.7° worst, issue 42).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Aim {
    /// The target bone.
    pub bone: BoneId,
    /// The source bone whose joint starts the segment (the target bone's counterpart).
    pub from: BoneId,
    /// The source bone whose joint ends it (the counterpart's tail).
    pub to: BoneId,
    /// The segment's rest direction, unit, in the source's space.
    pub rest: Vec3,
}

/// An unmapped target bone inside a segment, between a mapped bone (`base`) and that bone's
/// tail (Rigify's `DEF-upper_arm.L.001` twist link between the upper arm and the forearm): it
/// keeps its rest place against `base`, turning only about `axis`, its rest direction toward
/// the next joint along the segment (which then stays where it is), as much as its driven
/// change turns it about it. Blending the changes of the mapped bones around it bent it by part
/// of the elbow, and put the upper arm's segment, which runs through it, 5 to 7.5° away from the
/// source's (issue 42).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Link {
    /// The unmapped target bone.
    pub bone: BoneId,
    /// The mapped target bone whose segment holds it.
    pub base: BoneId,
    /// Its rest direction toward the next joint along the segment, unit, in its own rest
    /// frame; `None` where that joint sits on its own (any turn leaves it in place).
    pub axis: Option<Vec3>,
}

/// A two-bone IK limb: bone ids on both sides and the reach scaling.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IkLimb {
    pub target: [BoneId; 3],
    pub source: [BoneId; 3],
    /// Target bones from the upper bone down to the end, in order (in-between bones included).
    pub path: Vec<BoneId>,
    /// Target limb length over source limb length (rest).
    pub length_ratio: f32,
    /// For an end that hangs elsewhere (an IK layout): its rest place in the middle bone's rest
    /// frame, where the solver takes it to be.
    pub end_offset: Option<Vec3>,
    /// For a source end that hangs elsewhere too, when the target's does (the same IK layout on
    /// both sides): the source's end and middle bones. The source's clips move its end where
    /// its middle bone need not reach; the target's end is taken to be as far from its rest
    /// place below the middle bone (see [`Follow::source`]), where the solver and the ops
    /// after it take it to be.
    pub end_follow: Option<SourceFollow>,
    /// The target's own stance: its rest end-from-upper vector minus the source's scaled one,
    /// so that a limb reaching like the source's keeps the target's stance (wide-legged robots
    /// stay wide-legged). Zero for rigs of the same shape.
    pub stance: Vec3,
    pub blend: f32,
    /// The IK pass solves it (else only the ops after it, planting and the floor, do).
    pub solve: bool,
    /// A leg (its end is a foot): planting and the floor act on it.
    pub leg: bool,
    /// Which foot a leg's end is, 0 left or 1 right (its profile bone's `Left`/`Right`
    /// prefix), for contacts given per foot; `None` otherwise.
    pub foot: Option<usize>,
    /// The end's rest joint on each side (skeleton space), where `ik_blend` measures from.
    pub end_rest: Vec3,
    pub source_end_rest: Vec3,
}

/// A target bone that hangs elsewhere (an IK layout: a foot on the root) but is driven as if it
/// hung below `anchor`, the chain bone above it: its joint goes where `offset` (its rest
/// place in the anchor's rest frame) puts it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Follow {
    pub bone: BoneId,
    pub anchor: BoneId,
    pub offset: Vec3,
    /// The source's counterparts when they too hang apart (the same IK layout on both sides):
    /// the source bone's move away from its rest place below its anchor, in the anchor's frame,
    /// is added (turned and scaled as the target's anchor), so that a rig retargeted onto
    /// itself keeps its feet and thighs where its clips put them.
    pub source: Option<SourceFollow>,
}

/// A source bone that hangs apart from the bone its profile parent maps to (see
/// [`Follow::source`]): `rest` is its rest place less the anchor's (skeleton space).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SourceFollow {
    pub bone: BoneId,
    pub anchor: BoneId,
    pub rest: Vec3,
}

/// The source's counterparts of target bone `bone` and its `anchor` (through the profile bones
/// they map), when the source's does not hang below the source's anchor either.
fn source_follow(
    plan: &Plan,
    source: &Rig,
    target: &Rig,
    anchor: BoneId,
    bone: BoneId,
) -> Option<SourceFollow> {
    let counterpart = |b: BoneId| {
        let q = target.map.profile_bone_of(b)?;
        let p = source.profile.find(&target.profile.bone(q).name)?;
        source.map.get(p)
    };
    SourceFollow::apart(
        plan,
        source.skeleton,
        counterpart(anchor)?,
        counterpart(bone)?,
    )
}

impl SourceFollow {
    /// Source bone `bone` with its `anchor`, when it does not hang below the anchor.
    fn apart(plan: &Plan, source: &Skeleton, anchor: BoneId, bone: BoneId) -> Option<Self> {
        path(source, anchor, bone).is_none().then(|| SourceFollow {
            bone,
            anchor,
            rest: plan.source_rest[bone.index()].1 - plan.source_rest[anchor.index()].1,
        })
    }
}

/// A pinned target bone (a `Pin` op): it takes `from`'s global transform, times `offset` (its
/// rest place and rotation in `from`'s rest frame) when rest-relative.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pin {
    pub bone: BoneId,
    pub from: BoneId,
    pub offset: Option<(Quat, Vec3)>,
    pub alpha: f32,
}

/// How the retarget goes, found once per pair of skeletons.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Plan {
    /// Per target chain.
    pub chains: Vec<ChainPlan>,
    /// Height of the source hips above the skeleton's origin at rest (skeleton units).
    pub source_hips_height: f32,
    /// The same for the target.
    pub target_hips_height: f32,
    /// What the hips' motion is scaled by: the target's leg length over the source's
    /// ([`ScaleBasis::Legs`]), or where a side has no mapped legs the hips heights' ratio
    /// ([`ScaleBasis::HipsHeight`]).
    pub hips_ratio: f32,
    /// What [`Plan::hips_ratio`] compares.
    pub scale_basis: ScaleBasis,
    /// The source's leg length at rest (thigh, shin and foot joints, averaged over the legs both
    /// sides map), skeleton units; `None` without such a leg.
    pub source_leg_length: Option<f32>,
    /// The same for the target.
    pub target_leg_length: Option<f32>,
    /// The turn about +Y (quarter turns, degrees) the source's motion takes so that it faces as
    /// the target does at rest: 0 between two normalized skeletons of one convention, 180 from a
    /// character facing +Z onto a normalized VRM 0.x one (which faces −Z in its file).
    pub source_turn_deg: f32,
    /// Chains left at rest, paired by a close name, without IK, or read around detached bones.
    pub warnings: Vec<Warning>,
    #[serde(skip)]
    pub(crate) source_hips: BoneId,
    #[serde(skip)]
    pub(crate) target_hips: BoneId,
    /// The thighs on both sides, whose joints' midpoint is the pelvis the root pass moves and
    /// the effectors are measured from; `None` (the hips joint is) where a side lacks one.
    #[serde(skip)]
    pub(crate) pelvis: Option<Pelvis>,
    #[serde(skip)]
    pub(crate) source_root: Option<BoneId>,
    #[serde(skip)]
    pub(crate) target_root: Option<BoneId>,
    /// The target bone that carries the hips and the legs when the legs hang beside the hips
    /// (`Body` above `Hips`): the hips' position moves it.
    #[serde(skip)]
    pub(crate) target_carrier: Option<BoneId>,
    /// The target hips' rest translation below the carrier.
    #[serde(skip)]
    pub(crate) carrier_offset: Vec3,
    /// Target bones that hang elsewhere but follow their chain (after the IK pass).
    #[serde(skip)]
    pub(crate) follows: Vec<Follow>,
    /// Chains' first bones that hang beside the bone their profile parent maps to (legs beside
    /// the hips under a `Body` bone): they follow it (before the IK pass).
    #[serde(skip)]
    pub(crate) early_follows: Vec<Follow>,
    /// Target bones whose rotation the retarget sets, in bone order.
    #[serde(skip)]
    pub(crate) driven: Vec<BoneId>,
    /// Target bones whose translation the retarget sets.
    #[serde(skip)]
    pub(crate) translated: Vec<BoneId>,
    #[serde(skip)]
    pub(crate) drivers: Vec<Driver>,
    /// Target bones whose driven change is aimed along their source segment ([`Aim`]).
    #[serde(skip)]
    pub(crate) aims: Vec<Aim>,
    /// Unmapped target bones inside a segment, turned with its mapped bone ([`Link`]).
    #[serde(skip)]
    pub(crate) links: Vec<Link>,
    #[serde(skip)]
    pub(crate) limbs: Vec<IkLimb>,
    /// What the source's roots hang from: its skeleton space turned by the source turn.
    #[serde(skip)]
    pub(crate) source_space: Global,
    /// Global rest rotations and positions (skeleton space, retarget pose applied; the source's
    /// under [`Plan::source_space`]).
    #[serde(skip)]
    pub(crate) source_rest: Vec<(Quat, Vec3)>,
    #[serde(skip)]
    pub(crate) target_rest: Vec<(Quat, Vec3)>,
    /// Local rest rotations of the target with its retarget pose applied.
    #[serde(skip)]
    pub(crate) target_local_rest: Vec<Quat>,
    /// The pins of the stack's `Pin` ops that are on, in stack order.
    #[serde(skip)]
    pub(crate) pins: Vec<Pin>,
}

impl Plan {
    /// Target bone ids along each chain with its source chain, for measuring.
    pub fn chain_bones(&self) -> impl Iterator<Item = (&ChainPlan, &[BoneId], &[BoneId])> {
        self.chains
            .iter()
            .map(|c| (c, c.target_ids.as_slice(), c.source_ids.as_slice()))
    }

    /// The source and target hips bones.
    pub fn hips(&self) -> (BoneId, BoneId) {
        (self.source_hips, self.target_hips)
    }

    /// The turn about +Y the source is seen under ([`Plan::source_turn_deg`]): its skeleton
    /// space turned so that it faces as the target does.
    pub fn source_turn(&self) -> Quat {
        self.source_space.rot
    }

    /// Target bones whose translation the retarget sets (the hips, and the root with root
    /// motion).
    pub fn translated_bones(&self) -> &[BoneId] {
        &self.translated
    }
}

/// What the hips' motion is scaled by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScaleBasis {
    /// Leg lengths: a character with legs twice as long takes strides twice as long, wherever
    /// its hips joint sits above them.
    Legs,
    /// Hips heights above the skeleton's origin, for rigs without legs mapped on both sides.
    HipsHeight,
}

/// The pelvis: the midpoint of the two thigh joints on each side, and where it is at rest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pelvis {
    pub source: [BoneId; 2],
    pub target: [BoneId; 2],
}

/// A bone's global transform in skeleton space: rotation, joint position, and uniform scale
/// (the x component of the scales above it: normalized skeletons have unit scales).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Global {
    pub rot: Quat,
    pub pos: Vec3,
    pub scale: f32,
}

impl Global {
    pub(crate) const ROOT: Global = Global {
        rot: Quat::IDENTITY,
        pos: Vec3::ZERO,
        scale: 1.0,
    };

    /// The global transform of a child with local transform `l`.
    #[inline]
    pub(crate) fn child(&self, l: &Transform) -> Global {
        Global {
            rot: self.rot * l.rotation,
            pos: self.pos + self.rot * (l.translation * self.scale),
            scale: self.scale * l.scale.x,
        }
    }

    /// The local translation that puts a child of this transform at `pos`.
    #[inline]
    pub fn local_translation(&self, pos: Vec3) -> Vec3 {
        self.rot.inverse() * (pos - self.pos) / self.scale
    }
}

/// Global rest rotation and joint position of every bone, in skeleton space.
type RestFrames = Vec<(Quat, Vec3)>;

/// Local rest rotations, and global rest frames in skeleton space (below the base), with local
/// rotation offsets applied to the bones named in `offsets`.
fn rest_globals(
    rig: &Rig,
    offsets: &std::collections::BTreeMap<String, [f32; 3]>,
    root: Global,
) -> Result<(Vec<Quat>, RestFrames), RetargetError> {
    let s = rig.skeleton;
    let mut local: Vec<Quat> = s.bones.iter().map(|b| b.rest.rotation).collect();
    for (name, [x, y, z]) in offsets {
        let p = rig
            .profile
            .find(name)
            .ok_or_else(|| RetargetError::UnknownBone {
                bone: name.clone(),
                profile: rig.profile.name.clone(),
            })?;
        if let Some(b) = rig.map.get(p) {
            let offset = Quat::from_euler(
                EulerRot::XYZ,
                x.to_radians(),
                y.to_radians(),
                z.to_radians(),
            );
            local[b.index()] = (local[b.index()] * offset).normalize();
        }
    }
    let global = s.accumulate(
        root,
        s.bones.iter().zip(&local),
        |parent, (b, &rotation)| {
            let mut g = parent.child(&Transform { rotation, ..b.rest });
            g.rot = g.rot.normalize();
            g
        },
    );
    let global = global.into_iter().map(|g| (g.rot, g.pos)).collect();
    Ok((local, global))
}

/// The skeleton's bones from `start` down to `end`, or `None` if `end` is not below `start`.
fn path(s: &Skeleton, start: BoneId, end: BoneId) -> Option<Vec<BoneId>> {
    let mut out = vec![end];
    let mut at = end;
    while at != start {
        at = s.bones[at.index()].parent?;
        out.push(at);
    }
    out.reverse();
    Some(out)
}

/// Normalized arc length of each bone's joint along `bones` (0 at the first, 1 at the last).
fn arc_params(bones: &[BoneId], rest: &[(Quat, Vec3)]) -> Vec<f32> {
    let mut arc = vec![0.0f32];
    for w in bones.windows(2) {
        let d = rest[w[1].index()].1.distance(rest[w[0].index()].1);
        arc.push(arc.last().copied().unwrap_or(0.0) + d);
    }
    let total = arc.last().copied().unwrap_or(0.0);
    arc.iter()
        .map(|a| if total > 1e-12 { a / total } else { 0.0 })
        .collect()
}

/// A rig's bones along a profile chain: the path from its first mapped bone to its last one
/// that hangs below it (see [`chain_attached`]).
fn chain_path(rig: &Rig, bones: &[ProfileBoneId]) -> Option<Vec<BoneId>> {
    let mapped: Vec<BoneId> = chain_attached(rig, bones).0;
    // Each mapped bone hangs below the one before it, so the first and last span a path.
    path(rig.skeleton, *mapped.first()?, *mapped.last()?)
}

/// A rig's bones along a profile chain, the mapped bones that hang apart included (an IK
/// layout: a foot on the root bone): [`chain_path`], then each run of mapped bones cut off it,
/// as the path from the run's first bone to its last one below it. A source bone drives by its
/// global change ([`Driver::Delta`]) and is measured at its joint, wherever it hangs: read down
/// to the bone above it only, the chain stretched the shin over the target's shin and foot
/// (Quaternius's baked IK rig onto ModularMen: the shin 42° off, issue 42). Stops before a run
/// whose bones the path already holds.
fn chain_path_apart(rig: &Rig, bones: &[ProfileBoneId]) -> Option<Vec<BoneId>> {
    let (attached, mut cut) = chain_attached(rig, bones);
    let mut ids = path(rig.skeleton, *attached.first()?, *attached.last()?)?;
    while !cut.is_empty() {
        let (run, rest) = chain_attached(rig, &cut);
        let more = match (run.first(), run.last()) {
            (Some(&a), Some(&b)) => path(rig.skeleton, a, b),
            _ => None,
        };
        match more {
            Some(more) if more.iter().all(|b| !ids.contains(b)) => ids.extend(more),
            _ => break,
        }
        cut = rest;
    }
    Some(ids)
}

/// The profile bone that profile bone `p`'s tail is on `rig`, when its tail is one mapped bone.
fn one_tail(rig: &Rig, p: ProfileBoneId) -> Option<ProfileBoneId> {
    let t = rig.map.tail_bones(rig.profile, p)?;
    (t.len() == 1).then(|| t[0])
}

/// The skeleton bone of [`one_tail`] for the profile bone that bone `b` maps to.
fn tail_bone(rig: &Rig, b: BoneId) -> Option<BoneId> {
    rig.map.get(one_tail(rig, rig.map.profile_bone_of(b)?)?)
}

/// The source's bones along a profile chain: [`chain_path_apart`], continued through the
/// unmapped bones below its last mapped bone down to the bone above the next mapped one (its
/// tail), as a mocap rig's second neck bone below the one mapped `Neck`: their rotations move
/// the chain's end, so the chain reads them (a one-bone target chain takes the last one's
/// change, and a target bone is aimed along the whole segment, [`segment_aims`]).
fn source_chain_path(rig: &Rig, bones: &[ProfileBoneId]) -> Option<Vec<BoneId>> {
    let mut ids = chain_path_apart(rig, bones)?;
    let last = *ids.last()?;
    if let Some(below) = tail_bone(rig, last).and_then(|t| path(rig.skeleton, last, t)) {
        // The path runs last → … → tail; keep the bones strictly between.
        ids.extend(below.iter().skip(1).take(below.len().saturating_sub(2)));
    }
    Some(ids)
}

/// The source chain `sids` cut after the bone of the target chain's last bone, when that target
/// bone's tail (what it points at) is missing or lies in this chain: then the target chain ends
/// at that bone (a foot without toes, a shin whose foot hangs elsewhere), and the source bones
/// past it (the toes, the foot) drive nothing in it. Stretched over the target chain by arc
/// length, they would give the target's last bone their rotation: a foot turned like the toes,
/// a shin like the foot (issue 15). A target end whose tail lies in another chain (a two-bone
/// spine's chest carrying the neck and shoulders, a hand-less arm carrying the fingers) stands
/// for the whole rest of the source chain, which keeps it whole.
fn source_chain_end(
    source: &Rig,
    target: &Rig,
    chain: &crate::profile::Chain,
    schain: &crate::profile::Chain,
    tids: &[BoneId],
    sids: Vec<BoneId>,
) -> Vec<BoneId> {
    let Some(end) = tids
        .iter()
        .rev()
        .find_map(|&b| target.map.profile_bone_of(b))
    else {
        return sids;
    };
    let inside = match target.map.tail_bones(target.profile, end) {
        None => true,
        Some(tails) => tails.iter().all(|t| chain.bones.contains(t)),
    };
    match counterpart_at(source, target, chain, schain, end, &sids) {
        Some(k) if inside && k + 1 < sids.len() => sids[..=k].to_vec(),
        _ => sids,
    }
}

/// The source chain `sids` cut before the bone of the target chain's first bone, when the
/// target maps none of the chain's bones above that one (an arm without its shoulder, a thumb
/// without its metacarpal): the target's first bone then takes the global change of its own
/// counterpart, whatever turns the source's bones above it add. Stretched over the target chain
/// by arc length, those bones would drive it: KayKit's upper arm turned like Xbot's shoulder,
/// left level while the source's arm hangs (issue 42). Global changes carry the bones above, so
/// nothing of the counterpart's direction is lost; only the joint's place moves with the
/// shoulder the target lacks.
fn source_chain_start(
    source: &Rig,
    target: &Rig,
    chain: &crate::profile::Chain,
    schain: &crate::profile::Chain,
    tids: &[BoneId],
    sids: Vec<BoneId>,
) -> Vec<BoneId> {
    let Some(first) = tids.first().and_then(|&b| target.map.profile_bone_of(b)) else {
        return sids;
    };
    match counterpart_at(source, target, chain, schain, first, &sids) {
        Some(k) if k > 0 => sids[k..].to_vec(),
        _ => sids,
    }
}

/// Where in the source chain `sids` the counterpart of the target chain's profile bone `bone`
/// lies: the source's bone at the same place of its chain (the same profile bone when the
/// chains are the same).
fn counterpart_at(
    source: &Rig,
    target: &Rig,
    chain: &crate::profile::Chain,
    schain: &crate::profile::Chain,
    bone: ProfileBoneId,
    sids: &[BoneId],
) -> Option<usize> {
    let at = chain.bones.iter().position(|&b| b == bone);
    let counterpart = match at {
        Some(i) if schain.bones.len() == chain.bones.len() => Some(schain.bones[i]),
        _ => source.profile.find(&target.profile.bone(bone).name),
    };
    counterpart
        .and_then(|p| source.map.get(p))
        .and_then(|b| sids.iter().position(|&x| x == b))
}

/// Where `bone`'s joint sits in `anchor`'s rest frame (rests in skeleton space).
fn rest_offset(rest: &[(Quat, Vec3)], anchor: BoneId, bone: BoneId) -> Vec3 {
    let (ar, ap) = rest[anchor.index()];
    ar.inverse() * (rest[bone.index()].1 - ap)
}

/// A chain's mapped bones up to the first that does not hang below the one before it (an IK
/// layout: a foot on the root), and the profile bones cut off there.
fn chain_attached(rig: &Rig, bones: &[ProfileBoneId]) -> (Vec<BoneId>, Vec<ProfileBoneId>) {
    let mut out: Vec<BoneId> = Vec::new();
    for (k, &p) in bones.iter().enumerate() {
        let Some(b) = rig.map.get(p) else { continue };
        if out
            .last()
            .is_some_and(|&a| path(rig.skeleton, a, b).is_none())
        {
            let cut = bones[k..]
                .iter()
                .copied()
                .filter(|&q| rig.map.get(q).is_some())
                .collect();
            return (out, cut);
        }
        out.push(b);
    }
    (out, Vec::new())
}

/// Drives the bones cut off a chain (an IK layout): each takes its source bone's change, and the
/// first is placed below `anchor` as at rest.
fn follow_cut(plan: &mut Plan, source: &Rig, target: &Rig, anchor: BoneId, cut: &[ProfileBoneId]) {
    for (k, &q) in cut.iter().enumerate() {
        let Some(tb) = target.map.get(q) else {
            continue;
        };
        let sb = source
            .profile
            .find(&target.profile.bone(q).name)
            .and_then(|p| source.map.get(p));
        if let Some(sb) = sb {
            plan.drivers[tb.index()] = Driver::Delta {
                a: sb.0,
                b: sb.0,
                w: 0.0,
            };
        }
        if k == 0 {
            let offset = rest_offset(&plan.target_rest, anchor, tb);
            let source = source_follow(plan, source, target, anchor, tb);
            plan.follows.push(Follow {
                bone: tb,
                anchor,
                offset,
                source,
            });
        }
    }
}

/// The bone that carries both the hips and the legs when the legs hang beside the hips (an
/// IK layout: `Body` above `Hips`): the hips' parent, when the upper legs hang below it.
fn hips_carrier(rig: &Rig, hips: BoneId) -> Option<BoneId> {
    let parent = rig.skeleton.bones[hips.index()].parent?;
    let legs: Vec<BoneId> = ["LeftUpperLeg", "RightUpperLeg"]
        .iter()
        .filter_map(|n| rig.map.by_name(rig.profile, n))
        .collect();
    let beside = legs.iter().any(|&l| path(rig.skeleton, hips, l).is_none());
    let carried = legs
        .iter()
        .all(|&l| path(rig.skeleton, parent, l).is_some());
    (beside && carried && !legs.is_empty()).then_some(parent)
}

/// The source chain for a target chain: the settings', the same name, or the closest name.
fn source_chain<'p>(
    source: &'p Profile,
    name: &str,
    settings: &ChainSettings,
) -> (Option<&'p crate::profile::Chain>, bool) {
    if let Some(n) = &settings.source {
        return (source.chains.iter().find(|c| &c.name == n), false);
    }
    if let Some(c) = source.chains.iter().find(|c| c.name == name) {
        return (Some(c), false);
    }
    let best = source
        .chains
        .iter()
        .map(|c| {
            (
                strsim::normalized_damerau_levenshtein(
                    &c.name.to_lowercase(),
                    &name.to_lowercase(),
                ),
                c,
            )
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((score, c)) if score >= 0.6 => (Some(c), true),
        _ => (None, false),
    }
}

/// Which source bones drive each target bone of a chain, by mode. `sids[end]` is the source
/// chain's last mapped bone, which ends the chain for every mode; the unmapped bones past it
/// drive only a one-bone target chain, which stands for the whole source chain.
/// `by_bone`: equal bone counts pair bone by bone in `interpolated` mode.
fn chain_drivers(
    mode: ChainMode,
    tu: &[f32],
    su: &[f32],
    sids: &[BoneId],
    end: usize,
    by_bone: bool,
) -> Vec<Driver> {
    let (n, m) = (tu.len(), su.len());
    let single = |k: usize| Driver::Delta {
        a: sids[k].0,
        b: sids[k].0,
        w: 0.0,
    };
    match mode {
        ChainMode::None => vec![Driver::Rest; n],
        ChainMode::OneToOne => (0..n)
            .map(|i| if i <= end { single(i) } else { Driver::Rest })
            .collect(),
        ChainMode::OneToOneReversed => (0..n)
            .map(|i| {
                let from_end = n - 1 - i;
                if from_end <= end {
                    single(end - from_end)
                } else {
                    Driver::Rest
                }
            })
            .collect(),
        // Equal bone counts pair bone by bone: blending neighbours because the chains'
        // proportions differ a little would only blur the motion.
        // A one-bone target chain shows where the source chain ends: it takes the last source
        // bone's change (which carries the ones above it).
        ChainMode::Interpolated if m == 1 || n == 1 => vec![single(m - 1); n],
        ChainMode::Interpolated if n == end + 1 && by_bone => (0..n).map(single).collect(),
        ChainMode::Interpolated => tu
            .iter()
            .map(|&u| {
                let k = su[..=end].partition_point(|&s| s <= u).clamp(1, end.max(1)) - 1;
                let span = su[k + 1] - su[k];
                let w = if span > 1e-12 {
                    ((u - su[k]) / span).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                Driver::Delta {
                    a: sids[k].0,
                    b: sids[k + 1].0,
                    w,
                }
            })
            .collect(),
    }
}

/// Finds the plan: checks the options, pairs chains, places bones, finds the hips ratio and the
/// IK limbs.
pub(crate) fn build(
    source: &Rig,
    target: &Rig,
    options: &RetargetOptions,
) -> Result<Plan, RetargetError> {
    options.check_ops()?;
    for rig in [source, target] {
        if !rig.map.fits(rig.skeleton, rig.profile) {
            return Err(RetargetError::MapMismatch(rig.skeleton.name.clone()));
        }
    }
    for (what, v) in [
        ("horizontal_scale", options.horizontal_scale),
        ("vertical_scale", options.vertical_scale),
    ] {
        if !v.is_finite() {
            return Err(RetargetError::BadOption(format!(
                "{what} {v}: must be a finite number"
            )));
        }
    }
    if !(0.0..=180.0).contains(&options.ik_max_leg_deg) {
        return Err(RetargetError::BadOption(format!(
            "ik_max_leg_deg {}: must be between 0 and 180",
            options.ik_max_leg_deg
        )));
    }
    for (name, c) in &options.chains {
        if !target.profile.chains.iter().any(|x| &x.name == name) {
            return Err(RetargetError::UnknownChain {
                chain: name.clone(),
                profile: target.profile.name.clone(),
            });
        }
        if let Some(s) = &c.source {
            if !source.profile.chains.iter().any(|x| &x.name == s) {
                return Err(RetargetError::UnknownChain {
                    chain: s.clone(),
                    profile: source.profile.name.clone(),
                });
            }
        }
        if !(0.0..=1.0).contains(&c.ik_blend) {
            return Err(RetargetError::BadOption(format!(
                "chain `{name}`: ik_blend {}: must be between 0 and 1",
                c.ik_blend
            )));
        }
    }
    let (target_local_rest, target_rest) =
        rest_globals(target, &options.pose.target, Global::ROOT)?;
    let (_, source_rest) = rest_globals(source, &options.pose.source, Global::ROOT)?;
    // Seen as the target faces (a VRM 0.x character faces −Z in its file): the source turned
    // about +Y by the quarter turns between their facings.
    let quarters = match (facing(source, &source_rest), facing(target, &target_rest)) {
        (Some(s), Some(t)) => (t - s).rem_euclid(4),
        _ => 0,
    };
    let source_turn = quarter_turn(quarters);
    let source_space = Global {
        rot: source_turn,
        ..Global::ROOT
    };
    let source_rest = if source_turn == Quat::IDENTITY {
        source_rest
    } else {
        rest_globals(source, &options.pose.source, source_space)?.1
    };
    let hips = |rig: &Rig| {
        rig.profile
            .find("Hips")
            .and_then(|p| rig.map.get(p))
            .ok_or_else(|| RetargetError::NoHips(rig.skeleton.name.clone()))
    };
    let (source_hips, target_hips) = (hips(source)?, hips(target)?);
    let source_hips_height = source_rest[source_hips.index()].1.y;
    let target_hips_height = target_rest[target_hips.index()].1.y;
    let source_size = source.skeleton.height().max(1e-12);
    let legs = leg_lengths((source, &source_rest), (target, &target_rest));
    // The motion is scaled by the legs' lengths; without legs, by the hips' heights, which a
    // source whose hips rest on the floor (a clip-only rig: the pipeline stands one whose feet
    // hang below the floor on them first, `stood_on_feet`) cannot give.
    let (scale_basis, hips_ratio) = match legs {
        Some((ls, lt)) if ls > 1e-3 * source_size && lt.is_finite() => (ScaleBasis::Legs, lt / ls),
        _ if source_hips_height.abs() < 1e-3 * source_size || !source_hips_height.is_finite() => {
            return Err(RetargetError::HipsHeight {
                skeleton: source.skeleton.name.clone(),
                height: source_hips_height,
            });
        }
        _ => (
            ScaleBasis::HipsHeight,
            target_hips_height / source_hips_height,
        ),
    };
    let carrier = hips_carrier(target, target_hips);
    let root = |rig: &Rig| rig.profile.root.and_then(|p| rig.map.get(p));
    let mut plan = Plan {
        chains: Vec::new(),
        source_hips_height,
        target_hips_height,
        hips_ratio,
        scale_basis,
        source_leg_length: legs.map(|l| l.0),
        target_leg_length: legs.map(|l| l.1),
        warnings: Vec::new(),
        source_hips,
        target_hips,
        pelvis: pelvis(source, target, carrier.unwrap_or(target_hips), source_hips),
        source_root: root(source),
        target_root: root(target),
        target_carrier: carrier,
        carrier_offset: target.skeleton.bones[target_hips.index()].rest.translation,
        follows: Vec::new(),
        early_follows: Vec::new(),
        driven: Vec::new(),
        translated: Vec::new(),
        drivers: vec![Driver::Rest; target.skeleton.bones.len()],
        aims: Vec::new(),
        links: Vec::new(),
        limbs: Vec::new(),
        source_rest,
        target_rest,
        target_local_rest,
        pins: Vec::new(),
        source_turn_deg: [0.0, 90.0, 180.0, -90.0][quarters as usize],
        source_space,
    };
    if options.root_motion {
        let ok = plan
            .target_root
            .is_some_and(|r| path(target.skeleton, r, target_hips).is_some() && r != target_hips);
        if !ok {
            return Err(RetargetError::NoRootBone(target.skeleton.name.clone()));
        }
    }
    plan_chains(&mut plan, source, target, options)?;
    let apart = apart_chain_aims(&plan, source, target);
    plan.aims.extend(apart);
    finish(&mut plan, source, target, options);
    plan.pins = pins(&plan, target, options)?;
    for b in plan.pins.iter().map(|p| p.bone) {
        for list in [&mut plan.driven, &mut plan.translated] {
            if !list.contains(&b) {
                list.push(b);
                list.sort();
            }
        }
    }
    Ok(plan)
}

/// The `Pin` ops that are on, their bones found in the target (by skeleton bone name, else by
/// the profile bone the map gives).
fn pins(plan: &Plan, target: &Rig, options: &RetargetOptions) -> Result<Vec<Pin>, RetargetError> {
    let find = |i: usize, name: &str| {
        let s = target.skeleton;
        (s.bones.iter().position(|b| b.name == name))
            .map(|b| BoneId(b as u32))
            .or_else(|| target.profile.find(name).and_then(|p| target.map.get(p)))
            .ok_or_else(|| {
                RetargetError::BadOption(format!(
                    "ops[{i}] = Pin: no bone `{name}` in the target skeleton `{}` (nor a profile bone it maps)",
                    s.name
                ))
            })
    };
    let mut out = Vec::new();
    for (i, op) in options.ops.iter().enumerate() {
        let crate::retarget::Op::Pin(p) = op else {
            continue;
        };
        if !op.on() {
            continue;
        }
        let (bone, from) = (find(i, &p.bone)?, find(i, &p.from)?);
        if bone == from || target.skeleton.is_ancestor(bone, from) {
            return Err(RetargetError::BadOption(format!(
                "ops[{i}] = Pin: `{}` is `{}` or above it: a bone cannot follow itself",
                p.bone, p.from
            )));
        }
        let ((rf, pf), (rb, pb)) = (
            plan.target_rest[from.index()],
            plan.target_rest[bone.index()],
        );
        let offset = (p.space == crate::retarget::ops::PinSpace::RestRelative)
            .then(|| (rf.inverse() * rb, rf.inverse() * (pb - pf)));
        out.push(Pin {
            bone,
            from,
            offset,
            alpha: p.alpha,
        });
    }
    Ok(out)
}

/// The legs' rest lengths (thigh to shin to foot joints), averaged over the sides both rigs map
/// whole: (source, target).
/// The way a skeleton faces at rest, in quarter turns about +Y from +Z: its left (the left
/// upper leg's joint, else the upper arm's or shoulder's, less the right one's) is +X turned the
/// same way. `None` when neither pair is mapped or the pair stands on the vertical.
fn facing(rig: &Rig, rest: &[(Quat, Vec3)]) -> Option<i32> {
    ["UpperLeg", "UpperArm", "Shoulder"].iter().find_map(|b| {
        let at = |side: &str| {
            let p = rig.profile.find(&format!("{side}{b}"))?;
            Some(rest[rig.map.get(p)?.index()].1)
        };
        let left = at("Left")? - at("Right")?;
        // The turn about +Y that takes +X to `left` takes +Z to the facing.
        let yaw = (-left.z).atan2(left.x);
        (left.x.hypot(left.z) > 1e-6 * left.length().max(1e-12))
            .then(|| (yaw / std::f32::consts::FRAC_PI_2).round() as i32)
    })
}

/// `k` (0 to 3) quarter turns about +Y; half turns exactly (0, 1, 0, 0).
fn quarter_turn(k: i32) -> Quat {
    match k {
        0 => Quat::IDENTITY,
        2 => Quat::from_xyzw(0.0, 1.0, 0.0, 0.0),
        k => Quat::from_rotation_y(k as f32 * std::f32::consts::FRAC_PI_2),
    }
}

fn leg_lengths(
    source: (&Rig, &[(Quat, Vec3)]),
    target: (&Rig, &[(Quat, Vec3)]),
) -> Option<(f32, f32)> {
    let leg = |(rig, rest): (&Rig, &[(Quat, Vec3)]), side: &str| -> Option<f32> {
        let at = |b: &str| {
            let p = rig.profile.find(&format!("{side}{b}"))?;
            Some(rest[rig.map.get(p)?.index()].1)
        };
        let (u, l, f) = (at("UpperLeg")?, at("LowerLeg")?, at("Foot")?);
        Some(u.distance(l) + l.distance(f))
    };
    let (mut sum, mut n) = ((0.0, 0.0), 0);
    for side in ["Left", "Right"] {
        if let (Some(a), Some(b)) = (leg(source, side), leg(target, side)) {
            sum = (sum.0 + a, sum.1 + b);
            n += 1;
        }
    }
    (n > 0).then(|| (sum.0 / n as f32, sum.1 / n as f32))
}

/// Both thighs on both sides, where the target's hang below `moved` (the bone the root pass
/// translates) and the source's below its hips, so that the pelvis moves with the hips.
fn pelvis(source: &Rig, target: &Rig, moved: BoneId, source_hips: BoneId) -> Option<Pelvis> {
    let thighs = |rig: &Rig, below: BoneId| -> Option<[BoneId; 2]> {
        let t = |side: &str| {
            let b = rig.map.get(rig.profile.find(&format!("{side}UpperLeg"))?)?;
            rig.skeleton.is_ancestor(below, b).then_some(b)
        };
        Some([t("Left")?, t("Right")?])
    };
    Some(Pelvis {
        source: thighs(source, source_hips)?,
        target: thighs(target, moved)?,
    })
}

/// Pairs every target chain with its source chain and sets the drivers of its bones.
fn plan_chains(
    plan: &mut Plan,
    source: &Rig,
    target: &Rig,
    options: &RetargetOptions,
) -> Result<(), RetargetError> {
    let default = ChainSettings::default();
    let core = options.core();
    for chain in &target.profile.chains {
        let settings = options.chains.get(&chain.name).unwrap_or(&default);
        let warn = |plan: &mut Plan, code, message: String| {
            plan.warnings
                .push(Warning::new(code, message).on_chain(&chain.name))
        };
        place_target_layout(plan, source, target, chain);
        let Some(tids) = chain_path(target, &chain.bones) else {
            continue; // the target lacks the chain: nothing to drive
        };
        let (schain, fuzzy) = source_chain(source.profile, &chain.name, settings);
        if let Some(first) =
            schain.and_then(|c| chain_attached(source, &c.bones).1.first().copied())
        {
            warn(
                plan,
                WarningCode::Detached,
                format!(
                    "the source's `{}` does not hang below the rest of `{}` (an IK layout): the chain reads it where it hangs, by its global change",
                    source.profile.bone(first).name,
                    schain.map_or("", |c| &c.name)
                ),
            );
        }
        let path = |c: &crate::profile::Chain| source_chain_path(source, &c.bones);
        let sids = match schain.and_then(path) {
            Some(found) => found,
            _ => {
                warn(
                    plan,
                    WarningCode::ChainUnmatched,
                    format!(
                        "no mapped source chain drives `{}`: it keeps its rest",
                        chain.name
                    ),
                );
                continue;
            }
        };
        let schain = schain.expect("a source chain");
        let sids = source_chain_end(source, target, chain, schain, &tids, sids);
        let sids = source_chain_start(source, target, chain, schain, &tids, sids);
        if fuzzy {
            warn(
                plan,
                WarningCode::ChainByFuzzyName,
                format!(
                    "`{}` takes the source chain `{}`, the closest name",
                    chain.name, schain.name
                ),
            );
        }
        let mut cp = chain_plan(
            plan,
            source,
            target,
            chain,
            schain,
            settings.mode,
            tids,
            sids,
        );
        let aims = segment_aims(plan, source, target, chain, schain, &cp);
        plan.aims.extend(aims);
        let links = segment_links(plan, target, chain, &cp);
        plan.links.extend(links);
        let apart = apart_aims(plan, source, target, &cp);
        plan.aims.extend(apart);
        let ik = settings
            .ik
            .unwrap_or_else(|| chain.name.to_lowercase().contains("leg"));
        let leg = chain.name.to_lowercase().contains("leg");
        let solve = ik && core.ik > 0.0;
        if solve || (leg && options.needs_legs()) {
            match ik_limb(plan, source, target, chain, schain, settings)? {
                Some((mut limb, end)) => {
                    (limb.solve, limb.leg) = (solve, leg && end.ends_with("Foot"));
                    limb.foot = ["Left", "Right"]
                        .iter()
                        .position(|s| end.starts_with(s))
                        .filter(|_| limb.leg);
                    plan.limbs.push(limb);
                    if solve {
                        cp.ik_end = Some(end);
                    }
                }
                None if !solve => {}
                None => warn(
                    plan,
                    WarningCode::IkUnavailable,
                    format!(
                        "IK on `{}` needs its end bone and the two above it mapped on both sides",
                        chain.name
                    ),
                ),
            }
        }
        plan.chains.push(cp);
    }
    Ok(())
}

/// The [`Aim`]s of a chain's target bones whose source counterpart's tail hangs apart from it
/// (an IK layout: a baked foot on the root bone, below which the shin's tip need not lie), where
/// the target's tail, the same profile bone, hangs below the target bone: each bone that takes
/// its counterpart's change alone is aimed from the counterpart's joint at the tail's, so that
/// the segment turns as the source's joints do, not as the counterpart's bone does (Quaternius's
/// `RunningJump`: the foot 2.4° off its shin's line). Where both sides' tails hang apart, the
/// target's follows as the source's moves ([`Follow::source`]), and nothing is aimed.
fn apart_aims(plan: &Plan, source: &Rig, target: &Rig, cp: &ChainPlan) -> Vec<Aim> {
    let mut out = Vec::new();
    for &bone in &cp.target_ids {
        let Some(from) = plan.drivers[bone.index()].single() else {
            continue;
        };
        let (Some(p), Some(q)) = (
            target.map.profile_bone_of(bone),
            source.map.profile_bone_of(from),
        ) else {
            continue;
        };
        let (Some(tp), Some(sq)) = (one_tail(target, p), one_tail(source, q)) else {
            continue;
        };
        let (Some(ttail), Some(to)) = (target.map.get(tp), source.map.get(sq)) else {
            continue;
        };
        let same = target.profile.bone(p).name == source.profile.bone(q).name
            && target.profile.bone(tp).name == source.profile.bone(sq).name;
        let apart = path(source.skeleton, from, to).is_none();
        let below = path(target.skeleton, bone, ttail).is_some();
        let rest =
            (plan.source_rest[to.index()].1 - plan.source_rest[from.index()].1).try_normalize();
        if let (true, true, true, Some(rest)) = (same, apart, below, rest) {
            out.push(Aim {
                bone,
                from,
                to,
                rest,
            });
        }
    }
    out
}

/// The [`Aim`]s of a chain's target bones whose source segment holds unmapped bones: a bone
/// mapped on both sides whose tail is the same profile bone on both sides, where the source's
/// path from the counterpart's joint to the tail's runs through bones neither profile bone
/// maps (a mocap rig's second neck bone, Rigify's `DEF-upper_arm.L.001` twist link, a hand's
/// unmapped knuckle bone), and whose driver reads only bones of that segment (the counterpart,
/// or the unmapped bones inside). In the [`column`], only the chain's last bone (CMU's neck).
/// Other bones keep their plain change: where nothing unmapped lies inside a segment, the
/// output is as without aims.
fn segment_aims(
    plan: &Plan,
    source: &Rig,
    target: &Rig,
    chain: &crate::profile::Chain,
    schain: &crate::profile::Chain,
    cp: &ChainPlan,
) -> Vec<Aim> {
    let aim = |bone: BoneId| -> Option<Aim> {
        let p = target.map.profile_bone_of(bone)?;
        let k = counterpart_at(source, target, chain, schain, p, &cp.source_ids)?;
        aim_at(plan, source, target, bone, cp.source_ids[k])
    };
    let from = if column(chain) {
        cp.target_ids.len().saturating_sub(1)
    } else {
        0
    };
    cp.target_ids[from..]
        .iter()
        .filter_map(|&b| aim(b))
        .collect()
}

/// The [`Aim`]s of the target bones outside every chain's path that take their counterpart's
/// change (by profile name), as [`segment_aims`] finds them: the bones cut from a chain that
/// hangs in pieces (a Rigify rig's `DEF-hand.R` hanging apart from its forearm) are driven by
/// their counterparts one by one, and Quaternius's right hand, with `MiddleHand.R` inside its
/// segment, was 35.2° off on `Man_Punch` onto the generated Rigify rig. None in the
/// [`column`].
fn apart_chain_aims(plan: &Plan, source: &Rig, target: &Rig) -> Vec<Aim> {
    let in_chain = |b: BoneId| plan.chains.iter().any(|c| c.target_ids.contains(&b));
    let aimed = |b: BoneId| plan.aims.iter().any(|a| a.bone == b);
    let mut out = Vec::new();
    for p in target.profile.ids() {
        let Some(bone) = target.map.get(p) else {
            continue;
        };
        let chain = target.profile.chains.iter().find(|c| c.bones.contains(&p));
        if in_chain(bone) || aimed(bone) || chain.is_some_and(column) {
            continue;
        }
        let from = source
            .profile
            .find(&target.profile.bone(p).name)
            .and_then(|q| source.map.get(q));
        if let Some(aim) = from.and_then(|from| aim_at(plan, source, target, bone, from)) {
            out.push(aim);
        }
    }
    out
}

/// The [`Aim`] of target bone `bone` along the segment of its counterpart `from`, when the
/// segment holds unmapped source bones, both bones' tails are one profile bone, the same, and
/// the bone's driver reads only bones of the segment (see [`segment_aims`]).
fn aim_at(plan: &Plan, source: &Rig, target: &Rig, bone: BoneId, from: BoneId) -> Option<Aim> {
    let name = |rig: &Rig, b: BoneId| {
        rig.map
            .profile_bone_of(b)
            .map(|p| rig.profile.bone(p).name.clone())
    };
    let (to, ttail) = (tail_bone(source, from)?, tail_bone(target, bone)?);
    if name(target, bone) != name(source, from) || name(target, ttail) != name(source, to) {
        return None;
    }
    // The segment's bones: the counterpart and the unmapped bones below it down to the tail.
    let inside = path(source.skeleton, from, to)?;
    let inside = &inside[..inside.len() - 1];
    if inside.len() < 2 || inside[1..].iter().any(|&b| name(source, b).is_some()) {
        return None;
    }
    let reads = match plan.drivers[bone.index()] {
        Driver::Rest => return None,
        Driver::Delta { a, w, .. } if w <= 0.0 => vec![a],
        Driver::Delta { b, w, .. } if w >= 1.0 => vec![b],
        Driver::Delta { a, b, .. } => vec![a, b],
    };
    if !reads.iter().all(|&r| inside.contains(&BoneId(r))) {
        return None;
    }
    let rest =
        (plan.source_rest[to.index()].1 - plan.source_rest[from.index()].1).try_normalize()?;
    Some(Aim {
        bone,
        from,
        to,
        rest,
    })
}

/// Whether a chain is the body's column, the spine or the neck: its unmapped bones are
/// vertebrae of one bending column, which the chain's arc length spreads the bend over (a
/// 2-bone spine driving a 5-bone one bends it as the same motion made on the 5-bone one does,
/// and back), where a limb's or a finger's unmapped bones are twist or roll links of one rigid
/// bone. Inside the column, segments are neither aimed ([`segment_aims`], but for the chain's
/// end) nor held straight ([`segment_links`]).
fn column(chain: &crate::profile::Chain) -> bool {
    ["Spine", "Neck"].contains(&chain.name.as_str())
}

/// The [`Link`]s of a chain: the unmapped target bones on the path from a mapped bone to its
/// tail (its one profile tail, mapped), where all of them and the mapped bone are driven; none
/// in the [`column`].
fn segment_links(
    plan: &Plan,
    target: &Rig,
    chain: &crate::profile::Chain,
    cp: &ChainPlan,
) -> Vec<Link> {
    let mut out = Vec::new();
    if column(chain) {
        return out;
    }
    for &base in &cp.target_ids {
        let Some(inside) = tail_bone(target, base).and_then(|t| path(target.skeleton, base, t))
        else {
            continue;
        };
        let inner = &inside[1..inside.len() - 1];
        let driven = |b: &BoneId| plan.drivers[b.index()] != Driver::Rest;
        let unmapped = |b: &BoneId| target.map.profile_bone_of(*b).is_none();
        if !inner.is_empty() && driven(&base) && inner.iter().all(|b| driven(b) && unmapped(b)) {
            out.extend(inside[1..].windows(2).map(|w| {
                let ((rot, at), next) = (plan.target_rest[w[0].index()], w[1]);
                let axis =
                    (rot.inverse() * (plan.target_rest[next.index()].1 - at)).try_normalize();
                Link {
                    bone: w[0],
                    base,
                    axis,
                }
            }));
        }
    }
    out
}

/// Where a target chain's bones hang elsewhere (an IK layout): its first bone follows the bone
/// its profile parent maps to when that is not its ancestor, and the bones cut from the chain
/// follow the chain's last attached bone (with a `detached` warning).
fn place_target_layout(plan: &mut Plan, source: &Rig, target: &Rig, chain: &crate::profile::Chain) {
    let (attached, cut) = chain_attached(target, &chain.bones);
    if let Some(&first) = attached.first() {
        let parent = chain
            .bones
            .iter()
            .find(|&&q| target.map.get(q) == Some(first))
            .and_then(|&q| target.profile.bone(q).parent)
            .and_then(|p| target.map.get(p));
        if let Some(anchor) = parent.filter(|&a| path(target.skeleton, a, first).is_none()) {
            let offset = rest_offset(&plan.target_rest, anchor, first);
            let source = source_follow(plan, source, target, anchor, first);
            plan.early_follows.push(Follow {
                bone: first,
                anchor,
                offset,
                source,
            });
        }
    }
    if let (Some(first), Some(&anchor)) = (cut.first(), attached.last()) {
        let name = &target.profile.bone(*first).name;
        plan.warnings.push(
            Warning::new(
                WarningCode::Detached,
                format!(
                    "the target's `{name}` does not hang below the rest of `{}` (an IK layout): it follows the chain, placed below `{}` as at rest",
                    chain.name,
                    target
                        .map
                        .profile_bone_of(anchor)
                        .map_or("", |a| target.profile.bone(a).name.as_str())
                ),
            )
            .on_chain(&chain.name),
        );
        follow_cut(plan, source, target, anchor, &cut);
    }
}

/// The plan of one chain: each target bone's driver (by arc length along both chains, or one to
/// one, as `mode` says) written into `plan`, and the chain's record for the report.
#[allow(
    clippy::too_many_arguments,
    reason = "the chain's two sides, each as rig, profile chain and bone path, and the mode"
)]
fn chain_plan(
    plan: &mut Plan,
    source: &Rig,
    target: &Rig,
    chain: &crate::profile::Chain,
    schain: &crate::profile::Chain,
    mode: ChainMode,
    tids: Vec<BoneId>,
    sids: Vec<BoneId>,
) -> ChainPlan {
    let tu = arc_params(&tids, &plan.target_rest);
    // The source's last mapped bone ends the chain (u = 1): the unmapped bones read below it
    // ([`source_chain_path`]) lie inside its segment, past the chain's end, and must not
    // stretch the arc length of the bones above (Quaternius's `MiddleHand.R` below the palm
    // put the hand at u = 0.896, and the target's hand took the knuckle's turn, issue 42).
    let end = (sids.iter())
        .rposition(|&b| source.map.profile_bone_of(b).is_some())
        .unwrap_or(sids.len() - 1);
    let mut su = arc_params(&sids[..=end], &plan.source_rest);
    su.resize(sids.len(), 1.0);
    let anchors = shared_bones(source, target, chain, schain, &tids, &sids[..=end]);
    let at = anchored_params(&tu, &su, &anchors);
    // Equal counts pair bone by bone unless a shared bone sits elsewhere along the other chain.
    let by_bone = anchors.iter().all(|&(i, j)| i == j);
    let mut drivers = chain_drivers(mode, &at, &su, &sids, end, by_bone);
    // Target bones above the counterpart of the source chain's first bone (a shoulder the source
    // lacks) have nothing to take: they keep their rest below the bone above the chain.
    if let (ChainMode::Interpolated, Some(&(i, 0))) = (mode, anchors.first()) {
        drivers[..i].fill(Driver::Rest);
    }
    for (b, d) in tids.iter().zip(drivers) {
        plan.drivers[b.index()] = d;
    }
    let names = |s: &Skeleton, ids: &[BoneId]| {
        ids.iter()
            .map(|b| s.bones[b.index()].name.clone())
            .collect()
    };
    ChainPlan {
        chain: chain.name.clone(),
        source_chain: Some(schain.name.clone()),
        mode,
        target_bones: names(target.skeleton, &tids),
        source_bones: names(source.skeleton, &sids),
        target_u: tu,
        source_u: su,
        ik_end: None,
        target_ids: tids,
        source_ids: sids,
    }
}

/// The target chain's inner bones that both sides map to the same profile bone, as (target
/// index, source index) along `tids` and `sids`, in order along both (the source's may be its
/// first or last): a mocap arm whose shoulder is longer than the target's has its upper arm
/// further along by arc length, and the target's upper arm would blend the source's shoulder
/// into its own (CMU onto Mixamo: 40° off, issue 42); a target arm with a shoulder the source
/// lacks has its upper arm where the source's starts.
fn shared_bones(
    source: &Rig,
    target: &Rig,
    chain: &crate::profile::Chain,
    schain: &crate::profile::Chain,
    tids: &[BoneId],
    sids: &[BoneId],
) -> Vec<(usize, usize)> {
    let (n, m) = (tids.len(), sids.len());
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, &tb) in tids.iter().enumerate().take(n.saturating_sub(1)).skip(1) {
        let Some(p) = target.map.profile_bone_of(tb) else {
            continue;
        };
        let sp = match chain.bones.iter().position(|&b| b == p) {
            Some(k) if schain.bones.len() == chain.bones.len() => Some(schain.bones[k]),
            _ => source.profile.find(&target.profile.bone(p).name),
        };
        let j = sp
            .and_then(|q| source.map.get(q))
            .and_then(|sb| sids.iter().position(|&x| x == sb));
        // Not the source's last bone: it stands for the rest of the chain the source does not
        // map (a two-bone spine's chest bends as the five-bone spine's top, not its middle);
        // unless it is the limb's end, which turns as a whole (a foot whose toes the source
        // does not map: by arc length it blended the shin into the foot).
        let end = limb_end(target.profile, chain) == Some(p);
        let fits = |&j: &usize| (j + 1 < m || end) && out.last().is_none_or(|&(_, pj)| j > pj);
        if let Some(j) = j.filter(fits) {
            out.push((i, j));
        }
    }
    out
}

/// The target's arc parameters `tu` mapped onto the source's `su` piecewise linearly through
/// the shared bones' pairs (and the chains' ends, 0 and 1): a shared bone lands exactly on its
/// counterpart, the bones between two shared ones spread by arc length between them. Without
/// shared bones, `tu` as it is.
pub(crate) fn anchored_params(tu: &[f32], su: &[f32], anchors: &[(usize, usize)]) -> Vec<f32> {
    if anchors.is_empty() {
        return tu.to_vec();
    }
    let mut knots: Vec<(f32, f32)> = vec![(0.0, 0.0)];
    knots.extend(anchors.iter().map(|&(i, j)| (tu[i], su[j])));
    knots.push((1.0, 1.0));
    tu.iter()
        .map(|&u| {
            let k = knots
                .partition_point(|&(t, _)| t <= u)
                .clamp(1, knots.len() - 1)
                - 1;
            let ((t0, s0), (t1, s1)) = (knots[k], knots[k + 1]);
            if u <= t0 || t1 - t0 <= 1e-12 {
                s0
            } else {
                (s0 + (u - t0) / (t1 - t0) * (s1 - s0)).min(1.0)
            }
        })
        .collect()
}

/// A limb chain's end bone by its name, when the chain has it: `LeftLeg` → `LeftFoot`,
/// `RightArm` → `RightHand`.
fn limb_end(profile: &Profile, chain: &crate::profile::Chain) -> Option<ProfileBoneId> {
    [("Leg", "Foot"), ("Arm", "Hand")]
        .iter()
        .filter(|(c, _)| chain.name.contains(c))
        .find_map(|(c, e)| profile.find(&chain.name.replace(c, e)))
        .filter(|b| chain.bones.contains(b))
}

/// The IK limb of a chain: its end bone (settings, or the chain's last) and the two profile
/// bones above it, mapped on both sides.
fn ik_limb(
    plan: &Plan,
    source: &Rig,
    target: &Rig,
    chain: &crate::profile::Chain,
    schain: &crate::profile::Chain,
    settings: &ChainSettings,
) -> Result<Option<(IkLimb, String)>, RetargetError> {
    let end = match &settings.ik_end {
        Some(n) => target
            .profile
            .find(n)
            .ok_or_else(|| RetargetError::UnknownBone {
                bone: n.clone(),
                profile: target.profile.name.clone(),
            })?,
        None => limb_end(target.profile, chain)
            .unwrap_or(*chain.bones.last().expect("chains are not empty")),
    };
    // The source end: the bone at the same place in the source chain (the same profile bone
    // when both profiles agree).
    let at = chain.bones.iter().position(|&b| b == end);
    let send = match at {
        Some(i) if i < schain.bones.len() => schain.bones[i],
        _ => match source.profile.find(&target.profile.bone(end).name) {
            Some(p) => p,
            None => return Ok(None),
        },
    };
    let three = |profile: &Profile,
                 map: &crate::mapping::BoneMap,
                 e: ProfileBoneId|
     -> Option<[BoneId; 3]> {
        let mid = profile.bone(e).parent?;
        let up = profile.bone(mid).parent?;
        Some([map.get(up)?, map.get(mid)?, map.get(e)?])
    };
    let (Some(t), Some(s)) = (
        three(target.profile, target.map, end),
        three(source.profile, source.map, send),
    ) else {
        return Ok(None);
    };
    // An end that hangs elsewhere (a foot on the root) is solved as if it hung below the
    // middle bone, where it is at rest; it follows afterwards.
    let (limb_path, end_offset) = match path(target.skeleton, t[0], t[2]) {
        Some(p) => (p, None),
        None => {
            let Some(p) = path(target.skeleton, t[0], t[1]) else {
                return Ok(None);
            };
            (p, Some(rest_offset(&plan.target_rest, t[1], t[2])))
        }
    };
    let end_follow =
        end_offset.and_then(|_| SourceFollow::apart(plan, source.skeleton, s[1], s[2]));
    let length = |rest: &[(Quat, Vec3)], ids: &[BoneId; 3]| {
        rest[ids[0].index()].1.distance(rest[ids[1].index()].1)
            + rest[ids[1].index()].1.distance(rest[ids[2].index()].1)
    };
    let (lt, ls) = (length(&plan.target_rest, &t), length(&plan.source_rest, &s));
    if ls < 1e-9 || lt < 1e-9 {
        return Ok(None);
    }
    let reach =
        |rest: &[(Quat, Vec3)], ids: &[BoneId; 3]| rest[ids[2].index()].1 - rest[ids[0].index()].1;
    let stance = reach(&plan.target_rest, &t) - reach(&plan.source_rest, &s) * (lt / ls);
    Ok(Some((
        IkLimb {
            target: t,
            source: s,
            path: limb_path,
            length_ratio: lt / ls,
            end_offset,
            end_follow,
            stance,
            blend: settings.ik_blend,
            solve: true,
            leg: false,
            foot: None,
            end_rest: plan.target_rest[t[2].index()].1,
            source_end_rest: plan.source_rest[s[2].index()].1,
        },
        target.profile.bone(end).name.clone(),
    )))
}

/// Bones outside chains that both sides map (hips, root, eyes, jaw) copy their change; then the
/// lists of driven and translated bones.
fn finish(plan: &mut Plan, source: &Rig, target: &Rig, options: &RetargetOptions) {
    let in_chain: Vec<bool> = {
        let mut v = vec![false; target.skeleton.bones.len()];
        for c in &plan.chains {
            for b in &c.target_ids {
                v[b.index()] = true;
            }
        }
        v
    };
    for p in target.profile.ids() {
        let Some(tb) = target.map.get(p) else {
            continue;
        };
        if in_chain[tb.index()] || target.profile.chains.iter().any(|c| c.bones.contains(&p)) {
            continue;
        }
        if let Some(sb) = source
            .profile
            .find(&target.profile.bone(p).name)
            .and_then(|q| source.map.get(q))
        {
            plan.drivers[tb.index()] = Driver::Delta {
                a: sb.0,
                b: sb.0,
                w: 0.0,
            };
        }
    }
    if options.core().fk <= 0.0 {
        // Only the root pass (and IK) move anything: hips and root keep their source change.
        for (i, d) in plan.drivers.iter_mut().enumerate() {
            let keep =
                i == plan.target_hips.index() || Some(i) == plan.target_root.map(|r| r.index());
            if !keep {
                *d = Driver::Rest;
            }
        }
    }
    let mut driven: Vec<BoneId> = (0..target.skeleton.bones.len() as u32)
        .map(BoneId)
        .filter(|b| plan.drivers[b.index()] != Driver::Rest)
        .collect();
    for limb in &plan.limbs {
        for b in &limb.path {
            if !driven.contains(b) {
                driven.push(*b);
            }
        }
    }
    if let Some(r) = plan.target_root.filter(|_| options.root_motion) {
        if !driven.contains(&r) {
            driven.push(r);
        }
    }
    driven.sort();
    plan.driven = driven;
    plan.translated = vec![plan.target_hips];
    for f in plan.follows.iter().chain(&plan.early_follows) {
        plan.translated.push(f.bone);
        if !plan.driven.contains(&f.bone) {
            plan.driven.push(f.bone);
        }
    }
    plan.driven.sort();
    plan.translated.sort();
    if let Some(c) = plan.target_carrier {
        plan.translated.insert(0, c);
        if !plan.driven.contains(&c) {
            plan.driven.push(c);
            plan.driven.sort();
        }
    }
    if let Some(r) = plan.target_root.filter(|_| options.root_motion) {
        plan.translated.insert(0, r);
    }
}

impl Plan {
    /// The source bone the retarget reads the hips' position from (the Python package's
    /// `Retargeter.retarget` takes its local translation as the root translation).
    pub fn source_hips(&self) -> BoneId {
        self.source_hips
    }

    /// The target bone the retarget writes the hips' position into.
    pub fn target_hips(&self) -> BoneId {
        self.target_hips
    }

    /// What the ratio compares, in words, and the two lengths: `("legs", source, target)` or
    /// `("hips height", source, target)`.
    pub fn compared_lengths(&self) -> (&'static str, f32, f32) {
        match (
            self.scale_basis,
            self.source_leg_length,
            self.target_leg_length,
        ) {
            (ScaleBasis::Legs, Some(a), Some(b)) => ("legs", a, b),
            _ => (
                "hips height",
                self.source_hips_height,
                self.target_hips_height,
            ),
        }
    }

    /// The bones whose joints' midpoint is the pelvis on each side, (source, target): the two
    /// thighs, or the hips alone where a side lacks them. The root pass moves the target's
    /// pelvis as the source's moves, scaled by [`Plan::hips_ratio`]; effectors are measured
    /// from it.
    pub fn pelvis_bones(&self) -> (Vec<BoneId>, Vec<BoneId>) {
        match self.pelvis {
            Some(p) => (p.source.to_vec(), p.target.to_vec()),
            None => (vec![self.source_hips], vec![self.target_hips]),
        }
    }
}

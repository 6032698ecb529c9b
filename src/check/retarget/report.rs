//! The figures of the retarget measures, as reports carry them: per chain, the worst chain end,
//! hands and feet, skate; and why a figure is n/a ([`NotMeasured`]).

use serde::Serialize;
/// Why a figure is n/a: it is `None` (`null` in JSON) and this is its `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotMeasured {
    /// The profile has no bone of that name.
    NotInProfile,
    /// The source does not map the bone.
    NotMappedInSource,
    /// The target does not map the bone.
    NotMappedInTarget,
    /// Neither side maps the bone.
    NotMappedOnEitherSide,
    /// The source's foot is never in contact (within 3% of the source's leg length of its lowest
    /// point) on two frames running, as in a clip of one frame: the clip has no contact.
    NoContactInSource,
}

impl NotMeasured {
    /// The reason in words, to follow the bone's name (`LeftFoot not mapped in the target`).
    pub fn message(self) -> &'static str {
        match self {
            NotMeasured::NotInProfile => "not in the profile",
            NotMeasured::NotMappedInSource => "not mapped in the source",
            NotMeasured::NotMappedInTarget => "not mapped in the target",
            NotMeasured::NotMappedOnEitherSide => "mapped on neither side",
            NotMeasured::NoContactInSource => "no contact in the source",
        }
    }
}

/// How much of a profile chain one side's map puts along the chain.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ChainMapping {
    /// Bones the profile's chain has.
    pub bones: usize,
    /// Of those, the ones mapped along the chain (each hanging below the one before).
    pub mapped: usize,
    /// The chain's profile bones this side does not map.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmapped: Vec<String>,
    /// The chain's profile bones mapped but hanging elsewhere (an IK layout's foot on the root
    /// bone): the chain stops above them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub detached: Vec<String>,
    /// The chain's profile bones mapped (and counted in `mapped`) below where the other side's
    /// chain ends: the source's toes when the target's leg stops at its foot. The chain is not
    /// read past its last bone the other side has, so they are not measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub past_end: Vec<String>,
    /// The chain's profile bones mapped (and counted in `mapped`) above where the other side's
    /// chain starts: the source's shoulder when the target's arm starts at its upper arm. The
    /// chain is read from its bone the other side has first, so they are not measured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_start: Vec<String>,
}

/// Direction error of one target chain against its source chain, degrees (largest over frames).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ChainCheck {
    /// The target chain.
    pub chain: String,
    /// Its source chain.
    pub source_chain: String,
    /// Skeleton bones along each side's chain (target, source), unmapped in-between bones
    /// included.
    pub bones: (usize, usize),
    /// How much of its profile chain the target maps.
    pub target_mapping: ChainMapping,
    /// How much of its profile chain the source maps.
    pub source_mapping: ChainMapping,
    /// With equal bone counts: the largest angle between paired bones' directions (joint → next
    /// joint, the end bone → its tail), beyond the angle the same pair makes at rest (rigs whose
    /// rests differ, such as feet that keep their own pitch, keep that difference). Absent with
    /// unequal counts or when the chain is not `measured`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bones_deg: Option<f32>,
    /// The same for the chain's end bone (joint → tail, or the last segment when it has no
    /// tail), whatever the bone counts; against a source chain that ends in unmapped bones below
    /// the target end's counterpart (a second neck bone), the source's whole segment from the
    /// counterpart's joint to the tail; `null` when the chain is not `measured`.
    pub end_deg: Option<f32>,
    /// The same for the whole chain, start joint → end joint (chains of two joints or more).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_deg: Option<f32>,
    /// The largest angle between paired directions at rest: what the rigs' own rests differ by;
    /// `null` when the chain is not `measured`.
    pub rest_deg: Option<f32>,
    /// Whether any direction was compared: a one-bone chain whose end has no tail on one side
    /// (a head, a bone whose tail sits on its joint) has none, and then `end_deg` and
    /// `rest_deg` are `null`.
    pub measured: bool,
}

/// The chain whose end is furthest from its source's, and how much of it each side maps (a
/// chain mapped in part compares its last mapped bone with the source's last: the usual cause
/// of a large figure).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WorstEnd {
    /// The target chain.
    pub chain: String,
    /// Its [`ChainCheck::end_deg`], degrees.
    pub end_deg: f32,
    /// How much of the chain each side maps, in words: `2 of 3 bones mapped in the target, no
    /// RightLittleDistal`, or `all 3 bones mapped on both sides`.
    pub mapping: String,
}

/// How far a hand or foot is from where the scaled source puts it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct EffectorCheck {
    /// The profile bone.
    pub bone: String,
    /// Largest distance over frames between the target joint's movement and the source's scaled
    /// by the hips-height ratio (each relative to its hips, from where it is at rest), as a
    /// fraction of the target's height. Differences of the rests themselves (hips width, arm
    /// length) do not count. `null` when a side does not map the bone (see `reason`).
    pub max_error: Option<f32>,
    /// Why `max_error` is `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<NotMeasured>,
    /// Whether the IK pass placed the bone (leg IK places the feet). Without it, `max_error` is
    /// where the FK pass put the bone.
    pub ik: bool,
}

/// Foot skate of one foot (math.md), in leg lengths over the source's contacts: the source's
/// foot is in contact at a frame when it is within 3% of the source's leg length of its lowest
/// point in the clip, and a pair of frames counts when both are; the target is measured over the
/// same pairs, never over contacts of its own.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkateCheck {
    /// The profile bone.
    pub bone: String,
    /// The source foot's mean horizontal movement per frame over its contact pairs, fraction of
    /// the source's leg length; `null` when it cannot be measured (see `reason`).
    pub source: Option<f32>,
    /// The target foot's over the same frame pairs, fraction of the target's leg length; `null`
    /// with `source`, or when the target does not map the foot.
    pub target: Option<f32>,
    /// The pairs of frames averaged over (0: the clip has no contact).
    pub contact_pairs: usize,
    /// Why `target` (and `source`, when it is `null` too) is `null`: a side does not map the
    /// foot, or the source's foot is never in contact on two frames running
    /// (`no_contact_in_source`: the clip has no contact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<NotMeasured>,
}

/// math.md's direction error of one segment: a profile bone's joint → its tail (the mean of its
/// tail bones' joints), source against target, each in its own skeleton space (the source's
/// seen under the plan's turn), at every frame of the final output (after IK and every op).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SegmentCheck {
    /// The profile bone whose segment it is (`LeftLowerLeg`: the shin, knee → ankle).
    pub bone: String,
    /// The profile bones whose joints' mean is its tail on both sides (`LeftLowerLeg`).
    pub tails: Vec<String>,
    /// The profile chain the bone is in, if any.
    pub chain: Option<String>,
    /// The angle between the two directions, mean over frames, degrees.
    pub mean_deg: f32,
    /// Its largest value, degrees.
    pub worst_deg: f32,
    /// The frame of `worst_deg` (the first of equals).
    pub worst_frame: usize,
    /// The angle between the two rests' directions (normalized rests; feet keep their own
    /// pitch), degrees: part of every frame's angle when the rests differ.
    pub rest_deg: f32,
}

/// A segment not measured, and why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SegmentGap {
    /// The profile bone.
    pub bone: String,
    /// Why.
    pub reason: SegmentReason,
}

/// Why a segment is not measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SegmentReason {
    /// The source does not map the bone.
    NotMappedInSource,
    /// The target does not map the bone.
    NotMappedInTarget,
    /// The source maps no bone of its tail (a foot without toes).
    TailNotMappedInSource,
    /// The target maps no bone of its tail.
    TailNotMappedInTarget,
    /// The two sides' tails are different profile bones (a spine whose next bone is the chest on
    /// one side and the upper chest on the other): not one segment.
    TailsDiffer,
    /// The tail sits on the bone's joint on one side at rest (CMU's upper chest carries the neck
    /// on its joint): no direction.
    NoDirection,
    /// The bone carries the whole body (root, hips): its turn is the hips' heading, and rigs put
    /// its joint anywhere against its tail.
    BodyBone,
}

impl SegmentReason {
    /// The reason in words, to follow the bone's name.
    pub fn message(self) -> &'static str {
        match self {
            SegmentReason::NotMappedInSource => "not mapped in the source",
            SegmentReason::NotMappedInTarget => "not mapped in the target",
            SegmentReason::TailNotMappedInSource => "its tail not mapped in the source",
            SegmentReason::TailNotMappedInTarget => "its tail not mapped in the target",
            SegmentReason::TailsDiffer => "its tail a different bone on each side",
            SegmentReason::NoDirection => "its tail on its joint",
            SegmentReason::BodyBone => "carries the body",
        }
    }
}

/// math.md's leg cost of the ops: the thighs' and shins' direction errors with the whole stack
/// beside the core passes alone, over the frames of one clip.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct LegCost {
    /// The segments measured (`LeftUpperLeg`, `LeftLowerLeg`, …).
    pub bones: Vec<String>,
    /// With the whole stack: mean over those segments and frames, degrees.
    pub mean_deg: f32,
    /// With the whole stack: the largest, degrees.
    pub worst_deg: f32,
    /// The segment of `worst_deg`.
    pub worst_bone: String,
    /// With the core passes only: mean, degrees.
    pub mean_deg_without: f32,
    /// With the core passes only: the largest, degrees.
    pub worst_deg_without: f32,
}

/// How far below the floor the target goes: its feet (joint below its rest height above the
/// floor) and its hips (the hips joint or a thigh joint below the floor itself).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct FloorCheck {
    /// Frames where something is below the floor by more than 1e-4 of the height.
    pub frames_below: usize,
    /// The deepest, fraction of the target's height (0 when nothing goes below).
    pub worst_depth: f32,
}

/// What the ops after the core passes (`retarget.ops`: planting, floor, filter) changed: the
/// measures of the clip retargeted with the core passes only beside the same measures with the
/// whole stack.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OpsCheck {
    /// The floor (the floor op's `height`, else 0) with the whole stack.
    pub floor: FloorCheck,
    /// The same with the core passes only.
    pub floor_without: FloorCheck,
    /// Foot skate with the core passes only (beside [`RetargetCheck::skate`], with the stack).
    pub skate_without: Vec<SkateCheck>,
    /// What the ops cost the legs' directions (math.md): with planting, floor or stride on,
    /// thighs and shins leave the source's. `null` when no thigh or shin is measured.
    pub legs: Option<LegCost>,
    /// Per leg and arm both sides map (upper, middle and end bone): how far the knee or elbow
    /// bends from the side the source's does.
    pub poles: Vec<PoleCheck>,
    /// What the `Mirror` op did, when it is on. The other measures (here and in
    /// [`RetargetCheck`]) are then taken on the clip retargeted without it, since the mirrored
    /// clip's left side follows the source's right.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mirror: Option<MirrorCheck>,
    /// With a treadmill ([`RetargetCheck::treadmill`]): foot skate over it with the core passes
    /// only (beside [`TreadmillCheck::skate`], with the stack).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub treadmill_skate_without: Option<Vec<SkateCheck>>,
    /// The curves planting took its contacts from (`PlantOp::contacts`), when it read them
    /// from curves of the clip; absent when it found them from the source's foot height and
    /// speed (or does not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contacts: Option<crate::retarget::Contacts>,
}

/// The ground of a source clip that runs in place, and the feet's skate over it: the clip is
/// played while the character moves forward at its speed, so its ground is a treadmill moving
/// back at that speed and a foot planted on it slides back with it. Present when planting
/// plants on one (`PlantOp::treadmill`: given, or found from the clip).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TreadmillCheck {
    /// The source's ground velocity, source skeleton units per second (`[x, 0, z]`).
    pub source_velocity: [f32; 3],
    /// The target's: the source's scaled as the retarget scales travel (the plan's ratio
    /// times `horizontal_scale`), not measured on the output, target skeleton units per second.
    pub target_velocity: [f32; 3],
    /// The source's ground speed per frame, fraction of the source's height.
    pub speed: f32,
    /// Foot skate over the treadmill: `skate`'s measures (the same contact frames) with each
    /// foot's horizontal movement taken relative to its side's ground (source: the source's
    /// velocity; target: `target_velocity`).
    pub skate: Vec<SkateCheck>,
}

/// What the `Mirror` op did to one clip.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MirrorCheck {
    /// The plane's unit normal in the target's skeleton space.
    pub normal: [f32; 3],
    /// Left/right bone pairs that swap motion (the other bones mirror in place).
    pub pairs: usize,
    /// Largest distance, over frames and the joints where the hierarchy is symmetric, of a
    /// joint of the mirrored clip from the reflection of its counterpart's joint in the clip
    /// without the op (across the plane through the first root's rest joint), fraction of the
    /// target's standing height (`Skeleton::stature`, as math.md measures): about 0 with
    /// `alpha` 1 on a symmetric rest (the rest's own asymmetry otherwise).
    pub joint_error: f32,
}

/// The pole error of one limb: the angle, about the line from its upper joint to its end,
/// between the target's and the source's bend, mean over the frames both bend (more than 1% of
/// the upper bone's length off that line), degrees.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PoleCheck {
    /// The limb's middle profile bone (`LeftLowerLeg`, `RightLowerArm`).
    pub bone: String,
    /// With the whole stack; `null` when no frame bends on both sides.
    pub deg: Option<f32>,
    /// With the core passes only.
    pub deg_without: Option<f32>,
}

/// Every measure of one retargeted clip.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RetargetCheck {
    /// Frames sampled.
    pub frames: usize,
    /// Per chain.
    pub chains: Vec<ChainCheck>,
    /// The measured chain with the largest `end_deg`; `None` when no chain was measured.
    pub worst_end: Option<WorstEnd>,
    /// math.md's direction error per segment both sides have, on the final output.
    pub segments: Vec<SegmentCheck>,
    /// The segments a side maps that are not measured, with why.
    pub segments_not_measured: Vec<SegmentGap>,
    /// Hands and feet (`LeftHand`, `RightHand`, `LeftFoot`, `RightFoot`), each measured or with
    /// the reason it is not.
    pub effectors: Vec<EffectorCheck>,
    /// Both feet, each side measured or with the reason it is not.
    pub skate: Vec<SkateCheck>,
    /// Largest change of any target bone's length (joint to parent joint) from its rest, over
    /// frames, fraction of the height; bones whose position the retarget sets (hips, root) are
    /// left out. Must be 0 (up to rounding).
    pub length_drift: f32,
    /// What the ops after the core passes changed; present when any is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<OpsCheck>,
    /// The ground of a source that runs in place and the feet's skate over it, when planting
    /// plants on one; `skate` above stays math.md's measure over a still ground.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub treadmill: Option<TreadmillCheck>,
}

/// How much of a chain each side maps, in words (see [`WorstEnd::mapping`]).
pub fn mapping_words(target: &ChainMapping, source: &ChainMapping) -> String {
    let side = |m: &ChainMapping, side: &str| {
        (m.mapped < m.bones).then(|| {
            let mut words = format!("{} of {} bones mapped in the {side}", m.mapped, m.bones);
            for b in &m.detached {
                words.push_str(&format!(", {b} detached"));
            }
            for b in &m.unmapped {
                words.push_str(&format!(", no {b}"));
            }
            words
        })
    };
    let past = |m: &ChainMapping, side: &str, other: &str| {
        (!m.past_end.is_empty()).then(|| {
            format!(
                "the {side}'s {} past the {other}'s end, not compared",
                m.past_end.join(", ")
            )
        })
    };
    let before = |m: &ChainMapping, side: &str, other: &str| {
        (!m.before_start.is_empty()).then(|| {
            format!(
                "the {side}'s {} above the {other}'s start, not compared",
                m.before_start.join(", ")
            )
        })
    };
    let words = mapping_counts(target, source, side);
    let notes = [
        before(target, "target", "source"),
        before(source, "source", "target"),
        past(target, "target", "source"),
        past(source, "source", "target"),
    ];
    std::iter::once(words)
        .chain(notes.into_iter().flatten())
        .collect::<Vec<_>>()
        .join("; ")
}

/// [`mapping_words`] without the bones past the other side's end.
fn mapping_counts(
    target: &ChainMapping,
    source: &ChainMapping,
    side: impl Fn(&ChainMapping, &str) -> Option<String>,
) -> String {
    match (side(target, "target"), side(source, "source")) {
        (None, None) if target.bones == source.bones => {
            format!("all {} bones mapped on both sides", target.bones)
        }
        (None, None) => format!(
            "all bones mapped on both sides ({} in the target's chain, {} in the source's)",
            target.bones, source.bones
        ),
        (Some(w), None) | (None, Some(w)) => w,
        (Some(t), Some(s)) => format!("{t}; {s}"),
    }
}

//! The humanoid auto-mapper. It reads the body from the hierarchy and the rest pose, with names
//! as evidence, and tries every plausible hips bone, keeping the whole-skeleton assignment that
//! scores best:
//! 1. hips: a bone with two branches reaching down toward the floor and one reaching up;
//! 2. facing from the feet (toes point forward) or the knees, so left and right are known even
//!    without names;
//! 3. the spine path from the hips to the top of the head, the arms as the two branches leaving
//!    it sideways, then Spine lowest, UpperChest where the neck and shoulders hang, Chest
//!    between by height;
//! 4. each leg and arm aligned to its profile chain by dynamic programming over names and
//!    height or reach fractions;
//! 5. fingers from the bones fanning out of the hand, by name or by order across the palm;
//! 6. eyes and jaw by name, Root above the hips.

mod hands;
mod join;
mod limbs;
mod torso;

use super::names::{scores, NameInfo};
use super::{Mapped, Origin};
use crate::model::{BoneId, Skeleton};
use crate::model::{Warning, WarningCode};
use crate::profile::{Profile, ProfileBoneId, Side};
use glam::Vec3;

/// Bones the humanoid mapper needs the profile to have.
const NEEDED: [&str; 16] = [
    "Hips",
    "Spine",
    "Chest",
    "UpperChest",
    "Neck",
    "Head",
    "LeftShoulder",
    "LeftUpperArm",
    "LeftLowerArm",
    "LeftHand",
    "LeftUpperLeg",
    "LeftLowerLeg",
    "LeftFoot",
    "LeftToes",
    "Root",
    "LeftIndexProximal",
];

/// Whether the profile has the humanoid bone names this mapper fills.
pub(super) fn fits(profile: &Profile) -> bool {
    NEEDED.iter().all(|n| profile.find(n).is_some())
}

/// Everything the steps share: positions, children, names, candidates, body size.
pub(super) struct Ctx<'a> {
    pub sk: &'a Skeleton,
    pub profile: &'a Profile,
    pub pos: Vec<Vec3>,
    pub children: Vec<Vec<BoneId>>,
    /// Depth of every bone in the hierarchy (roots are 0).
    pub depth: Vec<usize>,
    pub info: Vec<NameInfo>,
    /// Bones that may be mapped: not helpers, end sites or weightless tip bones.
    pub cand: Vec<bool>,
    /// Whether the bone or one of its descendants is a candidate.
    pub cand_below: Vec<bool>,
    /// Name score of every (bone, profile bone).
    pub names: Vec<Vec<f32>>,
    /// The best name score of every bone over all profile bones.
    pub tops: Vec<f32>,
    pub height: f32,
    pub ground: f32,
    pub fixed: &'a [Option<Mapped>],
    pub forced_empty: &'a [bool],
    /// The children of every bone that continue a limb (see [`limbs::main_children`]).
    pub main: Vec<Vec<BoneId>>,
    /// How many finger-like branches fan out of every bone (see [`limbs::fan_count`]).
    pub fans: Vec<usize>,
    /// Profile bones by name (the steps look roles up by name many times).
    pub ids: std::collections::HashMap<String, ProfileBoneId>,
    /// Source bones fixed by a bone-map file or VRM map, sorted.
    pub fixed_bones: Vec<BoneId>,
}

/// A partial result: entries, the evidence score behind them, and warnings.
#[derive(Default)]
pub(super) struct Part {
    pub score: f32,
    pub entries: Vec<(ProfileBoneId, Mapped)>,
    pub warnings: Vec<Warning>,
}

impl Part {
    pub fn add(&mut self, ctx: &Ctx, name: &str, bone: BoneId, confidence: f32, reason: String) {
        let id = ctx.pid(name);
        self.entries.push((
            id,
            Mapped {
                bone,
                confidence: confidence.clamp(0.0, 1.0),
                origin: Origin::Auto,
                reason,
            },
        ));
    }

    pub fn merge(&mut self, other: Part) {
        self.score += other.score;
        self.entries.extend(other.entries);
        self.warnings.extend(other.warnings);
    }
}

/// The character's frame in scene space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Facing {
    pub left: Vec3,
    /// Whether feet or knees showed the facing (otherwise +Z is assumed).
    pub seen: bool,
}

impl<'a> Ctx<'a> {
    fn new(
        sk: &'a Skeleton,
        profile: &'a Profile,
        info: Vec<NameInfo>,
        fixed: &'a [Option<Mapped>],
        forced_empty: &'a [bool],
    ) -> Self {
        let pos: Vec<Vec3> = sk
            .rest_world()
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect();
        let children = sk.children();
        let names: Vec<Vec<f32>> = info.iter().map(|i| scores(profile, i)).collect();
        let tops = names
            .iter()
            .map(|s| s.iter().copied().fold(0.0, f32::max))
            .collect();
        let n = sk.bones.len();
        let cand = super::mappable(sk, profile, &info, &children);
        let mut cand_below = cand.clone();
        for i in (0..n).rev() {
            if let (true, Some(p)) = (cand_below[i], sk.bones[i].parent) {
                cand_below[p.index()] = true;
            }
        }
        let (lo, hi) = pos
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.y), hi.max(p.y))
            });
        Ctx {
            sk,
            profile,
            pos,
            children,
            depth: sk.depths(),
            info,
            cand,
            cand_below,
            names,
            tops,
            height: (hi - lo).max(1e-6),
            ground: lo,
            fixed,
            forced_empty,
            main: Vec::new(),
            fans: Vec::new(),
            ids: profile
                .ids()
                .map(|id| (profile.bone(id).name.clone(), id))
                .collect(),
            fixed_bones: {
                let mut v: Vec<BoneId> = fixed.iter().flatten().map(|m| m.bone).collect();
                v.sort();
                v
            },
        }
    }

    /// The profile bone of this name (the mapper checked with [`fits`] that it exists).
    pub fn pid(&self, name: &str) -> ProfileBoneId {
        self.ids.get(name).copied().unwrap_or(ProfileBoneId(0))
    }

    /// Name score of bone `b` for profile bone `name`.
    pub fn ns(&self, name: &str, b: BoneId) -> f32 {
        self.ids
            .get(name)
            .map_or(0.0, |id| self.names[b.index()][id.index()])
    }

    /// The best name score of bone `b` over all profile bones.
    pub fn top(&self, b: BoneId) -> f32 {
        self.tops[b.index()]
    }

    /// What fixed entries (bone-map file, VRM) say about placing `b` at `name`: a large bonus
    /// when fixed there, a large penalty when fixed elsewhere, 0 when free.
    pub fn fixed_term(&self, name: &str, b: BoneId) -> f32 {
        self.fixed_term_id(self.pid(name), b)
    }

    /// [`Ctx::fixed_term`] for a profile bone id.
    pub fn fixed_term_id(&self, id: ProfileBoneId, b: BoneId) -> f32 {
        if self.forced_empty[id.index()] {
            return -100.0;
        }
        if let Some(f) = &self.fixed[id.index()] {
            return if f.bone == b { 100.0 } else { -100.0 };
        }
        if self.fixed_bones.binary_search(&b).is_ok() {
            return -100.0;
        }
        0.0
    }

    /// Name score of bone `b` for a profile bone id.
    pub fn ns_id(&self, id: ProfileBoneId, b: BoneId) -> f32 {
        self.names[b.index()][id.index()]
    }

    /// Bones of the subtree under `b` (itself included), in bone order.
    pub fn subtree(&self, b: BoneId) -> Vec<BoneId> {
        let mut out = vec![b];
        let mut i = 0;
        while i < out.len() {
            out.extend(self.children[out[i].index()].iter().copied());
            i += 1;
        }
        out.sort();
        out
    }

    /// Path from `from` down to `to` (both included); empty if `to` is not below `from`.
    pub fn path(&self, from: BoneId, to: BoneId) -> Vec<BoneId> {
        let mut out = vec![to];
        let mut at = to;
        while at != from {
            match self.sk.bones[at.index()].parent {
                Some(p) => {
                    out.push(p);
                    at = p;
                }
                None => return Vec::new(),
            }
        }
        out.reverse();
        out
    }

    /// The side names state for a set of bones: the majority, if there is one.
    pub fn named_side(&self, bones: &[BoneId]) -> Option<Side> {
        let (mut l, mut r) = (0, 0);
        for b in bones {
            match self.info[b.index()].side {
                Some(Side::Left) => l += 1,
                Some(Side::Right) => r += 1,
                _ => {}
            }
        }
        match l.cmp(&r) {
            std::cmp::Ordering::Greater => Some(Side::Left),
            std::cmp::Ordering::Less => Some(Side::Right),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// A skin joint with no weights, below a weighted bone, with no candidate below it: a
    /// nub, socket or attachment at the end of a chain.
    pub fn weightless_tip(&self, b: BoneId) -> bool {
        let bone = &self.sk.bones[b.index()];
        bone.is_joint
            && bone.weighted == Some(false)
            && bone
                .parent
                .is_some_and(|p| self.sk.bones[p.index()].weighted == Some(true))
            && !self.children[b.index()]
                .iter()
                .any(|c| self.cand_below[c.index()])
    }

    /// Whether `b` and `c` are numbered parts of one bone: their names name some profile bone,
    /// with the same words and other digits (MakeHuman's `upperleg01.L`, `upperleg02.L`).
    pub fn same_part(&self, b: BoneId, c: BoneId) -> bool {
        let (x, y) = (&self.info[b.index()], &self.info[c.index()]);
        self.top(b) >= 0.5
            && !x.words.is_empty()
            && x.words == y.words
            && x.side == y.side
            && !x.digits.is_empty()
            && x.digits != y.digits
    }

    pub fn name(&self, b: BoneId) -> &str {
        &self.sk.bones[b.index()].name
    }
}

/// A hips bone with the roots of its two legs and the first bone of its spine.
#[derive(Debug, Clone, Copy)]
pub(super) struct Trunk {
    pub hips: BoneId,
    /// The legs' first bones (both the hips when `legless`).
    pub legs: [BoneId; 2],
    pub spine: BoneId,
    /// An upper-body rig: no legs were found.
    pub legless: bool,
}

/// Maps `sk`; `names` is every bone's name read with the profile.
pub(super) fn map(
    sk: &Skeleton,
    profile: &Profile,
    names: Vec<NameInfo>,
    fixed: &[Option<Mapped>],
    forced_empty: &[bool],
    warnings: &mut Vec<Warning>,
) -> Vec<Option<Mapped>> {
    if sk.bones.is_empty() {
        return vec![None; profile.bones.len()];
    }
    let ctx = context(sk, profile, names, fixed, forced_empty);
    let mut trunks = torso::trunks(&ctx);
    if trunks.is_empty() {
        // Deform bones in pieces: read the body from the pieces joined where they lie.
        if let Some(joined) = join::joined(&ctx) {
            let jctx = context(&joined, profile, ctx.info.clone(), fixed, forced_empty);
            let jtrunks = torso::trunks(&jctx);
            if !jtrunks.is_empty() {
                let out = assign(&jctx, jtrunks, warnings);
                warnings.extend(join::warning(sk, profile, &out));
                return out;
            }
        }
        trunks.extend(torso::legless(&ctx));
    }
    assign(&ctx, trunks, warnings)
}

/// The context of `sk` with its limb children and finger fans.
fn context<'a>(
    sk: &'a Skeleton,
    profile: &'a Profile,
    names: Vec<NameInfo>,
    fixed: &'a [Option<Mapped>],
    forced_empty: &'a [bool],
) -> Ctx<'a> {
    let mut ctx = Ctx::new(sk, profile, names, fixed, forced_empty);
    ctx.main = (0..sk.bones.len() as u32)
        .map(|b| limbs::main_children(&ctx, BoneId(b)))
        .collect();
    ctx.fans = (0..sk.bones.len() as u32)
        .map(|b| limbs::fan_count(&ctx, BoneId(b)))
        .collect();
    ctx
}

/// The body of the best-scoring trunk, as one entry per profile bone.
fn assign(ctx: &Ctx, trunks: Vec<Trunk>, warnings: &mut Vec<Warning>) -> Vec<Option<Mapped>> {
    let mut out = vec![None; ctx.profile.bones.len()];
    let mut best: Option<Part> = None;
    for trunk in trunks {
        let part = body(ctx, trunk);
        if best.as_ref().is_none_or(|b| part.score > b.score) {
            best = Some(part);
        }
    }
    let Some(best) = best else {
        warnings.push(Warning {
            code: WarningCode::RequiredMissing,
            skeleton: None,
            message: "no hips found: no bone has two legs reaching down and a spine reaching up"
                .into(),
            bones: vec!["Hips".into()],
            clips: Vec::new(),
            chain: None,
        });
        return out;
    };
    for (id, m) in best.entries {
        if out[id.index()].is_none() {
            out[id.index()] = Some(m);
        }
    }
    warnings.extend(best.warnings);
    out
}

/// Maps the whole body for one choice of hips.
fn body(ctx: &Ctx, trunk: Trunk) -> Part {
    let mut part = Part {
        score: torso::name_conflicts(ctx, &trunk) + torso::hips_shape(ctx, &trunk),
        ..Part::default()
    };
    let (facing, legs) = if trunk.legless {
        let facing = Facing {
            left: Vec3::X,
            seen: false,
        };
        let mut part = Part::default();
        part.warnings.push(Warning {
            code: WarningCode::UpperBody,
            skeleton: None,
            message: format!(
                "no legs found: the hips (`{}`) and spine were found from the arms and head, and the legs are left unmapped",
                ctx.name(trunk.hips)
            ),
            bones: Vec::new(),
            clips: Vec::new(),
            chain: None,
        });
        (facing, part)
    } else {
        let facing = torso::facing(ctx, &trunk);
        (facing, limbs::legs(ctx, &trunk, facing))
    };
    let spine = torso::spine_path(ctx, &trunk);
    let arms = limbs::find_arms(ctx, &trunk, &spine, facing);
    if trunk.legless && arms.iter().any(Option::is_none) {
        // Neither legs nor two arms: nothing tells a humanoid.
        return Part {
            warnings: vec![Warning {
                code: WarningCode::RequiredMissing,
                skeleton: None,
                message: "no hips found: no bone has two legs reaching down and a spine reaching up, and no spine has two arms".into(),
                bones: vec!["Hips".into()],
                clips: Vec::new(),
                chain: None,
            }],
            ..Part::default()
        };
    }
    part.merge(torso::spine(ctx, &trunk, &spine, &arms));
    part.merge(legs);
    for arm in arms.iter().flatten() {
        let (p, hand_root) = limbs::arm(ctx, arm);
        part.merge(p);
        if let Some(root) = hand_root {
            let f = hands::fingers(ctx, arm.side, root, &part, facing);
            part.merge(f);
        }
    }
    let face = torso::face_and_root(ctx, &trunk, &part, facing);
    part.merge(face);
    for leg in trunk.legs {
        if !trunk.legless && !ctx.sk.is_ancestor(trunk.hips, leg) {
            let Some((id, m)) = part
                .entries
                .iter()
                .find(|(id, m)| m.bone == leg && ctx.profile.bone(*id).name.ends_with("UpperLeg"))
            else {
                continue;
            };
            let name = ctx.profile.bone(*id).name.clone();
            let message = format!(
                "`{name}` maps to `{}`, which hangs beside the hips `{}` rather than below them (an IK layout); stages drive it from its chain",
                ctx.name(m.bone),
                ctx.name(trunk.hips)
            );
            part.warnings.push(Warning {
                code: WarningCode::IkLayout,
                skeleton: None,
                message,
                bones: vec![name],
                clips: Vec::new(),
                chain: None,
            });
        }
    }
    if !facing.seen && arms.iter().flatten().all(|a| !a.named) {
        part.warnings.push(Warning {
            code: WarningCode::AmbiguousSide,
            skeleton: None,
            message: "neither names nor feet or knees tell left from right; assumed the character faces +Z"
                .into(),
            bones: Vec::new(),
            clips: Vec::new(),
            chain: None,
        });
    }
    part
}

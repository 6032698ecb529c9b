//! Legs and arms: each limb's bones aligned to its profile chain by dynamic programming over
//! every path from the limb's first bone to a leaf, scoring names and height or reach fractions.

use super::{Ctx, Facing, Part, Trunk};
use crate::model::BoneId;
use crate::model::{Warning, WarningCode};
use crate::profile::{ProfileBoneId, Side};
use glam::Vec3;

/// A found arm: which side, its first bone, and the spine bone it hangs from.
#[derive(Debug, Clone, Copy)]
pub(super) struct Arm {
    pub side: Side,
    pub root: BoneId,
    pub attach: BoneId,
    /// Whether names stated its side.
    pub named: bool,
}

/// Score added when a slot is left empty: required slots cost a lot.
const SKIP_REQUIRED: f32 = -5.0;

fn gauss(x: f32, centre: f32, width: f32) -> f32 {
    (-((x - centre) / width).powi(2)).exp()
}

fn prefix(side: Side) -> &'static str {
    if side == Side::Right {
        "Right"
    } else {
        "Left"
    }
}

/// How much the name of `b` supports slot `role` of a chain: positive when it says so, -2 when
/// it clearly names another bone, plus what fixed entries say.
fn name_term(ctx: &Ctx, j: usize, chain: &[ProfileBoneId], b: BoneId) -> f32 {
    let s = ctx.ns_id(chain[j], b);
    let top = ctx.top(b);
    // The best and second-best name scores among the chain's roles.
    let (mut first, mut second) = (0.0f32, 0.0f32);
    for &r in chain {
        let x = ctx.ns_id(r, b);
        if x > first {
            second = first;
            first = x;
        } else if x > second {
            second = x;
        }
    }
    let ambiguous = chain.len() > 1 && first > 0.0 && second >= 0.6 * first;
    let penalty = top >= 0.7 && s < 0.5 * top && !(ambiguous && first >= top - 1e-6);
    let secondary = if ctx.info[b.index()].secondary {
        1.0
    } else {
        0.0
    };
    1.5 * s - if penalty { 2.0 } else { 0.0 } - secondary + ctx.fixed_term_id(chain[j], b)
}

/// Best assignment of `slots` (in order, required flag) to positions of one of `paths`, given
/// `table(slot, path, position)`; returns (score, path index, position per slot).
fn align(
    paths: &[Vec<BoneId>],
    required: &[bool],
    table: impl Fn(usize, &[BoneId], usize) -> f32,
) -> Option<(f32, usize, Vec<Option<usize>>)> {
    let mut best: Option<(f32, usize, Vec<Option<usize>>)> = None;
    let m = required.len();
    for (pi, path) in paths.iter().enumerate() {
        let n = path.len();
        // f[j][i]: best score with slots < j done and positions < i used.
        let mut f = vec![vec![f32::NEG_INFINITY; n + 1]; m + 1];
        let mut from = vec![vec![0u8; n + 1]; m + 1];
        f[0][0] = 0.0;
        for j in 0..=m {
            for i in 0..=n {
                let here = f[j][i];
                if here == f32::NEG_INFINITY {
                    continue;
                }
                let mut relax = |jj: usize, ii: usize, v: f32, how: u8| {
                    if v > f[jj][ii] {
                        f[jj][ii] = v;
                        from[jj][ii] = how;
                    }
                };
                if i < n {
                    relax(j, i + 1, here, 1);
                }
                if j < m {
                    let skip = if required[j] { SKIP_REQUIRED } else { 0.0 };
                    relax(j + 1, i, here + skip, 2);
                    if i < n {
                        let base = if required[j] { 2.0 } else { 0.5 };
                        relax(j + 1, i + 1, here + base + table(j, path, i), 3);
                    }
                }
            }
        }
        let total = f[m][n];
        if best.as_ref().is_some_and(|b| b.0 >= total) {
            continue;
        }
        let mut placed = vec![None; m];
        let (mut j, mut i) = (m, n);
        while j > 0 || i > 0 {
            match from[j][i] {
                1 => i -= 1,
                2 => j -= 1,
                _ => {
                    j -= 1;
                    i -= 1;
                    placed[j] = Some(i);
                }
            }
        }
        best = Some((total, pi, placed));
    }
    best
}

/// Like [`align`], but trying every placement, so that `whole(path, placed)` can score the
/// shape of a whole limb (where its middle joint lies between its ends); `whole` never exceeds
/// `whole_max`. The placements are tried depth-first, in the same order as always (ties go to
/// the first), but a branch is cut as soon as even its best possible total (every slot left at
/// its best cell, `whole_max`) falls clearly short of the best total found so far: such a
/// branch holds no better placement (issue 20).
fn align_whole(
    paths: &[Vec<BoneId>],
    required: &[bool],
    table: impl Fn(usize, &[BoneId], usize) -> f32,
    whole: impl Fn(&[BoneId], &[Option<usize>]) -> f32,
    whole_max: f32,
) -> Option<(f32, usize, Vec<Option<usize>>)> {
    let m = required.len();
    let mut search = Search {
        required,
        whole: &whole,
        whole_max,
        cells: Vec::new(),
        bound: Vec::new(),
        size: Vec::new(),
        placed: vec![None; m],
        path: &[],
        pi: 0,
        best: None,
    };
    for (pi, path) in paths.iter().enumerate() {
        let n = path.len();
        search.cells = (0..m)
            .map(|j| (0..n).map(|i| table(j, path, i)).collect())
            .collect();
        search.bounds();
        search.path = path;
        search.pi = pi;
        search.walk(0, 0, 0.0);
    }
    search.best
}

/// How [`align_whole`] scores a whole limb's placement.
type WholeScore<'a> = dyn Fn(&[BoneId], &[Option<usize>]) -> f32 + 'a;

/// The state of [`align_whole`]'s search over one path.
struct Search<'a> {
    required: &'a [bool],
    whole: &'a WholeScore<'a>,
    whole_max: f32,
    /// `cells[j][i]`: the score of slot `j` at position `i` of the path.
    cells: Vec<Vec<f32>>,
    /// `bound[j][i]`: the most slots `j..` can add with positions from `i` on.
    bound: Vec<Vec<f32>>,
    /// `size[j]`: how large any sum of what slots `j..` add can be.
    size: Vec<f32>,
    placed: Vec<Option<usize>>,
    path: &'a [BoneId],
    pi: usize,
    best: Option<(f32, usize, Vec<Option<usize>>)>,
}

/// What slot `j` adds when skipped and the base it adds when placed.
fn slot_terms(required: bool) -> (f32, f32) {
    if required {
        (SKIP_REQUIRED, 2.0)
    } else {
        (0.0, 0.5)
    }
}

impl Search<'_> {
    /// `bound` and `size` for the current `cells`. A NaN cell bounds nothing.
    fn bounds(&mut self) {
        let m = self.required.len();
        let n = self.cells.first().map_or(0, Vec::len);
        self.bound = vec![vec![0.0; n + 1]; m + 1];
        self.size = vec![0.0; m + 1];
        for j in (0..m).rev() {
            let (skip, base) = slot_terms(self.required[j]);
            let mut best_cell = f32::NEG_INFINITY;
            let mut largest = 0.0f32;
            for i in (0..=n).rev() {
                if i < n {
                    let v = self.cells[j][i];
                    best_cell = if v.is_nan() {
                        f32::INFINITY
                    } else {
                        best_cell.max(v)
                    };
                    if v.is_finite() {
                        largest = largest.max(v.abs());
                    }
                }
                self.bound[j][i] = skip.max(base + best_cell) + self.bound[j + 1][i];
            }
            self.size[j] = skip.abs().max(base + largest) + self.size[j + 1];
        }
    }

    /// Depth-first over slots from `j`: each takes a position from `from` on, or none.
    fn walk(&mut self, j: usize, from: usize, acc: f32) {
        if let Some((best, ..)) = &self.best {
            // Every placement below adds at most `bound` and `whole_max`; rounding moves a total
            // by far less than `slack`.
            let most = acc + self.bound[j][from] + self.whole_max;
            let slack = 1e-3 * (1.0 + acc.abs() + self.size[j] + self.whole_max.abs() + best.abs());
            if most + slack < *best {
                return;
            }
        }
        let m = self.required.len();
        if j == m {
            let total = acc + (self.whole)(self.path, &self.placed);
            if self.best.as_ref().is_none_or(|b| total > b.0) {
                self.best = Some((total, self.pi, self.placed.clone()));
            }
            return;
        }
        let (skip, base) = slot_terms(self.required[j]);
        self.placed[j] = None;
        self.walk(j + 1, from, acc + skip);
        for i in from..self.cells[j].len() {
            let v = self.cells[j][i];
            if v == f32::NEG_INFINITY {
                continue;
            }
            self.placed[j] = Some(i);
            self.walk(j + 1, i + 1, acc + base + v);
        }
        self.placed[j] = None;
    }
}

/// How much the places of a limb's three joints look like a limb: the middle joint (elbow,
/// knee) about halfway between the ends, as on every human (upper arm and forearm, thigh and
/// shin are about as long). 0 when a joint is not placed.
fn middle_term(
    ctx: &Ctx,
    path: &[BoneId],
    a: Option<usize>,
    b: Option<usize>,
    c: Option<usize>,
) -> f32 {
    let (Some(a), Some(b), Some(c)) = (a, b, c) else {
        return 0.0;
    };
    let p = |k: usize| ctx.pos[path[k].index()];
    let (ab, bc) = (p(a).distance(p(b)), p(b).distance(p(c)));
    let ratio = ab / (ab + bc).max(1e-9);
    2.0 * gauss(ratio, 0.5, 0.12) - 1.0
}

/// Whether the toes' place looks like the ball of the foot: a bone less than 45% of the way
/// forward from the ankle to the tip of the foot is a mid-foot metatarsal (-1). 0 otherwise,
/// or when either is not placed.
fn toes_term(
    ctx: &Ctx,
    path: &[BoneId],
    foot: Option<usize>,
    toes: Option<usize>,
    forward: Vec3,
    ahead: &[f32],
) -> f32 {
    let (Some(f), Some(t)) = (foot, toes) else {
        return 0.0;
    };
    let ankle = ctx.pos[path[f].index()];
    let reach = ahead[path[f].index()];
    if reach <= 1e-6 {
        return 0.0;
    }
    let at = (ctx.pos[path[t].index()] - ankle).dot(forward) / reach;
    if at < 0.45 {
        -1.0
    } else {
        0.0
    }
}

/// Paths of candidate bones from `root` down to each candidate leaf.
pub(super) fn leaf_paths(ctx: &Ctx, root: BoneId) -> Vec<Vec<BoneId>> {
    let mut out = Vec::new();
    for b in ctx.subtree(root) {
        let has_cand_child = ctx.children[b.index()]
            .iter()
            .any(|c| ctx.cand_below[c.index()]);
        if ctx.cand[b.index()] && !has_cand_child {
            let path: Vec<BoneId> = ctx
                .path(root, b)
                .into_iter()
                .filter(|x| ctx.cand[x.index()])
                .collect();
            out.push(path);
        }
    }
    out
}

/// Paths of candidate bones from a limb's first bone down its main line: where a bone branches,
/// a child whose subtree reaches less than 70% as far as its longest sibling's (a twist, roll,
/// share or corrective bone beside the chain, a helper at the elbow), or whose name marks it
/// secondary while a sibling is not, is no continuation of the limb. The chain to the hand is the
/// branch that leads to the fingers, the chain to the foot the one that leads to the toes.
pub(super) fn limb_paths(ctx: &Ctx, root: BoneId) -> Vec<Vec<BoneId>> {
    let mut out = Vec::new();
    let mut stack = vec![(root, Vec::new())];
    while let Some((b, mut path)) = stack.pop() {
        if ctx.cand[b.index()] {
            path.push(b);
        }
        let follow = ctx.main[b.index()].clone();
        if follow.is_empty() {
            if !path.is_empty() {
                out.push(path);
            }
            continue;
        }
        for c in follow.into_iter().rev() {
            stack.push((c, path.clone()));
        }
    }
    out
}

/// How many branches fan out of `b` as fingers do: children (not secondary, not leaves at its
/// joint) whose subtree reaches at least 45% as far as the longest one (a thumb counts, a twist
/// bone beside a forearm does not).
pub(super) fn fan_count(ctx: &Ctx, b: BoneId) -> usize {
    let kids: Vec<BoneId> = ctx.children[b.index()]
        .iter()
        .copied()
        .filter(|c| ctx.cand_below[c.index()] && !ctx.info[c.index()].secondary)
        .collect();
    if kids.len() < 2 {
        return kids.len();
    }
    let reach: Vec<f32> = kids.iter().map(|&c| reach(ctx, b, c, false)).collect();
    let longest = reach.iter().copied().fold(0.0f32, f32::max);
    reach
        .iter()
        .filter(|r| **r >= 0.45 * longest && **r > 0.01 * ctx.height)
        .count()
}

/// How far from `from`'s joint the subtree of its child `c` reaches: over every bone, or only
/// over bones with a candidate at or below them.
fn reach(ctx: &Ctx, from: BoneId, c: BoneId, candidates_only: bool) -> f32 {
    let at = ctx.pos[from.index()];
    let mut far = 0.0f32;
    let mut stack = vec![c];
    while let Some(x) = stack.pop() {
        if candidates_only && !ctx.cand_below[x.index()] {
            continue;
        }
        far = far.max(ctx.pos[x.index()].distance(at));
        stack.extend(ctx.children[x.index()].iter().copied());
    }
    far
}

/// The children of `b` that continue a limb (see [`limb_paths`]).
pub(super) fn main_children(ctx: &Ctx, b: BoneId) -> Vec<BoneId> {
    let kids: Vec<BoneId> = ctx.children[b.index()]
        .iter()
        .copied()
        .filter(|c| ctx.cand_below[c.index()])
        .collect();
    if kids.len() < 2 {
        return kids;
    }
    // A leaf at the same joint as a sibling that goes on (Character Creator's
    // `ToeBaseShareBone` beside `ToeBase`) is a helper, as is a secondary-named bone.
    let leaf = |c: &BoneId| {
        !ctx.children[c.index()]
            .iter()
            .any(|x| ctx.cand_below[x.index()])
    };
    let shares = |c: &BoneId| {
        leaf(c)
            && kids.iter().any(|o| {
                o != c
                    && !leaf(o)
                    && ctx.pos[o.index()].distance(ctx.pos[c.index()]) < 0.01 * ctx.height
            })
    };
    let main = |c: &BoneId| !ctx.info[c.index()].secondary && !shares(c);
    let any_main = kids.iter().any(main);
    let reach: Vec<f32> = kids.iter().map(|&c| reach(ctx, b, c, true)).collect();
    let longest = reach.iter().copied().fold(0.0f32, f32::max);
    // A child whose name names a profile bone outright stays a continuation however short,
    // when what reaches further names nothing: a 3ds Max Biped's `Bip001 L Calf` beside a robe
    // chain `Bone004 → 005 → 006` that hangs from the thigh further down (wiseMan, issue 43).
    // The limb's alignment then weighs both by name and place.
    let named = |c: &BoneId| ctx.top(*c) >= 0.9;
    let unnamed_longest = kids
        .iter()
        .zip(&reach)
        .filter(|(_, r)| **r >= 0.7 * longest)
        .all(|(c, _)| ctx.top(*c) < 0.5);
    kids.iter()
        .zip(&reach)
        .filter(|(c, r)| {
            (**r >= 0.7 * longest || (named(c) && unnamed_longest)) && (main(c) || !any_main)
        })
        .map(|(c, _)| *c)
        .collect()
}

/// Both legs.
pub(super) fn legs(ctx: &Ctx, trunk: &Trunk, facing: Facing) -> Part {
    let mut part = Part::default();
    // Heights are measured from the bone the legs hang from: the hips, or in IK layouts the
    // `Body` bone above them.
    let leg_parent = ctx.sk.bones[trunk.legs[0].index()]
        .parent
        .unwrap_or(trunk.hips);
    let beside = !ctx.sk.is_ancestor(trunk.hips, trunk.legs[0]);
    let hips = ctx.pos[if beside { leg_parent } else { trunk.hips }.index()];
    let lat = |leg: BoneId| {
        ctx.subtree(leg)
            .iter()
            .map(|b| (ctx.pos[b.index()] - hips).dot(facing.left))
            .sum::<f32>()
    };
    // Names that state opposite sides decide, as they decided the facing; geometry otherwise.
    // (The facing takes its left from the lowest bones; the sum over a whole leg can lie the
    // other way when a leg's lowest bone crosses the middle, and the legs then swapped.)
    let named = trunk.legs.map(|l| ctx.named_side(&ctx.subtree(l)));
    let left_first = match named {
        [Some(a), Some(b)] if a != b => a == Side::Left,
        _ => lat(trunk.legs[0]) >= lat(trunk.legs[1]),
    };
    let sides = if left_first {
        [Side::Left, Side::Right]
    } else {
        [Side::Right, Side::Left]
    };
    let forward = facing.left.cross(Vec3::Y).normalize_or_zero();
    // How far forward of each bone its subtree reaches (bones come parents first).
    let mut ahead = vec![0.0f32; ctx.sk.bones.len()];
    for i in (0..ctx.sk.bones.len()).rev() {
        if let Some(p) = ctx.sk.bones[i].parent {
            let step = (ctx.pos[i] - ctx.pos[p.index()]).dot(forward) + ahead[i];
            ahead[p.index()] = ahead[p.index()].max(step);
        }
    }
    for (leg, side) in trunk.legs.into_iter().zip(sides) {
        let p = prefix(side);
        let roles: Vec<String> = ["UpperLeg", "LowerLeg", "Foot", "Toes"]
            .iter()
            .map(|r| format!("{p}{r}"))
            .collect();
        let role_ids: Vec<_> = roles.iter().map(|r| ctx.pid(r)).collect();
        // Heights run from the top of the leg: the hips, or the leg's first joint where that
        // stands higher (KayKit's `upperleg.l` sits above its `hips`).
        let top = hips.y.max(ctx.pos[leg.index()].y);
        let drop = (top - ctx.ground).max(1e-6);
        // The ankle stands above the back of the foot. A joint that lies forward of the joint
        // above it, at the front of all that joint reaches, by a step that runs more forward
        // than down and with nothing ahead of itself, is the ball of that joint's foot: the
        // toes, not the ankle (the knee-high ankles of chibi rigs such as KayKit's are nearer
        // the knee than the floor, their toes at the floor).
        let ball_of_foot = |path: &[BoneId], i: usize| {
            let (b, p) = (path[i], (i > 0).then(|| path[i - 1]));
            p.is_some_and(|p| {
                let step = ctx.pos[b.index()] - ctx.pos[p.index()];
                let ahead_of_parent = step.dot(forward);
                ahead_of_parent > 0.0
                    && ahead_of_parent >= 0.5 * step.length()
                    && ahead_of_parent >= 0.8 * ahead[p.index()]
                    && ahead[b.index()] <= 0.2 * ahead_of_parent
            })
        };
        let table = |j: usize, path: &[BoneId], i: usize| {
            let b = path[i];
            let at = ctx.pos[b.index()];
            let t = (top - at.y) / drop;
            let geo = match j {
                0 => {
                    let wide = (at - hips).dot(facing.left).abs() >= 0.02 * ctx.height;
                    // A thigh split in numbered parts (MakeHuman's `upperleg01` 8 cm long, then
                    // `upperleg02`) is as long as its parts together.
                    let long = path[i + 1..]
                        .iter()
                        .find(|n| !ctx.same_part(b, **n))
                        .is_none_or(|n| ctx.pos[n.index()].distance(at) >= 0.1 * ctx.height);
                    gauss(t, 0.08, 0.2)
                        - if wide { 0.0 } else { 1.5 }
                        - if long { 0.0 } else { 1.0 }
                }
                1 => gauss(t, 0.5, 0.2),
                2 => gauss(t, 0.92, 0.12) - if ball_of_foot(path, i) { 1.5 } else { 0.0 },
                _ if t < 0.85 => -2.0,
                _ => {
                    // Toes lie forward of the bone above them (a heel bone does not), and are
                    // the first toe bone: one below a bone already at the floor (or named toe)
                    // is a phalanx; a weightless tip is a nub.
                    let prev = (i > 0).then(|| path[i - 1]);
                    let behind = prev.is_some_and(|p| (at - ctx.pos[p.index()]).dot(forward) < 0.0);
                    let phalanx = prev.is_some_and(|p| {
                        ctx.ns(&roles[3], p) >= 0.7 || (top - ctx.pos[p.index()].y) / drop >= 0.95
                    });
                    let nub = ctx.weightless_tip(b);
                    gauss(t, 1.0, 0.1)
                        - [behind, phalanx, nub].iter().filter(|x| **x).count() as f32
                }
            };
            // The later parts of a bone split in numbered parts (MakeHuman's `upperleg02`
            // below `upperleg01`) start no bone of the leg: the first part does.
            let later_part = i > 0 && ctx.same_part(path[i - 1], b);
            geo + name_term(ctx, j, &role_ids, b) - if later_part { 0.5 } else { 0.0 }
        };
        let paths = limb_paths(ctx, leg);
        let whole = |path: &[BoneId], placed: &[Option<usize>]| {
            let knee = middle_term(ctx, path, placed[0], placed[1], placed[2]);
            knee + toes_term(ctx, path, placed[2], placed[3], forward, &ahead)
        };
        let Some((score, pi, placed)) =
            align_whole(&paths, &[true, true, true, false], table, whole, 1.0)
        else {
            continue;
        };
        part.score += score;
        let mut chosen: Vec<Option<BoneId>> =
            placed.iter().map(|k| k.map(|k| paths[pi][k])).collect();
        if let (Some(upper), Some(knee), None) = (chosen[0], chosen[1], chosen[2]) {
            // An IK layout: the foot hangs from the root or an IK bone, not from the shin.
            if let Some((foot, toes, s)) = off_chain_foot(ctx, trunk, side, upper, knee, &table) {
                part.score += s;
                chosen[2] = Some(foot);
                chosen[3] = toes;
                let (f, k) = (ctx.name(foot), ctx.name(knee));
                part.warnings.push(Warning {
                    code: WarningCode::IkLayout,
                    skeleton: None,
                    message: format!(
                        "`{}` maps to `{f}`, which does not hang below `{k}` (an IK layout); stages drive it from its chain",
                        roles[2]
                    ),
                    bones: vec![roles[2].clone()],
                    clips: Vec::new(),
                    chain: None,
                });
            }
        }
        let why = ["upper leg", "knee", "ankle", "toes"];
        for (j, b) in chosen.iter().enumerate() {
            let Some(b) = *b else { continue };
            let s = ctx.ns(&roles[j], b);
            let reason = if s >= 0.5 {
                format!(
                    "name `{}`; {} of the {} leg",
                    ctx.name(b),
                    why[j],
                    side_word(side)
                )
            } else {
                format!("{} of the {} leg, by height", why[j], side_word(side))
            };
            part.add(ctx, &roles[j], b, 0.65 + 0.35 * s, reason);
        }
    }
    part
}

/// Where the shin ends: its nearest child (an end site counts), else one thigh's length on.
fn shin_tail(ctx: &Ctx, upper: BoneId, knee: BoneId) -> (Vec3, bool) {
    let at = ctx.pos[knee.index()];
    let child = ctx.children[knee.index()]
        .iter()
        .map(|c| ctx.pos[c.index()])
        .filter(|p| p.distance(at) > 0.05 * ctx.height)
        .min_by(|a, b| a.distance(at).total_cmp(&b.distance(at)));
    match child {
        Some(p) => (p, true),
        None => (at + (at - ctx.pos[upper.index()]), false),
    }
}

/// A foot that is no descendant of its shin (Quaternius, Blender game rigs: feet hang from the
/// root or an IK bone): a free candidate at the shin's end, by place and name, with its toes.
/// Returns the foot, its toes and the evidence score.
fn off_chain_foot(
    ctx: &Ctx,
    trunk: &Trunk,
    side: Side,
    upper: BoneId,
    knee: BoneId,
    table: &dyn Fn(usize, &[BoneId], usize) -> f32,
) -> Option<(BoneId, Option<BoneId>, f32)> {
    let (tail, exact) = shin_tail(ctx, upper, knee);
    let upper_body = ctx.subtree(trunk.spine);
    let legs: Vec<BoneId> = trunk.legs.iter().flat_map(|l| ctx.subtree(*l)).collect();
    let role = format!("{}Foot", prefix(side));
    let h = ctx.height;
    let best = (0..ctx.sk.bones.len() as u32)
        .map(BoneId)
        .filter(|&b| {
            ctx.cand[b.index()]
                && upper_body.binary_search(&b).is_err()
                && !legs.contains(&b)
                && !ctx.sk.is_ancestor(b, trunk.hips)
                && ctx.info[b.index()].side.is_none_or(|s| s == side)
        })
        .filter_map(|b| {
            let d = ctx.pos[b.index()].distance(tail);
            let name = ctx.ns(&role, b);
            let near = if exact { d <= 0.03 * h } else { d <= 0.08 * h };
            // A foot fixed there (a bone-map file, a VRM map, the profile's own name) counts
            // wherever the shin ends.
            let fixed = ctx.fixed_term(&role, b);
            (near || (name >= 0.7 && d <= 0.15 * h) || fixed > 0.0)
                .then(|| (name + 1.0 - d / (0.15 * h) + fixed, b))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))?;
    let foot = best.1;
    let paths = limb_paths(ctx, foot);
    let toes =
        align(&paths, &[true, false], |j, p, i| table(j + 2, p, i)).and_then(|(_, pi, placed)| {
            (placed[0] == Some(0))
                .then(|| placed[1].map(|k| paths[pi][k]))
                .flatten()
        });
    Some((foot, toes, 2.0 + best.0))
}

fn side_word(side: Side) -> &'static str {
    if side == Side::Right {
        "right"
    } else {
        "left"
    }
}

/// The two branches leaving the spine sideways (not the legs, which hang from the spine in
/// 3ds Max Biped): [left, right].
pub(super) fn find_arms(
    ctx: &Ctx,
    trunk: &Trunk,
    spine: &[BoneId],
    facing: Facing,
) -> [Option<Arm>; 2] {
    let mut found: Vec<(f32, BoneId, BoneId)> = Vec::new();
    for &at in spine.iter().skip(1) {
        for &c in &ctx.children[at.index()] {
            if spine.contains(&c) {
                continue;
            }
            let sub = ctx.subtree(c);
            if !sub.iter().any(|b| ctx.cand[b.index()]) {
                continue;
            }
            if trunk.legs.iter().any(|l| sub.binary_search(l).is_ok()) {
                continue;
            }
            let base = ctx.pos[at.index()];
            let far = sub
                .iter()
                .map(|b| (ctx.pos[b.index()] - base).dot(facing.left))
                .max_by(|a, b| a.abs().total_cmp(&b.abs()))
                .unwrap_or(0.0);
            let reach = sub
                .iter()
                .map(|b| ctx.pos[b.index()].distance(base))
                .fold(0.0f32, f32::max);
            // Arms in a T- or A-pose reach out sideways; legs of a four-legged rig hang down.
            if far.abs() >= 0.1 * ctx.height && far.abs() >= 0.3 * reach {
                found.push((far, c, at));
            }
        }
    }
    let pick = |sign: f32| {
        found
            .iter()
            .filter(|f| f.0 * sign > 0.0)
            .max_by(|a, b| (a.0 * sign).total_cmp(&(b.0 * sign)).then(b.1.cmp(&a.1)))
            .copied()
    };
    let mut arms = [pick(1.0), pick(-1.0)].map(|f| {
        f.map(|(_, root, attach)| Arm {
            side: Side::Center,
            root,
            attach,
            named: false,
        })
    });
    let named = arms.map(|a| a.and_then(|a| ctx.named_side(&ctx.subtree(a.root))));
    let swap = named == [Some(Side::Right), Some(Side::Left)];
    if swap {
        arms.swap(0, 1);
    }
    for (arm, side) in arms.iter_mut().zip([Side::Left, Side::Right]) {
        if let Some(a) = arm {
            a.side = side;
            a.named = ctx.named_side(&ctx.subtree(a.root)).is_some();
        }
    }
    arms
}

/// One arm; also returns the bone the fingers fan out from (the hand, or the forearm of a rig
/// without a hand bone).
pub(super) fn arm(ctx: &Ctx, arm: &Arm) -> (Part, Option<BoneId>) {
    let mut part = Part::default();
    let p = prefix(arm.side);
    let roles: Vec<String> = ["Shoulder", "UpperArm", "LowerArm", "Hand"]
        .iter()
        .map(|r| format!("{p}{r}"))
        .collect();
    let role_ids: Vec<_> = roles.iter().map(|r| ctx.pid(r)).collect();
    let base = ctx.pos[arm.attach.index()];
    let sub = ctx.subtree(arm.root);
    let reach = sub
        .iter()
        .map(|b| ctx.pos[b.index()].distance(base))
        .fold(1e-6f32, f32::max);
    let fans = |b: BoneId| ctx.fans[b.index()];
    // A bone named palm that alone continues the arm and out of which fingers fan is the wrist
    // itself, not a metacarpal (a metacarpal carries one finger, beside others): Quaternius's
    // `Palm.L` holds `MiddleHand.L` and `Thumb1.L`.
    let wrist_palm = |b: BoneId| {
        wrist_fans(ctx, b) >= 2
            && ctx.sk.bones[b.index()].parent.is_some_and(|p| {
                ctx.children[p.index()]
                    .iter()
                    .filter(|c| ctx.cand_below[c.index()])
                    .eq([&b])
            })
    };
    let table = |j: usize, path: &[BoneId], i: usize| {
        let b = path[i];
        let r = ctx.pos[b.index()].distance(base) / reach;
        let geo = match j {
            0 => gauss(r, 0.08, 0.12),
            1 => gauss(r, 0.22, 0.15),
            2 => gauss(r, 0.5, 0.2),
            _ => {
                // A leaf below a bone that is itself named hand or wrist (SMPL's `left_hand`
                // below `left_wrist`) is the end of the hand, not the hand.
                let hand_above = i > 0 && ctx.ns_id(role_ids[3], path[i - 1]) >= 0.7;
                // By shape: a leaf much closer to the bone above it than the longest bone of
                // the arm is a hand's end (a palm tip, a socket), not a hand at the wrist.
                let seg =
                    |k: usize| ctx.pos[path[k].index()].distance(ctx.pos[path[k - 1].index()]);
                let longest = (1..i).map(seg).fold(0.0f32, f32::max);
                let short_leaf = i > 1 && seg(i) < 0.45 * longest;
                let bonus = match wrist_fans(ctx, b) {
                    0 if hand_above || short_leaf || ctx.weightless_tip(b) => -1.0,
                    0 => 0.8,
                    1 => 0.0,
                    _ => 1.5,
                };
                gauss(r, 0.8, 0.25) + bonus
            }
        };
        // A palm bone (a metacarpal, or anything below a bone that fans out into three or more
        // branches) is inside the hand: never the hand or an arm bone.
        let below_fan = path[..i].iter().any(|p| fans(*p) >= 3);
        let inside_hand = j > 0 && ((ctx.info[b.index()].palm && !wrist_palm(b)) || below_fan);
        // A bone named for a finger is never an arm bone (half-body avatars hang the hands, and
        // so the fingers, straight from the spine).
        if inside_hand || super::hands::finger_word(ctx, b).is_some() {
            return f32::NEG_INFINITY;
        }
        geo + name_term(ctx, j, &role_ids, b)
    };
    let paths = limb_paths(ctx, arm.root);
    // Fingers fanning out from a bone's far end rather than near its joint (RobotExpressive's
    // palm bones start at the wrist): that bone is the forearm, the hand is missing.
    let forearm_fan = |path: &[BoneId], k: usize| {
        let b = path[k];
        let spread = ctx.children[b.index()]
            .iter()
            .filter(|c| ctx.cand_below[c.index()])
            .map(|c| ctx.pos[c.index()].distance(ctx.pos[b.index()]))
            .fold(f32::INFINITY, f32::min);
        let seg = (k > 0).then(|| ctx.pos[b.index()].distance(ctx.pos[path[k - 1].index()]));
        fans(b) >= 2 && seg.is_some_and(|s| spread > s)
    };
    let whole = |path: &[BoneId], placed: &[Option<usize>]| {
        let shape = middle_term(ctx, path, placed[1], placed[2], placed[3]);
        match (placed[2], placed[3]) {
            // Such a forearm as the hand is wrong; with no hand beyond it, nothing is missing.
            (_, Some(h)) if forearm_fan(path, h) => f32::NEG_INFINITY,
            (Some(e), None) if forearm_fan(path, e) => shape - SKIP_REQUIRED,
            _ => shape,
        }
    };
    let Some((score, pi, placed)) =
        align_whole(&paths, &[false, true, true, true], table, whole, 6.0)
    else {
        return (part, None);
    };
    part.score += score;
    let why = ["shoulder", "upper arm", "elbow", "hand"];
    let mut last = None;
    for (j, k) in placed.iter().enumerate() {
        let Some(k) = k else { continue };
        let b = paths[pi][*k];
        last = Some((j, b));
        let s = ctx.ns(&roles[j], b);
        let reason = if s >= 0.5 {
            format!(
                "name `{}`; {} of the {} arm",
                ctx.name(b),
                why[j],
                side_word(arm.side)
            )
        } else {
            format!(
                "{} of the {} arm, by reach and shape",
                why[j],
                side_word(arm.side)
            )
        };
        part.add(ctx, &roles[j], b, 0.65 + 0.35 * s, reason);
    }
    let hand_root = match last {
        Some((3, b)) => Some(b),
        Some((_, b)) if fans(b) >= 2 => Some(b),
        _ => None,
    };
    (part, hand_root)
}

/// Whether a finger-like branch of `b` starts behind `b`'s joint, back toward the joint above
/// (by over a quarter of the bone that leads to `b`): fingers start ahead of the wrist, so
/// `b` is no wrist but a bone inside the hand (Quaternius's right thumb hangs from
/// `MiddleHand.R` but starts between it and `Palm.R`).
fn branch_behind(ctx: &Ctx, b: BoneId) -> bool {
    let Some(p) = ctx.sk.bones[b.index()].parent else {
        return false;
    };
    let at = ctx.pos[b.index()];
    let lead = at - ctx.pos[p.index()];
    let len = lead.length();
    len > 0.005 * ctx.height
        && ctx.children[b.index()]
            .iter()
            .filter(|c| ctx.cand_below[c.index()])
            .any(|c| (ctx.pos[c.index()] - at).dot(lead / len) < -0.25 * len)
}

/// How many fingers fan out of `b` as a wrist: its [`fan_count`], but 1 when a branch starts
/// behind it ([`branch_behind`]: it is inside the hand), and its only child's count when
/// that child is such a bone inside the hand (then `b` is the wrist).
fn wrist_fans(ctx: &Ctx, b: BoneId) -> usize {
    let fans = ctx.fans[b.index()];
    if fans >= 2 && branch_behind(ctx, b) {
        return 1;
    }
    let kids: Vec<BoneId> = ctx.children[b.index()]
        .iter()
        .copied()
        .filter(|c| ctx.cand_below[c.index()])
        .collect();
    match kids[..] {
        [c] if ctx.fans[c.index()] >= 2 && branch_behind(ctx, c) => ctx.fans[c.index()],
        _ => fans,
    }
}

/// The direction a set of points spreads along, from `from` (unit, or zero when degenerate).
pub(super) fn mean_dir(from: Vec3, points: impl Iterator<Item = Vec3>) -> Vec3 {
    points
        .map(|p| (p - from).normalize_or_zero())
        .sum::<Vec3>()
        .normalize_or_zero()
}

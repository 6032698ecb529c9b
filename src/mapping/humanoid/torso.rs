//! Hips candidates, facing, the spine path and its bones, the face and the root.

use super::limbs::Arm;
use super::{Ctx, Facing, Part, Trunk};
use crate::model::BoneId;
use crate::profile::Side;
use glam::Vec3;

/// Lowest and highest y of every bone's subtree.
fn extents(ctx: &Ctx) -> (Vec<f32>, Vec<f32>) {
    let mut lo: Vec<f32> = ctx.pos.iter().map(|p| p.y).collect();
    let mut hi = lo.clone();
    for i in (0..ctx.sk.bones.len()).rev() {
        if let Some(p) = ctx.sk.bones[i].parent {
            lo[p.index()] = lo[p.index()].min(lo[i]);
            hi[p.index()] = hi[p.index()].max(hi[i]);
        }
    }
    (lo, hi)
}

/// Every plausible hips bone: two branches reaching down at least a quarter of the height
/// (possibly below one intermediate pelvis bone), one reaching up; plus, for each, up to two
/// ancestors whose names say hips (3ds Max Biped hangs the thighs from `Spine`).
pub(super) fn trunks(ctx: &Ctx) -> Vec<Trunk> {
    let (lo, hi) = extents(ctx);
    let h = ctx.height;
    let mut out: Vec<Trunk> = Vec::new();
    for i in 0..ctx.sk.bones.len() {
        let hips = BoneId(i as u32);
        let y = ctx.pos[i].y;
        if !ctx.cand[i] || y - ctx.ground < 0.25 * h {
            continue;
        }
        let down = |c: &BoneId| lo[c.index()] < y - 0.25 * h && hi[c.index()] < y + 0.2 * h;
        let mut legs: Vec<BoneId> = ctx.children[i].iter().copied().filter(down).collect();
        for _ in 0..2 {
            if legs.len() == 1 {
                legs = ctx.children[legs[0].index()]
                    .iter()
                    .copied()
                    .filter(down)
                    .collect();
            }
        }
        legs.retain(|l| ctx.cand_below[l.index()]);
        legs.sort_by(|a, b| lo[a.index()].total_cmp(&lo[b.index()]).then(a.cmp(b)));
        let spine = ctx.children[i]
            .iter()
            .copied()
            .filter(|c| hi[c.index()] > y + 0.2 * h)
            .max_by(|a, b| hi[a.index()].total_cmp(&hi[b.index()]).then(b.cmp(a)));
        let (Some(spine), [a, b, ..]) = (spine, legs.as_slice()) else {
            continue;
        };
        let trunk = Trunk {
            hips,
            legs: [*a, *b],
            spine,
            legless: false,
        };
        out.push(trunk);
        // Legs hanging from a `Body` bone above a separate `Hips` (Quaternius, RobotExpressive):
        // the hips are the spine's first bone when its name says so and the Body's does not,
        // or, without names, when it lies below the Body (a pelvis under a centre of gravity).
        let named_below = ctx.ns("Hips", spine) >= 0.7 && ctx.ns("Hips", hips) < 0.5;
        let unnamed = ctx.top(spine) < 0.5 && ctx.top(hips) < 0.5;
        let lower = ctx.pos[spine.index()].y < y - 0.01 * h;
        if ctx.cand[spine.index()] && (named_below || (unnamed && lower)) {
            let up = ctx.children[spine.index()]
                .iter()
                .copied()
                .filter(|c| hi[c.index()] > y + 0.2 * h)
                .max_by(|a, b| hi[a.index()].total_cmp(&hi[b.index()]).then(b.cmp(a)));
            if let Some(up) = up {
                out.push(Trunk {
                    hips: spine,
                    spine: up,
                    ..trunk
                });
            }
        }
        let mut child = hips;
        let mut at = ctx.sk.bones[i].parent;
        for _ in 0..2 {
            let Some(p) = at else { break };
            // A pelvis above the bone the legs hang from: by name, or (3ds Max Biped without
            // names) a bone with that one child whose joint lies lower, nearer the legs.
            let only_child = ctx.children[p.index()]
                .iter()
                .filter(|c| ctx.cand_below[c.index()])
                .eq([child].iter());
            let pelvis = ctx.top(p) < 0.5 && only_child && ctx.pos[p.index()].y < y - 0.01 * h;
            if ctx.cand[p.index()]
                && (ctx.ns("Hips", p) >= 0.5 || pelvis)
                && ctx.pos[p.index()].y - ctx.ground > 0.25 * h
            {
                out.push(Trunk {
                    hips: p,
                    spine: child,
                    ..trunk
                });
            }
            child = p;
            at = ctx.sk.bones[p.index()].parent;
        }
    }
    if let Some(f) = &ctx.fixed[ctx.pid("Hips").index()] {
        if out.iter().any(|t| t.hips == f.bone) {
            out.retain(|t| t.hips == f.bone);
        }
    }
    out
}

/// The hips of an upper-body rig (no legs): on the path from the top root to the highest bone,
/// the bone named hips, else the first candidate that is not a root, with a child on the path.
pub(super) fn legless(ctx: &Ctx) -> Option<Trunk> {
    let top = (0..ctx.sk.bones.len())
        .filter(|&i| ctx.cand[i])
        .max_by(|&a, &b| ctx.pos[a].y.total_cmp(&ctx.pos[b].y).then(b.cmp(&a)))?;
    let mut path = vec![BoneId(top as u32)];
    while let Some(p) = ctx.sk.bones[path[path.len() - 1].index()].parent {
        path.push(p);
    }
    path.reverse();
    let at = |k: usize| path.get(k + 1).map(|&spine| (path[k], spine));
    let named =
        (0..path.len()).find(|&k| ctx.cand[path[k].index()] && ctx.ns("Hips", path[k]) >= 0.7);
    let first = (0..path.len()).find(|&k| {
        let b = path[k];
        ctx.cand[b.index()] && ctx.ns("Root", b) < 0.5 && ctx.top(b) - ctx.ns("Hips", b) < 0.7
    });
    let (hips, spine) = at(named.or(first)?)?;
    Some(Trunk {
        hips,
        legs: [hips, hips],
        spine,
        legless: true,
    })
}

/// How well a choice of hips fits the body's shape: the hips joint lies near the height where
/// the legs start, and the spine rises from it (a spine that starts below it means the hips
/// are a centre-of-gravity bone above the pelvis).
pub(super) fn hips_shape(ctx: &Ctx, trunk: &Trunk) -> f32 {
    if trunk.legless {
        return 0.0;
    }
    let y = ctx.pos[trunk.hips.index()].y;
    let legs = trunk.legs.iter().map(|l| ctx.pos[l.index()].y).sum::<f32>() / 2.0;
    let down = ctx.pos[trunk.spine.index()].y < y - 0.01 * ctx.height;
    -2.0 * (y - legs).abs() / ctx.height - if down { 1.0 } else { 0.0 }
}

/// How far names contradict a choice of hips: -1 for every bone below a leg whose name says it
/// is no leg bone, and for every bone above the hips whose name says it is a leg bone.
pub(super) fn name_conflicts(ctx: &Ctx, trunk: &Trunk) -> f32 {
    if trunk.legless {
        return 0.0;
    }
    let leg_words = ["UpperLeg", "LowerLeg", "Foot", "Toes"];
    let says_leg = |b: BoneId| -> Option<bool> {
        // The first profile bone with the best score.
        let row = &ctx.names[b.index()];
        let first = *row.first()?;
        let (mut best, mut score) = (0, first);
        for (i, &s) in row.iter().enumerate().skip(1) {
            if s.total_cmp(&score).is_gt() {
                (best, score) = (i, s);
            }
        }
        let name = &ctx.profile.bones[best].name;
        (score >= 0.7).then(|| leg_words.iter().any(|w| name.ends_with(w)))
    };
    let mut penalty = 0.0;
    for leg in trunk.legs {
        penalty += ctx
            .subtree(leg)
            .iter()
            .filter(|b| says_leg(**b) == Some(false))
            .count() as f32;
    }
    let legs: Vec<BoneId> = trunk.legs.iter().flat_map(|l| ctx.subtree(*l)).collect();
    penalty += ctx
        .subtree(trunk.spine)
        .iter()
        .filter(|b| !legs.contains(b) && says_leg(**b) == Some(true))
        .count() as f32;
    -penalty
}

/// The leaf of a leg's subtree that is lowest (deepest first among near-equal heights).
fn foot_tip(ctx: &Ctx, leg: BoneId) -> BoneId {
    let sub = ctx.subtree(leg);
    let low = sub
        .iter()
        .map(|b| ctx.pos[b.index()].y)
        .fold(f32::INFINITY, f32::min);
    *sub.iter()
        .filter(|b| ctx.pos[b.index()].y <= low + 0.02 * ctx.height)
        .max_by_key(|b| (ctx.depth[b.index()], std::cmp::Reverse(**b)))
        .unwrap_or(&leg)
}

/// Which way the character faces: toes point forward, knees bend forward; else +Z. Names of
/// the legs, when they state opposite sides, decide left and right.
pub(super) fn facing(ctx: &Ctx, trunk: &Trunk) -> Facing {
    let h = ctx.height;
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z);
    // Each leg from its first bone down to its lowest, deepest bone.
    let paths = trunk.legs.map(|leg| ctx.path(leg, foot_tip(ctx, leg)));
    let mut forward = Vec3::ZERO;
    for path in &paths {
        let low: Vec<&BoneId> = path
            .iter()
            .filter(|b| ctx.pos[b.index()].y < ctx.ground + 0.15 * h)
            .collect();
        if let (Some(a), Some(b)) = (low.first(), low.last()) {
            let v = flat(ctx.pos[b.index()] - ctx.pos[a.index()]);
            if v.length() > 0.02 * h {
                forward += v.normalize();
            }
        }
    }
    if forward.length() < 0.5 {
        for path in &paths {
            let (hip, ankle) = (
                ctx.pos[path[0].index()],
                ctx.pos[path[path.len() - 1].index()],
            );
            let mid = path.iter().map(|b| ctx.pos[b.index()]).min_by(|a, b| {
                let m = (hip.y + ankle.y) / 2.0;
                (a.y - m).abs().total_cmp(&(b.y - m).abs())
            });
            if let Some(knee) = mid {
                let t = ((hip.y - knee.y) / (hip.y - ankle.y).max(1e-6)).clamp(0.0, 1.0);
                let off = flat(knee - hip.lerp(ankle, t));
                if off.length() > 0.02 * h {
                    forward += off.normalize();
                }
            }
        }
    }
    let seen = forward.length() > 0.5;
    let forward = if seen { forward.normalize() } else { Vec3::Z };
    let mut left = Vec3::Y.cross(forward).normalize();
    let lat = |k: usize| {
        (ctx.pos[paths[k][paths[k].len() - 1].index()] - ctx.pos[trunk.hips.index()]).dot(left)
    };
    let named = trunk.legs.map(|l| ctx.named_side(&ctx.subtree(l)));
    if let [Some(a), Some(b)] = named {
        if a != b {
            let geometric_left_is_a = lat(0) > lat(1);
            if geometric_left_is_a != (a == Side::Left) {
                left = -left;
            }
            return Facing { left, seen: true };
        }
    }
    Facing { left, seen }
}

/// Path from the hips to the highest bone above them (the top of the head), or on through the
/// highest candidate named head outright when that hangs below the highest bone: a 3ds Max
/// Biped whose `Bip001 Head` hangs forward and below its neck joint (hellFire, issue 43). A
/// highest bone elsewhere (a wing) keeps the path.
pub(super) fn spine_path(ctx: &Ctx, trunk: &Trunk) -> Vec<BoneId> {
    let bones = ctx.subtree(trunk.spine);
    let highest = |a: &BoneId, b: &BoneId| {
        ctx.pos[a.index()]
            .y
            .total_cmp(&ctx.pos[b.index()].y)
            .then(b.cmp(a))
    };
    let named_head = bones
        .iter()
        .copied()
        .filter(|&b| ctx.cand[b.index()] && ctx.ns("Head", b) >= 0.9)
        .max_by(highest);
    let top = bones.iter().copied().max_by(highest).unwrap_or(trunk.spine);
    if let Some(h) = named_head {
        if ctx.sk.is_ancestor(top, h) {
            let below = ctx.subtree(h).into_iter().max_by(highest).unwrap_or(h);
            return ctx.path(trunk.hips, below);
        }
    }
    ctx.path(trunk.hips, top)
}

/// Hips, Spine, Chest, UpperChest, Neck and Head along the spine path.
pub(super) fn spine(ctx: &Ctx, trunk: &Trunk, path: &[BoneId], arms: &[Option<Arm>; 2]) -> Part {
    let mut part = Part::default();
    let hips = trunk.hips;
    let hips_name = ctx.ns("Hips", hips);
    part.score += 1.5 * hips_name + ctx.fixed_term("Hips", hips);
    if ctx.top(hips) >= 0.7 && hips_name < 0.5 * ctx.top(hips) {
        part.score -= 2.0;
    }
    part.add(
        ctx,
        "Hips",
        hips,
        0.7 + 0.3 * hips_name,
        "two legs hang below it and the spine rises from it".into(),
    );
    let cp: Vec<BoneId> = path[1..]
        .iter()
        .copied()
        .filter(|b| ctx.cand[b.index()])
        .collect();
    let Some(&top) = cp.last() else { return part };
    let last = head_below_top(ctx, &cp, top);
    // Unnamed: the first bone above the shoulders that fans out into three or more branches
    // (eyes, jaw, a face rig), or the last candidate below it when it is a helper (Rigify's
    // `face`); else the top of the path.
    let attach = arms
        .iter()
        .flatten()
        .filter_map(|a| path.iter().position(|&x| x == a.attach))
        .max()
        .unwrap_or(0);
    let fan = (attach + 1..path.len()).find_map(|k| {
        let b = path[k];
        let branches = ctx.children[b.index()]
            .iter()
            .filter(|c| ctx.cand_below[c.index()])
            .count();
        if branches < 3 {
            return None;
        }
        let found = path[attach + 1..=k]
            .iter()
            .rev()
            .copied()
            .find(|x| cp.contains(x))?;
        // A container at the head's own joint (Character Creator's `FacialBone`, Rigify's
        // `face`) stands for the head's contents; the head is the bone it hangs from.
        let parent = ctx.sk.bones[found.index()]
            .parent
            .filter(|p| cp.contains(p));
        let same_joint = parent.is_some_and(|p| {
            ctx.pos[p.index()].distance(ctx.pos[found.index()]) < 0.01 * ctx.height
        });
        Some(if same_joint {
            parent.unwrap_or(found)
        } else {
            found
        })
    });
    let head = cp
        .iter()
        .copied()
        .find(|&b| ctx.ns("Head", b) >= 0.7)
        .or(fan)
        .unwrap_or(last);
    let at = |b: BoneId| cp.iter().position(|&x| x == b).unwrap_or(0);
    let h_i = at(head);
    let attach: Vec<usize> = arms.iter().flatten().map(|a| at(a.attach)).collect();
    let branch = attach.iter().copied().max().filter(|&k| k < h_i);
    let named_neck =
        (0..h_i).find(|&k| ctx.ns("Neck", cp[k]) >= 0.7 && Some(k) >= branch.map(|b| b.max(1)));
    // By shape (3ds Max Biped hangs the clavicles from the neck): the bone the arms hang from
    // has its joint clearly above where the arms start, so it is the neck.
    let arms_start = arms
        .iter()
        .flatten()
        .map(|a| ctx.pos[a.root.index()].y)
        .fold(f32::INFINITY, f32::min);
    let neck_by_shape = branch.filter(|&b| {
        b >= 2 && ctx.top(cp[b]) < 0.5 && ctx.pos[cp[b].index()].y > arms_start + 0.02 * ctx.height
    });
    let named_neck = named_neck.or(neck_by_shape);
    let (neck, upper) = match (named_neck, branch) {
        (Some(n), Some(b)) if n == b => (Some(n), (n >= 2).then(|| n - 1)),
        (Some(n), b) => (Some(n), b.filter(|&b| b < n)),
        (None, Some(b)) => ((b + 1 < h_i).then_some(b + 1), Some(b)),
        (None, None) => ((h_i >= 2).then(|| h_i - 1), None),
    };
    let spine_i = (h_i > 0 && neck != Some(0)).then_some(0);
    let mut upper = upper.filter(|&u| Some(u) != spine_i);
    // A two-bone spine: the upper bone, which the neck and shoulders hang from, is Chest (as
    // Godot's and Unity's auto-mappers and VRM have it), unless its name says upper chest.
    let direct = match (spine_i, upper) {
        (Some(s), Some(u)) if u == s + 1 => {
            let b = cp[u];
            (ctx.ns("UpperChest", b) < 0.7 || ctx.ns("Chest", b) > ctx.ns("UpperChest", b))
                .then_some(u)
        }
        _ => None,
    };
    if direct.is_some() {
        upper = None;
    }
    let chest = match (spine_i, upper) {
        (Some(s), Some(u)) if u > s + 1 => {
            let mid = (ctx.pos[cp[s].index()].y + ctx.pos[cp[u].index()].y) / 2.0;
            (s + 1..u).min_by(|&a, &b| {
                let d = |k: usize| (ctx.pos[cp[k].index()].y - mid).abs();
                d(a).total_cmp(&d(b))
            })
        }
        _ => direct,
    };
    let roles = [
        ("Spine", spine_i, "lowest bone of the spine"),
        (
            "Chest",
            chest,
            if direct.is_some() {
                "upper bone of a two-bone spine: the neck and shoulders hang from it"
            } else {
                "spine bone nearest mid-height between Spine and UpperChest"
            },
        ),
        ("UpperChest", upper, "the neck and shoulders hang from it"),
        ("Neck", neck, "first bone above the shoulders"),
        ("Head", Some(h_i), "top of the spine"),
    ];
    for (role, k, why) in roles {
        let Some(k) = k else { continue };
        let b = cp[k];
        let s = ctx.ns(role, b);
        part.score += 0.3 * s + ctx.fixed_term(role, b);
        let reason = if s >= 0.7 {
            format!("name `{}`; {why}", ctx.name(b))
        } else {
            why.to_string()
        };
        part.add(ctx, role, b, 0.7 + 0.3 * s, reason);
    }
    part
}

/// The bone standing for the top of the head when no name says head: the top of the spine
/// path, or the bone it hangs from when it is a weightless nub or one of a mirrored pair of
/// leaves (the eyes, the ears).
fn head_below_top(ctx: &Ctx, cp: &[BoneId], top: BoneId) -> BoneId {
    let Some(parent) = ctx.sk.bones[top.index()].parent.filter(|p| cp.contains(p)) else {
        return top;
    };
    let rel = |b: BoneId| ctx.pos[b.index()] - ctx.pos[parent.index()];
    let h = ctx.height;
    let leaf = |b: &BoneId| {
        !ctx.children[b.index()]
            .iter()
            .any(|c| ctx.cand_below[c.index()])
    };
    let mirrored = leaf(&top)
        && ctx.children[parent.index()].iter().any(|&s| {
            let (a, b) = (rel(top), rel(s));
            s != top
                && leaf(&s)
                && (a.y - b.y).abs() < 0.01 * h
                && (a.length() - b.length()).abs() < 0.005 * h
                && a.distance(b) > 0.01 * h
        });
    if mirrored || ctx.weightless_tip(top) {
        parent
    } else {
        top
    }
}

/// Eyes and jaw (by name, below the head) and Root (above the hips).
pub(super) fn face_and_root(ctx: &Ctx, trunk: &Trunk, part: &Part, facing: Facing) -> Part {
    let mut out = Part::default();
    let used: Vec<BoneId> = part.entries.iter().map(|(_, m)| m.bone).collect();
    let head = part
        .entries
        .iter()
        .find(|(id, _)| *id == ctx.pid("Head"))
        .map(|(_, m)| m.bone);
    if let Some(head) = head {
        let below: Vec<BoneId> = ctx
            .subtree(head)
            .into_iter()
            .filter(|b| *b != head && ctx.cand[b.index()] && !used.contains(b))
            .collect();
        let eye_side = |b: BoneId| {
            ctx.info[b.index()].side.unwrap_or_else(|| {
                if (ctx.pos[b.index()] - ctx.pos[head.index()]).dot(facing.left) >= 0.0 {
                    Side::Left
                } else {
                    Side::Right
                }
            })
        };
        for (role, side) in [
            ("LeftEye", Some(Side::Left)),
            ("RightEye", Some(Side::Right)),
            ("Jaw", None),
        ] {
            let best = below
                .iter()
                .copied()
                .filter(|&b| side.is_none_or(|s| eye_side(b) == s))
                .map(|b| (ctx.ns(role, b), b))
                .filter(|(s, _)| *s >= 0.6)
                .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
            if let Some((s, b)) = best {
                out.add(
                    ctx,
                    role,
                    b,
                    0.6 + 0.4 * s,
                    format!("name `{}` below the head", ctx.name(b)),
                );
            }
        }
    }
    let mut ancestors = Vec::new();
    let mut at = ctx.sk.bones[trunk.hips.index()].parent;
    while let Some(p) = at {
        if ctx.cand[p.index()] {
            ancestors.push(p);
        }
        at = ctx.sk.bones[p.index()].parent;
    }
    let named = ancestors
        .iter()
        .copied()
        .find(|&b| ctx.ns("Root", b) >= 0.5);
    let floor = ancestors
        .last()
        .copied()
        .filter(|&b| (ctx.pos[b.index()].y - ctx.ground).abs() < 0.1 * ctx.height);
    if let Some(b) = named {
        out.add(
            ctx,
            "Root",
            b,
            0.9,
            format!("name `{}` above the hips", ctx.name(b)),
        );
    } else if let Some(b) = floor {
        out.add(
            ctx,
            "Root",
            b,
            0.7,
            "top bone, on the floor below the hips".into(),
        );
    }
    out
}

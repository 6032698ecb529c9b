//! Fingers: every path of candidate bones from the hand to a leaf is a finger. Names say which
//! finger when they can (`index`, `pinky`, 3ds Max `Finger1`); otherwise the thumb is the path
//! pointing furthest from the others, and the rest are ordered across the palm from the thumb.

use super::limbs::{leaf_paths, mean_dir};
use super::{Ctx, Facing, Part};
use crate::model::BoneId;
use crate::profile::Side;
use glam::Vec3;

const FINGERS: [&str; 5] = ["Thumb", "Index", "Middle", "Ring", "Little"];

/// A joint no vertex uses, with nothing below it (while its parent is used), and nothing
/// attached to it.
fn weightless_leaf(ctx: &Ctx, b: BoneId) -> bool {
    ctx.weightless_tip(b) && !ctx.sk.attachments.iter().any(|a| a.parent == b)
}

/// Which finger a word of the bone's name names (0 thumb … 4 little), numbers aside.
pub(super) fn finger_word(ctx: &Ctx, b: BoneId) -> Option<usize> {
    let words = &ctx.info[b.index()].words;
    ["thumb", "index", "middle", "ring", "little"]
        .iter()
        .position(|f| words.iter().any(|w| w == f))
}

/// Which finger a bone's name states (0 thumb … 4 little).
fn named_finger(ctx: &Ctx, b: BoneId) -> Option<usize> {
    let info = &ctx.info[b.index()];
    if let Some(k) = finger_word(ctx, b) {
        return Some(k);
    }
    // MakeHuman: `finger1-2` is the thumb's second bone (fingers counted from 1).
    // 3ds Max Biped: `Finger0` is the thumb, `Finger1` the index, `Finger12` its third bone.
    if info.words.iter().any(|w| w == "finger") {
        if let [f, _, ..] = info.digits.as_slice() {
            let k = f.parse::<usize>().ok()?;
            return (1..=5).contains(&k).then(|| k - 1);
        }
        let d = info.digits.first()?;
        let k = d.chars().next()?.to_digit(10)? as usize;
        return (k < 5 && d.len() <= 2).then_some(k);
    }
    None
}

fn majority(votes: &[usize]) -> Option<usize> {
    let mut count = [0usize; 5];
    for &v in votes {
        count[v] += 1;
    }
    let best = (0..5).max_by_key(|&k| (count[k], std::cmp::Reverse(k)))?;
    (count[best] > 0).then_some(best)
}

pub(super) fn fingers(ctx: &Ctx, side: Side, root: BoneId, done: &Part, facing: Facing) -> Part {
    let mut part = Part::default();
    let used: Vec<BoneId> = done.entries.iter().map(|(_, m)| m.bone).collect();
    let paths = leaf_paths(ctx, root);
    // The hand itself and bones shared by several fingers (they sit in the palm) are no finger.
    let shared = |b: &BoneId| paths.iter().filter(|p| p.contains(b)).count() > 1;
    let all = paths.clone();
    let paths: Vec<Vec<BoneId>> = paths
        .iter()
        .map(|p| {
            p.iter()
                .copied()
                .filter(|b| *b != root && !used.contains(b) && !shared(b))
                .collect::<Vec<_>>()
        })
        .filter(|p| !p.is_empty())
        .collect();
    let mut ids: Vec<Option<usize>> = paths
        .iter()
        .map(|p| {
            majority(
                &p.iter()
                    .filter_map(|&b| named_finger(ctx, b))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    // A path that names no finger and ends within 40% of the farthest fingertip's reach is no
    // finger (an attachment, a socket, a corrective bone at the wrist).
    let root_at = ctx.pos[root.index()];
    let tip_reach = |p: &[BoneId]| ctx.pos[p[p.len() - 1].index()].distance(root_at);
    let farthest = paths.iter().map(|p| tip_reach(p)).fold(0.0f32, f32::max);
    // Where two or more paths name their finger, an unnamed one reaching over twice as far as
    // every named fingertip is a prop held in the hand (role01's bow `gongjian > Bone004…`
    // beside `Bip001 L Finger0` and `Finger1`, issue 43), not a finger.
    let named_reach = paths
        .iter()
        .zip(&ids)
        .filter(|(_, id)| id.is_some())
        .map(|(p, _)| tip_reach(p))
        .fold(0.0f32, f32::max);
    let prop = |p: &[BoneId]| {
        ids.iter().filter(|id| id.is_some()).count() >= 2 && tip_reach(p) > 2.0 * named_reach
    };
    let keep: Vec<bool> = paths
        .iter()
        .zip(&ids)
        .map(|(p, id)| {
            let helper = p.iter().all(|&b| ctx.weightless_tip(b));
            id.is_some() || (tip_reach(p) >= 0.4 * farthest && !helper && !prop(p))
        })
        .collect();
    let paths: Vec<Vec<BoneId>> = paths
        .into_iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(p, _)| p)
        .collect();
    ids = ids
        .into_iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(i, _)| i)
        .collect();
    // Fingers hanging from the forearm (no hand bone): palm bones that all start at one point
    // past the forearm's joint show where the wrist is (RobotExpressive).
    let pre = if side == Side::Right { "Right" } else { "Left" };
    let hand = ctx.pid(&format!("{pre}Hand"));
    let hand_missing = !done
        .entries
        .iter()
        .any(|(i, m)| *i == hand && m.bone == root);
    let firsts: Vec<Vec3> = paths.iter().map(|p| ctx.pos[p[0].index()]).collect();
    let near_eq = |a: Vec3, b: Vec3| a.distance(b) < 0.01 * ctx.height;
    let shared_start = firsts
        .iter()
        .copied()
        .find(|&a| firsts.iter().filter(|&&b| near_eq(a, b)).count() >= 2)
        .filter(|&a| hand_missing && !near_eq(a, ctx.pos[root.index()]));
    let named: Vec<bool> = ids.iter().map(Option::is_some).collect();
    guess(
        ctx,
        root,
        shared_start.unwrap_or(ctx.pos[root.index()]),
        &paths,
        &mut ids,
        facing,
    );
    let mut paths = paths;
    let mut named = named;
    // The thumb leaves the palm's chain wherever it hangs along it: a bone shared only by the
    // thumb and one other finger is that finger's (Quaternius's `Thumb1.R` hangs from
    // `MiddleHand.R`, its `Thumb1.L` from `Palm.L` beside `MiddleHand.L`: both hands alike).
    if let Some(t) = ids.iter().position(|i| *i == Some(0)) {
        for k in 0..paths.len() {
            if k == t || ids[k].is_none() {
                continue;
            }
            let full = |k: usize| all.iter().find(|a| a.last() == paths[k].last());
            let (Some(fk), Some(ft)) = (full(k), full(t)) else {
                continue;
            };
            let through = |b: &BoneId| all.iter().filter(|a| a.contains(b)).count();
            let lead: Vec<BoneId> = fk
                .iter()
                .copied()
                .filter(|b| {
                    *b != root
                        && !used.contains(b)
                        && ft.contains(b)
                        && through(b) == 2
                        && !paths[k].contains(b)
                })
                .collect();
            if lead.is_empty() {
                continue;
            }
            paths[k].splice(0..0, lead);
            if let Some(f) = majority(
                &paths[k]
                    .iter()
                    .filter_map(|&b| named_finger(ctx, b))
                    .collect::<Vec<_>>(),
            )
            .filter(|&f| f > 0 && (ids[k] == Some(f) || !ids.contains(&Some(f))))
            {
                ids[k] = Some(f);
                named[k] = true;
            }
        }
    }
    // A hand with one chain besides the thumb (a mitten: CMU's `Fingers`, Half-Life's
    // `Finger1`): unless a name says which finger it is, that chain stands for all four, so it
    // is the middle finger (whatever number a name gives).
    let others: Vec<usize> = (0..paths.len())
        .filter(|&k| ids[k].is_some_and(|f| f > 0))
        .collect();
    let says_which = |k: usize| {
        paths[k]
            .iter()
            .any(|&b| finger_word(ctx, b).is_some_and(|f| f > 0))
    };
    if let [k] = others[..] {
        if !says_which(k) {
            ids[k] = Some(2);
        }
    }
    let is_palm = |b: BoneId| {
        let info = &ctx.info[b.index()];
        let at_start = shared_start.is_some_and(|w| near_eq(ctx.pos[b.index()], w))
            && paths.iter().any(|p| p.len() > 2 && p[0] == b);
        info.palm || info.words == ["hand"] || at_start
    };
    // The wrist: the hand's joint, or where the palm bones start when the fingers hang from
    // the forearm.
    let wrist = if !hand_missing {
        ctx.pos[root.index()]
    } else {
        ctx.subtree(root)
            .into_iter()
            .find(|b| is_palm(*b))
            .map_or(ctx.pos[root.index()], |b| ctx.pos[b.index()])
    };
    // The knuckles: each finger's first bone that is no palm bone, by name or by shape (past
    // 30% of its fingertip's reach from the wrist).
    let knuckles = paths
        .iter()
        .zip(&ids)
        .filter(|(_, id)| id.is_some_and(|k| k > 0))
        .filter_map(|(p, _)| {
            let tip = ctx.pos[p[p.len() - 1].index()].distance(wrist);
            // As below: a two-bone chain's first bone short of 45% of the reach is in the palm.
            let palm_share = if p.len() == 2 { 0.45 } else { 0.3 };
            p.iter()
                .find(|b| !is_palm(**b) && ctx.pos[b.index()].distance(wrist) >= palm_share * tip)
        })
        .map(|b| ctx.pos[b.index()].distance(wrist))
        .fold(0.0f32, f32::max);
    // No single hand bone, but palm bones from one wrist point (RobotExpressive's `Palm1.L`,
    // `Palm2.L`, `Palm3.L` on the forearm, issue 43): the palm bone of the middle finger, or of
    // the finger chain nearest it, stands for the hand, as public maps of that rig have it
    // (`hand.L` ← `Palm2.L`).
    if let Some(w) = shared_start {
        let palm_of = |k: usize| {
            let p = &paths[k];
            (p.len() > 2 && near_eq(ctx.pos[p[0].index()], w)).then_some(p[0])
        };
        let middle = (0..paths.len())
            .filter(|&k| ids[k].is_some_and(|f| f > 0))
            .filter_map(|k| palm_of(k).map(|b| (ids[k].map_or(9, |f| f.abs_diff(2)), k, b)))
            .min();
        if let Some((_, _, palm)) = middle {
            part.score += 0.1;
            part.add(
                ctx,
                &format!("{pre}Hand"),
                palm,
                0.65,
                "palm bone of the middle finger: no single hand bone, the palm bones start at the wrist"
                    .into(),
            );
        }
    }
    let mut taken = [false; 5];
    for (k, path) in paths.iter().enumerate() {
        let Some(f) = ids[k] else { continue };
        if std::mem::replace(&mut taken[f], true) {
            continue;
        }
        let keep_palm = |b: &BoneId| !is_palm(*b) || (f == 0 && named_finger(ctx, *b) == Some(0));
        let mut bones: Vec<BoneId> = path.iter().copied().filter(keep_palm).collect();
        // A weightless joint at the tip (Mixamo's `LeftHandIndex4`) is an end bone.
        while bones.len() > 1 && bones.last().is_some_and(|b| weightless_leaf(ctx, *b)) {
            bones.pop();
        }
        let parts: [&str; 3] = if f == 0 {
            ["Metacarpal", "Proximal", "Distal"]
        } else {
            ["Proximal", "Intermediate", "Distal"]
        };
        let near = |b: BoneId| ctx.pos[b.index()].distance(wrist);
        let mut start = 0;
        if f == 0 {
            if bones.len() <= 2 && knuckles > 0.0 && near(bones[0]) > 0.5 * knuckles {
                start = 1;
            }
        } else {
            while bones.len() > 3 && knuckles > 0.0 && near(bones[0]) < 0.6 * knuckles {
                bones.remove(0);
            }
            // By shape: a first bone within 30% of the fingertip's reach from the wrist is a
            // metacarpal inside the palm (knuckles sit near half the reach).
            let tip = bones.last().map_or(0.0, |b| near(*b));
            while bones.len() > 3 && near(bones[0]) < 0.3 * tip {
                bones.remove(0);
            }
            // A two-bone chain whose first bone ends well short of the knuckles is a palm bone
            // and one finger bone (CMU's `lhand` and `LFingers`).
            if bones.len() == 2 && near(bones[0]) < 0.45 * tip {
                bones.remove(0);
            }
        }
        for (slot, b) in (start..3).zip(bones) {
            let role = format!("{pre}{}{}", FINGERS[f], parts[slot]);
            let how = if named[k] {
                "name"
            } else {
                "place across the palm"
            };
            part.score += 0.1;
            part.add(
                ctx,
                &role,
                b,
                if named[k] { 0.9 } else { 0.6 },
                format!(
                    "{} finger by {how}, bone {} from the hand",
                    FINGERS[f].to_lowercase(),
                    slot + 1
                ),
            );
        }
    }
    part
}

/// Gives unnamed finger paths an identity: the thumb points furthest from the hand's main
/// direction; the others are ordered from the thumb side across the palm.
fn guess(
    ctx: &Ctx,
    root: BoneId,
    wrist: Vec3,
    paths: &[Vec<BoneId>],
    ids: &mut [Option<usize>],
    facing: Facing,
) {
    if ids.iter().all(Option::is_some) || paths.is_empty() {
        return;
    }
    // Each finger's base: its first bone away from the wrist (palm bones that start at the
    // wrist say nothing about the order across the palm).
    let base = |k: usize| {
        paths[k]
            .iter()
            .map(|b| ctx.pos[b.index()])
            .find(|p| p.distance(wrist) > 0.01 * ctx.height)
            .unwrap_or(ctx.pos[paths[k][0].index()])
    };
    let tip = |k: usize| ctx.pos[paths[k][paths[k].len() - 1].index()];
    let dir = mean_dir(wrist, (0..paths.len()).map(tip));
    let free: Vec<usize> = (0..paths.len()).filter(|&k| ids[k].is_none()).collect();
    let has = |ids: &[Option<usize>], f: usize| ids.contains(&Some(f));
    if !has(ids, 0) && paths.len() == 2 {
        // Two branches (CMU: a thumb and one chain for the fingers): the thumb is the one
        // pointing further away from the forearm's line, when the two part by over 25°.
        let arm = ctx.sk.bones[root.index()]
            .parent
            .map_or(dir, |p| (wrist - ctx.pos[p.index()]).normalize_or_zero());
        let off = |k: usize| (tip(k) - wrist).normalize_or_zero().angle_between(arm);
        let apart = (tip(0) - wrist)
            .normalize_or_zero()
            .angle_between((tip(1) - wrist).normalize_or_zero());
        let t = if off(0) > off(1) { 0 } else { 1 };
        if apart.to_degrees() > 25.0 && ids[t].is_none() {
            ids[t] = Some(0);
        }
    }
    if !has(ids, 0) && paths.len() >= 3 {
        let angle = |k: usize| (tip(k) - wrist).normalize_or_zero().angle_between(dir);
        if let Some(&t) = free
            .iter()
            .max_by(|a, b| angle(**a).total_cmp(&angle(**b)).then(b.cmp(a)))
        {
            if angle(t).to_degrees() > 20.0 {
                ids[t] = Some(0);
            }
        }
    }
    let across = match ids.iter().position(|i| *i == Some(0)) {
        Some(t) => {
            let v = base(t) - wrist;
            (v - dir * v.dot(dir)).normalize_or_zero()
        }
        None => facing.left.cross(Vec3::Y),
    };
    let mut rest: Vec<usize> = (0..paths.len()).filter(|&k| ids[k].is_none()).collect();
    rest.sort_by(|&a, &b| {
        (base(b) - wrist)
            .dot(across)
            .total_cmp(&(base(a) - wrist).dot(across))
            .then(a.cmp(&b))
    });
    let order: &[usize] = match rest.len() {
        // One chain besides the thumb stands for all four fingers: the middle one.
        1 => &[2],
        2 => &[1, 2],
        3 => &[1, 2, 3],
        _ => &[1, 2, 3, 4],
    };
    let mut slots = order
        .iter()
        .copied()
        .filter(|f| !has(ids, *f))
        .collect::<Vec<_>>()
        .into_iter();
    for k in rest {
        ids[k] = slots.next();
    }
}

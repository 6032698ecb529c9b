//! Deform bones in pieces (issue 43): an export that leaves a control rig's bones out (Blender's
//! glTF "deform bones only" on a Rigify rig) hangs most deform bones straight from the armature
//! node, and a whole Rigify rig hangs them from ORG and MCH bones the mapper does not map. The
//! rest then shows no body: no hips has two legs below it. When that happens, [`joined`] gives
//! the mapper a view of the skeleton in which every such piece hangs from the bone it lies on,
//! so the body can be read as usual; the map's bone ids stay those of the real skeleton.

use super::{Ctx, Mapped};
use crate::model::{BoneId, Skeleton, Transform, Warning, WarningCode};
use crate::profile::Profile;
use glam::Vec3;

/// How far past its head a bone with no mapped child reaches along its +Y axis, as a fraction
/// of the body's height (a shoulder's tail at the upper arm, a pelvis's near the thigh).
const REACH: f32 = 0.15;

/// How much farther than the nearest bone a later bone may lie and still be chosen, as a
/// fraction of the body's height: near a joint, a piece hangs from the bone that starts there
/// (Rigify's jaw from the head rather than the top of the neck).
const TIE: f32 = 0.005;

/// How near a one-bone piece's line a chain must start to hang from it, as a fraction of the
/// body's height.
const TOUCH: f32 = 0.03;

/// A copy of the skeleton in which every piece (a candidate whose nearest candidate ancestor
/// is absent or no skin joint: the armature node) after the first hangs from the earlier
/// candidate it lies nearest to: the segment from a bone's head to its mapped children's heads,
/// or from its head along its +Y axis for at most [`REACH`] of the height. A piece of one bone
/// (a face bone, a shoulder, a pelvis) is no place to hang another piece from, except for a
/// chain starting within [`TOUCH`] of the line it points along (the upper arm at the shoulder's
/// tail), so that a face of loose bones hangs from the head rather than from itself. Only the
/// pieces' parents (and their local rests, so that every world rest stays) change, and each new
/// parent comes earlier in bone order. `None` when there is at most one piece.
pub(super) fn joined(ctx: &Ctx) -> Option<Skeleton> {
    let sk = ctx.sk;
    let n = sk.bones.len();
    let skinned = sk.bones.iter().any(|b| b.is_joint);
    let host = |b: usize| ctx.cand[b] && (!skinned || sk.bones[b].is_joint);
    let mut view_parent: Vec<Option<usize>> = vec![None; n];
    for (i, vp) in view_parent.iter_mut().enumerate() {
        let mut at = sk.bones[i].parent;
        while let Some(p) = at {
            if ctx.cand[p.index()] {
                break;
            }
            at = sk.bones[p.index()].parent;
        }
        *vp = at.map(|p| p.index()).filter(|&p| host(p));
    }
    // The piece every host bone belongs to (its root), and how many bones each piece has.
    let mut piece = vec![usize::MAX; n];
    let mut size = vec![0usize; n];
    for i in (0..n).filter(|&i| host(i)) {
        piece[i] = view_parent[i].map_or(i, |p| piece[p]);
        size[piece[i]] += 1;
    }
    let roots: Vec<usize> = (0..n).filter(|&i| piece[i] == i).collect();
    if roots.len() < 2 {
        return None;
    }
    let world = sk.rest_world();
    let (reach, touch, tie) = (REACH * ctx.height, TOUCH * ctx.height, TIE * ctx.height);
    let mut out = sk.clone();
    for &r in &roots[1..] {
        let at = ctx.pos[r];
        let chain = size[r] > 1;
        let near: Vec<(f32, usize)> = (0..r)
            .filter(|&b| host(b))
            .filter_map(|b| {
                let head = ctx.pos[b];
                let kids: Vec<Vec3> = (b + 1..n)
                    .filter(|&c| host(c) && view_parent[c] == Some(b))
                    .map(|c| ctx.pos[c])
                    .collect();
                let d = if kids.is_empty() {
                    let axis = world[b].y_axis.truncate().normalize_or_zero();
                    segment_distance(at, head, head + axis * reach)
                } else {
                    kids.iter()
                        .map(|&k| segment_distance(at, head, k))
                        .fold(f32::INFINITY, f32::min)
                };
                let whole = piece[b] == roots[0] || size[piece[b]] > 1;
                (whole || (chain && d <= touch)).then_some((d, b))
            })
            .collect();
        // Near a joint, the bone that starts there (the last within TIE of the nearest).
        let least = near.iter().map(|x| x.0).fold(f32::INFINITY, f32::min);
        let Some(&(_, b)) = near.iter().rev().find(|x| x.0 <= least + tie) else {
            continue;
        };
        out.bones[r].parent = Some(BoneId(b as u32));
        out.bones[r].rest = Transform::from_mat4(&(world[b].inverse() * world[r]));
    }
    Some(out)
}

/// The [`WarningCode::IkLayout`] warning of a map read from the joined view: the profile bones
/// whose source bone does not hang below the source bone of their nearest mapped profile
/// ancestor in the real skeleton; `None` when every one does.
pub(super) fn warning(sk: &Skeleton, profile: &Profile, map: &[Option<Mapped>]) -> Option<Warning> {
    let bones: Vec<String> = profile
        .ids()
        .filter(|&id| {
            let Some(m) = &map[id.index()] else {
                return false;
            };
            let mut up = profile.bone(id).parent;
            while let Some(p) = up {
                if let Some(pm) = &map[p.index()] {
                    return !sk.is_ancestor(pm.bone, m.bone);
                }
                up = profile.bone(p).parent;
            }
            false
        })
        .map(|id| profile.bone(id).name.clone())
        .collect();
    if bones.is_empty() {
        return None;
    }
    Some(Warning {
        code: WarningCode::IkLayout,
        skeleton: None,
        message: format!(
            "the deform bones come in pieces (a deform-only export, or a control rig's deform \
             layer): {} do not hang below the bones their profile parents map to; they were \
             placed by where they lie, and stages drive each from its chain",
            bones.join(", ")
        ),
        bones,
        clips: Vec::new(),
        chain: None,
    })
}

/// Distance from `p` to the segment from `a` to `b`.
fn segment_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let d = b - a;
    let t = if d.length_squared() > 0.0 {
        ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + d * t)
}

#[cfg(test)]
mod tests {
    use super::segment_distance;
    use glam::Vec3;

    #[test]
    fn distance_to_a_segment_clamps_at_its_ends() {
        let (a, b) = (Vec3::ZERO, Vec3::Y);
        assert!((segment_distance(Vec3::new(1.0, 0.5, 0.0), a, b) - 1.0).abs() < 1e-6);
        assert!((segment_distance(Vec3::new(0.0, 3.0, 0.0), a, b) - 2.0).abs() < 1e-6);
        assert!((segment_distance(Vec3::new(0.0, -1.0, 0.0), a, a) - 1.0).abs() < 1e-6);
    }
}

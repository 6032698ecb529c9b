//! Steps 1–3 of the rest fix, computed without changing anything: the new base and facing, the
//! silhouette-fixed rest, and each bone's change of frame `F_i` (old frame → new frame).

use super::sim::{nearest_quarter_turn, twist_between, Sim};
use super::{BaseFold, BoneRest, RestOptions};
use crate::mapping::BoneMap;
use crate::model::{
    angle_deg, arc, turn_deg, BoneId, Model, OpaqueKind, Skeleton, SkeletonId, Transform, Warning,
    WarningCode,
};
use crate::profile::{reference_tail, Profile, ProfileBoneId, Side, Tail, MAX_TAIL_DEG};
use glam::{Mat4, Quat, Vec3};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The silhouette fix leaves turns smaller than this alone, degrees (rounding noise, and what
/// makes normalizing a normalized file change nothing).
const MIN_TURN_DEG: f32 = 1e-3;

/// Largest relative spread of a scale's axes still taken as uniform: a few f32 roundings, as
/// exporters leave them (CesiumMan's scale keys spread up to 1.4e-6; RobotExpressive's legs are
/// really non-uniform at 1.5e-5 to 2.7e-5).
const SCALE_NOISE: f32 = 5e-6;

/// Bones whose rest or scale keys are not uniform: turning their frames cannot be exact, so
/// they keep their axes.
fn locked_bones(model: &Model, k: SkeletonId) -> Vec<bool> {
    let uneven = |v: &Vec3| {
        let (lo, hi) = (v.abs().min_element(), v.abs().max_element());
        hi - lo > SCALE_NOISE * hi
    };
    let mut locked: Vec<bool> = model
        .skeleton(k)
        .bones
        .iter()
        .map(|b| uneven(&b.rest.scale))
        .collect();
    for clip in model.clips.iter().filter(|c| c.skeleton == k) {
        for (i, t) in clip.tracks.iter().enumerate() {
            if t.scale
                .as_ref()
                .is_some_and(|t| t.values.iter().any(uneven))
            {
                locked[i] = true;
            }
        }
    }
    locked
}

/// Everything [`super::convert`] needs to change the model.
pub(super) struct Plan {
    /// Maps the old space of the roots' parent into the new one (the `A` of a root's keys).
    pub top: Sim,
    /// The skeleton's new base transform (identity, or the turn that keeps the scene as it was).
    pub new_base: Mat4,
    /// The turn the whole scene takes (so the character faces +Z in it), if it takes one.
    pub scene_turn: Option<Quat>,
    /// The rotation of the space the new rest was made in, relative to the space the roots
    /// live in: the part of the base that stays above the skeleton (identity when it folds).
    pub frame: Quat,
    pub base: BaseFold,
    pub facing_turn_deg: f32,
    /// Local rests after the silhouette fix, before the change of frames.
    pub rests: Vec<Transform>,
    /// Change of frame per bone: new world = old world · `F_i`, at rest and in every frame.
    pub frames: Vec<Sim>,
    /// The old rest rotation of bones whose local rest rotation the silhouette fix changed.
    pub changed: Vec<Option<Quat>>,
    /// The old rest translation of bones the silhouette fix moved (a foot of an IK layout,
    /// carried along by its shin).
    pub moved: Vec<Option<Vec3>>,
    /// Hips height in the new rest (metres), and the bones whose translations motion scale
    /// divides.
    pub hips_height: Option<f32>,
    pub motion_bones: Vec<BoneId>,
    pub bones: Vec<BoneRest>,
    pub warnings: Vec<Warning>,
}

fn warn(code: WarningCode, bone: Option<&str>, message: String) -> Warning {
    Warning {
        code,
        skeleton: None,
        message,
        bones: bone.map(str::to_string).into_iter().collect(),
        clips: Vec::new(),
        chain: None,
    }
}

pub(super) fn plan(
    model: &Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &RestOptions,
    kept: Vec<bool>,
) -> Plan {
    let s = model.skeleton(k);
    let mut warnings = Vec::new();
    let original: Vec<Sim> = s.bones.iter().map(|b| Sim::approx(&b.rest)).collect();
    let locked = locked_bones(model, k);
    let facing = fold_and_face(model, k, map, profile, options, &original, &mut warnings);
    // Geometry is judged in the scene: under the part of the base that stays above the
    // skeleton (an animated armature node) as well as the part folded in.
    let top = facing.space.mul(facing.top);
    let shape = Shape::new(
        s,
        map,
        profile,
        &s.accumulate(top, original.iter().copied(), Sim::mul),
        kept,
    );
    let fixed = silhouette_pass(&shape, top, &original, options, &mut warnings);
    let frames = change_of_frames(&shape, &fixed, &locked, options);
    warn_locked(s, &locked, &frames.uneven, &mut warnings);
    let rests = s
        .bones
        .iter()
        .zip(&fixed.locals)
        .map(|(b, l)| Transform {
            rotation: l.r,
            translation: l.t,
            ..b.rest
        })
        .collect();
    let changed = original
        .iter()
        .zip(&fixed.locals)
        .map(|(o, n)| (o.r != n.r).then_some(o.r))
        .collect();
    let moved = original
        .iter()
        .zip(&fixed.locals)
        .map(|(o, n)| (o.t != n.t).then_some(o.t))
        .collect();
    let hips = profile.scale_base.and_then(|h| map.get(h));
    let motion_bones = [profile.root, profile.scale_base]
        .into_iter()
        .flatten()
        .filter_map(|p| map.get(p))
        .collect();
    Plan {
        top: facing.top,
        new_base: facing.new_base,
        scene_turn: facing.scene_turn,
        frame: facing.space.r,
        base: facing.base,
        facing_turn_deg: facing.turn as f32 * 90.0,
        rests,
        frames: frames.frames,
        changed,
        moved,
        // In the units of the roots' parent space, whose keys motion scale divides.
        hips_height: hips.map(|h| frames.targets[h.index()].t.y / facing.space.s),
        motion_bones,
        bones: frames.bones,
        warnings,
    }
}

/// Warns about the bones whose scale is not uniform: unmapped ones keep their axes, mapped ones
/// (`uneven`: index, frame and +Y errors in degrees) turn by quarter turns only, which keeps
/// their skin exact but may leave their frame off the profile's.
fn warn_locked(
    s: &Skeleton,
    locked: &[bool],
    uneven: &[(usize, f32, f32)],
    warnings: &mut Vec<Warning>,
) {
    if !locked.contains(&true) {
        return;
    }
    let bones: Vec<String> = (0..locked.len())
        .filter(|&i| locked[i])
        .map(|i| s.bones[i].name.clone())
        .collect();
    let measured: Vec<String> = uneven
        .iter()
        .map(|&(i, frame, tail)| {
            format!(
                "{}: frame {frame:.2}° from the profile's, +Y {tail:.2}° from its tail",
                s.bones[i].name
            )
        })
        .collect();
    let mut message = format!(
        "bones with a non-uniform scale turn their axes by quarter turns only (no other turn keeps them exact): {}",
        bones.join(", ")
    );
    if !measured.is_empty() {
        message += &format!("; mapped ones: {}", measured.join("; "));
    }
    warnings.push(Warning {
        bones,
        ..warn(WarningCode::NonUniformScale, None, message)
    });
}

/// Step 1: what becomes of the nodes above the skeleton, and the facing turn.
struct Facing {
    /// Maps the old space of the roots' parent into the new one: the folded base, turned.
    top: Sim,
    /// The part of the base that stays above the skeleton, as a similarity (identity when it
    /// is folded in or is not one), under the model's view turn: the space the new rest is
    /// judged in is `space · top`.
    space: Sim,
    /// The skeleton's new base transform.
    new_base: Mat4,
    /// The turn the whole scene takes, if it takes one.
    scene_turn: Option<Quat>,
    base: BaseFold,
    /// Quarter turns about +Y.
    turn: i32,
}

/// Folds the nodes above the skeleton in (where it may) and finds the turn that makes the
/// character face +Z, from the original local rests `original`. The whole scene takes the turn,
/// leaving identity transforms above the skeleton, unless the options keep the scene's
/// transform or the scene cannot turn as one (several skeletons, nodes above not folded).
fn fold_and_face(
    model: &Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &RestOptions,
    original: &[Sim],
    warnings: &mut Vec<Warning>,
) -> Facing {
    let s = model.skeleton(k);
    let (top0, keep, base, can_turn) = fold(model, k, options, warnings);
    let kept = if keep.abs_diff_eq(Mat4::IDENTITY, 1e-7) {
        Sim::IDENTITY
    } else {
        Sim::from_mat4(&keep).unwrap_or(Sim::IDENTITY)
    };
    // The character is judged as the file's clients show it: under the turn they give the
    // scene on load (VRM 0.x: 180°), so it faces +Z there and −Z in the file.
    let space = Sim::rotation(model.view_turn).mul(kept);
    let turn = if options.fix_facing && can_turn {
        let world = s.accumulate(space.mul(top0), original.iter().copied(), Sim::mul);
        facing_turn(s, &world, map, profile, warnings)
    } else {
        0
    };
    let turn_q = Quat::from_rotation_y(turn as f32 * std::f32::consts::FRAC_PI_2);
    // The turn is about the scene's +Y; inside the skeleton, under the part of the base that
    // stays (`space`), it is that turn seen from there.
    let inside = space.inverse().mul(Sim::rotation(turn_q)).mul(space);
    let scene_kept = if options.keep_scene_transform || turn == 0 {
        None
    } else if model.skeletons.len() > 1 {
        Some("the file has several skeletons, which may face different ways".to_string())
    } else if !keep.abs_diff_eq(Mat4::IDENTITY, 1e-7) {
        Some("the nodes above the skeleton were not folded in".to_string())
    } else {
        animated_other_node(model, s).map(|n| {
            format!("a clip moves node {n}, which is no bone and whose keys would not turn")
        })
    };
    if let Some(why) = &scene_kept {
        warnings.push(warn(
            WarningCode::SceneKept,
            None,
            format!(
                "skeleton `{}` was turned {}° inside its node, whose opposite turn keeps it facing as before in the scene: {why}",
                s.name,
                turn * 90
            ),
        ));
    }
    let turn_scene = turn != 0 && !options.keep_scene_transform && scene_kept.is_none();
    Facing {
        top: inside.mul(top0),
        space,
        new_base: if turn_scene {
            keep
        } else {
            keep * inside.inverse().to_mat4()
        },
        scene_turn: turn_scene.then_some(turn_q),
        base,
        turn,
    }
}

/// A node that a clip of the model moves (translation, rotation or scale keys) and that is
/// neither a bone nor hangs from one of `s`'s bones: turning the scene would turn its rest but
/// not its keys.
fn animated_other_node(model: &Model, s: &Skeleton) -> Option<u32> {
    let placed = |n: u32| s.attachments.iter().any(|a| a.node == Some(n));
    model
        .clips
        .iter()
        .flat_map(|c| &c.opaque)
        .find_map(|o| match &o.kind {
            OpaqueKind::NodeTransform { node, .. } if !placed(*node) => Some(*node),
            _ => None,
        })
}

/// Step 2's result: the rest after the silhouette fix.
struct Silhouette {
    /// World transform of every bone (under the plan's `top`).
    world: Vec<Sim>,
    /// Local rests.
    locals: Vec<Sim>,
    /// The turn the fix gave each bone, degrees (0 for bones it left alone).
    turned: Vec<f32>,
}

/// Step 2: turns mapped bones at rest, parents first, so they point where the profile's bones
/// point; each bone's turn is found after its parent's turns are applied. A bone carried by
/// another (an IK layout's foot, carried by its shin) first moves to where that bone carries it.
/// A turned bone leaves in place the mapped children that the profile hangs elsewhere: a 3ds
/// Max Biped hangs its clavicles from `Bip001 Neck`, and turning a stooped neck up to its head
/// must not swing the shoulders round it (wiseMan, issue 43); the next pass would turn the
/// chest again.
fn silhouette_pass(
    shape: &Shape,
    top: Sim,
    original: &[Sim],
    options: &RestOptions,
    warnings: &mut Vec<Warning>,
) -> Silhouette {
    let mut locals = original.to_vec();
    let mut turned = vec![0.0f32; original.len()];
    // Whether a bone's world rest differs from its original one.
    let mut moved = vec![false; original.len()];
    let mut world = vec![Sim::IDENTITY; original.len()];
    let children = shape.s.children();
    let mut visited = vec![false; original.len()];
    for &i in &shape.order {
        let parent = shape.s.parent_world(BoneId(i as u32), top, &world);
        let parent_moved = shape.s.bones[i].parent.is_some_and(|p| moved[p.index()]);
        let mut carried = false;
        if let Some((c, at)) = shape.carried[i] {
            if moved[c] || parent_moved {
                locals[i].t = parent.inverse().point(world[c].point(at));
                carried = true;
            }
        }
        world[i] = parent.mul(locals[i]);
        if let Some(q) = silhouette_turn(shape, i, &world[i], &locals, options, warnings) {
            let angle = turn_deg(q);
            if angle > options.silhouette_threshold_deg.max(MIN_TURN_DEG) {
                let before = world[i];
                let turn_local = parent.r.conjugate() * q * parent.r;
                locals[i].r = (turn_local * locals[i].r).normalize();
                turned[i] = angle;
                world[i] = parent.mul(locals[i]);
                let back = world[i].inverse().mul(before);
                for c in &children[i] {
                    if shape.hung_elsewhere(i, c.index()) {
                        locals[c.index()] = back.mul(locals[c.index()]);
                    }
                }
                for &p in &shape.palms[i] {
                    if !visited[p] {
                        locals[p].r = (turn_local * locals[p].r).normalize();
                    }
                }
            }
        }
        moved[i] = parent_moved || carried || turned[i] > 0.0;
        visited[i] = true;
    }
    Silhouette {
        world,
        locals,
        turned,
    }
}

/// The global turn the silhouette fix wants for bone `i` (world transform `w`), or `None` when
/// the bone is unmapped, kept as it is, skipped by the options, or has nothing to point at.
fn silhouette_turn(
    shape: &Shape,
    i: usize,
    w: &Sim,
    locals: &[Sim],
    options: &RestOptions,
    warnings: &mut Vec<Warning>,
) -> Option<Quat> {
    let pk = shape.map.profile_bone_of(BoneId(i as u32))?;
    if shape.kept[i] {
        return None;
    }
    let skip = options
        .silhouette_skip
        .iter()
        .any(|n| *n == shape.profile.bone(pk).name);
    if !options.fix_silhouette || skip {
        return None;
    }
    shape.silhouette(i, pk, w, locals, options, warnings)
}

/// Step 3's result, per bone.
struct Frames {
    /// The new global rest frame (unit scale).
    targets: Vec<Sim>,
    /// The change of frame `F_i`.
    frames: Vec<Sim>,
    bones: Vec<BoneRest>,
    /// Mapped bones with a non-uniform scale: index, how far their frame (turned by quarter
    /// turns only) lies from the one wanted, and their +Y from their tail, degrees.
    uneven: Vec<(usize, f32, f32)>,
}

/// Step 3: mapped bones take the profile's global rest rotation (turned the least so that +Y
/// points at the tail), unmapped and kept bones keep theirs, and locked ones (non-uniform scale) take
/// the quarter turn of theirs nearest it; every frame drops its scale.
fn change_of_frames(
    shape: &Shape,
    fixed: &Silhouette,
    locked: &[bool],
    options: &RestOptions,
) -> Frames {
    let (s, map, profile) = (shape.s, shape.map, shape.profile);
    let reference = profile.reference_rotations();
    let mut targets = Vec::with_capacity(s.bones.len());
    let mut frames = Vec::with_capacity(s.bones.len());
    let mut bones = Vec::with_capacity(s.bones.len());
    let mut uneven = Vec::new();
    for (i, w) in fixed.world.iter().enumerate() {
        let pk = map.profile_bone_of(BoneId(i as u32));
        let r = match pk {
            Some(pk) if options.overwrite_axes && !shape.kept[i] => {
                let p = reference[pk.index()];
                // The profile's frame, turned the least so that +Y points at the tail: a no-op
                // after an exact silhouette fix, except for feet that keep their pitch and bones
                // whose tail is not where the profile's frame points (a forearm pointing at its
                // fingers when there is no hand bone).
                match shape.tail(i, pk, w, &fixed.locals) {
                    Some((d, ..)) => arc(p * Vec3::Y, d) * p,
                    None => p,
                }
            }
            _ => w.r,
        };
        // A frame within rounding of the one the bone has is the one it has: normalizing a
        // normalized rig then changes nothing (the turn would be float noise).
        let snapped = turn_deg(w.r.conjugate() * r) < MIN_TURN_DEG;
        let r = if snapped { w.r } else { r };
        let x = Sim {
            t: w.t,
            r: r.normalize(),
            s: 1.0,
        };
        // Unmapped bones keep their axes exactly (no rounding noise); locked ones turn by
        // quarter turns only, which keep their scale a scale along their axes.
        let keep = snapped || !(pk.is_some() && options.overwrite_axes);
        let turn = (w.r.conjugate() * x.r).normalize();
        let turn = if locked[i] && !keep {
            let quarter = nearest_quarter_turn(turn);
            let missed = turn_deg(quarter.conjugate() * turn);
            let tail = shape.tail(i, pk.expect("mapped"), w, &fixed.locals);
            let off_tail = tail.map_or(0.0, |(d, ..)| angle_deg((w.r * quarter) * Vec3::Y, d));
            uneven.push((i, missed, off_tail));
            quarter
        } else {
            turn
        };
        let f = Sim {
            t: Vec3::ZERO,
            r: if keep { Quat::IDENTITY } else { turn },
            // A world scale within rounding of 1 is 1: normalizing a normalized rig then keeps
            // its bones exactly (any F keeps the skin; this one changes nothing).
            s: if (w.s - 1.0).abs() <= SCALE_NOISE {
                1.0
            } else {
                1.0 / w.s
            },
        };
        bones.push(BoneRest {
            bone: s.bones[i].name.clone(),
            profile: pk.map(|p| profile.bone(p).name.clone()),
            silhouette_deg: fixed.turned[i],
            axes_deg: turn_deg(f.r),
        });
        targets.push(x);
        frames.push(f);
    }
    Frames {
        targets,
        frames,
        bones,
        uneven,
    }
}

/// Decides whether the nodes above the skeleton fold into it. Returns the part of the base
/// folded in (`top0`), the part kept above the skeleton, the report, and whether the base may
/// change at all (needed to turn the character).
fn fold(
    model: &Model,
    k: SkeletonId,
    options: &RestOptions,
    warnings: &mut Vec<Warning>,
) -> (Sim, Mat4, BaseFold, bool) {
    let s = model.skeleton(k);
    let (scale, rotation, _) = s.base.to_scale_rotation_translation();
    let report = |folded| BaseFold {
        folded,
        scale: scale.x,
        rotation_deg: rotation.angle_between(Quat::IDENTITY).to_degrees(),
    };
    let animated = model.clips.iter().filter(|c| c.skeleton == k).any(|c| {
        c.opaque
            .iter()
            .any(|o| matches!(&o.kind, OpaqueKind::NodeTransform { node, .. } if s.base_nodes.contains(node)))
    });
    let shared = s.base_nodes.last().is_some_and(|last| {
        model
            .skeleton_ids()
            .zip(&model.skeletons)
            .any(|(j, o)| j != k && o.base_nodes.last() == Some(last))
    });
    let why = if animated {
        Some("a clip animates a node above the skeleton")
    } else if shared {
        Some("another skeleton hangs from the same node")
    } else {
        None
    };
    let sim = Sim::from_mat4(&s.base);
    let identity = s.base.abs_diff_eq(Mat4::IDENTITY, 1e-7);
    if let Some(why) = why {
        if !identity {
            warnings.push(warn(
                WarningCode::BaseNotFolded,
                None,
                format!("nodes above skeleton `{}` not folded in: {why}", s.name),
            ));
        }
        return (Sim::IDENTITY, s.base, report(false), false);
    }
    match sim {
        Some(sim) if options.apply_node_transforms => {
            (sim, Mat4::IDENTITY, report(!identity), true)
        }
        _ => {
            if options.apply_node_transforms && !identity {
                warnings.push(warn(
                    WarningCode::BaseNotFolded,
                    None,
                    format!(
                        "nodes above skeleton `{}` not folded in: their scale {:?} is not uniform and positive (or they shear)",
                        s.name,
                        scale.to_array()
                    ),
                ));
            }
            (Sim::IDENTITY, s.base, report(false), true)
        }
    }
}

/// Quarter turns about +Y that make the character's left (mapped left-side bones minus
/// right-side ones) point along +X.
fn facing_turn(
    s: &Skeleton,
    world: &[Sim],
    map: &BoneMap,
    profile: &Profile,
    warnings: &mut Vec<Warning>,
) -> i32 {
    let mean = |side: Side| {
        let ps: Vec<Vec3> = profile
            .ids()
            .filter(|&p| profile.bone(p).side == side)
            .filter_map(|p| map.get(p))
            .map(|b| world[b.index()].t)
            .collect();
        (!ps.is_empty()).then(|| ps.iter().sum::<Vec3>() / ps.len() as f32)
    };
    let left = match (mean(Side::Left), mean(Side::Right)) {
        (Some(l), Some(r)) => Vec3::new(l.x - r.x, 0.0, l.z - r.z),
        _ => Vec3::ZERO,
    };
    if left.length_squared() < 1e-12 {
        warnings.push(warn(
            WarningCode::NoFacing,
            None,
            format!(
                "skeleton `{}`: no mapped bones on both sides, facing left as it is",
                s.name
            ),
        ));
        return 0;
    }
    (0..4)
        .max_by(|&a, &b| {
            let x =
                |k: i32| (Quat::from_rotation_y(k as f32 * std::f32::consts::FRAC_PI_2) * left).x;
            x(a).total_cmp(&x(b))
        })
        .map_or(0, |k| if k == 3 { -1 } else { k })
}

/// The profile and skeleton geometry the silhouette fix compares.
struct Shape<'a> {
    s: &'a Skeleton,
    map: &'a BoneMap,
    profile: &'a Profile,
    reference: Vec<Vec3>,
    /// Per bone, the mapped bone that carries it and its joint in that bone's frame at the
    /// original rest: a mapped bone that some mapped bone points at but that hangs elsewhere in
    /// the hierarchy (an IK layout's foot, on the root or an IK control, carried by its shin).
    carried: Vec<Option<(usize, Vec3)>>,
    /// The order the silhouette pass visits bones in: parents and carriers first.
    order: Vec<usize>,
    /// Tails shorter than this lie on their bone's joint (see [`BoneMap::MIN_TAIL`]).
    min_tail: f32,
    /// Per bone, whether it keeps its rest as it is (a mirrored bone whose reflection cannot
    /// be folded out, and every bone below it): no turn of its own, its frame unchanged.
    kept: Vec<bool>,
    /// Per mapped bone, its unmapped siblings that start at its joint with mapped bones below
    /// them: palm bones beside the one mapped as the hand (RobotExpressive's `Palm1.L` and
    /// `Palm3.L` beside `Palm2.L`), which turn with it, as one hand.
    palms: Vec<Vec<usize>>,
}

impl<'a> Shape<'a> {
    /// The shape of `s` mapped by `map`, with `world` its original world rests and `kept` the
    /// bones that keep their rest.
    fn new(
        s: &'a Skeleton,
        map: &'a BoneMap,
        profile: &'a Profile,
        world: &[Sim],
        kept: Vec<bool>,
    ) -> Self {
        let mut carried = vec![None; s.bones.len()];
        for pk in profile.ids() {
            let (Some(i), Some(tails)) = (map.get(pk), map.tail_bones(profile, pk)) else {
                continue;
            };
            // Only the next joint of a chain (a shin's foot), not one of several branches (an
            // upper chest's shoulders hanging from a bone below it).
            if tails.len() != 1 {
                continue;
            }
            for j in tails.iter().filter_map(|&t| map.get(t)) {
                let free = j != i && !s.is_ancestor(i, j) && !s.is_ancestor(j, i);
                if free && carried[j.index()].is_none() {
                    let at = world[i.index()].inverse().point(world[j.index()].t);
                    carried[j.index()] = Some((i.index(), at));
                }
            }
        }
        let order = visit_order(s, &carried).unwrap_or_else(|| {
            // Carriers that would have to come after what they carry: carry nothing.
            carried.iter_mut().for_each(|c| *c = None);
            (0..s.bones.len()).collect()
        });
        let (lo, hi) = world.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), w| {
            (lo.min(w.t), hi.max(w.t))
        });
        let min_tail = BoneMap::MIN_TAIL * (hi - lo).max(Vec3::ZERO).length();
        let palms = palm_siblings(s, map, world, min_tail);
        Shape {
            s,
            map,
            profile,
            reference: profile.reference_positions(),
            carried,
            order,
            min_tail,
            kept,
            palms,
        }
    }

    /// Whether bone `c`, a child of bone `i`, is mapped to a profile bone that does not hang
    /// below `i`'s (a Biped's clavicle below its neck): turning `i` leaves it where it is.
    fn hung_elsewhere(&self, i: usize, c: usize) -> bool {
        let of = |b: usize| self.map.profile_bone_of(BoneId(b as u32));
        match (of(i), of(c)) {
            (Some(pi), Some(pc)) => !self.profile.is_ancestor(pi, pc),
            _ => false,
        }
    }

    /// Position of bone `j`'s joint in bone `i`'s frame, from `locals`: through the hierarchy
    /// when `j` hangs at or below `i`, else through the bone that carries `j`.
    fn relative(&self, i: usize, j: BoneId, locals: &[Sim]) -> Option<Vec3> {
        self.up_to(i, j, Vec3::ZERO, locals)
            .or_else(|| {
                let (c, at) = self.carried[j.index()]?;
                self.up_to(i, BoneId(c as u32), at, locals)
            })
            .or_else(|| {
                // Below a palm bone that turns with `i`: through their common parent.
                let &s = self.palms[i]
                    .iter()
                    .find(|&&s| s == j.index() || self.s.is_ancestor(BoneId(s as u32), j))?;
                let parent = self.s.bones[s].parent?;
                let p = self.up_to(parent.index(), j, Vec3::ZERO, locals)?;
                Some(locals[i].inverse().point(p))
            })
    }

    /// Point `p` of bone `j`'s frame in the frame of `i` (at or above `j`), from `locals`.
    fn up_to(&self, i: usize, j: BoneId, mut p: Vec3, locals: &[Sim]) -> Option<Vec3> {
        let mut at = j;
        while at.index() != i {
            p = locals[at.index()].point(p);
            at = self.s.bones[at.index()].parent?;
        }
        Some(p)
    }

    /// Mean position of the mapped joints of `bones`, in bone `i`'s frame.
    fn mean_relative(&self, i: usize, bones: &[ProfileBoneId], locals: &[Sim]) -> Option<Vec3> {
        let mut sum = Vec3::ZERO;
        for &b in bones {
            sum += self.relative(i, self.map.get(b)?, locals)?;
        }
        Some(sum / bones.len() as f32)
    }

    /// Where bone `i` (mapped to `pk`, world transform `w`) points and where the profile's bone
    /// points, both global and unit length, and whether that is further down the chain (see
    /// [`BoneMap::aimed_tails`]), or `None` when it has no tail (or only tails on its joint).
    fn tail(
        &self,
        i: usize,
        pk: ProfileBoneId,
        w: &Sim,
        locals: &[Sim],
    ) -> Option<(Vec3, Vec3, bool)> {
        let offset =
            |bones: &[ProfileBoneId]| self.mean_relative(i, bones, locals).map(|v| w.r * v * w.s);
        let aim = self
            .map
            .aimed_tails(self.profile, pk, offset, self.min_tail)?;
        let e = reference_tail(&self.reference, pk, &aim.tails).normalize_or_zero();
        let d = aim.offset.normalize_or_zero();
        (d != Vec3::ZERO && e != Vec3::ZERO).then_some((d, e, aim.further))
    }

    /// The angle between a body bone's tail `d` and the profile's direction `e` when it lies
    /// more than [`MAX_TAIL_DEG`] away: the silhouette fix does not turn such a bone.
    fn reversed(&self, pk: ProfileBoneId, d: Vec3, e: Vec3) -> Option<f32> {
        let angle = angle_deg(d, e);
        (angle > MAX_TAIL_DEG && self.profile.body_bone(pk)).then_some(angle)
    }

    /// The global rotation that makes bone `i` (mapped to `pk`, world transform `w`) point where
    /// the profile's bone points, with its roll fixed by the profile's roll lines, or only its
    /// yaw turned for bones that keep their pitch.
    fn silhouette(
        &self,
        i: usize,
        pk: ProfileBoneId,
        w: &Sim,
        locals: &[Sim],
        options: &RestOptions,
        warnings: &mut Vec<Warning>,
    ) -> Option<Quat> {
        let bone = self.profile.bone(pk);
        let name = &self.s.bones[i].name;
        let Some((d, e, further)) = self.tail(i, pk, w, locals) else {
            let has_tail = bone.tail != Tail::End && self.profile.children(pk).next().is_some();
            // What the bone points at is mapped but hangs elsewhere, and carrying it along
            // would make a loop.
            let elsewhere = self.map.tail_bones(self.profile, pk).is_some();
            let why = if elsewhere {
                "what it points at hangs elsewhere in the hierarchy, where this bone cannot carry it"
            } else {
                "nothing mapped below it to point at"
            };
            if has_tail {
                warnings.push(warn(
                    WarningCode::NoTail,
                    Some(name),
                    format!(
                        "`{name}` ({}): {why}, so the silhouette fix left it as it was",
                        bone.name
                    ),
                ));
            }
            return None;
        };
        if further {
            // Its own tail lies on its joint (Godette's spine on her pelvis, a BVH's neck and
            // collars on the upper chest): it points at what lies beyond, which the turns of
            // the bones between still move.
            return None;
        }
        if let Some(angle) = self.reversed(pk, d, e) {
            warnings.push(warn(
                WarningCode::TailReversed,
                Some(name),
                format!(
                    "`{name}` ({}): what it points at lies {angle:.0}° from the profile's direction, so the silhouette fix left the body standing as it was (its +Y still points at it)",
                    bone.name
                ),
            ));
            return None;
        }
        if bone.keep_pitch && !options.flatten_feet && has_pitch(d) {
            return Some(twist_between(Vec3::Y, d, e));
        }
        let arc = arc(d, e);
        let roll = bone.roll.iter().find_map(|&(from, to)| {
            let a = self.relative(i, self.map.get(from)?, locals)?;
            let b = self.relative(i, self.map.get(to)?, locals)?;
            let wanted = self.reference[to.index()] - self.reference[from.index()];
            Some(twist_between(e, arc * (w.r * (b - a)), wanted))
        });
        let roll = roll.or_else(|| self.shoulder_roll(i, pk, w, locals, arc, e));
        Some(roll.unwrap_or(Quat::IDENTITY) * arc)
    }

    /// The roll about `e` (after `arc`) that brings the shoulders back beside bone `i`, the
    /// mapped bone they hang from (mapped to `pk`), when their line lies more than 45° off the
    /// profile's: a rest laid flat along one axis whose chest frame turns a quarter from its
    /// hips' (the Bandai-Namco dataset's BVH, its shoulders one before and one behind the
    /// spine once stood up). `None` otherwise: a rig's own chest roll is kept.
    fn shoulder_roll(
        &self,
        i: usize,
        pk: ProfileBoneId,
        w: &Sim,
        locals: &[Sim],
        arc: Quat,
        e: Vec3,
    ) -> Option<Quat> {
        let side = |names: [&str; 2]| {
            names
                .iter()
                .find_map(|n| self.profile.find(n).filter(|&p| self.map.get(p).is_some()))
        };
        let (l, r) = (
            side(["LeftShoulder", "LeftUpperArm"])?,
            side(["RightShoulder", "RightUpperArm"])?,
        );
        let carrier = |p: ProfileBoneId| {
            let mut up = self.profile.bone(p).parent;
            while let Some(q) = up {
                if self.map.get(q).is_some() {
                    return Some(q);
                }
                up = self.profile.bone(q).parent;
            }
            None
        };
        if carrier(l)? != pk || carrier(r)? != pk {
            return None;
        }
        let a = self.relative(i, self.map.get(r)?, locals)?;
        let b = self.relative(i, self.map.get(l)?, locals)?;
        let wanted = self.reference[l.index()] - self.reference[r.index()];
        let twist = twist_between(e, arc * (w.r * (b - a)), wanted);
        (turn_deg(twist) > 45.0).then_some(twist)
    }
}

/// Whether a bone pointing along `d` has a pitch worth keeping: it points more than 15° away
/// from straight up or down. A foot that points down continues its shin (a rest laid along one
/// axis, its pose only in the frames, gives such feet once the legs hang): its yaw says nothing
/// of where it faces, so it is aligned with the profile fully.
fn has_pitch(d: Vec3) -> bool {
    Vec3::new(d.x, 0.0, d.z).length() > 15f32.to_radians().sin() * d.length()
}

/// Per mapped bone, its unmapped siblings whose joints lie on its own (closer than `min_tail`)
/// and that have a mapped bone below them (see [`Shape::palms`]). `world`: original world rests.
fn palm_siblings(s: &Skeleton, map: &BoneMap, world: &[Sim], min_tail: f32) -> Vec<Vec<usize>> {
    let n = s.bones.len();
    let mapped = |b: usize| map.profile_bone_of(BoneId(b as u32)).is_some();
    let mut mapped_below = vec![false; n];
    for b in (0..n).rev() {
        if let (true, Some(p)) = (mapped_below[b] || mapped(b), s.bones[b].parent) {
            mapped_below[p.index()] = true;
        }
    }
    (0..n)
        .map(|i| {
            let Some(parent) = s.bones[i].parent.filter(|_| mapped(i)) else {
                return Vec::new();
            };
            (0..n)
                .filter(|&x| {
                    x != i
                        && s.bones[x].parent == Some(parent)
                        && !mapped(x)
                        && mapped_below[x]
                        && world[x].t.distance(world[i].t) < min_tail.max(f32::MIN_POSITIVE)
                })
                .collect()
        })
        .collect()
}

/// Bone indices with every bone after its parent and after the bone that carries it (in bone
/// order where that allows), or `None` when carriers make a loop.
fn visit_order(s: &Skeleton, carried: &[Option<(usize, Vec3)>]) -> Option<Vec<usize>> {
    let n = s.bones.len();
    let mut after: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waits = vec![0usize; n];
    for (i, b) in s.bones.iter().enumerate() {
        for before in b
            .parent
            .map(BoneId::index)
            .into_iter()
            .chain(carried[i].map(|c| c.0))
        {
            after[before].push(i);
            waits[i] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> =
        (0..n).filter(|&i| waits[i] == 0).map(Reverse).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for &j in &after[i] {
            waits[j] -= 1;
            if waits[j] == 0 {
                ready.push(Reverse(j));
            }
        }
    }
    (order.len() == n).then_some(order)
}

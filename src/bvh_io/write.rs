//! The model → BVH text: a hierarchy from the skeleton, frames sampled from one clip.

use super::error::BvhError;
use super::{BvhWriteOptions, RotationOrder};
use crate::model::{Bone, BoneId, BoneTracks, Clip, OpaqueKind, Pose, Skeleton, Transform};
use glam::{DVec3, EulerRot, Mat4, Quat, Vec3};
use std::collections::HashSet;
use std::fmt::Write as _;

/// Largest number of frames [`write`] samples.
const MAX_FRAMES: f64 = 10_000_000.0;

/// Relative tolerance for a scale to count as 1 (or a base scale as uniform).
const SCALE_TOLERANCE: f32 = 1e-4;

/// Writes `skeleton` and `clip` (a clip of that skeleton) as BVH text.
///
/// - HIERARCHY: one `ROOT` per root bone, names with whitespace or braces replaced by `_` and
///   made unique; `OFFSET` = rest translation. The skeleton's `base` (rotation, translation and a
///   uniform scale) is folded into the roots, so world positions are kept.
/// - CHANNELS: six on roots and on bones the clip translates (positions, then rotations in
///   `options.order`), three rotations on the others. A bone's frame rotation is its whole local
///   rotation (the rest rotation where the clip has no track): BVH has no rest rotation.
/// - A leaf bone that is no skin joint and has no track becomes an `End Site` of its parent (its
///   name is lost; [`read`](super::read) names it `<parent>_end`); other leaves get an
///   `End Site` continuing them by their own offset.
/// - Frames at `options.fps` (default: the clip's uniform key rate, else 30 fps), angles unwrapped
///   frame to frame so they do not jump by 360°.
///
/// Bones' uniform scales (a unit scale on a root bone) are folded into the translations below
/// them, as the base's is; the scale of a bone with nothing below it shows in no joint and is
/// left out.
///
/// Errors: an invalid skeleton or clip, a scale that is not uniform or changes in the clip on a
/// bone that others hang from, or a non-uniform base scale (BVH cannot express scale), a node
/// above the skeleton that the clip animates (its motion is not in the model's tracks: written
/// with its still transform, the body would lose it), a bad fps or scale option.
pub fn write(
    skeleton: &Skeleton,
    clip: &Clip,
    options: &BvhWriteOptions,
) -> Result<String, BvhError> {
    if let Some((node, path)) = animated_base(skeleton, clip) {
        return Err(BvhError::Write(format!(
            "node {node} above the skeleton is animated (clip `{}` keys its {path}), and BVH \
             holds the joints alone, so that motion would be lost; `write_moving_base` folds it \
             into the roots given the nodes' keys (`skelnorm convert` does)",
            clip.name
        )));
    }
    write_frames(skeleton, clip, None, options)
}

/// [`write`] for a clip that animates nodes above the skeleton (a node holding a mesh or a
/// camera, which the reader keeps a node): `base` gives each node above (its `base_nodes`,
/// scene root down, as `gltf_io::Document::base_motion` reads them) its still transform and the
/// clip's keys, and their motion is folded into the roots' channels frame by frame, so every
/// joint is where the file puts it at every frame. Errors as [`write`]'s (less the animated
/// node), and nodes above whose keys change their scale (BVH cannot express scale).
pub fn write_moving_base(
    skeleton: &Skeleton,
    clip: &Clip,
    base: &[(Transform, BoneTracks)],
    options: &BvhWriteOptions,
) -> Result<String, BvhError> {
    write_frames(skeleton, clip, Some(base), options)
}

/// [`write`] and [`write_moving_base`].
fn write_frames(
    skeleton: &Skeleton,
    clip: &Clip,
    moving: Option<&[(Transform, BoneTracks)]>,
    options: &BvhWriteOptions,
) -> Result<String, BvhError> {
    let (base, base_scale, frame_time, frames) = checked(skeleton, clip, options)?;
    let frame_bases = match moving {
        Some(nodes) => Some(
            moved_bases(skeleton, clip, nodes, base_scale, frame_time, frames)
                .map_err(BvhError::Write)?,
        ),
        None => None,
    };
    let scales = bone_scales(skeleton, clip).map_err(BvhError::Write)?;
    let layout = Layout::new(skeleton, clip);
    let mut rest_world: Vec<Quat> = Vec::with_capacity(skeleton.bones.len());
    for b in &skeleton.bones {
        let parent = b.parent.map_or(base.rotation, |p| rest_world[p.index()]);
        rest_world.push((parent * b.rest.rotation).normalize());
    }
    // The uniform scale every bone's translation is taken in: the base's and its ancestors'.
    let parent_scale = skeleton.accumulate(base_scale, scales.iter().copied(), |p, s| p * s);
    let parent_scale = skeleton
        .bones
        .iter()
        .map(|b| b.parent.map_or(base_scale, |p| parent_scale[p.index()]))
        .collect();
    let placed = Placed {
        skeleton,
        base,
        parent_scale,
        rest_world,
    };
    let unit = f64::from(options.scale);
    let mut out = String::from("HIERARCHY\n");
    layout.hierarchy(&placed, unit, options.order, &mut out);
    let _ = write!(
        out,
        "MOTION\nFrames: {frames}\nFrame Time: {}\n",
        frame_time as f32
    );
    let mut prev: Vec<[f64; 3]> = vec![[0.0; 3]; layout.joints.len()];
    let mut pose = Pose::rest(skeleton);
    for i in 0..frames as usize {
        pose.sample_into(clip, (i as f64 * frame_time) as f32);
        let mut line: Vec<String> = Vec::new();
        let base_now = frame_bases.as_ref().map_or(&base, |b| &b[i]);
        for (k, j) in layout.joints.iter().enumerate() {
            let local = placed.local_in(pose.locals[j.bone.index()], j.bone, base_now);
            if j.positions {
                for v in local.translation.as_dvec3().to_array() {
                    line.push(number(v * unit));
                }
            }
            let angles = unwrap_turns(euler(local.rotation, options.order), prev[k]);
            prev[k] = angles;
            line.extend(angles.iter().map(|a| number(*a)));
        }
        out.push_str(&line.join(" "));
        out.push('\n');
    }
    Ok(out)
}

/// What BVH can hold of `skeleton` and `clip` with `options`, checked before anything is
/// written: the skeleton's base (rotation and translation) and uniform scale, the frame time and
/// the number of frames. An error says what BVH cannot express (a scaled bone, a sheared base)
/// or what is out of range.
fn checked(
    skeleton: &Skeleton,
    clip: &Clip,
    options: &BvhWriteOptions,
) -> Result<(Transform, f32, f64, f64), BvhError> {
    let fail = |m: String| Err(BvhError::Write(m));
    if let Some(p) = skeleton
        .validate()
        .into_iter()
        .chain(clip.validate(skeleton))
        .next()
    {
        return fail(format!("invalid model: {p}"));
    }
    if !(options.scale.is_finite() && options.scale > 0.0) {
        return fail(format!(
            "scale {} is not a finite positive number",
            options.scale
        ));
    }
    let Some((base, base_scale)) = split_base(skeleton) else {
        return fail("the skeleton's base transform has shear or a non-uniform scale".into());
    };
    let frame_time = match options.fps {
        Some(fps) if fps.is_finite() && fps > 0.0 => 1.0 / f64::from(fps),
        Some(fps) => return fail(format!("fps {fps} is not a positive number")),
        None => uniform_interval(clip).unwrap_or(1.0 / 30.0),
    };
    let frames = (f64::from(clip.duration()) / frame_time + 1e-3).floor() + 1.0;
    if !frames.is_finite() || frames > MAX_FRAMES {
        return fail(format!("{frames} frames at {frame_time} s is too many"));
    }
    Ok((base, base_scale, frame_time, frames))
}

/// The rigid part of the skeleton's base at each frame with the nodes above moving as `nodes`
/// say (still transform and keys, scene root down): the still base with the nodes' still
/// product swapped for their product at that frame. An error when their scale at some frame is
/// not `scale` (uniform, as at rest).
fn moved_bases(
    skeleton: &Skeleton,
    clip: &Clip,
    nodes: &[(Transform, BoneTracks)],
    scale: f32,
    frame_time: f64,
    frames: f64,
) -> Result<Vec<Transform>, String> {
    let product = |f: &dyn Fn(&(Transform, BoneTracks)) -> Transform| {
        (nodes.iter()).fold(Mat4::IDENTITY, |m, n| m * f(n).to_mat4())
    };
    let fix = skeleton.base * product(&|n| n.0).inverse();
    (0..frames as usize)
        .map(|i| {
            let t = (i as f64 * frame_time) as f32;
            let at = |(still, keys): &(Transform, BoneTracks)| Transform {
                translation: keys
                    .translation
                    .as_ref()
                    .map_or(still.translation, |k| k.sample(t)),
                rotation: keys
                    .rotation
                    .as_ref()
                    .map_or(still.rotation, |k| k.sample(t))
                    .normalize(),
                scale: keys.scale.as_ref().map_or(still.scale, |k| k.sample(t)),
            };
            let m = fix * product(&at);
            let bad = || {
                format!(
                    "the nodes above the skeleton scale it in clip `{}` (at {t} s), which BVH \
                     cannot express",
                    clip.name
                )
            };
            let split = Transform::from_mat4(&m);
            let s = split.scale;
            let even = (s - Vec3::splat(scale)).abs().max_element() <= SCALE_TOLERANCE * scale;
            let rebuilt = Transform {
                scale: Vec3::splat(scale),
                ..split
            }
            .to_mat4();
            (even && rebuilt.abs_diff_eq(m, SCALE_TOLERANCE * scale.max(1.0)))
                .then_some(Transform {
                    scale: Vec3::ONE,
                    ..split
                })
                .ok_or_else(bad)
        })
        .collect()
}

/// The first node above `skeleton` (one of its `base_nodes`) that `clip` keys, and the path
/// keyed: a node the reader could not take in as a bone (it holds a mesh or a camera).
fn animated_base<'c>(skeleton: &Skeleton, clip: &'c Clip) -> Option<(u32, &'c str)> {
    clip.opaque.iter().find_map(|o| match &o.kind {
        OpaqueKind::NodeTransform { node, path } if skeleton.base_nodes.contains(node) => {
            Some((*node, path.as_str()))
        }
        _ => None,
    })
}

/// The skeleton's base as rotation and translation (the scale taken out), and its uniform scale;
/// `None` for shear or a non-uniform scale.
fn split_base(skeleton: &Skeleton) -> Option<(Transform, f32)> {
    let t = Transform::from_mat4(&skeleton.base);
    let s = t.scale;
    let uniform = (s.x - s.y).abs() <= SCALE_TOLERANCE * s.x.abs()
        && (s.x - s.z).abs() <= SCALE_TOLERANCE * s.x.abs();
    let rebuilt = Transform {
        scale: Vec3::splat(s.x),
        ..t
    }
    .to_mat4();
    let sheared = !rebuilt.abs_diff_eq(skeleton.base, SCALE_TOLERANCE * s.x.abs().max(1.0));
    (uniform && s.x > 0.0 && !sheared).then_some((
        Transform {
            scale: Vec3::ONE,
            ..t
        },
        s.x,
    ))
}

/// Each bone's scale, folded into the translations below it (a unit scale on a root bone, as
/// FBX files in centimetres read): uniform, and the same in the clip as at rest. A bone with
/// nothing below it may have any scale (a 3ds Max Biped nub's mirroring, keyed or not): no
/// joint of the BVH file shows it, so it is left out (1). An error names the first other bone
/// whose scale is not (mirrored, non-uniform, or keyed to change), which BVH, whose joints only
/// move and turn, cannot express.
fn bone_scales(skeleton: &Skeleton, clip: &Clip) -> Result<Vec<f32>, String> {
    let uniform = |s: Vec3| {
        (s.x - s.y).abs() <= SCALE_TOLERANCE * s.x.abs()
            && (s.x - s.z).abs() <= SCALE_TOLERANCE * s.x.abs()
            && s.x > 0.0
    };
    let same = |a: Vec3, b: Vec3| (a - b).abs().max_element() <= SCALE_TOLERANCE * a.x.abs();
    let children = skeleton.children();
    skeleton
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let rest = b.rest.scale;
            let keys = clip.tracks.get(i).and_then(|t| t.scale.as_ref());
            let held = keys.is_none_or(|k| k.values.iter().all(|v| same(rest, *v)));
            if uniform(rest) && held {
                Ok(rest.x)
            } else if children[i].is_empty() {
                Ok(1.0)
            } else {
                let mirrored = rest.min_element() < 0.0
                    || keys.is_some_and(|k| k.values.iter().any(|v| v.min_element() < 0.0));
                let what = if mirrored {
                    format!("mirrored ({:?} at rest)", rest.to_array())
                } else if !held {
                    "keyed".to_string()
                } else {
                    format!("non-uniform ({:?})", rest.to_array())
                };
                Err(format!(
                    "bone `{}` has a {what} scale, which BVH cannot express (its joints only \
                     move and turn), and bones hang from it",
                    b.name
                ))
            }
        })
        .collect()
}

/// The key interval shared by every track when all are keyed uniformly at one rate.
fn uniform_interval(clip: &Clip) -> Option<f64> {
    let mut dt: Option<f64> = None;
    for t in &clip.tracks {
        let times = [
            t.translation.as_ref().map(|t| &t.times),
            t.rotation.as_ref().map(|t| &t.times),
            t.scale.as_ref().map(|t| &t.times),
        ];
        for times in times.into_iter().flatten().filter(|t| t.len() > 1) {
            let first = f64::from(times[1] - times[0]);
            let even = times
                .windows(2)
                .all(|w| (f64::from(w[1] - w[0]) - first).abs() <= 1e-3 * first);
            let same = dt.is_none_or(|d| (d - first).abs() <= 1e-3 * d);
            if !even || !same || first <= 0.0 {
                return None;
            }
            dt.get_or_insert(first);
        }
    }
    dt
}

/// A skeleton with its base split into a rigid part and a uniform scale, the uniform scale each
/// bone's translation is taken in (the base's times its ancestors'), and each bone's world rest
/// rotation (base included).
struct Placed<'a> {
    skeleton: &'a Skeleton,
    base: Transform,
    parent_scale: Vec<f32>,
    rest_world: Vec<Quat>,
}

impl Placed<'_> {
    /// A bone's local transform as written, in world units: translations times the scale they
    /// are taken in (the base's and the bone's ancestors'),
    /// the rigid part of the base folded into roots, and expressed against a rest whose
    /// rotations are all identity (BVH's): the offset in its parent's world-aligned rest axes,
    /// the rotation as the change from the bone's world rest rotation (`P · L · W⁻¹`, with `P`
    /// the parent's world rest rotation and `W` the bone's), so that joint positions are the
    /// same at every frame and the rest pose keeps its shape.
    fn local(&self, l: Transform, bone: BoneId) -> Transform {
        self.local_in(l, bone, &self.base)
    }

    /// [`Placed::local`] with `base` (rigid) as the base the roots are placed in: the still one,
    /// or the nodes above as a clip moves them at one frame.
    fn local_in(&self, l: Transform, bone: BoneId, base: &Transform) -> Transform {
        let translation = l.translation * self.parent_scale[bone.index()];
        let b = &self.skeleton.bones[bone.index()];
        let own = self.rest_world[bone.index()].inverse();
        match b.parent {
            Some(p) => {
                let parent = self.rest_world[p.index()];
                Transform {
                    translation: parent * translation,
                    rotation: (parent * l.rotation * own).normalize(),
                    scale: Vec3::ONE,
                }
            }
            None => Transform {
                translation: base.translation + base.rotation * translation,
                rotation: (base.rotation * l.rotation * own).normalize(),
                scale: Vec3::ONE,
            },
        }
    }

    /// The `OFFSET` of a bone: its rest translation as written.
    fn offset(&self, bone: BoneId) -> Vec3 {
        self.local(self.skeleton.bones[bone.index()].rest, bone)
            .translation
    }
}

/// The angles in degrees, in listed order, of `q = R_a(α) · R_b(β) · R_c(γ)`.
fn euler(q: Quat, order: RotationOrder) -> [f64; 3] {
    let rot = match order {
        RotationOrder::Xyz => EulerRot::XYZ,
        RotationOrder::Xzy => EulerRot::XZY,
        RotationOrder::Yxz => EulerRot::YXZ,
        RotationOrder::Yzx => EulerRot::YZX,
        RotationOrder::Zxy => EulerRot::ZXY,
        RotationOrder::Zyx => EulerRot::ZYX,
    };
    let (a, b, c) = q.as_dquat().normalize().to_euler(rot);
    [a.to_degrees(), b.to_degrees(), c.to_degrees()]
}

/// Each angle moved by whole turns to lie within 180° of the previous frame's.
fn unwrap_turns(angles: [f64; 3], prev: [f64; 3]) -> [f64; 3] {
    let mut out = angles;
    for (a, p) in out.iter_mut().zip(prev) {
        *a -= 360.0 * ((*a - p) / 360.0).round();
    }
    out
}

/// The shortest text that reads back as the same `f32`.
fn number(v: f64) -> String {
    let v = v as f32;
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v}")
    }
}

/// One written joint.
struct Joint {
    bone: BoneId,
    positions: bool,
}

/// Which bones are written as joints (in hierarchy order) and which as end sites.
struct Layout {
    children: Vec<Vec<BoneId>>,
    end_site: Vec<bool>,
    names: Vec<String>,
    joints: Vec<Joint>,
}

impl Layout {
    fn new(skeleton: &Skeleton, clip: &Clip) -> Self {
        let children = skeleton.children();
        let tracked = |i: usize| {
            clip.tracks
                .get(i)
                .is_some_and(|t| t.translation.is_some() || t.rotation.is_some())
        };
        let end_site: Vec<bool> = (0..skeleton.bones.len())
            .map(|i| {
                let b = &skeleton.bones[i];
                b.parent.is_some() && children[i].is_empty() && !b.is_joint && !tracked(i)
            })
            .collect();
        let names = names(&skeleton.bones);
        let mut joints = Vec::new();
        let mut stack: Vec<BoneId> = roots(skeleton).into_iter().rev().collect();
        while let Some(b) = stack.pop() {
            if end_site[b.index()] {
                continue;
            }
            let positions = skeleton.bones[b.index()].parent.is_none()
                || clip
                    .tracks
                    .get(b.index())
                    .is_some_and(|t| t.translation.is_some());
            joints.push(Joint { bone: b, positions });
            stack.extend(children[b.index()].iter().rev());
        }
        Layout {
            children,
            end_site,
            names,
            joints,
        }
    }

    /// The HIERARCHY section (after its keyword), lengths multiplied by `length`.
    fn hierarchy(&self, placed: &Placed, unit: f64, order: RotationOrder, out: &mut String) {
        let skeleton = placed.skeleton;
        let axes = order.axes().map(|a| ["X", "Y", "Z"][a]);
        let rotations = format!(
            "{0}rotation {1}rotation {2}rotation",
            axes[0], axes[1], axes[2]
        );
        let mut depth_of: Vec<usize> = vec![0; skeleton.bones.len()];
        let mut open: Vec<BoneId> = Vec::new();
        for j in &self.joints {
            let bone = &skeleton.bones[j.bone.index()];
            let depth = bone.parent.map_or(0, |p| depth_of[p.index()] + 1);
            depth_of[j.bone.index()] = depth;
            close(&mut open, depth, self, placed, unit, out);
            let pad = tabs(depth);
            let keyword = if bone.parent.is_none() {
                "ROOT"
            } else {
                "JOINT"
            };
            let _ = writeln!(
                out,
                "{pad}{keyword} {}\n{pad}{{",
                self.names[j.bone.index()]
            );
            let _ = writeln!(out, "{pad}\tOFFSET {}", triple(placed.offset(j.bone), unit));
            let channels = if j.positions {
                format!("6 Xposition Yposition Zposition {rotations}")
            } else {
                format!("3 {rotations}")
            };
            let _ = writeln!(out, "{pad}\tCHANNELS {channels}");
            open.push(j.bone);
        }
        close(&mut open, 0, self, placed, unit, out);
    }
}

/// Closes the open joints deeper than or as deep as `depth`, writing their end sites.
fn close(
    open: &mut Vec<BoneId>,
    depth: usize,
    layout: &Layout,
    placed: &Placed,
    unit: f64,
    out: &mut String,
) {
    while open.len() > depth {
        let Some(b) = open.pop() else { break };
        let pad = tabs(open.len() + 1);
        let kids = &layout.children[b.index()];
        let ends: Vec<Vec3> = if kids.is_empty() {
            // A leaf continues by its own offset, in its parent's world-aligned rest axes.
            vec![placed.offset(b)]
        } else {
            kids.iter()
                .filter(|k| layout.end_site[k.index()])
                .map(|k| placed.offset(*k))
                .collect()
        };
        for e in ends {
            let _ = writeln!(
                out,
                "{pad}End Site\n{pad}{{\n{pad}\tOFFSET {}\n{pad}}}",
                triple(e, unit)
            );
        }
        let _ = writeln!(out, "{}}}", tabs(open.len()));
    }
}

/// Indentation for nesting depth `depth`: one tab per level, at most 16 (deep hierarchies would
/// otherwise grow the file with the square of their depth; readers do not need it).
fn tabs(depth: usize) -> String {
    "\t".repeat(depth.min(16))
}

fn triple(v: Vec3, unit: f64) -> String {
    let v: DVec3 = v.as_dvec3() * unit;
    format!("{} {} {}", number(v.x), number(v.y), number(v.z))
}

fn roots(skeleton: &Skeleton) -> Vec<BoneId> {
    (0..skeleton.bones.len())
        .filter(|i| skeleton.bones[*i].parent.is_none())
        .map(|i| BoneId(i as u32))
        .collect()
}

/// Bone names fit for BVH: whitespace and braces become `_`, empty names `bone<i>`, duplicates
/// get `_2`, `_3`…
fn names(bones: &[Bone]) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let clean: String = b
                .name
                .chars()
                .map(|c| {
                    if c.is_whitespace() || c == '{' || c == '}' {
                        '_'
                    } else {
                        c
                    }
                })
                .collect();
            let wanted = if clean.is_empty() {
                format!("bone{i}")
            } else {
                clean
            };
            super::read::unique(&wanted, &mut taken)
        })
        .collect()
}

#[cfg(test)]
pub(crate) fn euler_for_tests(q: Quat, order: RotationOrder) -> [f64; 3] {
    euler(q, order)
}

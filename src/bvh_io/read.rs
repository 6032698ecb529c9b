//! Parsed BVH → the model: bones from joints and end sites, LINEAR tracks from frames, lengths
//! scaled to metres.

use super::error::BvhError;
use super::parse::{parse, ChannelKind, RawBvh, RawJoint};
use super::{Bvh, BvhInfo, BvhOptions, LengthUnit, RotationOrder, ScaleSource};
use crate::model::{
    Bone, BoneId, BoneTracks, Clip, Interpolation, Model, Pose, Skeleton, SkeletonId, Track,
    Transform,
};
use glam::{DQuat, DVec3, Mat4, Quat, Vec3};
use std::collections::HashSet;

/// Reads BVH text into a model with one skeleton and, when the file has frames, one clip.
///
/// Lengths are multiplied by [`BvhOptions::scale`] or by the guessed unit's metres
/// ([`LengthUnit::guess`] of the rest height). Every frame becomes a LINEAR key at
/// `i × frame time` seconds; joints with position channels get a translation track, joints with
/// rotation channels a rotation track (unit quaternions, each in the hemisphere of the one
/// before). Errors name the line; no input panics or allocates more than its own size allows.
pub fn read(text: &str, options: &BvhOptions) -> Result<Bvh, BvhError> {
    if let Some(s) = options.scale {
        if !(s.is_finite() && s > 0.0) {
            return Err(BvhError::Scale(s));
        }
    }
    let raw = parse(text)?;
    let (bones, renamed) = bones(&raw.joints);
    let mut skeleton = Skeleton {
        name: bones.first().map_or_else(String::new, |b| b.name.clone()),
        bones,
        skins: vec![],
        attachments: vec![],
        base: Mat4::IDENTITY,
        base_nodes: vec![],
        declared: None,
    };
    let mut clip = clip(&raw, &options.clip_name);
    let file_height = file_height(&skeleton, &clip, raw.frames());
    let (unit, scale, scale_source) = match options.scale {
        Some(s) => (None, s, ScaleSource::Given),
        None => match LengthUnit::guess(file_height) {
            Some(u) => (Some(u), u.metres(), ScaleSource::Guessed),
            None => (None, 1.0, ScaleSource::Unknown),
        },
    };
    apply_scale(&mut skeleton, &mut clip, scale);
    ground(&mut skeleton, &clip, raw.frames());
    let mut model = Model {
        skeletons: vec![skeleton],
        clips: Vec::new(),
        other_nodes: Vec::new(),
        scene_turn: glam::Quat::IDENTITY,
        view_turn: glam::Quat::IDENTITY,
        points: Vec::new(),
    };
    if raw.frames() > 0 {
        model.clips.push(clip);
    }
    // Last guard: huge values times the scale, or huge frame times, overflow to infinity.
    if let Some(p) = model.validate().first() {
        return Err(BvhError::Syntax {
            line: 0,
            message: format!("the values give an invalid model: {p}"),
        });
    }
    let info = BvhInfo {
        file_height,
        unit,
        scale,
        scale_source,
        frames: raw.frames(),
        frame_time: raw.frame_time as f32,
        rotation_orders: rotation_orders(&raw.joints),
        roots: raw.joints.iter().filter(|j| j.parent.is_none()).count(),
        joints: raw.joints.iter().filter(|j| j.name.is_some()).count(),
        end_sites: raw.joints.iter().filter(|j| j.name.is_none()).count(),
        renamed,
    };
    Ok(Bvh { model, info })
}

/// One bone per joint and end site, names made unique; also the (file name, bone name) pairs
/// that had to change.
fn bones(joints: &[RawJoint]) -> (Vec<Bone>, Vec<(String, String)>) {
    let mut taken: HashSet<String> = HashSet::new();
    let mut renamed = Vec::new();
    let mut bones: Vec<Bone> = Vec::with_capacity(joints.len());
    for j in joints {
        let wanted = match (&j.name, j.parent) {
            (Some(n), _) => n.clone(),
            (None, Some(p)) => format!("{}_end", bones.get(p).map_or("", |b| b.name.as_str())),
            (None, None) => "end".to_string(),
        };
        let name = unique(&wanted, &mut taken);
        if j.name.is_some() && name != wanted {
            renamed.push((wanted, name.clone()));
        }
        bones.push(Bone {
            name,
            parent: j.parent.map(|p| BoneId(p as u32)),
            rest: Transform::from_translation(Vec3::from_array(j.offset)),
            is_joint: j.name.is_some(),
            weighted: if j.name.is_some() { None } else { Some(false) },
            node: None,
        });
    }
    (bones, renamed)
}

/// `wanted`, or `wanted_2`, `wanted_3`… whichever is free; records it as taken.
pub(super) fn unique(wanted: &str, taken: &mut HashSet<String>) -> String {
    let mut name = wanted.to_string();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{wanted}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// The clip in file units: one LINEAR key per frame on every channel the file has.
fn clip(raw: &RawBvh, name: &str) -> Clip {
    let frames = raw.frames();
    let times: std::sync::Arc<[f32]> = (0..frames)
        .map(|i| (i as f64 * raw.frame_time) as f32)
        .collect();
    let tracks = raw
        .joints
        .iter()
        .map(|j| {
            let rows = raw
                .values
                .chunks_exact(raw.channels)
                .map(|f| &f[j.first..j.first + j.channels.len()]);
            let has_position = j
                .channels
                .iter()
                .any(|c| matches!(c, ChannelKind::Position(_)));
            let has_rotation = j
                .channels
                .iter()
                .any(|c| matches!(c, ChannelKind::Rotation(_)));
            BoneTracks {
                translation: has_position.then(|| Track {
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values: rows.clone().map(|v| translation(j, v)).collect(),
                }),
                rotation: has_rotation.then(|| Track {
                    interpolation: Interpolation::Linear,
                    times: times.clone(),
                    values: continuous(rows.map(|v| rotation(&j.channels, v))).into(),
                }),
                scale: None,
            }
        })
        .collect();
    Clip::new(name.to_string(), SkeletonId(0), tracks)
}

/// The local translation of one frame: the offset with the position channels put in.
fn translation(joint: &RawJoint, values: &[f32]) -> Vec3 {
    let mut t = joint.offset;
    for (c, v) in joint.channels.iter().zip(values) {
        if let ChannelKind::Position(axis) = c {
            t[*axis] = *v;
        }
    }
    Vec3::from_array(t)
}

/// The rotation of one frame: `R_first · R_second · R_third` over the rotation channels in
/// listed order (intrinsic rotations; see the module documentation), degrees.
pub(crate) fn rotation(channels: &[ChannelKind], values: &[f32]) -> Quat {
    let mut q = DQuat::IDENTITY;
    for (c, v) in channels.iter().zip(values) {
        if let ChannelKind::Rotation(axis) = c {
            let mut a = DVec3::ZERO;
            a[*axis] = 1.0;
            q *= DQuat::from_axis_angle(a, f64::from(*v).to_radians());
        }
    }
    q.normalize().as_quat()
}

/// Flips each quaternion into the hemisphere of the one before, so LINEAR slerps the short way.
fn continuous(qs: impl Iterator<Item = Quat>) -> Vec<Quat> {
    let mut prev = Quat::IDENTITY;
    qs.map(|q| {
        let q = if q.dot(prev) < 0.0 { -q } else { q };
        prev = q;
        q
    })
    .collect()
}

/// Stands the rest pose on the floor: mocap files put the root at the origin with the legs
/// below it (`OFFSET 0 0 0`), and their root position channels hold where it really is. When
/// every root's position comes from the motion (or there is none), the roots' rest moves up so
/// that the lowest joint at rest is at height 0, as in a character file: the motion is unchanged,
/// and the rest tells the hips' height above the feet, which retargeting scales by.
fn ground(skeleton: &mut Skeleton, clip: &Clip, frames: usize) {
    let roots: Vec<usize> = (0..skeleton.bones.len())
        .filter(|&i| skeleton.bones[i].parent.is_none())
        .collect();
    let moved = |i: usize| clip.tracks.get(i).is_some_and(|t| t.translation.is_some());
    if frames > 0 && !roots.iter().all(|&i| moved(i)) {
        return;
    }
    let lowest = skeleton
        .rest_world()
        .iter()
        .map(|m| m.w_axis.y)
        .fold(f32::INFINITY, f32::min);
    if !(lowest.is_finite() && lowest < -1e-6 * skeleton.height().max(1e-12)) {
        return;
    }
    for i in roots {
        skeleton.bones[i].rest.translation.y -= lowest;
    }
}

/// The rest height in file units, or the first frame's height when every offset is zero.
fn file_height(skeleton: &Skeleton, clip: &Clip, frames: usize) -> f32 {
    let rest = skeleton.height();
    if rest > 1e-6 || frames == 0 {
        return rest;
    }
    let ps: Vec<Vec3> = Pose::sample(skeleton, clip, 0.0)
        .world(skeleton)
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect();
    let lo = ps
        .iter()
        .copied()
        .fold(Vec3::splat(f32::INFINITY), Vec3::min);
    let hi = ps
        .iter()
        .copied()
        .fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
    (hi - lo).max_element().max(0.0)
}

fn apply_scale(skeleton: &mut Skeleton, clip: &mut Clip, scale: f32) {
    for b in &mut skeleton.bones {
        b.rest.translation *= scale;
    }
    for t in clip
        .tracks
        .iter_mut()
        .filter_map(|t| t.translation.as_mut())
    {
        for v in std::sync::Arc::make_mut(&mut t.values) {
            *v *= scale;
        }
    }
}

/// Distinct orders of joints with all three rotation channels, in order of first use.
fn rotation_orders(joints: &[RawJoint]) -> Vec<RotationOrder> {
    let mut out = Vec::new();
    for j in joints {
        let axes: Vec<usize> = j
            .channels
            .iter()
            .filter_map(|c| match c {
                ChannelKind::Rotation(a) => Some(*a),
                ChannelKind::Position(_) => None,
            })
            .collect();
        if let Ok(axes) = <[usize; 3]>::try_from(axes) {
            if let Some(o) = RotationOrder::from_axes(axes) {
                if !out.contains(&o) {
                    out.push(o);
                }
            }
        }
    }
    out
}

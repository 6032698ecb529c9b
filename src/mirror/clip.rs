//! Mirroring a whole clip: keys of bones where the hierarchy is symmetric map one to one
//! (values and cubic-spline tangents through the same constant maps, so the clip keeps its key
//! times and interpolation, exactly); the few other bones are resampled at every key time of
//! the tracks they depend on.

use super::pose::Mirror;
use crate::model::{BoneId, BoneTracks, Clip, Interpolation, Pose, Skeleton, Track};
use glam::{Quat, Vec3};
use std::sync::Arc;

/// `clip` (of `skeleton`, valid for it) mirrored left ↔ right by `mirror`; the same name,
/// source and untouched channels. `motion_bones` are the bones whose translation keys a motion
/// scale divided (the profile's root and hips), if the clip has one.
pub fn mirror_clip(
    mirror: &Mirror,
    skeleton: &Skeleton,
    clip: &Clip,
    motion_bones: &[BoneId],
) -> (Clip, Vec<BoneId>) {
    let scaled;
    let mirror = match clip.motion_scale.filter(|h| *h > 0.0 && h.is_finite()) {
        Some(h) => {
            let mut m = mirror.clone();
            for b in motion_bones {
                let t = m.reflection.rest_translation(*b);
                m.reflection.set_rest_translation(*b, t / h);
            }
            scaled = m;
            &scaled
        }
        None => mirror,
    };
    let n = skeleton.bones.len();
    let mut tracks = vec![BoneTracks::default(); n];
    let mut resampled = Vec::new();
    for (j, out) in tracks.iter_mut().enumerate() {
        if mirror.is_symmetric(BoneId(j as u32)) {
            *out = map_keys(
                mirror,
                j,
                &clip.tracks[mirror.counterpart(BoneId(j as u32)).index()],
            );
        } else {
            *out = resample(mirror, skeleton, clip, j);
            resampled.push(BoneId(j as u32));
        }
    }
    let out = Clip {
        tracks,
        ..clip.clone()
    };
    (out, resampled)
}

/// Bone `j`'s tracks from its counterpart's (a symmetric bone): each key and tangent through
/// the constant maps.
fn map_keys(mirror: &Mirror, j: usize, from: &BoneTracks) -> BoneTracks {
    let (r, j) = (&mirror.reflection, BoneId(j as u32));
    let (rest_j, rest_c) = (r.rest_translation(j), r.rest_translation(r.counterpart(j)));
    BoneTracks {
        translation: from.translation.as_ref().map(|t| {
            map_track(t, |v, tangent| {
                if tangent {
                    r.key_shift(j, v)
                } else {
                    rest_j + r.key_shift(j, v - rest_c)
                }
            })
        }),
        rotation: from.rotation.as_ref().map(|t| {
            map_track(t, |q, tangent| {
                let out = r.key_rotation(j, q);
                // Keys keep their length (unit keys stay unit, not drifting by rounding).
                if tangent || q.length_squared() == 0.0 {
                    out
                } else {
                    out.normalize() * q.length()
                }
            })
        }),
        scale: from.scale.clone(),
    }
}

/// `track` with every value mapped by `f(value, is_tangent)`.
fn map_track<T: Copy>(track: &Track<T>, f: impl Fn(T, bool) -> T) -> Track<T> {
    let cubic = track.interpolation == Interpolation::CubicSpline;
    Track {
        interpolation: track.interpolation,
        times: track.times.clone(),
        values: track
            .values
            .iter()
            .enumerate()
            .map(|(k, &v)| f(v, cubic && k % 3 != 1))
            .collect(),
    }
}

/// Bone `j`'s tracks where the hierarchy is not symmetric: its mirrored local transform
/// sampled at every key time of the rotation tracks above it and its counterpart (and of the
/// counterpart's translation track); a channel none of them animates gets one key, or none
/// when it stays at rest.
fn resample(mirror: &Mirror, skeleton: &Skeleton, clip: &Clip, j: usize) -> BoneTracks {
    let c = mirror.counterpart(BoneId(j as u32));
    let mut times: Vec<f32> = Vec::new();
    let mut step = true;
    let mut add = |interpolation: Interpolation, t: &[f32]| {
        step &= interpolation == Interpolation::Step;
        times.extend_from_slice(t);
    };
    let across_parent = skeleton.bones[j].parent.map(|p| mirror.counterpart(p));
    for start in [Some(c), across_parent] {
        let mut at = start;
        while let Some(b) = at {
            let bt = &clip.tracks[b.index()];
            if let Some(r) = &bt.rotation {
                add(r.interpolation, &r.times);
            }
            at = skeleton.bones[b.index()].parent;
        }
    }
    if let Some(t) = &clip.tracks[c.index()].translation {
        add(t.interpolation, &t.times);
    }
    if let Some(s) = &clip.tracks[c.index()].scale {
        add(s.interpolation, &s.times);
    }
    times.sort_by(f32::total_cmp);
    times.dedup();
    if times.is_empty() {
        times.push(0.0);
    }
    let interpolation = if step {
        Interpolation::Step
    } else {
        Interpolation::Linear
    };
    let mut pose = Pose::rest(skeleton);
    let rest_locals = pose.locals.clone();
    let mut rotations: Vec<Quat> = Vec::with_capacity(times.len());
    let mut translations: Vec<Vec3> = Vec::with_capacity(times.len());
    let mut scales: Vec<Vec3> = Vec::with_capacity(times.len());
    for &time in &times {
        pose.locals.copy_from_slice(&rest_locals);
        pose.sample_into(clip, time);
        let t = mirror
            .reflection
            .reflect_bone(BoneId(j as u32), &pose.locals);
        let q = match rotations.last() {
            Some(prev) if prev.dot(t.rotation) < 0.0 => -t.rotation,
            _ => t.rotation,
        };
        rotations.push(q);
        translations.push(t.translation);
        scales.push(t.scale);
    }
    let rest = skeleton.bones[j].rest;
    fn track<T>(interpolation: Interpolation, times: &Arc<[f32]>, values: Vec<T>) -> Track<T> {
        Track {
            interpolation,
            times: times.clone(),
            values: values.into(),
        }
    }
    let times: Arc<[f32]> = times.into();
    let moved_q = rotations
        .iter()
        .any(|q| q.dot(rest.rotation).abs() < 1.0 - 1e-7);
    let moved_t = translations
        .iter()
        .any(|t| (*t - rest.translation).length() > 1e-6 * rest.translation.length().max(1e-3));
    let moved_s = scales.iter().any(|s| (*s - rest.scale).length() > 1e-7);
    BoneTracks {
        rotation: moved_q.then(|| track(interpolation, &times, rotations)),
        translation: moved_t.then(|| track(interpolation, &times, translations)),
        scale: moved_s.then(|| track(interpolation, &times, scales)),
    }
}

//! Steps 4–6 of the rest fix: applies a [`Plan`] to the model. Cannot fail.
//!
//! With `F_i` the change of frame of bone i (new world = old world · `F_i`) and `A_i` the
//! inverse change of its parent's frame (or the fold and turn for a root), every local transform
//! becomes `A_i · L · F_i`: translation `a + s_a·R_a·t`, rotation `R_a·q·R_f`, scale
//! `s_a·s_f·k`. Tangents of cubic splines take the linear part of the same maps. Inverse bind
//! matrices become `F_i⁻¹ · IBM` and attached nodes `F_i⁻¹ · T`, so every joint's skinning
//! matrix is unchanged at every frame.

use super::pose::Plan;
use super::sim::Sim;
use super::{RestOptions, RestReport, RestWarning, RestWarningCode};
use crate::model::{Interpolation, Model, Track, Transform};

pub(super) fn apply(model: &mut Model, k: usize, plan: Plan, options: &RestOptions) -> RestReport {
    let mut warnings = plan.warnings;
    let skeleton = &model.skeletons[k];
    let parents: Vec<Option<usize>> = skeleton
        .bones
        .iter()
        .map(|b| b.parent.map(|p| p.index()))
        .collect();
    let outer = |i: usize| parents[i].map_or(plan.top, |p| plan.frames[p].inverse());
    let motion = plan
        .hips_height
        .filter(|h| options.motion_scale && *h > 1e-4 && h.is_finite());
    if options.motion_scale && motion.is_none() {
        warnings.push(RestWarning {
            code: RestWarningCode::NoMotionScale,
            bone: None,
            clip: None,
            message: "motion scale asked for, but the hips are not mapped or stand at height 0".into(),
        });
    }
    let mut complemented = 0;
    for clip in model.clips.iter_mut().filter(|c| c.skeleton == k) {
        for (i, tracks) in clip.tracks.iter_mut().enumerate() {
            if let (Some(old), None) = (plan.changed[i], &tracks.rotation) {
                // "No track" must keep meaning the old rest, which is about to change.
                tracks.rotation = Some(Track {
                    interpolation: Interpolation::Linear,
                    times: vec![0.0],
                    values: vec![old],
                });
                complemented += 1;
            }
            let (a, f) = (outer(i), plan.frames[i]);
            if let Some(t) = &mut tracks.translation {
                map_values(t, |v, tangent| if tangent { a.r * (v * a.s) } else { a.point(v) });
                if let Some(h) = motion.filter(|_| plan.motion_bones.iter().any(|b| b.index() == i)) {
                    map_values(t, |v, _| v / h);
                }
            }
            if let Some(t) = &mut tracks.rotation {
                map_values(t, |q, _| a.r * q * f.r);
                if t.interpolation != Interpolation::CubicSpline {
                    for j in 1..t.values.len() {
                        if t.values[j].dot(t.values[j - 1]) < 0.0 {
                            t.values[j] = -t.values[j];
                        }
                    }
                }
            }
            if let Some(t) = &mut tracks.scale {
                // Uniform, or on a bone that keeps its axes: exact either way.
                map_values(t, |v, _| v * (a.s * f.s));
            }
        }
        if motion.is_some() {
            clip.motion_scale = motion;
        }
    }
    let skeleton = &mut model.skeletons[k];
    for (i, (bone, rest)) in skeleton.bones.iter_mut().zip(&plan.rests).enumerate() {
        bone.rest = convert_rest(rest, outer(i), plan.frames[i]);
    }
    skeleton.base = plan.new_base;
    for skin in &mut skeleton.skins {
        for (j, ibm) in skin.joints.iter().zip(&mut skin.inverse_bind_matrices) {
            *ibm = plan.frames[j.index()].inverse().to_mat4() * *ibm;
        }
    }
    for att in &mut skeleton.attachments {
        att.transform = plan.frames[att.parent.index()].inverse().apply(&att.transform);
    }
    RestReport {
        base: plan.base,
        facing_turn_deg: plan.facing_turn_deg,
        complemented_tracks: complemented,
        motion_scale: motion,
        bones: plan.bones,
        warnings,
    }
}

/// `a · rest · f`, the same map the keys take, so "no track" keeps meaning the rest.
fn convert_rest(rest: &Transform, a: Sim, f: Sim) -> Transform {
    Transform {
        translation: a.point(rest.translation),
        rotation: (a.r * rest.rotation * f.r).normalize(),
        scale: rest.scale * (a.s * f.s),
    }
}

/// Maps every value of a track; `f(value, is_tangent)`.
fn map_values<T: Copy>(track: &mut Track<T>, f: impl Fn(T, bool) -> T) {
    let cubic = track.interpolation == Interpolation::CubicSpline;
    for (n, v) in track.values.iter_mut().enumerate() {
        *v = f(*v, cubic && n % 3 != 1);
    }
}

//! Poses: a clip sampled at one time, and the world matrices it gives.

use super::{Clip, Skeleton, Transform};
use glam::Mat4;

/// Local transforms of every bone of a skeleton at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    /// One local transform per bone, indexed by `BoneId`.
    pub locals: Vec<Transform>,
}

impl Pose {
    /// The rest pose of `skeleton`.
    pub fn rest(skeleton: &Skeleton) -> Self {
        Pose {
            locals: skeleton.bones.iter().map(|b| b.rest).collect(),
        }
    }

    /// Samples `clip` at `time` seconds; channels without a track hold the rest value. The clip
    /// must be valid for the skeleton ([`Clip::validate`]).
    pub fn sample(skeleton: &Skeleton, clip: &Clip, time: f32) -> Self {
        let mut pose = Pose::rest(skeleton);
        pose.sample_into(clip, time);
        pose
    }

    /// Overwrites the animated channels of this pose with `clip` sampled at `time` seconds
    /// ([`Track::sample`](super::Track::sample), rotations by
    /// [`Track::sample_unit`](super::Track::sample_unit)): at a key time, the keys as stored.
    pub fn sample_into(&mut self, clip: &Clip, time: f32) {
        for (local, tracks) in self.locals.iter_mut().zip(&clip.tracks) {
            if let Some(t) = &tracks.translation {
                local.translation = t.sample(time);
            }
            if let Some(t) = &tracks.rotation {
                local.rotation = t.sample_unit(time);
            }
            if let Some(t) = &tracks.scale {
                local.scale = t.sample(time);
            }
        }
    }

    /// World matrices of every bone (including the skeleton's base transform).
    pub fn world(&self, skeleton: &Skeleton) -> Vec<Mat4> {
        let locals: Vec<Mat4> = self.locals.iter().map(Transform::to_mat4).collect();
        skeleton.to_world(&locals)
    }
}

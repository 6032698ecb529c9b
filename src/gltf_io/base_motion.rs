//! The nodes above a skeleton as a clip moves them: their still transforms and the keys the
//! clip's source animation gives them (channels the model carries as opaque), for a writer that
//! folds them into the skeleton's roots frame by frame (BVH, which has no node above its roots).

use super::{Document, Error};
use crate::model::{BoneTracks, Clip, Interpolation, OpaqueKind, Skeleton, Track, Transform};
use glam::{Mat4, Quat, Vec3};
use serde_json::Value;

impl Document {
    /// Each node above `skeleton` (its `base_nodes`, scene root down): its still transform and
    /// the keys `clip` (a clip of this document, read from its `source` animation) gives it.
    /// Empty tracks where the clip keys no node above. An error names the channel whose keys
    /// cannot be read.
    pub fn base_motion(
        &self,
        skeleton: &Skeleton,
        clip: &Clip,
    ) -> Result<Vec<(Transform, BoneTracks)>, Error> {
        let nodes = self.json_member("nodes").cloned().unwrap_or(Value::Null);
        let mut out: Vec<(Transform, BoneTracks)> = (skeleton.base_nodes.iter())
            .map(|&n| (still(&nodes[n as usize]), BoneTracks::default()))
            .collect();
        for o in &clip.opaque {
            let OpaqueKind::NodeTransform { node, path } = &o.kind else {
                continue;
            };
            let Some(k) = skeleton.base_nodes.iter().position(|n| n == node) else {
                continue;
            };
            let anim = clip
                .source
                .map_or_else(|| "?".to_string(), |a| a.to_string());
            let at = format!("animations[{anim}].channels[{}]", o.channel);
            let (interpolation, times, values) =
                self.channel_keys(clip, o.channel).map_err(|why| Error {
                    file: self.path.clone(),
                    kind: super::error::invalid(at.clone(), why),
                })?;
            let vec3 = |v: &[f32]| v.chunks_exact(3).map(Vec3::from_slice).collect();
            let tracks = &mut out[k].1;
            match path.as_str() {
                "translation" => {
                    tracks.translation = Some(track(interpolation, &times, vec3(&values)))
                }
                "scale" => tracks.scale = Some(track(interpolation, &times, vec3(&values))),
                _ => {
                    let q = values.chunks_exact(4).map(Quat::from_slice).collect();
                    tracks.rotation = Some(track(interpolation, &times, q));
                }
            }
        }
        Ok(out)
    }

    /// Interpolation, key times and flat output values of channel `channel` of `clip`'s source
    /// animation; why not, in words.
    fn channel_keys(
        &self,
        clip: &Clip,
        channel: u32,
    ) -> Result<(Interpolation, Vec<f32>, Vec<f32>), String> {
        let anim = (clip.source)
            .and_then(|a| self.json_member("animations")?.get(a as usize))
            .ok_or("the clip has no source animation")?;
        let ch = anim["channels"]
            .get(channel as usize)
            .ok_or("no such channel")?;
        let sampler = (ch["sampler"].as_u64())
            .and_then(|s| anim["samplers"].get(s as usize))
            .ok_or("no sampler")?;
        let interpolation = match sampler["interpolation"].as_str() {
            None | Some("LINEAR") => Interpolation::Linear,
            Some("STEP") => Interpolation::Step,
            Some("CUBICSPLINE") => Interpolation::CubicSpline,
            Some(other) => return Err(format!("unknown interpolation `{other}`")),
        };
        let floats = |key: &str| {
            let index = sampler[key].as_u64().ok_or(format!("no {key} accessor"))?;
            self.accessor_floats(index as usize)
                .map(|(v, _)| v)
                .map_err(|e| e.to_string())
        };
        let (times, values) = (floats("input")?, floats("output")?);
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        let width = values.len() / (times.len() * per_key).max(1);
        if times.is_empty() || values.len() != times.len() * per_key * width {
            return Err(format!(
                "{} output values for {} keys",
                values.len(),
                times.len()
            ));
        }
        Ok((interpolation, times, values))
    }
}

/// A node's transform (its `matrix`, else its TRS) as glTF gives it.
fn still(node: &Value) -> Transform {
    let floats = |key: &str| -> Option<Vec<f32>> {
        (node[key].as_array()?.iter())
            .map(|v| v.as_f64().map(|f| f as f32))
            .collect()
    };
    if let Some(m) = floats("matrix").filter(|m| m.len() == 16) {
        return Transform::from_mat4(&Mat4::from_cols_slice(&m));
    }
    let v3 = |key: &str, d: Vec3| {
        floats(key)
            .filter(|v| v.len() == 3)
            .map_or(d, |v| Vec3::from_slice(&v))
    };
    Transform {
        translation: v3("translation", Vec3::ZERO),
        rotation: floats("rotation")
            .filter(|v| v.len() == 4)
            .map_or(Quat::IDENTITY, |v| Quat::from_slice(&v).normalize()),
        scale: v3("scale", Vec3::ONE),
    }
}

fn track<T>(interpolation: Interpolation, times: &[f32], values: Vec<T>) -> Track<T> {
    Track {
        interpolation,
        times: times.into(),
        values: values.into(),
    }
}

//! The mirror workflow: choose the clips, map each skeleton that has one, mirror its clips.
//! Works on the model as read (no normalizing: the file keeps its rests and names); reads and
//! writes no files.

use crate::mapping::{map_in_model, MapOptions};
use crate::mirror::{mirror as mirror_skeleton, MirrorError, MirrorOptions, MirrorReport};
use crate::model::{Model, SkeletonId};
use crate::profile::Profile;
use serde::Serialize;

/// Options of [`mirror`].
#[derive(Debug, Clone, Default)]
pub struct MirrorJob {
    /// How bones are mapped to the profile (mapped bones pair through it).
    pub map: MapOptions,
    /// Which clips, how they are named, the plane. `clips` names clips of any skeleton; every
    /// clip of the file when empty.
    pub mirror: MirrorOptions,
}

/// What [`mirror`] did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MirrorRunReport {
    /// The profile.
    pub profile: String,
    /// Per skeleton that had clips to mirror.
    pub skeletons: Vec<MirrorReport>,
}

/// Why [`mirror`] changed nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MirrorRunError {
    /// The file has no clips.
    #[error("has no clips to mirror")]
    NoClips,
    /// A clip asked for does not exist.
    #[error("no clip `{clip}` (it has: {})", available.join(", "))]
    NoClip {
        /// The name asked for.
        clip: String,
        /// The file's clips.
        available: Vec<String>,
    },
    /// Mirroring a skeleton's clips refused.
    #[error(transparent)]
    Mirror(#[from] MirrorError),
}

/// Mirrors the clips `job` chooses, each on its own skeleton (mapped to `profile` as found:
/// a partial map is fine, the unmapped bones pair by name). On error the model is unchanged.
pub fn mirror(
    model: &mut Model,
    profile: &Profile,
    job: &MirrorJob,
) -> Result<MirrorRunReport, MirrorRunError> {
    if model.clips.is_empty() {
        return Err(MirrorRunError::NoClips);
    }
    let available = || model.clips.iter().map(|c| c.name.clone()).collect();
    if let Some(missing) = job
        .mirror
        .clips
        .iter()
        .find(|n| !model.clips.iter().any(|c| &c.name == *n))
    {
        return Err(MirrorRunError::NoClip {
            clip: missing.clone(),
            available: available(),
        });
    }
    let chosen = |k: SkeletonId| -> Vec<String> {
        let mut names: Vec<String> = model
            .clips
            .iter()
            .filter(|c| c.skeleton == k)
            .map(|c| c.name.clone())
            .filter(|n| job.mirror.clips.is_empty() || job.mirror.clips.contains(n))
            .collect();
        names.dedup();
        names
    };
    let work: Vec<(SkeletonId, Vec<String>)> = model
        .skeleton_ids()
        .map(|k| (k, chosen(k)))
        .filter(|(_, clips)| !clips.is_empty())
        .collect();
    let original = model.clone();
    let mut skeletons = Vec::with_capacity(work.len());
    for (k, clips) in work {
        let map = map_in_model(model, k, profile, &job.map);
        let options = MirrorOptions {
            // Empty: every clip of the skeleton (two clips may share a name).
            clips: if job.mirror.clips.is_empty() {
                Vec::new()
            } else {
                clips
            },
            ..job.mirror.clone()
        };
        match mirror_skeleton(model, k, &map, profile, &options) {
            Ok(r) => skeletons.push(r),
            Err(e) => {
                *model = original;
                return Err(e.into());
            }
        }
    }
    Ok(MirrorRunReport {
        profile: profile.name.clone(),
        skeletons,
    })
}

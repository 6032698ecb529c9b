//! The rest fix undone for one clip: a clip made for a normalized skeleton, converted into the
//! rests of the skeleton as it was before normalizing, so it plays on the user's own character
//! (`retarget`'s default output).
//!
//! Normalizing converts each local key `L` of bone i into `A_i · L · F_i` ([`super::convert`]);
//! the [`KeyMap`] keeps `A` of the roots and every `F_i`, and the inverse map is
//! `A_i⁻¹ · L' · F_i⁻¹`, with `A_i⁻¹ = F_parent` for a bone with a parent. (The maps cannot be
//! found again from the two rests alone: the silhouette fix changes the rest pose itself.)

use super::convert::{convert_rest, map_keys, map_values, Wide};
use crate::model::{turn_deg, BoneId, BoneTracks, Clip, Interpolation, Skeleton, Track, Transform};

/// How the rest fix converted a skeleton's keys: enough to convert a clip back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyMap {
    /// `A` of the roots: the fold and turn.
    pub(super) top: Wide,
    /// `F_i` per bone.
    pub(super) frames: Vec<Wide>,
    /// The bones whose translation keys motion scale divides (root and hips).
    pub(super) motion_bones: Vec<BoneId>,
}

/// Why a clip cannot be carried back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RestoreError {
    /// The clip, the key map and the skeleton do not belong together.
    #[error("clip `{clip}` ({c} bone tracks) does not fit skeleton `{skeleton}` ({b} bones) or its key map", c = .counts.0, b = .counts.1)]
    NotTheSame {
        /// The clip.
        clip: String,
        /// The skeleton.
        skeleton: String,
        /// Tracks in the clip, bones in the skeleton.
        counts: (usize, usize),
    },
}

/// Converts `clip`, made for `normalized`, into the rests of `original`, the same skeleton
/// before the rest fix that gave `keys`. Every joint moves in the scene as the clip moves it on
/// the normalized skeleton (turned back by the scene's turn, if the scene turned), each bone
/// with its own axes. A bone the clip leaves at its normalized rest gets a one-key track where
/// that rest, converted back, is not its original rest (the silhouette fix changed the pose).
pub fn carry_back(
    clip: &Clip,
    keys: &KeyMap,
    normalized: &Skeleton,
    original: &Skeleton,
) -> Result<Clip, RestoreError> {
    let n = original.bones.len();
    if keys.frames.len() != n || clip.tracks.len() != n || normalized.bones.len() != n {
        return Err(RestoreError::NotTheSame {
            clip: clip.name.clone(),
            skeleton: original.name.clone(),
            counts: (clip.tracks.len(), n),
        });
    }
    let root = keys.top.inverse();
    let frames = &keys.frames;
    let mut out = clip.clone();
    let motion = out.motion_scale.take();
    for (i, tracks) in out.tracks.iter_mut().enumerate() {
        let a = original.bones[i].parent.map_or(root, |p| frames[p.index()]);
        let q = frames[i].inverse();
        hold_rest(
            tracks,
            (a, q),
            &normalized.bones[i].rest,
            &original.bones[i].rest,
        );
        // Motion scale divided these keys after converting them: multiply first.
        if let (Some(t), Some(h)) = (
            &mut tracks.translation,
            motion.filter(|_| keys.motion_bones.iter().any(|b| b.index() == i)),
        ) {
            map_values(t, |v, _| v * h);
        }
        map_keys(tracks, a, q);
    }
    Ok(out)
}

/// Gives `tracks` (of a normalized clip) a one-key track for each channel it lacks whose
/// normalized rest value (`new`), converted back by `maps` (`A⁻¹`, `F⁻¹`), is not the original
/// rest value (`old`): the key holds the normalized rest, so it converts back to what the clip
/// meant. Within rounding, "no track" already means the same.
fn hold_rest(tracks: &mut BoneTracks, maps: (Wide, Wide), new: &Transform, old: &Transform) {
    fn key<T>(value: T) -> Option<Track<T>> {
        Some(Track {
            interpolation: Interpolation::Linear,
            times: vec![0.0].into(),
            values: vec![value].into(),
        })
    }
    let (a, q) = maps;
    const CLOSE: f32 = 1e-6;
    let back = convert_rest(new, a, q);
    let size = old
        .translation
        .length()
        .max(new.translation.length())
        .max(1e-6);
    if tracks.translation.is_none() && back.translation.distance(old.translation) > CLOSE * size {
        tracks.translation = key(new.translation);
    }
    // 1e-4° is far above f32 rounding (about 1e-5°) and far below anything visible.
    if tracks.rotation.is_none() && turn_deg(back.rotation.conjugate() * old.rotation) > 1e-4 {
        tracks.rotation = key(new.rotation);
    }
    let close_scale = CLOSE * old.scale.abs().max_element();
    if tracks.scale.is_none() && !back.scale.abs_diff_eq(old.scale, close_scale) {
        tracks.scale = key(new.scale);
    }
}

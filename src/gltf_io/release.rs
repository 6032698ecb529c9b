//! Letting go of the key values a document read, once the stages are done and only writing
//! needs the model as read: to tell which tracks changed. Every comparison writing makes
//! between a track of the model and one read gives the same answer after as before.

use super::read_keys::ReadKeys;
use crate::model::Channel::{Rotation, Scale, Translation};
use crate::model::{Clip, Model, Track, TrackValue};
use glam::{Quat, Vec3};
use std::sync::Arc;

/// Replaces the key values of `read`'s tracks (the model as read) that `model` does not share:
/// by the model's equal track when it has one (sharing its values), else by none. Writing
/// compares a track read only with the track of the same bone and channel in a clip of the
/// model read from the same animation, or at the same place in the model; against those a
/// track read compares as before (equal to the same ones: equality of finite keys is an
/// equivalence), and with no values it equals none of them (each has at least one).
/// Tracks whose values `keys` places in the buffers hold none already and stay as they are.
pub(crate) fn let_go(read: &mut Model, keys: &ReadKeys, model: &Model) {
    // The values of every track let go: none, shared (equal to none either way).
    let (no_vec3, no_quat): (Arc<[Vec3]>, Arc<[Quat]>) = (Arc::from([]), Arc::from([]));
    for (i, clip) in read.clips.iter_mut().enumerate() {
        let same_source = model
            .clips
            .iter()
            .filter(|c| clip.source.is_some() && c.source == clip.source);
        let candidates: Vec<&Clip> = same_source.chain(model.clips.get(i)).collect();
        for (b, tracks) in clip.tracks.iter_mut().enumerate() {
            let at = || candidates.iter().filter_map(move |c| c.tracks.get(b));
            let held = |channel| keys.get(i, b, channel).is_none();
            if let Some(t) = tracks.translation.as_mut().filter(|_| held(Translation)) {
                settle(t, at().flat_map(|m| &m.translation), &no_vec3);
            }
            if let Some(t) = tracks.rotation.as_mut().filter(|_| held(Rotation)) {
                settle(t, at().flat_map(|m| &m.rotation), &no_quat);
            }
            if let Some(t) = tracks.scale.as_mut().filter(|_| held(Scale)) {
                settle(t, at().flat_map(|m| &m.scale), &no_vec3);
            }
        }
    }
}

/// `read` as the model's track it equals, or with the values `none` (no values) when it equals
/// none of `model` (unless it already shares its values with one, or one of them has no values
/// either).
fn settle<'a, T: TrackValue + PartialEq + 'a>(
    read: &mut Track<T>,
    model: impl Iterator<Item = &'a Track<T>> + Clone,
    none: &Arc<[T]>,
) {
    if model.clone().any(|m| Arc::ptr_eq(&m.values, &read.values)) {
        return;
    }
    if let Some(m) = model.clone().find(|m| **m == *read) {
        *read = m.clone();
    } else if model.clone().all(|m| !m.values.is_empty()) {
        read.values = none.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Interpolation;

    fn track(values: Vec<Quat>) -> Track<Quat> {
        Track {
            interpolation: Interpolation::Linear,
            times: (0..values.len()).map(|i| i as f32).collect(),
            values: values.into(),
        }
    }

    #[test]
    fn a_track_read_compares_as_before() {
        let a = track(vec![Quat::IDENTITY, Quat::from_rotation_x(0.5)]);
        let b = track(vec![Quat::IDENTITY, Quat::from_rotation_y(0.5)]);
        // Equal to a model track (not shared): becomes it, still equal to it.
        let mut read = track(vec![Quat::IDENTITY, Quat::from_rotation_x(0.5)]);
        let none: Arc<[Quat]> = Arc::from([]);
        settle(&mut read, [&b, &a].into_iter(), &none);
        assert!(Arc::ptr_eq(&read.values, &a.values));
        assert!(read == a && read != b);
        // Equal to none: no values, equal to none.
        let mut read = track(vec![Quat::IDENTITY, Quat::from_rotation_z(0.5)]);
        settle(&mut read, [&a, &b].into_iter(), &none);
        assert!(read.values.is_empty() && read != a && read != b);
        // Shared with one: kept.
        let mut read = a.clone();
        settle(&mut read, [&b, &a].into_iter(), &none);
        assert!(Arc::ptr_eq(&read.values, &a.values));
    }
}

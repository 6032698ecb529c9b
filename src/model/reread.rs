//! Key values a model was read with that can be read again from where they lie (the bytes of
//! the file they came from), so that a copy of the model as read, kept to compare with after the
//! stages changed the model, need not hold a second copy of every key (issue 19: fresh memory
//! costs more than the work done in it; a copy kept the rest fix from converting the model's
//! keys where they are).
//!
//! A reader offers them ([`RereadableKeys`]); [`drop_rereadable`] lets go of them in the copy;
//! whoever compares with the copy takes a clip at a time back whole with [`reread_clip`].

use super::{Channel, Clip, Model, Track};
use glam::{Quat, Vec3};
use std::sync::Arc;

/// The key values of a model as read that can be read again, by clip, bone and channel (places
/// in that model). Values it [`has`](RereadableKeys::has) are read again exactly as they were read,
/// bit for bit, every time.
pub trait RereadableKeys: Send + Sync + std::fmt::Debug {
    /// Whether the values of track `channel` of bone `bone` of clip `clip` can be read again,
    /// that track holding the key times `times`: the very array the model as read holds there
    /// (not equal numbers elsewhere), so that a model whose clips moved or changed since it
    /// was read lets go of nothing it could not get back.
    fn has(&self, clip: usize, bone: usize, channel: Channel, times: &Arc<[f32]>) -> bool;
    /// The values of a translation or scale track that [`RereadableKeys::has`], read again.
    fn vec3s(&self, clip: usize, bone: usize, channel: Channel) -> Option<Arc<[Vec3]>>;
    /// The values of a rotation track that [`RereadableKeys::has`], read again.
    fn quats(&self, clip: usize, bone: usize) -> Option<Arc<[Quat]>>;
}

/// Lets go of the key values of `model` (the model as read, or an unchanged copy) that `rereading`
/// can read again: those tracks keep their times and hold no values (a track that holds keys
/// never has none otherwise). Returns how many tracks it let go of.
pub fn drop_rereadable(model: &mut Model, rereading: &dyn RereadableKeys) -> usize {
    let (no_vec3, no_quat): (Arc<[Vec3]>, Arc<[Quat]>) = (Arc::from([]), Arc::from([]));
    let mut dropped = 0;
    for (c, clip) in model.clips.iter_mut().enumerate() {
        for (b, tracks) in clip.tracks.iter_mut().enumerate() {
            let mut let_go = |channel, times: &Arc<[f32]>| {
                let has = !times.is_empty() && rereading.has(c, b, channel, times);
                dropped += usize::from(has);
                has
            };
            if let Some(t) = tracks.translation.as_mut() {
                if let_go(Channel::Translation, &t.times) {
                    t.values = no_vec3.clone();
                }
            }
            if let Some(t) = tracks.rotation.as_mut() {
                if let_go(Channel::Rotation, &t.times) {
                    t.values = no_quat.clone();
                }
            }
            if let Some(t) = tracks.scale.as_mut() {
                if let_go(Channel::Scale, &t.times) {
                    t.values = no_vec3.clone();
                }
            }
        }
    }
    dropped
}

/// Whether `clip` has a track [`drop_rereadable`] let go of (times but no values).
pub fn has_dropped_keys(clip: &Clip) -> bool {
    fn empty<T>(t: &Option<Track<T>>) -> bool {
        t.as_ref().is_some_and(needs)
    }
    clip.tracks
        .iter()
        .any(|t| empty(&t.translation) || empty(&t.rotation) || empty(&t.scale))
}

/// Clip `clip` (its place `c` in the model [`drop_rereadable`] was given) with the values of its
/// dropped tracks read again from `rereading`: the clip as read. None when a dropped track's values
/// cannot be read again, or are not as many as its times ask for.
pub fn reread_clip(clip: &Clip, c: usize, rereading: &dyn RereadableKeys) -> Option<Clip> {
    let mut whole = clip.clone();
    for (b, tracks) in whole.tracks.iter_mut().enumerate() {
        if let Some(t) = tracks.translation.as_mut().filter(|t| needs(t)) {
            t.values = fits(t, rereading.vec3s(c, b, Channel::Translation)?)?;
        }
        if let Some(t) = tracks.rotation.as_mut().filter(|t| needs(t)) {
            t.values = fits(t, rereading.quats(c, b)?)?;
        }
        if let Some(t) = tracks.scale.as_mut().filter(|t| needs(t)) {
            t.values = fits(t, rereading.vec3s(c, b, Channel::Scale)?)?;
        }
    }
    Some(whole)
}

/// Whether `track` lost its values to [`drop_rereadable`] (times, no values).
fn needs<T>(track: &Track<T>) -> bool {
    track.values.is_empty() && !track.times.is_empty()
}

/// `values`, if they are as many as `track`'s times ask for (three per key for a cubic spline).
fn fits<T>(track: &Track<T>, values: Arc<[T]>) -> Option<Arc<[T]>> {
    let per_key = match track.interpolation {
        super::Interpolation::CubicSpline => 3,
        _ => 1,
    };
    (values.len() == track.times.len() * per_key).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BoneTracks, Interpolation};

    /// A track's place: clip, bone, channel.
    type Place = (usize, usize, Channel);

    /// Values kept aside by place: what a reader would read again from its bytes.
    #[derive(Debug, Default)]
    struct Kept {
        vec3s: Vec<(Place, Arc<[Vec3]>)>,
        quats: Vec<(Place, Arc<[Quat]>)>,
    }

    impl RereadableKeys for Kept {
        fn has(&self, clip: usize, bone: usize, channel: Channel, _: &Arc<[f32]>) -> bool {
            match channel {
                Channel::Rotation => self.quats.iter().any(|(k, _)| *k == (clip, bone, channel)),
                _ => self.vec3s.iter().any(|(k, _)| *k == (clip, bone, channel)),
            }
        }
        fn vec3s(&self, clip: usize, bone: usize, channel: Channel) -> Option<Arc<[Vec3]>> {
            let found = self.vec3s.iter().find(|(k, _)| *k == (clip, bone, channel));
            found.map(|(_, v)| Arc::from(&v[..]))
        }
        fn quats(&self, clip: usize, bone: usize) -> Option<Arc<[Quat]>> {
            let place = (clip, bone, Channel::Rotation);
            let found = self.quats.iter().find(|(k, _)| *k == place);
            found.map(|(_, v)| Arc::from(&v[..]))
        }
    }

    fn track<T: Clone>(times: &[f32], values: &[T], interpolation: Interpolation) -> Track<T> {
        Track {
            times: Arc::from(times),
            values: Arc::from(values),
            interpolation,
        }
    }

    /// Two clips of two bones; bone 1 of clip 1 is a cubic spline.
    fn model() -> Model {
        let clip = |name: &str, cubic: bool| {
            let lin = Interpolation::Linear;
            let tracks = vec![
                BoneTracks {
                    translation: Some(track(&[0.0, 1.0], &[Vec3::X, Vec3::Y], lin)),
                    rotation: Some(track(&[0.0, 1.0], &[Quat::IDENTITY, Quat::IDENTITY], lin)),
                    scale: None,
                },
                BoneTracks {
                    translation: None,
                    rotation: Some(match cubic {
                        false => track(&[0.5], &[Quat::from_rotation_y(0.5)], lin),
                        true => track(
                            &[0.5],
                            &[Quat::IDENTITY, Quat::from_rotation_x(1.0), Quat::IDENTITY],
                            Interpolation::CubicSpline,
                        ),
                    }),
                    scale: Some(track(&[0.0], &[Vec3::splat(2.0)], lin)),
                },
            ];
            Clip::new(name, crate::model::SkeletonId(0), tracks)
        };
        Model {
            clips: vec![clip("a", false), clip("b", true)],
            ..Model::default()
        }
    }

    /// Everything of `model` but the rotation of bone 0 of clip 0, kept aside.
    fn kept(model: &Model) -> Kept {
        let mut kept = Kept::default();
        for (c, clip) in model.clips.iter().enumerate() {
            for (b, t) in clip.tracks.iter().enumerate() {
                if let Some(tr) = &t.translation {
                    kept.vec3s
                        .push(((c, b, Channel::Translation), tr.values.clone()));
                }
                if let Some(s) = &t.scale {
                    kept.vec3s.push(((c, b, Channel::Scale), s.values.clone()));
                }
                if let Some(r) = t.rotation.as_ref().filter(|_| (c, b) != (0, 0)) {
                    kept.quats
                        .push(((c, b, Channel::Rotation), r.values.clone()));
                }
            }
        }
        kept
    }

    #[test]
    fn clips_reread_after_their_keys_were_dropped_are_the_clips_read() {
        let read = model();
        let kept = kept(&read);
        let mut copy = read.clone();
        assert_eq!(drop_rereadable(&mut copy, &kept), 7);
        assert!(copy.clips.iter().all(has_dropped_keys));
        // What cannot be read again is kept.
        let kept_rotation = copy.clips[0].tracks[0].rotation.as_ref().unwrap();
        assert_eq!(kept_rotation.values.len(), 2);
        // Hollow tracks keep their times and hold no values.
        let t = copy.clips[1].tracks[1].rotation.as_ref().unwrap();
        assert!(t.values.is_empty() && t.times.len() == 1);
        for (c, clip) in copy.clips.iter().enumerate() {
            let whole = reread_clip(clip, c, &kept).unwrap();
            assert_eq!(whole, read.clips[c]);
            assert!(!has_dropped_keys(&whole));
        }
        // The model as read shares no values with the copy's tracks whose values were dropped.
        let read_values = &read.clips[1].tracks[1].scale.as_ref().unwrap().values;
        let copy_values = &copy.clips[1].tracks[1].scale.as_ref().unwrap().values;
        assert!(!Arc::ptr_eq(read_values, copy_values));
    }

    #[test]
    fn a_clip_that_cannot_be_reread_whole_is_none() {
        let read = model();
        let mut copy = read.clone();
        drop_rereadable(&mut copy, &kept(&read));
        // Values no longer there, or not as many as the times ask for.
        assert!(reread_clip(&copy.clips[0], 0, &Kept::default()).is_none());
        let mut short = kept(&read);
        short.vec3s[0].1 = Arc::from([Vec3::ZERO]);
        assert!(reread_clip(&copy.clips[0], 0, &short).is_none());
        // A clip with nothing dropped comes back as it is.
        assert_eq!(
            reread_clip(&read.clips[0], 0, &Kept::default()).as_ref(),
            Some(&read.clips[0])
        );
    }
}

//! The arrays the rest fix converts keys into. Key values shared with another track (the model
//! as read) are copied on the calling thread before the conversion, with no look at whether the
//! conversion will change them, so that look is not made on this thread alone; once converted,
//! a copy whose every value came out the same, bit for bit, is let go of and the track shares
//! the values read again, as [`super::convert::map_values`] would have left it.

use super::convert::Bits;
use crate::model::{BoneTracks, Clip, Track};
use glam::{Quat, Vec3};
use std::sync::Arc;

/// The values read of one channel whose track got a copy to convert: clip `clip`, bone `bone`.
pub(super) struct Taken {
    clip: usize,
    bone: usize,
    read: Read,
}

/// The values read, by channel.
enum Read {
    Translation(Arc<[Vec3]>),
    Rotation(Arc<[Quat]>),
    Scale(Arc<[Vec3]>),
}

/// Gives each track of `tracks` (bone `bone` of clip `clip`) whose values are shared its own
/// copy of them, noting the values read in `taken`. Returns how many keys `tracks` hold.
pub(super) fn take(
    tracks: &mut BoneTracks,
    clip: usize,
    bone: usize,
    taken: &mut Vec<Taken>,
) -> usize {
    let mut keys = 0;
    let mut note = |read| taken.push(Taken { clip, bone, read });
    if let Some(t) = &mut tracks.translation {
        keys += t.values.len();
        if let Some(r) = copy(t) {
            note(Read::Translation(r));
        }
    }
    if let Some(t) = &mut tracks.rotation {
        keys += t.values.len();
        if let Some(r) = copy(t) {
            note(Read::Rotation(r));
        }
    }
    if let Some(t) = &mut tracks.scale {
        keys += t.values.len();
        if let Some(r) = copy(t) {
            note(Read::Scale(r));
        }
    }
    keys
}

/// Gives `track` a copy of its values if they are shared; returns the values read.
fn copy<T: Copy>(track: &mut Track<T>) -> Option<Arc<[T]>> {
    if Arc::get_mut(&mut track.values).is_some() {
        return None;
    }
    let copy = Arc::from(&track.values[..]);
    Some(std::mem::replace(&mut track.values, copy))
}

/// Lets go of every copy in `clips` that [`take`] made (noted in `taken`) whose values are,
/// bit for bit, the values read: the track shares those again.
pub(super) fn give_back(clips: &mut [Clip], taken: Vec<Taken>) {
    for Taken { clip, bone, read } in taken {
        let Some(tracks) = clips.get_mut(clip).and_then(|c| c.tracks.get_mut(bone)) else {
            continue;
        };
        match read {
            Read::Translation(r) => share_if_same(tracks.translation.as_mut(), r),
            Read::Rotation(r) => share_if_same(tracks.rotation.as_mut(), r),
            Read::Scale(r) => share_if_same(tracks.scale.as_mut(), r),
        }
    }
}

fn share_if_same<T: Copy + Bits>(track: Option<&mut Track<T>>, read: Arc<[T]>) {
    if let Some(t) = track {
        let same = t.values.len() == read.len()
            && t.values
                .iter()
                .zip(read.iter())
                .all(|(a, b)| a.same_bits(*b));
        if same {
            t.values = read;
        }
    }
}

//! The key values of the model as read, kept where they lie: in the document's buffers. Writing
//! tells which tracks changed by comparing the model with the model as read; for a track read
//! from plain floats of an uncompressed buffer view, the model as read holds no copy of its
//! values, only where they lie, and a track is compared with those bytes, decoded as reading
//! decoded them. So the model's key arrays are its own: a stage that changes them (the rest fix
//! converts every key) changes them in place rather than into new arrays, with no second copy
//! of every key alive meanwhile (issue 19: a fresh page of memory costs more than the work done
//! in it). Every comparison gives the answer comparing the values read would give.

use super::accessor::le_floats;
use super::buffers::BufferData;
use crate::model::{BoneTracks, Channel, Clip, FxMap, Model, Track};
use glam::{Quat, Vec3};
use std::sync::Arc;

/// Where the elements of one accessor of plain little-endian floats lie: buffer `buffer`, the
/// first at byte `start` of it, one every `stride` bytes, `count` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Location {
    pub buffer: usize,
    pub start: usize,
    pub stride: usize,
    pub count: usize,
}

/// Where each array of key values read from plain floats lies, by its address, while the model
/// is read; each array is held here too, so that no other array takes its address meanwhile.
#[derive(Default)]
pub(crate) struct Located {
    at: FxMap<usize, Location>,
    vec3s: Vec<Arc<[Vec3]>>,
    quats: Vec<Arc<[Quat]>>,
}

impl Located {
    /// Room for `tracks` more arrays.
    pub fn reserve(&mut self, tracks: usize) {
        self.at.reserve(tracks);
    }

    /// Notes that `values` were read from `at`.
    pub fn note<T: ReadValue>(&mut self, values: &Arc<[T]>, at: Location) {
        self.at.insert(values.as_ptr() as usize, at);
        T::held(self).push(values.clone());
    }
}

/// The tracks of the model as read whose values were set aside ([`set_aside`]), by (clip, bone,
/// channel), with where their values lie.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadKeys {
    at: FxMap<(u32, u32, Channel), Location>,
}

impl ReadKeys {
    /// Whether no track's values were set aside.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Where the values of track `channel` of bone `bone` of clip `clip` (of the model as read)
    /// lie, when they were set aside.
    pub fn get(&self, clip: usize, bone: usize, channel: Channel) -> Option<Location> {
        if self.at.is_empty() {
            return None;
        }
        self.at.get(&(clip as u32, bone as u32, channel)).copied()
    }
}

/// Lets go of the values of every track of `read` (the model as read, sharing its arrays with
/// the document's model) that `located` places in the buffers: the track keeps no values.
/// Returns where they lie.
pub(crate) fn set_aside(read: &mut Model, located: Located) -> ReadKeys {
    let mut keys = ReadKeys::default();
    let located = located.at;
    if located.is_empty() {
        return keys;
    }
    let (no_vec3, no_quat): (Arc<[Vec3]>, Arc<[Quat]>) = (Arc::from([]), Arc::from([]));
    for (c, clip) in read.clips.iter_mut().enumerate() {
        for (b, tracks) in clip.tracks.iter_mut().enumerate() {
            let mut note = |channel, address: usize| match located.get(&address) {
                Some(&at) => {
                    keys.at.insert((c as u32, b as u32, channel), at);
                    true
                }
                None => false,
            };
            if let Some(t) = &mut tracks.translation {
                if note(Channel::Translation, t.values.as_ptr() as usize) {
                    t.values = no_vec3.clone();
                }
            }
            if let Some(t) = &mut tracks.rotation {
                if note(Channel::Rotation, t.values.as_ptr() as usize) {
                    t.values = no_quat.clone();
                }
            }
            if let Some(t) = &mut tracks.scale {
                if note(Channel::Scale, t.values.as_ptr() as usize) {
                    t.values = no_vec3.clone();
                }
            }
        }
    }
    keys
}

/// The model as read, as writing compares the model with it: tracks whose values were set aside
/// are compared with the bytes they were read from.
#[derive(Clone, Copy)]
pub(crate) struct ModelAsRead<'a> {
    pub model: &'a Model,
    keys: &'a ReadKeys,
    buffers: &'a [BufferData],
}

impl<'a> ModelAsRead<'a> {
    pub fn new(model: &'a Model, keys: &'a ReadKeys, buffers: &'a [BufferData]) -> Self {
        ModelAsRead {
            model,
            keys,
            buffers,
        }
    }

    /// Whether `model` equals the model as read (as `==` of the model with its values read).
    pub fn same_model(&self, model: &Model) -> bool {
        let Model {
            skeletons,
            clips,
            other_nodes,
            scene_turn,
            view_turn,
            points,
        } = model;
        let read = self.model;
        *skeletons == read.skeletons
            && *other_nodes == read.other_nodes
            && *scene_turn == read.scene_turn
            && *view_turn == read.view_turn
            && *points == read.points
            && clips.len() == read.clips.len()
            && clips
                .iter()
                .enumerate()
                .all(|(c, clip)| self.same_clip(c, clip))
    }

    /// Whether `new` equals clip `c` of the model as read.
    pub fn same_clip(&self, c: usize, new: &Clip) -> bool {
        let Some(read) = self.model.clips.get(c) else {
            return false;
        };
        let Clip {
            name,
            skeleton,
            tracks,
            opaque,
            source,
            motion_scale,
            curves,
        } = new;
        *name == read.name
            && *skeleton == read.skeleton
            && *opaque == read.opaque
            && *source == read.source
            && *motion_scale == read.motion_scale
            && *curves == read.curves
            && tracks.len() == read.tracks.len()
            && tracks
                .iter()
                .enumerate()
                .all(|(b, t)| self.same_tracks(c, b, t))
    }

    /// Whether `new` equals the tracks of bone `b` of clip `c` of the model as read.
    fn same_tracks(&self, c: usize, b: usize, new: &BoneTracks) -> bool {
        let BoneTracks {
            translation,
            rotation,
            scale,
        } = new;
        self.same_channel(c, b, Channel::Translation, translation.as_ref())
            && self.same_channel(c, b, Channel::Rotation, rotation.as_ref())
            && self.same_channel(c, b, Channel::Scale, scale.as_ref())
    }

    /// Whether `new` (the track of channel `channel`, if any) equals track `channel` of bone `b`
    /// of clip `c` of the model as read (both none counts as equal).
    pub fn same_channel<T: ReadValue>(
        &self,
        c: usize,
        b: usize,
        channel: Channel,
        new: Option<&Track<T>>,
    ) -> bool {
        let read = self
            .model
            .clips
            .get(c)
            .and_then(|clip| clip.tracks.get(b))
            .map(|t| T::of(t, channel));
        match (read, new) {
            (None, _) => false,
            (Some(None), None) => true,
            (Some(Some(read)), Some(new)) => self.same_track(c, b, channel, read, new),
            _ => false,
        }
    }

    /// Whether `new` equals `read`, track `channel` of bone `b` of clip `c` of the model as read
    /// (as `==` with its values read: the values first, then the times).
    fn same_track<T: ReadValue>(
        &self,
        c: usize,
        b: usize,
        channel: Channel,
        read: &Track<T>,
        new: &Track<T>,
    ) -> bool {
        let Some(at) = self.keys.get(c, b, channel) else {
            return read == new;
        };
        read.interpolation == new.interpolation
            && self.same_values(at, &new.values)
            && read.times == new.times
    }

    /// Whether `values` are the elements at `at`, as reading decoded them.
    fn same_values<T: ReadValue>(&self, at: Location, values: &[T]) -> bool {
        if values.len() != at.count {
            return false;
        }
        let len = 4 * T::FLOATS;
        let Some(bytes) = located(self.buffers, at, T::FLOATS) else {
            return false;
        };
        if at.stride == len {
            // Packed: exactly one chunk per value.
            let elements = bytes.chunks_exact(len);
            return elements.zip(values).all(|(e, v)| T::of_bytes(e) == *v);
        }
        let elements = bytes.chunks(at.stride);
        elements.zip(values).all(|(e, v)| T::of_bytes(e) == *v)
    }
}

/// The bytes of the values at `at` in `buffers`, of `floats` floats each (the last one may end
/// the buffer: no padding after it), when the buffers hold them.
fn located(buffers: &[BufferData], at: Location, floats: usize) -> Option<&[u8]> {
    let span = at.count.saturating_sub(1) * at.stride + 4 * floats;
    let buffer = buffers.get(at.buffer)?.as_deref()?;
    buffer.get(at.start..at.start.checked_add(span)?)
}

/// The key values of the model as read that lie in a document's buffers, to be read again
/// (`model::RereadableKeys`): where they lie, and the buffers (shared, not copied). Places are
/// those of the model as read (before any stage changed it).
#[derive(Debug)]
pub(crate) struct KeyRereader {
    keys: ReadKeys,
    buffers: Vec<BufferData>,
    /// The key times of each track whose values lie in the buffers, as the model as read holds
    /// them: a track is read again only at its own place.
    times: FxMap<(u32, u32, Channel), Arc<[f32]>>,
}

impl KeyRereader {
    /// What reads again the values `keys` places in `buffers`, of the tracks of `read` (the
    /// model as read, its values set aside or not: its key times are what count).
    pub fn new(keys: ReadKeys, buffers: Vec<BufferData>, read: &Model) -> KeyRereader {
        let mut times = FxMap::default();
        times.reserve(keys.at.len());
        for &(c, b, channel) in keys.at.keys() {
            let tracks = read
                .clips
                .get(c as usize)
                .and_then(|clip| clip.tracks.get(b as usize));
            let held = tracks.and_then(|t| match channel {
                Channel::Translation => t.translation.as_ref().map(|t| &t.times),
                Channel::Rotation => t.rotation.as_ref().map(|t| &t.times),
                Channel::Scale => t.scale.as_ref().map(|t| &t.times),
            });
            if let Some(held) = held {
                times.insert((c, b, channel), held.clone());
            }
        }
        KeyRereader {
            keys,
            buffers,
            times,
        }
    }

    /// The values at `at`, decoded as reading decoded them (see [`ModelAsRead::same_values`]).
    fn read<T: ReadValue>(&self, at: Location) -> Option<Arc<[T]>> {
        let len = 4 * T::FLOATS;
        let bytes = located(&self.buffers, at, T::FLOATS)?;
        Some(if at.stride == len {
            bytes
                .chunks_exact(len)
                .take(at.count)
                .map(T::of_bytes)
                .collect()
        } else {
            bytes
                .chunks(at.stride)
                .take(at.count)
                .map(T::of_bytes)
                .collect()
        })
    }
}

impl crate::model::RereadableKeys for KeyRereader {
    fn has(&self, clip: usize, bone: usize, channel: Channel, times: &Arc<[f32]>) -> bool {
        let floats = match channel {
            Channel::Rotation => 4,
            Channel::Translation | Channel::Scale => 3,
        };
        let place = (clip as u32, bone as u32, channel);
        self.times
            .get(&place)
            .is_some_and(|t| Arc::ptr_eq(t, times))
            && self
                .keys
                .get(clip, bone, channel)
                .is_some_and(|at| located(&self.buffers, at, floats).is_some())
    }

    fn vec3s(&self, clip: usize, bone: usize, channel: Channel) -> Option<Arc<[Vec3]>> {
        match channel {
            Channel::Rotation => None,
            _ => self.read(self.keys.get(clip, bone, channel)?),
        }
    }

    fn quats(&self, clip: usize, bone: usize) -> Option<Arc<[Quat]>> {
        self.read(self.keys.get(clip, bone, Channel::Rotation)?)
    }
}

/// A track value as reading makes it of little-endian floats: translations and scales are
/// `Vec3`, rotations `Quat`.
pub(crate) trait ReadValue: PartialEq + Copy + Sized {
    /// Floats per value.
    const FLOATS: usize;
    /// Made of the first floats of `bytes`, as reading made it (`accessor::le_floats`).
    fn of_bytes(bytes: &[u8]) -> Self;
    /// The track of `channel` of `tracks`, when it holds values of this type.
    fn of(tracks: &BoneTracks, channel: Channel) -> Option<&Track<Self>>;
    /// The arrays of this type `located` holds.
    fn held(located: &mut Located) -> &mut Vec<Arc<[Self]>>;
}

impl ReadValue for Vec3 {
    const FLOATS: usize = 3;
    #[inline(always)]
    fn of_bytes(bytes: &[u8]) -> Vec3 {
        Vec3::from_array(le_floats(bytes))
    }
    fn of(tracks: &BoneTracks, channel: Channel) -> Option<&Track<Vec3>> {
        match channel {
            Channel::Translation => tracks.translation.as_ref(),
            Channel::Scale => tracks.scale.as_ref(),
            Channel::Rotation => None,
        }
    }
    fn held(located: &mut Located) -> &mut Vec<Arc<[Vec3]>> {
        &mut located.vec3s
    }
}

impl ReadValue for Quat {
    const FLOATS: usize = 4;
    #[inline(always)]
    fn of_bytes(bytes: &[u8]) -> Quat {
        Quat::from_array(le_floats(bytes))
    }
    fn of(tracks: &BoneTracks, channel: Channel) -> Option<&Track<Quat>> {
        match channel {
            Channel::Rotation => tracks.rotation.as_ref(),
            _ => None,
        }
    }
    fn held(located: &mut Located) -> &mut Vec<Arc<[Quat]>> {
        &mut located.quats
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    #[test]
    fn tracks_are_told_changed_by_the_bytes_they_were_read_from() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
        let mut doc = crate::gltf_io::read(&path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let write = |doc: &crate::gltf_io::Document, name: &str| {
            let out = dir.path().join(name);
            doc.write(&out).unwrap();
            std::fs::read(out).unwrap()
        };
        let as_read = write(&doc, "a.glb");
        // The document holds no copy of the values: the model's arrays are its own.
        let (c, b) = (0, 1);
        let track = doc.model.clips[c].tracks[b].rotation.as_mut().unwrap();
        assert!(doc
            .read_keys
            .get(c, b, crate::model::Channel::Rotation)
            .is_some());
        let values = Arc::get_mut(&mut track.values).expect("not shared");
        let key = values[0];
        values[0] = -key;
        assert_ne!(write(&doc, "b.glb"), as_read, "a changed key is written");
        let track = doc.model.clips[c].tracks[b].rotation.as_mut().unwrap();
        Arc::get_mut(&mut track.values).unwrap()[0] = key;
        assert_eq!(
            write(&doc, "c.glb"),
            as_read,
            "changed back: written as read"
        );
        // Letting go of the keys read changes nothing either.
        doc.let_go_of_read_keys();
        assert_eq!(write(&doc, "d.glb"), as_read);
    }

    #[test]
    fn changing_then_writing_writes_what_changing_and_writing_writes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
        let dir = tempfile::tempdir().unwrap();
        // Every rotation key turned into its negative (the same rotation, other numbers) and a
        // clip renamed: every animation rebuilt.
        let change = |model: &mut crate::model::Model| {
            model.clips[0].name = "renamed".into();
            for clip in &mut model.clips {
                for track in clip.tracks.iter_mut().filter_map(|t| t.rotation.as_mut()) {
                    for q in Arc::make_mut(&mut track.values) {
                        *q = -*q;
                    }
                }
            }
        };
        let mut plain = crate::gltf_io::read(&path).unwrap();
        change(&mut plain.model);
        plain.write(&dir.path().join("plain.glb")).unwrap();
        let bytes = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
        assert_ne!(bytes("plain.glb"), std::fs::read(&path).unwrap());
        let mut doc = crate::gltf_io::read(&path).unwrap();
        assert!(doc.lazy.is_some(), "the JSON is held as text");
        doc.change_then_write(change, |(), model, write| {
            assert_eq!(*model, plain.model);
            write(&dir.path().join("changed.glb")).unwrap();
            // A second write makes the draft again: the same file.
            write(&dir.path().join("rereading.glb")).unwrap();
        });
        assert_eq!(bytes("changed.glb"), bytes("plain.glb"));
        assert_eq!(bytes("rereading.glb"), bytes("plain.glb"));
    }

    /// Values read again from a strided accessor (padding after each element) and a packed
    /// one, each only for the track holding the very key times read there.
    #[test]
    fn values_are_read_again_from_strided_and_packed_floats_at_their_own_place() {
        use super::{KeyRereader, Location, ReadKeys};
        use crate::model::{
            BoneTracks, Channel, Clip, Interpolation, Model, RereadableKeys, SkeletonId, Track,
        };
        use glam::{Quat, Vec3};
        let moves = [
            Vec3::new(1.0, -2.0, 3.5),
            Vec3::X,
            Vec3::new(0.25, 0.0, -1.0),
        ];
        let turns = [Quat::from_rotation_y(0.5), Quat::from_rotation_x(-1.0)];
        // Three translations 20 bytes apart from byte 4, then two rotations packed.
        let mut bytes = vec![0xAAu8; 4];
        for m in moves {
            bytes.extend(m.to_array().iter().flat_map(|f| f.to_le_bytes()));
            bytes.extend([0x55u8; 8]);
        }
        let packed = bytes.len();
        for q in turns {
            bytes.extend(q.to_array().iter().flat_map(|f| f.to_le_bytes()));
        }
        let buffers = vec![Some(super::super::buffers::Buffer::part(
            Arc::new(bytes.clone()),
            0..bytes.len(),
        ))];
        let mut keys = ReadKeys::default();
        let (strided, at_packed) = (
            Location {
                buffer: 0,
                start: 4,
                stride: 20,
                count: 3,
            },
            Location {
                buffer: 0,
                start: packed,
                stride: 16,
                count: 2,
            },
        );
        keys.at.insert((0, 1, Channel::Translation), strided);
        keys.at.insert((0, 1, Channel::Rotation), at_packed);
        let track = |n: usize| Track::<Vec3> {
            interpolation: Interpolation::Linear,
            times: (0..n).map(|i| i as f32).collect(),
            values: Arc::from([]),
        };
        let rotation = Track::<Quat> {
            interpolation: Interpolation::Linear,
            times: Arc::from([0.0, 1.0]),
            values: Arc::from([]),
        };
        let bone = BoneTracks {
            translation: Some(track(3)),
            rotation: Some(rotation),
            scale: None,
        };
        let read = Model {
            clips: vec![Clip {
                name: "walk".into(),
                skeleton: SkeletonId(0),
                tracks: vec![BoneTracks::default(), bone],
                opaque: Vec::new(),
                source: None,
                motion_scale: None,
                curves: Vec::new(),
            }],
            ..Model::default()
        };
        let rereading = KeyRereader::new(keys, buffers, &read);
        let held = &read.clips[0].tracks[1];
        let (t_times, r_times) = (
            &held.translation.as_ref().unwrap().times,
            &held.rotation.as_ref().unwrap().times,
        );
        assert!(rereading.has(0, 1, Channel::Translation, t_times));
        assert!(rereading.has(0, 1, Channel::Rotation, r_times));
        assert_eq!(
            rereading.vec3s(0, 1, Channel::Translation).as_deref(),
            Some(&moves[..])
        );
        assert_eq!(rereading.quats(0, 1).as_deref(), Some(&turns[..]));
        // Equal times that are not the ones read there, or another place: not read again.
        let copy: Arc<[f32]> = Arc::from(&t_times[..]);
        assert!(!rereading.has(0, 1, Channel::Translation, &copy));
        assert!(!rereading.has(0, 0, Channel::Translation, t_times));
        assert!(!rereading.has(0, 1, Channel::Scale, t_times));
        assert_eq!(rereading.vec3s(0, 1, Channel::Rotation), None);
    }
}

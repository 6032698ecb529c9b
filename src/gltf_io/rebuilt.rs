//! The channels and samplers of the animations a patch rebuilt, held as their few numbers until
//! written rather than built as `Value`s key by key (issue 19: a file with many clips has a
//! thousand of each). The animation's own object keeps `null` in their places; a draft
//! (`draft.rs`) writes them from here, as the `Value`s
//! `{"input":…,"output":…,"interpolation":…}` and `{"sampler":…,"target":{"node":…,"path":…}}`
//! write.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A channel or a sampler of a rebuilt animation.
pub(crate) enum AnimItem {
    /// One kept as read (parsed; a channel's `sampler` renumbered).
    Kept(Value),
    /// A new sampler (`input` and `output` accessor indices, numbers that garbage collection
    /// renumbers).
    Sampler {
        input: Value,
        output: Value,
        interpolation: &'static str,
    },
    /// A new channel.
    Channel {
        sampler: u64,
        node: u64,
        path: &'static str,
    },
}

/// The channels and samplers of the animation at `index` of the patched document.
pub(crate) struct Rebuilt {
    pub index: usize,
    pub channels: Vec<AnimItem>,
    pub samplers: Vec<AnimItem>,
}

impl AnimItem {
    /// Calls `f` on each value that holds an accessor index (a sampler's `input` and `output`).
    fn visit_accessor_refs(&mut self, f: &mut dyn FnMut(&mut Value)) {
        match self {
            AnimItem::Kept(s) => {
                for key in ["input", "output"] {
                    if let Some(i) = s.get_mut(key) {
                        f(i);
                    }
                }
            }
            AnimItem::Sampler { input, output, .. } => {
                f(input);
                f(output);
            }
            AnimItem::Channel { .. } => {}
        }
    }
}

impl Rebuilt {
    /// Calls `f` on each value of the rebuilt animations `all` that holds an accessor index
    /// (as `layout`'s walk over a document's animations does).
    pub(crate) fn visit_accessor_refs(all: &mut [Rebuilt], f: &mut dyn FnMut(&mut Value)) {
        for r in all {
            r.samplers
                .iter_mut()
                .for_each(|s| s.visit_accessor_refs(&mut *f));
        }
    }
}

impl Serialize for AnimItem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            AnimItem::Kept(v) => v.serialize(s),
            AnimItem::Sampler {
                input,
                output,
                interpolation,
            } => {
                let mut map = s.serialize_map(Some(3))?;
                map.serialize_entry("input", input)?;
                map.serialize_entry("output", output)?;
                map.serialize_entry("interpolation", interpolation)?;
                map.end()
            }
            AnimItem::Channel {
                sampler,
                node,
                path,
            } => {
                let mut map = s.serialize_map(Some(2))?;
                map.serialize_entry("sampler", sampler)?;
                map.serialize_entry("target", &Target(*node, path))?;
                map.end()
            }
        }
    }
}

/// A new channel's target.
struct Target<'a>(u64, &'a str);

impl Serialize for Target<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("node", &self.0)?;
        map.serialize_entry("path", self.1)?;
        map.end()
    }
}

/// The animations `anims` (a `Value`, an array when the document has any) with the channels
/// and samplers of `rebuilt` (in increasing `index`) in the places they keep for them.
pub(crate) struct Animations<'a> {
    pub anims: &'a Value,
    pub rebuilt: &'a [Rebuilt],
}

impl Serialize for Animations<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some(anims) = self.anims.as_array() else {
            return self.anims.serialize(s);
        };
        let mut seq = s.serialize_seq(Some(anims.len()))?;
        let mut rebuilt = self.rebuilt.iter().peekable();
        for (i, anim) in anims.iter().enumerate() {
            match (rebuilt.next_if(|r| r.index == i), anim.as_object()) {
                (Some(r), Some(map)) => seq.serialize_element(&WithParts(map, r))?,
                _ => seq.serialize_element(anim)?,
            }
        }
        seq.end()
    }
}

/// An animation with its rebuilt channels and samplers in their places.
struct WithParts<'a>(&'a serde_json::Map<String, Value>, &'a Rebuilt);

impl Serialize for WithParts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let WithParts(anim, r) = *self;
        let mut map = s.serialize_map(Some(anim.len()))?;
        for (k, v) in anim {
            match k.as_str() {
                "channels" => map.serialize_entry(k, &r.channels)?,
                "samplers" => map.serialize_entry(k, &r.samplers)?,
                _ => map.serialize_entry(k, v)?,
            }
        }
        map.end()
    }
}

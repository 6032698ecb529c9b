//! Buffer layout on write: dropping accessors and buffer views that a patch left unused, and
//! packing every buffer view into one buffer (4-byte aligned), for a document whose accessors
//! and buffer views are held apart from its other members ([`RawItems`], see `draft.rs`).
//! Fallback buffers of `EXT_meshopt_compression` (which hold no data) are kept as they are.

use super::buffers::{is_fallback, OutBuffers, Piece};
use super::lazy::LazyJson;
pub(crate) use super::raw_items::RawItems;
use super::rebuilt::Rebuilt;
use serde_json::Value;
use std::io::IoSlice;

/// Which accessors and buffer views the document refers to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Usage {
    accessors: Vec<bool>,
    views: Vec<bool>,
    /// Whether any `bufferView` key inside an `extensions` object refers to a view. When none
    /// does, none will after a patch (which adds no extensions), and the walks over the whole
    /// document that look for them are skipped.
    extension_views: bool,
}

fn each_array<'a>(json: &'a mut Value, key: &str) -> impl Iterator<Item = &'a mut Value> {
    json.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
}

fn each_value(v: Option<&mut Value>) -> impl Iterator<Item = &mut Value> {
    v.and_then(Value::as_object_mut)
        .into_iter()
        .flat_map(|o| o.values_mut())
}

/// A walk over every JSON value that holds an index of one kind.
type Visitor = fn(&mut Value, &mut dyn FnMut(&mut Value));

/// Calls `f` on every JSON value that holds an accessor index.
fn visit_accessor_refs(json: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    for mesh in each_array(json, "meshes") {
        for prim in each_array(mesh, "primitives") {
            each_value(prim.get_mut("attributes")).for_each(&mut *f);
            if let Some(i) = prim.get_mut("indices") {
                f(i);
            }
            for target in each_array(prim, "targets") {
                each_value(Some(target)).for_each(&mut *f);
            }
        }
    }
    for skin in each_array(json, "skins") {
        if let Some(i) = skin.get_mut("inverseBindMatrices") {
            f(i);
        }
    }
    for anim in each_array(json, "animations") {
        for s in each_array(anim, "samplers") {
            for key in ["input", "output"] {
                if let Some(i) = s.get_mut(key) {
                    f(i);
                }
            }
        }
    }
    for node in each_array(json, "nodes") {
        each_value(node.pointer_mut("/extensions/EXT_mesh_gpu_instancing/attributes"))
            .for_each(&mut *f);
    }
}

/// Calls `f` on every JSON value of a document's members but its accessors and buffer views
/// that holds a buffer view index: images, and any `bufferView` key inside an `extensions`
/// object (Draco and others).
fn visit_view_refs(json: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    visit_image_views(json, f);
    visit_extension_views(json, false, f);
}

/// [`visit_view_refs`] but for the references inside `extensions` objects.
fn visit_image_views(json: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    for img in each_array(json, "images") {
        if let Some(v) = img.get_mut("bufferView") {
            f(v);
        }
    }
}

/// Calls `f` on every value of the accessors and buffer views held parsed (see `raw_items.rs`)
/// that holds a buffer view index but an accessor's own `bufferView` (which [`mark_raw`] and
/// [`collect_garbage`] read as they read it in the items held as text, which hold no other): an
/// accessor's sparse parts, and when `extensions`, any `bufferView` key inside an `extensions`
/// object.
fn visit_parsed_view_refs(
    accessors: &mut RawItems,
    views: &mut RawItems,
    extensions: bool,
    f: &mut dyn FnMut(&mut Value),
) {
    for acc in accessors.parsed_mut() {
        if let Some(sparse) = acc.get_mut("sparse") {
            for part in ["indices", "values"] {
                if let Some(v) = sparse.get_mut(part).and_then(|p| p.get_mut("bufferView")) {
                    f(v);
                }
            }
        }
        if extensions {
            visit_extension_views(acc, false, f);
        }
    }
    if extensions {
        for view in views.parsed_mut() {
            visit_extension_views(view, false, f);
        }
    }
}

fn visit_extension_views(v: &mut Value, inside: bool, f: &mut dyn FnMut(&mut Value)) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if inside && k == "bufferView" {
                    f(child);
                } else {
                    visit_extension_views(child, inside || k == "extensions", f);
                }
            }
        }
        // Arrays of numbers (min, max, matrices, weights) hold no objects: skip them whole.
        Value::Array(items) if items.iter().all(Value::is_number) => {}
        Value::Array(items) => items
            .iter_mut()
            .for_each(|c| visit_extension_views(c, inside, f)),
        _ => {}
    }
}

fn mark(len: usize, json: &mut Value, visit: Visitor) -> Vec<bool> {
    let mut used = vec![false; len];
    visit(json, &mut |v| mark_one(&mut used, v));
    used
}

/// Marks in `used` the item `v` refers to, if it is an index.
fn mark_one(used: &mut [bool], v: &Value) {
    if let Some(slot) = v.as_u64().and_then(|i| used.get_mut(i as usize)) {
        *slot = true;
    }
}

/// Marks in `used` the buffer views the accessors held as text (and added) refer to.
fn mark_raw(used: &mut [bool], accessors: &mut RawItems) {
    for acc in accessors.objects_mut() {
        if let Some(slot) = acc.num("bufferView").and_then(|i| used.get_mut(i as usize)) {
            *slot = true;
        }
    }
}

impl Usage {
    /// Marks what a document refers to: its members but the accessors and buffer views in
    /// `json` (which holds placeholders for those, that refer to nothing), its accessors and
    /// buffer views in `accessors` and `views`, and its animations in `json` or held apart
    /// (then `animations` marks the accessors they refer to). It takes `&mut` only because the
    /// reference walks are written once for marking and renumbering; marking changes nothing.
    pub fn of(
        json: &mut Value,
        accessors: &mut RawItems,
        views: &mut RawItems,
        animations: impl FnOnce(&mut [bool]),
    ) -> Usage {
        let mut extension_views = false;
        let mut found = |_: &mut Value| extension_views = true;
        visit_extension_views(json, false, &mut found);
        for item in accessors.parsed_mut().chain(views.parsed_mut()) {
            visit_extension_views(item, false, &mut found);
        }
        let mut used = mark(accessors.len(), json, visit_accessor_refs);
        animations(&mut used);
        let mut used_views = mark(views.len(), json, Usage::view_walk(extension_views));
        mark_raw(&mut used_views, accessors);
        visit_parsed_view_refs(accessors, views, extension_views, &mut |v| {
            mark_one(&mut used_views, v)
        });
        Usage {
            accessors: used,
            views: used_views,
            extension_views,
        }
    }

    /// The walk over the buffer view references of the members but the accessors and buffer
    /// views of a document whose extensions hold some (`extension_views`) or none.
    fn view_walk(extension_views: bool) -> Visitor {
        if extension_views {
            visit_view_refs
        } else {
            visit_image_views
        }
    }
}

/// The new index of each item when those for which `drop` is true are removed.
fn new_indices(drop: &[bool]) -> Vec<Option<u64>> {
    let mut new_index = vec![None; drop.len()];
    let mut next = 0u64;
    for (i, d) in drop.iter().enumerate() {
        if !d {
            new_index[i] = Some(next);
            next += 1;
        }
    }
    new_index
}

/// The new index of the item index `i` holds, if it is one and is kept.
fn renumbered(i: Option<u64>, new_index: &[Option<u64>]) -> Option<u64> {
    new_index.get(i? as usize).copied().flatten()
}

/// Gives every reference `visit` walks its item's new index.
fn renumber(json: &mut Value, visit: Visitor, new_index: &[Option<u64>]) {
    visit(json, &mut |v| renumber_one(v, new_index));
}

/// Gives the reference `v` its item's new index.
fn renumber_one(v: &mut Value, new_index: &[Option<u64>]) {
    if let Some(n) = renumbered(v.as_u64(), new_index) {
        *v = n.into();
    }
}

/// The items to drop: unused now (`now`) but used before the patch (`before`; items the patch
/// added count as used before). Things the input already left unused are kept.
fn orphaned(now: &[bool], before: &[bool]) -> Vec<bool> {
    (0..now.len())
        .map(|i| !now[i] && before.get(i).copied().unwrap_or(true))
        .collect()
}

/// Drops accessors, then buffer views, that were used before the patch and are not any more.
/// Things the input already left unused are kept: skelnorm removes only what it orphaned. The
/// document's accessors and buffer views are `accessors` and `views` (with the items a patch
/// added at their end; `json` holds neither), and the channels and samplers of its rebuilt
/// animations are held beside it (`rebuilt`).
pub(crate) fn collect_garbage(
    json: &mut Value,
    accessors: &mut RawItems,
    views: &mut RawItems,
    rebuilt: &mut [Rebuilt],
    before: &Usage,
) {
    let mut now = mark(accessors.len(), json, visit_accessor_refs);
    Rebuilt::visit_accessor_refs(rebuilt, &mut |v| mark_one(&mut now, v));
    let drop = orphaned(&now, &before.accessors);
    if drop.contains(&true) {
        accessors.remove(&drop);
        let new_index = new_indices(&drop);
        renumber(json, visit_accessor_refs, &new_index);
        Rebuilt::visit_accessor_refs(rebuilt, &mut |v| renumber_one(v, &new_index));
    }
    let walk = Usage::view_walk(before.extension_views);
    let mut now = mark(views.len(), json, walk);
    mark_raw(&mut now, accessors);
    let extensions = before.extension_views;
    visit_parsed_view_refs(accessors, views, extensions, &mut |v| mark_one(&mut now, v));
    let drop = orphaned(&now, &before.views);
    if drop.contains(&true) {
        views.remove(&drop);
        let new_index = new_indices(&drop);
        renumber(json, walk, &new_index);
        visit_parsed_view_refs(accessors, views, extensions, &mut |v| {
            renumber_one(v, &new_index)
        });
        for acc in accessors.objects_mut() {
            // Set only when it changes: an accessor read keeps its text (see `raw_items.rs`).
            let old = acc.num("bufferView");
            if let Some(n) = renumbered(old, &new_index).filter(|&n| Some(n) != old) {
                acc.set_num("bufferView", n);
            }
        }
    }
}

/// Places `len` bytes after `end` (the packed buffer's length so far) at the next 4-byte
/// boundary; returns their offset and moves `end` past them.
fn place_aligned(end: &mut usize, len: usize) -> usize {
    let at = end.next_multiple_of(4);
    *end = at + len;
    at
}

fn set_offset(obj: &mut Value, key: &str, at: usize) {
    if at != 0 {
        if let Some(slot) = obj.get_mut(key) {
            // In its place, as `insert` of a key the object has puts it.
            *slot = at.into();
            return;
        }
    }
    if let Some(o) = obj.as_object_mut() {
        if at == 0 {
            o.remove(key);
        } else {
            o.insert(key.into(), at.into());
        }
    }
}

/// The bytes of the one buffer [`pack`] makes: pieces of the document's buffers, each at its
/// offset, zeros between them, `len` bytes in all (a multiple of 4). Nothing is copied until it
/// is written out.
pub(crate) struct Packed<'a> {
    /// (offset, bytes), in increasing offsets, not overlapping.
    pieces: Vec<(usize, Piece<'a>)>,
    /// The buffer's length.
    pub len: usize,
}

impl Packed<'_> {
    /// The buffer's bytes in memory.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    /// Writes the buffer's bytes to `w` without gathering them first: the pieces read (and the
    /// zeros between them) handed over together as one vectored write, which a buffered file
    /// passes to the system as it is, rather than copied into its buffer a view at a time (a
    /// copy of the whole buffer, 1–2% of converting a file with many clips).
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        const ZEROS: [u8; 4] = [0; 4];
        let mut slices = Vec::new();
        let mut end = 0;
        for &(at, piece) in &self.pieces {
            // Pieces are placed at the next 4-byte boundary: fewer than 4 zeros between.
            if at > end {
                slices.push(IoSlice::new(&ZEROS[..at - end]));
            }
            match piece {
                Piece::Read(bytes) => slices.push(IoSlice::new(bytes)),
                Piece::Added { .. } => {
                    write_all_vectored(w, &mut slices)?;
                    piece.write_to(w)?;
                }
            }
            end = at + piece.len();
        }
        if self.len > end {
            slices.push(IoSlice::new(&ZEROS[..self.len - end]));
        }
        write_all_vectored(w, &mut slices)
    }
}

/// Writes all of `slices` to `w` (as the unstable `Write::write_all_vectored`) and empties it.
fn write_all_vectored(
    w: &mut dyn std::io::Write,
    slices: &mut Vec<IoSlice<'_>>,
) -> std::io::Result<()> {
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match w.write_vectored(rest) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::WriteZero,
                    "failed to write whole buffer",
                ))
            }
            Ok(n) => IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    slices.clear();
    Ok(())
}

/// A buffer view (or its `EXT_meshopt_compression` extension) as packing reads and rewrites it:
/// its `buffer`, `byteOffset` and `byteLength`, changed as a `Value` object changes.
pub(crate) trait ViewRef {
    /// Member `key` as a `u64` (`Value::as_u64`).
    fn num(&self, key: &str) -> Option<u64>;
    /// Sets member `key` to `n` when there is one (as `*obj.get_mut(key) = n`).
    fn set_num(&mut self, key: &str, n: u64);
    /// Sets `buffer` (as `obj["buffer"] = b`).
    fn set_buffer(&mut self, b: u64);
    /// Sets `byteOffset`, or removes it when `at` is 0 (see [`set_offset`]).
    fn set_offset(&mut self, at: usize);
    /// The view as a parsed `Value`, when it is one (to reach its extensions).
    fn parsed_mut(&mut self) -> Option<&mut Value> {
        None
    }
}

impl ViewRef for Value {
    fn num(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(Value::as_u64)
    }
    fn set_num(&mut self, key: &str, n: u64) {
        if let Some(slot) = self.get_mut(key) {
            *slot = n.into();
        }
    }
    fn set_buffer(&mut self, b: u64) {
        match self.get_mut("buffer") {
            Some(slot) => *slot = b.into(),
            None => self["buffer"] = b.into(),
        }
    }
    fn set_offset(&mut self, at: usize) {
        set_offset(self, "byteOffset", at);
    }
    fn parsed_mut(&mut self) -> Option<&mut Value> {
        Some(self)
    }
}

/// Where a buffer view holds the part of a buffer its `EXT_meshopt_compression` data lies in.
const MESHOPT: &str = "/extensions/EXT_meshopt_compression";

/// The state of [`pack`] while it moves views into the one new buffer.
struct Packing<'a> {
    buffers: &'a OutBuffers<'a>,
    /// The document's buffers as read.
    old: Vec<Value>,
    /// The buffers that hold no data, kept after the merged one.
    kept: Vec<Value>,
    /// New index of each data-less buffer: after the merged one.
    new_index: Vec<u64>,
    out: Packed<'a>,
    any_data: bool,
}

impl<'a> Packing<'a> {
    fn new(buffers_json: Option<&Value>, buffers: &'a OutBuffers<'a>) -> Packing<'a> {
        let old: Vec<Value> = buffers_json
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut new_index = vec![0u64; old.len()];
        let mut kept = Vec::new();
        for (i, b) in old.iter().enumerate() {
            if !buffers.has_data(i) {
                kept.push(b.clone());
                new_index[i] = kept.len() as u64; // merged buffer is 0
            }
        }
        Packing {
            buffers,
            old,
            kept,
            new_index,
            out: Packed {
                pieces: Vec::new(),
                len: 0,
            },
            any_data: false,
        }
    }

    fn relocate(&mut self, obj: &mut dyn ViewRef) {
        let (Some(b), Some(len)) = (obj.num("buffer"), obj.num("byteLength")) else {
            return;
        };
        let off = obj.num("byteOffset").unwrap_or(0) as usize;
        match self.buffers.piece(b as usize, off, len as usize) {
            Some(piece) => {
                let at = place_aligned(&mut self.out.len, piece.len());
                self.out.pieces.push((at, piece));
                obj.set_buffer(0);
                obj.set_offset(at);
                self.any_data = true;
            }
            _ => obj.set_buffer(self.new_index.get(b as usize).copied().unwrap_or(b)),
        }
    }

    /// The packed buffer, and the document's new `buffers` when it changes (`had_buffers`:
    /// whether the document has a `buffers` member).
    fn finish(mut self, had_buffers: bool, bin_uri: Option<&str>) -> (Packed<'a>, Option<Value>) {
        if !self.any_data {
            let buffers = (!self.kept.is_empty() || had_buffers).then(|| Value::Array(self.kept));
            self.out.len = 0;
            return (self.out, buffers);
        }
        self.out.len = self.out.len.max(4).next_multiple_of(4);
        let mut merged = self
            .old
            .iter()
            .enumerate()
            .find(|(i, b)| self.buffers.has_data(*i) && !is_fallback(b))
            .map_or_else(|| serde_json::json!({}), |(_, b)| b.clone());
        if let Some(m) = merged.as_object_mut() {
            m.insert("byteLength".into(), self.out.len.into());
            match bin_uri {
                Some(uri) => m.insert("uri".into(), uri.into()),
                None => m.remove("uri"),
            };
        }
        self.kept.insert(0, merged);
        (self.out, Some(Value::Array(self.kept)))
    }
}

/// Moves every buffer view (`views`) into one new buffer (index 0) and returns where its bytes
/// come from. Buffers that hold no data (meshopt fallbacks) follow it unchanged: `over` holds
/// the document's `buffers` (when it has them), which it replaces. `bin_uri` names the new
/// buffer's file; `None` leaves it without a URI (the GLB binary chunk).
pub(crate) fn pack<'a>(
    over: &mut Value,
    views: &mut RawItems<'_>,
    buffers: &'a OutBuffers,
    bin_uri: Option<&str>,
) -> Packed<'a> {
    let mut packing = Packing::new(over.get("buffers"), buffers);
    for view in views.split_objects_mut() {
        packing.relocate(view);
        let meshopt = view.parsed_mut().and_then(|v| v.pointer_mut(MESHOPT));
        if let Some(ext) = meshopt {
            packing.relocate(ext);
        }
    }
    let (packed, new_buffers) = packing.finish(over.get("buffers").is_some(), bin_uri);
    if let Some(b) = new_buffers {
        over["buffers"] = b;
    }
    packed
}

/// The JSON of a document being written: patched, or the document as read with only its
/// buffer layout (`bufferViews`, `buffers`) replaced, when the patch would change nothing (then
/// the rest of it is not parsed).
pub(crate) enum OutJson<'a> {
    /// The patched document.
    Draft(super::draft::Draft<'a>),
    /// The document as read, held as its text, with the top-level keys of `over` replacing its
    /// own (the members it does not replace are transcoded from it: see `lazy.rs`).
    AsRead {
        /// The document as read.
        base: &'a LazyJson,
        /// Its buffer views, packed, when it has them.
        views: Option<RawItems<'a>>,
        /// Replacements of top-level keys (an object).
        over: Value,
    },
}

impl OutJson<'_> {
    /// About how many bytes its compact text takes.
    pub fn size_hint(&self) -> usize {
        let read = match self {
            OutJson::AsRead { base, .. } => base.text().len(),
            OutJson::Draft(d) => d.read_len(),
        };
        read + read / 16
    }
}

impl serde::Serialize for OutJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            OutJson::Draft(d) => d.serialize(s),
            OutJson::AsRead { base, views, over } => {
                let views = views.as_ref().map(|v| ("bufferViews", v));
                base.serialize_over(over, views, s)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Buffer views packed from their text write what the same views held parsed write (as
    /// read from an array with a key given twice, or with an extension), and give the same
    /// buffer: members set, added at the end, or removed (the last member taking the removed
    /// one's place), views that are no object, out of range or in a buffer without data,
    /// numbers that are no `u64`.
    #[test]
    fn views_packed_from_their_text_are_the_views_parsed_packed() {
        use super::super::buffers::Buffer;
        use super::super::lazy::{self, LazyJson};
        let cases = [
            r#"[{"buffer":0,"byteOffset":0,"byteLength":4,"target":34962,"name":"a"}]"#,
            r#"[{"buffer":0,"byteLength":4,"byteOffset":8},{"byteOffset":4,"buffer":0,"byteLength":3,"extras":{"x":[1,2.5,-0.0]}}]"#,
            r#"[{"byteLength":2,"buffer":0},{"buffer":0,"byteOffset":12,"byteLength":2}]"#,
            r#"[{"buffer":1,"byteLength":8},{"buffer":2,"byteLength":1},{"buffer":0,"byteLength":100}]"#,
            r#"[1,null,[{"buffer":0}],{"buffer":-1,"byteLength":4},{"buffer":0.0,"byteLength":4},{"buffer":0,"byteLength":4,"byteOffset":1.5}]"#,
            r#"[{"buffer":0,"byteLength":0,"byteOffset":64}, {}]"#,
            r#"[]"#,
        ];
        let data = vec![Some(Buffer::from((0..64).collect::<Vec<u8>>())), None];
        let out = OutBuffers::new(&data);
        let buffers = r#"[{"byteLength":64,"uri":"a.bin"},{"byteLength":8,"extensions":{"EXT_meshopt_compression":{"fallback":true}}}]"#;
        let held = |views: &str| {
            let text = format!(r#"{{"buffers":{buffers},"bufferViews":{views},"asset":{{}}}}"#);
            let members = lazy::split(text.as_bytes()).expect("splits");
            LazyJson::new(Buffer::from(text.into_bytes()), members)
        };
        let over = || json!({ "buffers": serde_json::from_str::<Value>(buffers).expect("parses") });
        for views in cases {
            let doc = held(views);
            let values: Vec<Value> = serde_json::from_str(views).expect("parses");
            for uri in [None, Some("out.bin")] {
                let mut raw = RawItems::of(&doc, "bufferViews").expect("an array");
                assert_eq!(raw.parsed_mut().count(), 0, "{views}");
                let mut parsed = RawItems::from(values.clone());
                let (mut over_raw, mut over_parsed) = (over(), over());
                let packed_raw = pack(&mut over_raw, &mut raw, &out, uri);
                let packed = pack(&mut over_parsed, &mut parsed, &out, uri);
                assert_eq!(packed.len, packed_raw.len, "{views}");
                assert_eq!(packed.to_vec(), packed_raw.to_vec(), "{views}");
                assert_eq!(over_raw, over_parsed, "{views}");
                let written = serde_json::to_string(&raw).expect("written");
                let expected = serde_json::to_string(&parsed).expect("written");
                assert_eq!(written, expected, "{views}");
            }
        }
        // Views with a meshopt extension, or a key given twice, are held parsed; the part of a
        // buffer a meshopt extension refers to is packed after its view's.
        for (views, packed_views) in [
            (
                r#"[{"buffer":0,"byteLength":4,"extensions":{"EXT_meshopt_compression":{"buffer":0,"byteLength":4}}}]"#,
                r#"[{"buffer":0,"byteLength":4,"extensions":{"EXT_meshopt_compression":{"buffer":0,"byteLength":4,"byteOffset":4}}}]"#,
            ),
            (
                r#"[{"buffer":0,"byteLength":4,"buffer":0}]"#,
                r#"[{"buffer":0,"byteLength":4}]"#,
            ),
        ] {
            let doc = held(views);
            let mut raw = RawItems::of(&doc, "bufferViews").expect("an array");
            assert_eq!(raw.parsed_mut().count(), 1, "{views}");
            pack(&mut over(), &mut raw, &out, None);
            assert_eq!(serde_json::to_string(&raw).expect("written"), packed_views);
        }
    }

    /// A view referred to only from inside an extension (Draco, or one of an accessor) or from
    /// an accessor's sparse parts is kept and renumbered when a view before it is dropped; the
    /// walks into extensions are skipped only when the document as read had no such reference.
    #[test]
    fn extension_and_sparse_views_are_kept_and_renumbered() {
        use super::super::buffers::Buffer;
        use super::super::lazy::{self, LazyJson};
        let text = r#"{
            "accessors": [{ "bufferView": 0 }, { "bufferView": 1, "extensions": { "EXT_x": { "bufferView": 5 } } },
                { "count": 1, "sparse": { "indices": { "bufferView": 3 }, "values": { "bufferView": 4 } } }],
            "bufferViews": [{}, {}, {}, {}, {}, {}],
            "meshes": [{ "primitives": [{
                "attributes": { "POSITION": 1 }, "indices": 2,
                "extensions": { "KHR_draco_mesh_compression": { "bufferView": 2 } }
            }] }],
            "animations": [{ "samplers": [{ "input": 0, "output": 0 }] }]
        }"#;
        let members = lazy::split(text.as_bytes()).expect("splits");
        let doc = LazyJson::new(Buffer::from(text.as_bytes().to_vec()), members);
        let mut accessors = RawItems::of(&doc, "accessors").expect("an array");
        let mut views = RawItems::of(&doc, "bufferViews").expect("an array");
        assert_eq!(accessors.parsed_mut().count(), 2);
        let mut json = doc.to_value();
        json["accessors"] = json!([null, null, null]);
        json["bufferViews"] = Value::Array(vec![Value::Null; 6]);
        let before = Usage::of(&mut json, &mut accessors, &mut views, |_| {});
        assert!(before.extension_views);
        json["animations"] = json!([]);
        collect_garbage(&mut json, &mut accessors, &mut views, &mut [], &before);
        let accessors = serde_json::to_value(&accessors).expect("written");
        assert_eq!(
            accessors,
            json!([{ "bufferView": 0, "extensions": { "EXT_x": { "bufferView": 4 } } },
                { "count": 1, "sparse": { "indices": { "bufferView": 2 }, "values": { "bufferView": 3 } } }])
        );
        assert_eq!(
            serde_json::to_value(&views).expect("written"),
            json!([{}, {}, {}, {}, {}])
        );
        let primitive = &json["meshes"][0]["primitives"][0];
        assert_eq!(
            primitive["extensions"]["KHR_draco_mesh_compression"]["bufferView"],
            1
        );
        assert_eq!(primitive["attributes"]["POSITION"], 0);
        assert_eq!(primitive["indices"], 1);

        let mut plain = json!({ "accessors": [null], "bufferViews": [null] });
        let text = r#"{ "accessors": [{ "bufferView": 0 }], "bufferViews": [{}] }"#;
        let members = lazy::split(text.as_bytes()).expect("splits");
        let doc = LazyJson::new(Buffer::from(text.as_bytes().to_vec()), members);
        let mut accessors = RawItems::of(&doc, "accessors").expect("an array");
        let mut views = RawItems::of(&doc, "bufferViews").expect("an array");
        assert!(!Usage::of(&mut plain, &mut accessors, &mut views, |_| {}).extension_views);
    }
}

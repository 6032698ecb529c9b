//! Resolving buffer and image data: the GLB chunk, `data:` URIs and files beside the document,
//! refusing any URI that leaves the document's folder or names a network scheme.

use super::error::{invalid, ErrorKind};
use base64::Engine;
use glam::{Quat, Vec3};
use serde_json::Value;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Largest external file skelnorm reads for one buffer or image.
const MAX_FILE: u64 = 2 << 30;

/// Where a document's relative URIs are looked up.
#[derive(Debug, Clone)]
pub enum Resources {
    /// The folder of the document: relative URIs resolve inside it, never outside.
    Folder(PathBuf),
    /// No folder: any URI other than `data:` is an error (bytes read from memory).
    None,
}

/// Data of one buffer: its bytes, or none for a buffer that holds no data
/// (an `EXT_meshopt_compression` fallback).
pub(crate) type BufferData = Option<Buffer>;

/// One buffer's bytes: a range of a byte vector, so that a GLB's binary chunk is used where the
/// file was read into memory, not moved to the front of it (a move of the whole chunk).
#[derive(Debug, Clone)]
pub(crate) struct Buffer {
    /// Shared with the document's JSON text when that lies in the same file (a GLB's JSON
    /// chunk): see `lazy.rs`.
    bytes: Arc<Vec<u8>>,
    range: std::ops::Range<usize>,
}

impl Buffer {
    /// The bytes `range` of `bytes` (a range inside it).
    pub(crate) fn part(bytes: Arc<Vec<u8>>, range: std::ops::Range<usize>) -> Buffer {
        debug_assert!(range.start <= range.end && range.end <= bytes.len());
        Buffer { bytes, range }
    }

    /// Keeps the first `len` bytes (as `Vec::truncate`).
    fn truncate(&mut self, len: usize) {
        self.range.end = self.range.end.min(self.range.start + len);
    }
}

impl From<Vec<u8>> for Buffer {
    fn from(bytes: Vec<u8>) -> Buffer {
        let range = 0..bytes.len();
        Buffer {
            bytes: Arc::new(bytes),
            range,
        }
    }
}

impl std::ops::Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
    }
}

fn short(uri: &str) -> String {
    if uri.len() <= 80 {
        uri.to_string()
    } else {
        let mut end = 60;
        while !uri.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &uri[..end])
    }
}

/// Reads what a URI points at, refusing anything outside the document's folder.
pub(crate) fn load_uri(uri: &str, at: &str, res: &Resources) -> Result<Vec<u8>, ErrorKind> {
    let refuse = |why: &str| ErrorKind::RefusedUri {
        path: at.to_string(),
        uri: short(uri),
        why: why.to_string(),
    };
    if let Some(rest) = uri.strip_prefix("data:") {
        let (meta, payload) = rest
            .split_once(',')
            .ok_or_else(|| refuse("malformed data URI"))?;
        return if meta.ends_with(";base64") {
            base64::engine::general_purpose::STANDARD
                .decode(payload.trim())
                .map_err(|e| invalid(at, format!("bad base64 in data URI: {e}")))
        } else {
            Ok(percent_encoding::percent_decode_str(payload).collect())
        };
    }
    let scheme_end = uri.find(':');
    let first_sep = uri.find(['/', '\\', '?', '#']);
    if let Some(colon) = scheme_end {
        if first_sep.is_none_or(|s| colon < s) {
            return Err(refuse(
                "only relative paths and data: URIs are allowed (no schemes)",
            ));
        }
    }
    let decoded = percent_encoding::percent_decode_str(uri)
        .decode_utf8()
        .map_err(|_| refuse("not valid UTF-8 once percent-decoded"))?;
    let rel = Path::new(decoded.as_ref());
    if decoded.starts_with(['/', '\\']) || rel.is_absolute() || decoded.contains('\\') {
        return Err(refuse("absolute or backslash paths are not allowed"));
    }
    let mut depth = 0i32;
    for c in rel.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(refuse("it leaves the document's folder"));
                }
            }
            _ => return Err(refuse("absolute or rooted paths are not allowed")),
        }
    }
    let Resources::Folder(dir) = res else {
        return Err(refuse(
            "external files cannot be read for a document given as bytes",
        ));
    };
    let full = dir.join(rel);
    let real = full
        .canonicalize()
        .map_err(|e| invalid(at, format!("cannot open `{}`: {e}", full.display())))?;
    let real_dir = dir.canonicalize().map_err(ErrorKind::Io)?;
    if !real.starts_with(&real_dir) {
        return Err(refuse(
            "it resolves (through a link) outside the document's folder",
        ));
    }
    let meta = std::fs::metadata(&real).map_err(ErrorKind::Io)?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return Err(invalid(
            at,
            format!("`{}` is not a regular file under 2 GiB", full.display()),
        ));
    }
    std::fs::read(&real).map_err(|e| invalid(at, format!("cannot read `{}`: {e}", full.display())))
}

/// Whether buffer JSON marks an `EXT_meshopt_compression` fallback buffer (no data of its own).
pub(crate) fn is_fallback(buffer: &Value) -> bool {
    buffer
        .pointer("/extensions/EXT_meshopt_compression/fallback")
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// Float data a patch adds, kept as the model holds it (shared, not copied) until it is
/// written out as little-endian bytes.
#[derive(Debug, Clone)]
pub(crate) enum Added {
    /// Plain floats (key times, matrices).
    Floats(Arc<[f32]>),
    /// Vectors, three floats each.
    Vec3s(Arc<[Vec3]>),
    /// Quaternions, four floats each (x, y, z, w).
    Quats(Arc<[Quat]>),
}

impl Added {
    /// Its length in bytes.
    pub fn byte_len(&self) -> usize {
        4 * match self {
            Added::Floats(v) => v.len(),
            Added::Vec3s(v) => 3 * v.len(),
            Added::Quats(v) => 4 * v.len(),
        }
    }

    /// Calls `f` with its bytes from `start` to `end`, in pieces (converted a few KB at a time).
    fn bytes(
        &self,
        start: usize,
        end: usize,
        f: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if cfg!(target_endian = "little") {
            // The floats in memory are their little-endian bytes: handed over as they are.
            let bytes: &[u8] = match self {
                Added::Floats(v) => bytemuck::cast_slice(v),
                Added::Vec3s(v) => bytemuck::cast_slice(v),
                Added::Quats(v) => bytemuck::cast_slice(v),
            };
            return f(&bytes[start..end]);
        }
        match self {
            Added::Floats(v) => float_bytes(v, |x| [*x], start, end, f),
            Added::Vec3s(v) => float_bytes(v, Vec3::to_array, start, end, f),
            Added::Quats(v) => float_bytes(v, Quat::to_array, start, end, f),
        }
    }
}

/// The little-endian bytes `start..end` (4-byte aligned bounds) of `items`, `N` floats each by
/// `floats`, handed to `f` in pieces of at most 4 KB.
fn float_bytes<T, const N: usize>(
    items: &[T],
    floats: impl Fn(&T) -> [f32; N],
    start: usize,
    end: usize,
    f: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let (first, last) = (start / 4, end.saturating_sub(start) / 4 + start / 4);
    // The floats at the ends (of items the range cuts), one by one.
    let loose = |ks: std::ops::Range<usize>, f: &mut dyn FnMut(&[u8]) -> std::io::Result<()>| {
        let mut chunk = [0u8; 4 * 64];
        let mut used = 0;
        for k in ks {
            chunk[used..used + 4].copy_from_slice(&floats(&items[k / N])[k % N].to_le_bytes());
            used += 4;
            if used == chunk.len() {
                f(&chunk)?;
                used = 0;
            }
        }
        f(&chunk[..used])
    };
    // Whole items in the range go in 4 KB batches, converted item by item.
    let whole = first.div_ceil(N)..(last / N).min(items.len());
    if whole.is_empty() {
        return loose(first..last, f);
    }
    loose(first..whole.start * N, f)?;
    let mut chunk = [0u8; 4096];
    for batch in items[whole.clone()].chunks(chunk.len() / (4 * N)) {
        let bytes = &mut chunk[..batch.len() * 4 * N];
        for (out, item) in bytes.chunks_exact_mut(4 * N).zip(batch) {
            for (o, x) in out.chunks_exact_mut(4).zip(floats(item)) {
                o.copy_from_slice(&x.to_le_bytes());
            }
        }
        f(bytes)?;
    }
    loose(whole.end * N..last, f)
}

/// The buffers of a document being written: the ones read, plus one buffer for data a patch
/// adds (its pieces kept as the model holds them until written).
pub(crate) struct OutBuffers<'a> {
    base: &'a [BufferData],
    /// All new data, in one buffer (index `base.len()` once made): each piece at its offset
    /// (4-byte aligned, zeros between), in increasing offsets.
    added: Option<Vec<(usize, Added)>>,
    /// The added buffer's length in bytes.
    added_len: usize,
}

/// Bytes of one of the [`OutBuffers`]: a range of a buffer read, or of the added one.
#[derive(Clone, Copy)]
pub(crate) enum Piece<'a> {
    /// Bytes of a buffer read.
    Read(&'a [u8]),
    /// Bytes `start..end` of the added buffer (its pieces).
    Added {
        /// The added buffer's pieces, at their offsets.
        pieces: &'a [(usize, Added)],
        /// First byte.
        start: usize,
        /// One past the last byte.
        end: usize,
    },
}

impl Piece<'_> {
    /// Its length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Piece::Read(b) => b.len(),
            Piece::Added { start, end, .. } => end - start,
        }
    }

    /// Writes its bytes to `w`.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match *self {
            Piece::Read(b) => w.write_all(b),
            Piece::Added { pieces, start, end } => {
                const ZEROS: [u8; 4] = [0; 4];
                let mut at = start;
                // The pieces lie one after another at increasing offsets: skip to the first
                // that ends after `start` (rather than walking every piece for every view).
                let first = pieces.partition_point(|(off, data)| off + data.byte_len() <= start);
                for (off, data) in &pieces[first..] {
                    let (from, to) = (*off, off + data.byte_len());
                    if from >= end {
                        break;
                    }
                    if to <= at {
                        continue;
                    }
                    // Alignment zeros before this piece.
                    if from > at {
                        w.write_all(&ZEROS[..from - at])?;
                        at = from;
                    }
                    let stop = to.min(end);
                    data.bytes(at - from, stop - from, &mut |b| w.write_all(b))?;
                    at = stop;
                }
                w.write_all(&ZEROS[..end.saturating_sub(at).min(4)])
            }
        }
    }
}

impl<'a> OutBuffers<'a> {
    pub fn new(base: &'a [BufferData]) -> Self {
        OutBuffers {
            base,
            added: None,
            added_len: 0,
        }
    }

    /// Appends `data` (4-byte aligned) to the one buffer that holds all new data, adding that
    /// buffer to `json` on first use; returns the buffer's index and the data's offset. Its
    /// length in `json` is set once all is appended ([`OutBuffers::set_length`]).
    pub fn append(&mut self, json: &mut Value, data: Added) -> (usize, usize) {
        if self.added.is_none() {
            let index = push_array(json, "buffers", serde_json::json!({ "byteLength": 0 }));
            debug_assert_eq!(
                index,
                self.base.len(),
                "new buffers come after the read ones"
            );
        }
        let offset = self.added_len.next_multiple_of(4);
        self.added_len = offset + data.byte_len();
        self.added.get_or_insert_with(Vec::new).push((offset, data));
        (self.base.len(), offset)
    }

    /// Sets the `byteLength` of the added buffer in `json` (where [`OutBuffers::append`] put
    /// it), once all data is appended; nothing when none was.
    pub fn set_length(&self, json: &mut Value) {
        if self.added.is_some() {
            json["buffers"][self.base.len()]["byteLength"] = self.added_len.into();
        }
    }

    /// Whether buffer `i` holds data (it is not a meshopt fallback, and exists).
    pub fn has_data(&self, i: usize) -> bool {
        match self.base.get(i) {
            Some(data) => data.is_some(),
            None => i == self.base.len() && self.added.is_some(),
        }
    }

    /// Bytes `offset..offset + len` of buffer `i`, or `None` if it holds no data (a meshopt
    /// fallback), is absent, or is shorter.
    pub fn piece(&self, i: usize, offset: usize, len: usize) -> Option<Piece<'_>> {
        let end = offset.checked_add(len)?;
        match self.base.get(i) {
            Some(data) => data.as_deref()?.get(offset..end).map(Piece::Read),
            None if i == self.base.len() && end <= self.added_len => Some(Piece::Added {
                pieces: self.added.as_deref()?,
                start: offset,
                end,
            }),
            None => None,
        }
    }
}

/// Bytes `offset..offset + len` of buffer `b`, checked; `None` for a buffer that holds no data
/// (a meshopt fallback).
pub(crate) fn slice<'a>(
    buffers: &'a [BufferData],
    b: u64,
    offset: u64,
    len: u64,
    at: &str,
) -> Result<Option<&'a [u8]>, ErrorKind> {
    let data = buffers
        .get(b as usize)
        .ok_or_else(|| invalid(at, format!("buffer {b} does not exist")))?;
    let Some(d) = data else { return Ok(None) };
    match offset.checked_add(len) {
        Some(end) if end <= d.len() as u64 => Ok(Some(&d[offset as usize..end as usize])),
        _ => Err(invalid(
            at,
            format!(
                "reads past the end of buffer {b} ({offset} + {len} > {} bytes)",
                d.len()
            ),
        )),
    }
}

/// Loads every buffer's bytes. Checks that each holds at least its `byteLength`.
pub(crate) fn load_buffers(
    buffers: Option<&Value>,
    bin: Option<Buffer>,
    res: &Resources,
) -> Result<Vec<BufferData>, ErrorKind> {
    let mut bin = bin;
    let empty = Vec::new();
    let buffers = buffers.and_then(Value::as_array).unwrap_or(&empty);
    let mut out = Vec::with_capacity(buffers.len());
    for (i, b) in buffers.iter().enumerate() {
        let at = format!("buffers[{i}]");
        let length = b
            .get("byteLength")
            .and_then(Value::as_u64)
            .ok_or_else(|| invalid(&at, "byteLength is missing or not a non-negative integer"))?;
        let data = match b.get("uri").and_then(Value::as_str) {
            Some(uri) => Some(Buffer::from(load_uri(uri, &at, res)?)),
            None if i == 0 && bin.is_some() => bin.take(),
            None if is_fallback(b) => None,
            None => return Err(invalid(&at, "has no uri and no GLB binary chunk holds it")),
        };
        if let Some(d) = &data {
            if (d.len() as u64) < length {
                return Err(invalid(
                    &at,
                    format!(
                        "byteLength is {length} but only {} bytes are there",
                        d.len()
                    ),
                ));
            }
        }
        out.push(data.map(|mut d| {
            d.truncate(length as usize);
            d
        }));
    }
    Ok(out)
}

fn mime_for(uri: &str) -> Option<&'static str> {
    let lower = uri.to_ascii_lowercase();
    let ext = lower.rsplit('.').next()?;
    Some(match ext {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "ktx2" => "image/ktx2",
        _ => return None,
    })
}

/// Whether [`embed_images`] has an image to embed in a document whose `images` are these (it
/// changes the document when it does, or fails).
pub(crate) fn embeds_images(images: Option<&Value>) -> bool {
    images
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|image| external_uri(image).is_some())
}

/// An image's URI naming a file (not a `data:` URI).
fn external_uri(image: &Value) -> Option<&str> {
    image
        .get("uri")
        .and_then(Value::as_str)
        .filter(|u| !u.starts_with("data:"))
}

/// Moves images stored as files beside a `.gltf` into the document's buffers, so that the
/// output is self-contained wherever it is written. Images in `data:` URIs stay as they are.
pub(crate) fn embed_images(
    json: &mut Value,
    buffers: &mut Vec<BufferData>,
    res: &Resources,
) -> Result<(), ErrorKind> {
    let count = json
        .get("images")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    for i in 0..count {
        let at = format!("images[{i}]");
        let Some(uri) = external_uri(&json["images"][i]).map(str::to_string) else {
            continue;
        };
        let bytes = load_uri(&uri, &at, res)?;
        let mime = json["images"][i]
            .get("mimeType")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| mime_for(&uri).map(str::to_string))
            .ok_or_else(|| {
                invalid(
                    &at,
                    format!("cannot tell the image type of `{}`", short(&uri)),
                )
            })?;
        let buffer = push_array(
            json,
            "buffers",
            serde_json::json!({ "byteLength": bytes.len() }),
        );
        let view = push_array(
            json,
            "bufferViews",
            serde_json::json!({ "buffer": buffer, "byteLength": bytes.len() }),
        );
        buffers.push(Some(Buffer::from(bytes)));
        let image = json["images"][i]
            .as_object_mut()
            .expect("images[i] is an object");
        image.remove("uri");
        image.insert("bufferView".into(), view.into());
        image.insert("mimeType".into(), mime.into());
    }
    Ok(())
}

/// Appends to a top-level array (creating it) and returns the new element's index.
pub(crate) fn push_array(json: &mut Value, key: &str, item: Value) -> usize {
    let arr = array_mut(json, key).expect("document root is an object");
    arr.push(item);
    arr.len() - 1
}

/// The top-level array `key` of `json`, made an empty array when it is missing or no array;
/// `None` when `json` is no object.
pub(crate) fn array_mut<'a>(json: &'a mut Value, key: &str) -> Option<&'a mut Vec<Value>> {
    let arr = json
        .as_object_mut()?
        .entry(key)
        .or_insert_with(|| Value::Array(Vec::new()));
    if !arr.is_array() {
        *arr = Value::Array(Vec::new());
    }
    arr.as_array_mut()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(uri: &str) -> bool {
        let dir = std::env::temp_dir();
        matches!(
            load_uri(uri, "buffers[0]", &Resources::Folder(dir)),
            Err(ErrorKind::RefusedUri { .. })
        )
    }

    /// Added data reads back as the little-endian bytes of its floats, whole or in any
    /// 4-byte-aligned range, with zeros where alignment put them.
    #[test]
    fn added_pieces_are_their_floats_bytes() {
        let quats: Arc<[Quat]> = (0..700)
            .map(|i| Quat::from_xyzw(i as f32, 0.5, -1.0, 1e-3 * i as f32))
            .collect();
        let vecs: Arc<[Vec3]> = (0..5).map(|i| Vec3::splat(i as f32 + 0.25)).collect();
        let mut json = serde_json::json!({});
        let mut out = OutBuffers::new(&[]);
        out.append(&mut json, Added::Vec3s(vecs.clone()));
        let (_, at) = out.append(&mut json, Added::Quats(quats.clone()));
        out.set_length(&mut json);
        let mut expected: Vec<u8> = vecs
            .iter()
            .flat_map(|v| v.to_array())
            .flat_map(f32::to_le_bytes)
            .collect();
        assert_eq!(at, expected.len());
        expected.extend(
            quats
                .iter()
                .flat_map(|q| q.to_array())
                .flat_map(f32::to_le_bytes),
        );
        assert_eq!(json["buffers"][0]["byteLength"], expected.len());
        for (start, end) in [(0, expected.len()), (4, 60), (56, 64), (20, 9000), (8, 8)] {
            let mut got = Vec::new();
            let piece = out.piece(0, start, end - start).unwrap();
            piece.write_to(&mut got).unwrap();
            assert_eq!(piece.len(), end - start);
            assert_eq!(got, expected[start..end], "{start}..{end}");
        }
        assert!(out.piece(0, 4, expected.len()).is_none());
    }

    #[test]
    fn refuses_uris_that_leave_the_folder() {
        for uri in [
            "../../etc/passwd",
            "/etc/passwd",
            "a/../../x.bin",
            "http://example.com/x.bin",
            "https://example.com/x.bin",
            "file:///etc/passwd",
            "C:\\x.bin",
            "\\\\server\\share\\x.bin",
            "%2e%2e/%2e%2e/etc/passwd",
        ] {
            assert!(refused(uri), "{uri} was not refused");
        }
        assert!(!refused("a/../x.bin"));
    }

    #[test]
    fn decodes_data_uris() {
        let d = load_uri(
            "data:application/octet-stream;base64,AQID",
            "b",
            &Resources::None,
        );
        assert_eq!(d.unwrap(), vec![1, 2, 3]);
    }
}

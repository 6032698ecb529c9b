//! glTF, GLB, VRM and VRMA files ↔ the [`model`](crate::model).
//!
//! The only module that knows glTF. [`read`] parses a file into a [`Document`]: the model
//! (skeletons, skins, clips) plus the original JSON and buffers. Stages change `document.model`;
//! [`Document::write`] patches the original JSON where the model changed (node transforms and
//! names, inverse bind matrices, animation samplers) and keeps everything else as it was: meshes,
//! materials, textures, extensions (VRM), extras and node indices. Imports only `model`.

mod accessor;
mod bake;
mod base_motion;
mod bind_measure;
mod buffers;
pub mod build;
mod container;
mod draft;
mod error;
mod extract;
mod hints;
mod json_text;
mod layout;
mod lazy;
mod patch;
mod raw_items;
mod read;
mod read_animations;
mod read_keys;
mod rebuilt;
mod release;
mod vrm_data;
mod vrma;

pub use bind_measure::{BindMeasure, Displacement};
pub use buffers::Resources;
pub use container::Format;
pub use error::{Error, ErrorKind};
pub use vrma::{vrm1_bone_id, VrmaError};

use lazy::LazyJson;
use read::Keys;

use crate::model::Model;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Characters escaped in a written `.bin` URI: all but letters, digits and `.-_`.
const URI_CHARS: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'.')
    .remove(b'-')
    .remove(b'_');

/// Largest input file skelnorm reads (2 GiB).
pub const MAX_INPUT_BYTES: u64 = 2 << 30;

/// A parsed glTF document: the model plus what is needed to write the file back losslessly.
#[derive(Debug, Clone)]
pub struct Document {
    /// The file it was read from (used in error messages).
    pub path: PathBuf,
    /// The container it came in.
    pub format: Format,
    /// Skeletons and clips; stages change these.
    pub model: Model,
    /// Things worth telling the user that did not stop the read (codes and messages).
    pub warnings: Vec<crate::model::Warning>,
    /// What the file declared when it was converted from another format (FBX, BVH): its
    /// format and facts such as units and axes, for `inspect`; `None` for glTF files.
    pub converted: Option<Converted>,
    /// The JSON as read, parsed; empty while only its text is held (`lazy`), until something
    /// asks for it.
    json: OnceLock<Value>,
    /// The JSON as read, as its text split into top-level members, each parsed when first read
    /// (for a document that is not written changed, or once [`Document::let_go_of_json`] let go
    /// of the parsed value: see `lazy.rs`).
    lazy: Option<lazy::LazyJson>,
    buffers: Vec<buffers::BufferData>,
    /// The model as read, to tell what changed on write; `None` for a document read only to be
    /// looked at ([`read_owned_for_viewing`]), which cannot be written. Its tracks read from
    /// plain floats hold no values: `read_keys` says where they lie in `buffers`.
    original: Option<Model>,
    /// Where the key values of `original`'s tracks that hold none lie (see `read_keys.rs`).
    read_keys: read_keys::ReadKeys,
}

/// The facts of a file converted from another format into a glTF document.
#[derive(
    Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Converted {
    /// The format, such as `FBX 7.4 binary` or `BVH`.
    pub format: String,
    /// What the file declared or what was guessed, as (what, value) pairs: units, up axis,
    /// frame rate, the application that wrote it.
    pub facts: Vec<(String, String)>,
}

/// Reads a `.gltf`, `.glb`, `.vrm` or `.vrma` file. Never writes; refuses URIs that leave the
/// file's folder.
pub fn read(path: &Path) -> Result<Document, Error> {
    read_owned_beside(read_input(path)?, path)
}

/// The bytes of an input file: refused when it is a folder or over the 2 GiB limit.
pub fn read_input(path: &Path) -> Result<Vec<u8>, Error> {
    let fail = |kind| Error {
        file: path.to_path_buf(),
        kind,
    };
    let meta = std::fs::metadata(path).map_err(|e| fail(ErrorKind::Io(e)))?;
    if meta.is_dir() {
        return Err(fail(ErrorKind::NotGltf("it is a folder".into())));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(fail(ErrorKind::NotGltf(format!(
            "{} bytes is over the 2 GiB limit",
            meta.len()
        ))));
    }
    std::fs::read(path).map_err(|e| fail(ErrorKind::Io(e)))
}

/// Parses the bytes of the file at `path` (its external URIs resolve in its folder, never
/// outside it), which the document may keep: a GLB's binary chunk becomes its first buffer
/// without being copied (as [`read`] does).
pub fn read_owned_beside(bytes: Vec<u8>, path: &Path) -> Result<Document, Error> {
    read_owned(bytes, path, Keys::Keep, true)
}

/// [`read_owned_beside`] for a document that is only looked at, never written: it keeps no copy
/// of the model as read (which writing needs to tell what changed), so reading takes less time
/// and memory; its [`Document::write`] and [`Document::to_parts`] return an error.
///
/// ```
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
/// let bytes = std::fs::read(&path).unwrap();
/// let doc = skelnorm::gltf_io::read_owned_for_viewing(bytes.clone(), &path).unwrap();
/// let full = skelnorm::gltf_io::read_owned_beside(bytes, &path).unwrap();
/// assert_eq!(doc.model, full.model);
/// assert_eq!(doc.json(), full.json());
/// assert!(doc.to_parts(None).is_err());
/// // Written as read, it is the file `write` makes of the unchanged document.
/// let dir = tempfile::tempdir().unwrap();
/// let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
/// doc.write_as_read(&a).unwrap();
/// full.write(&b).unwrap();
/// assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
/// ```
pub fn read_owned_for_viewing(bytes: Vec<u8>, path: &Path) -> Result<Document, Error> {
    read_owned(bytes, path, Keys::Keep, false)
}

/// [`read_owned_beside`] for a document that is only written again as read (what `convert`
/// does): every track's keys are read and checked as [`read`] checks them (the same errors and
/// warnings), then let go, so reading takes less time and memory.
///
/// ```
/// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
/// let bytes = std::fs::read(&path).unwrap();
/// let copy = skelnorm::gltf_io::read_owned_to_copy(bytes.clone(), &path).unwrap();
/// let full = skelnorm::gltf_io::read_owned_for_viewing(bytes, &path).unwrap();
/// assert_eq!(copy.skeletons(), full.model.skeletons.len());
/// let names: Vec<&str> = full.model.clips.iter().map(|c| c.name.as_str()).collect();
/// assert_eq!(copy.clip_names().collect::<Vec<_>>(), names);
/// let dir = tempfile::tempdir().unwrap();
/// let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
/// copy.write(&a).unwrap();
/// full.write_as_read(&b).unwrap();
/// assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
/// ```
pub fn read_owned_to_copy(bytes: Vec<u8>, path: &Path) -> Result<DocumentToCopy, Error> {
    read_owned(bytes, path, Keys::LetGo, false).map(|doc| DocumentToCopy { doc })
}

/// The bytes of the file at `path`, parsed with their URIs resolved beside it: `keys` kept or let
/// go after their check, and a copy of the model as read kept (`keep_original`, what writing
/// needs to tell what changed) or not.
fn read_owned(
    bytes: Vec<u8>,
    path: &Path,
    keys: Keys,
    keep_original: bool,
) -> Result<Document, Error> {
    let res = Resources::Folder(folder_of(path));
    document(path, read::parse(bytes, &res, keys), keep_original)
}

/// A document to be written again as read ([`Document::write_as_read`]), with what a report
/// says of it: from [`read_owned_to_copy`] (its tracks hold no key values, so its model is not
/// handed out) or from any [`Document`].
#[derive(Debug, Clone)]
pub struct DocumentToCopy {
    doc: Document,
}

impl From<Document> for DocumentToCopy {
    fn from(doc: Document) -> DocumentToCopy {
        DocumentToCopy { doc }
    }
}

impl DocumentToCopy {
    /// Writes the document as read to `out` (see [`Document::write_as_read`]).
    pub fn write(&self, out: &Path) -> Result<(), Error> {
        self.doc.write_as_read(out)
    }

    /// What reading it told the user (see [`Document::warnings`]).
    pub fn warnings(&self) -> &[crate::model::Warning] {
        &self.doc.warnings
    }

    /// What a file converted from another format declared (see [`Document::converted`]).
    pub fn converted(&self) -> Option<&Converted> {
        self.doc.converted.as_ref()
    }

    /// The number of skeletons in its model.
    pub fn skeletons(&self) -> usize {
        self.doc.model.skeletons.len()
    }

    /// The names of its model's clips, in order.
    pub fn clip_names(&self) -> impl Iterator<Item = &str> {
        self.doc.model.clips.iter().map(|c| c.name.as_str())
    }

    /// Its model, to be looked at only (what `inspect` shows): skeletons and clips as read,
    /// except that the tracks of a glTF file hold their key times and interpolations but no
    /// key values (checked, then let go: see [`read_owned_to_copy`]). Not for sampling,
    /// comparing or writing.
    pub fn model_without_values(&self) -> &Model {
        &self.doc.model
    }

    /// The container it came in (see [`Document::format`]).
    pub fn format(&self) -> Format {
        self.doc.format
    }

    /// Its JSON as read (see [`Document::json`]).
    pub fn json(&self) -> &Value {
        self.doc.json()
    }

    /// A top-level member of its JSON as read (see [`Document::json_member`]).
    pub fn json_member(&self, key: &str) -> Option<&Value> {
        self.doc.json_member(key)
    }
}

/// The folder of `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        dir
    }
}

/// A document holding only `model`'s skeletons (their nodes and rests, no meshes) and clips,
/// as an animation-only file, to be written at `path` (see [`build::from_model`]).
pub fn animation_only(model: &crate::model::Model, path: &Path) -> Result<Document, Error> {
    let glb = build::from_model(model, &format!("skelnorm {}", env!("CARGO_PKG_VERSION")));
    read_bytes(&glb, path, &Resources::None)
}

/// A document holding a VRM animation (`VRMC_vrm_animation` 1.0) of `clip`, a clip of a VRM
/// character's skeleton in its own rests, to be written at `path` (a `.vrma`): the humanoid
/// bones' rotations as a VRM player applies them to the normalized bones, and the hips'
/// translation, in VRM 1.0's convention whatever the character's VRM version (see `vrma.rs`).
pub fn vrm_animation(
    model: &crate::model::Model,
    clip: &crate::model::Clip,
    path: &Path,
) -> Result<Document, VrmaError> {
    let glb = vrma::vrma_bytes(
        model,
        clip,
        &format!("skelnorm {}", env!("CARGO_PKG_VERSION")),
    )?;
    Ok(read_bytes(&glb, path, &Resources::None)?)
}

/// Parses a document from bytes; `path` only names it in errors. External URIs resolve through
/// `resources`.
///
/// ```
/// use skelnorm::gltf_io::{read_bytes, Resources};
/// let err = read_bytes(b"glTF\x02\0\0\0", "cut.glb".as_ref(), &Resources::None).unwrap_err();
/// assert_eq!(err.to_string(), "cut.glb: invalid GLB container: truncated header");
/// ```
pub fn read_bytes(bytes: &[u8], path: &Path, resources: &Resources) -> Result<Document, Error> {
    document(
        path,
        read::parse(bytes.to_vec(), resources, Keys::Keep),
        true,
    )
}

/// The document of a parse; `keep_original` keeps a copy of the model as read (needed to write).
fn document(
    path: &Path,
    parsed: Result<read::Parsed, ErrorKind>,
    keep_original: bool,
) -> Result<Document, Error> {
    parsed
        .map_err(|kind| Error {
            file: path.to_path_buf(),
            kind,
        })
        .map(|(format, json, buffers, model, warnings, located)| {
            let mut original = keep_original.then(|| model.clone());
            // The model's key arrays are then its own: the document compares them with the
            // bytes they were read from.
            let read_keys = original
                .as_mut()
                .map(|o| read_keys::set_aside(o, located))
                .unwrap_or_default();
            let (json, lazy) = match json {
                lazy::Json::Whole(whole) => (OnceLock::from(whole), None),
                lazy::Json::Lazy(lazy) => (OnceLock::new(), Some(lazy)),
            };
            Document {
                path: path.to_path_buf(),
                format,
                original,
                read_keys,
                model,
                warnings,
                converted: None,
                json,
                lazy,
                buffers,
            }
        })
}

impl Document {
    /// Gives clip `clip` of the model the float curves its file holds beside its JSON (FBX
    /// animation curves): part of the file as read, not a change, so the copy kept to tell what
    /// changed gets them too, and writing keeps the clip's animation as read. glTF has no place
    /// for curves, so they are not written.
    pub fn set_read_curves(&mut self, clip: usize, curves: Vec<crate::model::Curve>) {
        if let Some(c) = self.original.as_mut().and_then(|o| o.clips.get_mut(clip)) {
            c.curves = curves.clone();
        }
        if let Some(c) = self.model.clips.get_mut(clip) {
            c.curves = curves;
        }
    }

    /// The document's JSON as it was read (image files embedded), before any patching. A
    /// document read to be looked at or written again as read holds its JSON as text until
    /// this is first asked for (see [`read_owned_for_viewing`]); [`Document::json_member`]
    /// parses one top-level member only.
    pub fn json(&self) -> &Value {
        // Without its text, the document holds its parsed JSON (never let go of).
        self.json
            .get_or_init(|| self.lazy.as_ref().map_or(Value::Null, LazyJson::to_value))
    }

    /// The top-level member `key` of [`Document::json`], parsed alone when the JSON is held as
    /// text.
    ///
    /// ```
    /// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
    /// let doc = skelnorm::gltf_io::read_owned_for_viewing(std::fs::read(&path).unwrap(), &path)
    ///     .unwrap();
    /// assert_eq!(doc.json_member("asset"), doc.json().get("asset"));
    /// assert_eq!(doc.json_member("no such member"), None);
    /// ```
    pub fn json_member(&self, key: &str) -> Option<&Value> {
        match (self.json.get(), &self.lazy) {
            (None, Some(lazy)) => lazy.get(key),
            _ => self.json().get(key),
        }
    }

    /// [`Document::json_member`], copied (or parsed afresh from the text held, not kept).
    fn json_member_owned(&self, key: &str) -> Option<Value> {
        match (self.json.get(), &self.lazy) {
            (None, Some(lazy)) => lazy.get_owned(key),
            _ => self.json().get(key).cloned(),
        }
    }

    /// The JSON as read, as text split into its members (see `lazy.rs`), for a document that
    /// does not hold it so (one built in memory): the parsed JSON written out. It reads as the
    /// parsed JSON does (floats round-trip exactly), so writing it writes the same file.
    fn json_as_text(&self) -> Result<lazy::LazyJson, ErrorKind> {
        let text = serde_json::to_vec(self.json()).map_err(|e| ErrorKind::Write(e.to_string()))?;
        let members = lazy::split(&text)
            .ok_or_else(|| ErrorKind::Write("the JSON as read is not an object".into()))?;
        Ok(lazy::LazyJson::new(buffers::Buffer::from(text), members))
    }

    /// Keeps the JSON as read as compact text rather than parsed (a tenth of the memory, for a
    /// file with many accessors) until it is next needed, say by [`Document::write`], which
    /// parses then what it patches: for the stages' time, which do not look at it. A document
    /// that holds only the parsed value holds its compact text from then on, split as a file's
    /// is (it parses back into the same value: floats round-trip exactly). Writes the same file.
    pub fn let_go_of_json(&mut self) {
        if self.lazy.is_none() {
            let text = self
                .json
                .get()
                .and_then(|json| serde_json::to_vec(json).ok());
            let members = text.as_deref().and_then(lazy::split);
            if let (Some(text), Some(members)) = (text, members) {
                self.lazy = Some(LazyJson::new(buffers::Buffer::from(text), members));
            }
        }
        if self.lazy.is_some() {
            self.json.take();
        }
    }

    /// Builds the output: the patched JSON and the single binary buffer it refers to.
    /// `bin_uri` is the URI to give that buffer (`None` for GLB, whose BIN chunk needs none).
    pub fn to_parts(&self, bin_uri: Option<&str>) -> Result<(Value, Vec<u8>), Error> {
        let (json, bin) = self.with_parts(bin_uri, false, |json, bin| {
            (serde_json::to_value(&json), bin.to_vec())
        })?;
        let json = json.map_err(|e| Error {
            file: self.path.clone(),
            kind: ErrorKind::Write(e.to_string()),
        })?;
        Ok((json, bin))
    }

    /// Patches the JSON and lays out the one binary buffer, then hands both to `f` (the buffer's
    /// bytes still in place in the document's buffers, not gathered). The JSON is held as its
    /// text (a document parsed whole is written out first): a patch parses only the members it
    /// changes ([`draft::Draft`]). When the model is as read and every clip came from the file,
    /// the patch would change nothing and leave nothing unused: then only the buffer layout is
    /// redone, and the rest of the JSON is not parsed. `as_read` takes that way whatever the
    /// model holds (see [`Document::write_as_read`]).
    fn with_parts<R>(
        &self,
        bin_uri: Option<&str>,
        as_read: bool,
        f: impl FnOnce(layout::OutJson, &layout::Packed) -> R,
    ) -> Result<R, Error> {
        let fail = |kind| Error {
            file: self.path.clone(),
            kind,
        };
        let original = match (&self.original, as_read) {
            (_, true) => None,
            (Some(original), false) => Some(read_keys::ModelAsRead::new(
                original,
                &self.read_keys,
                &self.buffers,
            )),
            (None, false) => {
                return Err(fail(ErrorKind::Write(
                    "the document was read to be looked at only and cannot be written".into(),
                )))
            }
        };
        let made;
        let text = match &self.lazy {
            Some(lazy) => lazy,
            None => {
                made = self.json_as_text().map_err(fail)?;
                &made
            }
        };
        let buffers = buffers::OutBuffers::new(&self.buffers);
        let unchanged = original.is_none_or(|original| {
            original.same_model(&self.model) && self.model.clips.iter().all(|c| c.source.is_some())
        });
        if let (false, Some(original)) = (unchanged, original) {
            let baked = self.baked().map_err(fail)?;
            let Some(mut draft) = draft::Draft::of(text) else {
                return Err(fail(ErrorKind::Write(
                    "its accessors or buffer views are not an array".into(),
                )));
            };
            let used_before = draft.usage();
            let mut read = draft.take_animations();
            let mut adds = patch::Additions::new(buffers);
            let json = &mut draft.json;
            patch::apply(json, &mut read, &mut adds, original, &self.model, &baked)
                .map_err(fail)?;
            let (buffers, added) = adds.into_parts(&mut draft.json);
            let bin = draft.finish(&used_before, added, &buffers, bin_uri);
            return Ok(f(layout::OutJson::Draft(draft), &bin));
        }
        // Only the buffer layout changes: the other members are transcoded from the text.
        let mut views = layout::RawItems::of(text, "bufferViews");
        let mut over = serde_json::Map::new();
        if let Some(v) = text.get_owned("buffers") {
            over.insert("buffers".to_string(), v);
        }
        let mut over = Value::Object(over);
        let mut none = layout::RawItems::empty();
        let bin = layout::pack(
            &mut over,
            views.as_mut().unwrap_or(&mut none),
            &buffers,
            bin_uri,
        );
        let json = layout::OutJson::AsRead {
            base: text,
            views,
            over,
        };
        Ok(f(json, &bin))
    }

    /// What measures how far rebinding moves the vertices of this document's skinned meshes from
    /// the exact skin ([`BindMeasure::measure`], given the model as the stages left it): the
    /// mesh data as read, its buffers shared.
    pub fn bind_measure(&self) -> Result<BindMeasure, Error> {
        let root = self.mesh_root().map_err(|kind| Error {
            file: self.path.clone(),
            kind,
        })?;
        Ok(BindMeasure::new(&self.path, root, self.buffers.clone()))
    }

    /// The document as read, typed, with only what skinned mesh data needs (nodes, meshes,
    /// skins, accessors, buffer views, buffers): the animations, most of a big file's JSON,
    /// are not parsed.
    fn mesh_root(&self) -> Result<gltf::json::Root, ErrorKind> {
        let mut part = serde_json::Map::new();
        for key in [
            "asset",
            "nodes",
            "meshes",
            "skins",
            "accessors",
            "bufferViews",
            "buffers",
        ] {
            if let Some(v) = self.json_member_owned(key) {
                part.insert(key.to_string(), v);
            }
        }
        Ok(read::typed(&Value::Object(part))?.0)
    }

    /// The new vertex data of the skins whose vertices move into a new bind ([`bake::bake`]),
    /// read from the document as read; none when no skin moves.
    fn baked(&self) -> Result<bake::Baked, ErrorKind> {
        if !bake::any(&self.model) {
            return Ok(bake::Baked::default());
        }
        let root = self.mesh_root()?;
        bake::bake(
            &root,
            &mut accessor::Data::new(&root, &self.buffers),
            &self.model,
        )
    }

    /// Lets go of the key values read that the model no longer holds (the rest fix's new
    /// rotations, say), keeping what writing needs to tell which tracks changed: the next
    /// [`Document::write`] writes the same file. Call it once the stages are done, just before
    /// writing: a track the model is given afterwards that equals one read may be written as
    /// new data rather than as the data read.
    pub fn let_go_of_read_keys(&mut self) {
        if let Some(original) = &mut self.original {
            release::let_go(original, &self.read_keys, &self.model);
        }
    }

    /// Writes the document to `out` (`.gltf` writes a `.bin` beside it; `.glb`, `.vrm`, `.vrma`
    /// are binary). Writes temporary files in the destination folder and renames them, so a
    /// failed write leaves no partial output. Refuses to overwrite the file it was read from.
    pub fn write(&self, out: &Path) -> Result<(), Error> {
        self.write_to(out, false)
    }

    /// Runs `change` on the model (say, a pipeline's stages), then lets go of the keys read that
    /// the model no longer holds ([`Document::let_go_of_read_keys`]) and hands `then` what
    /// `change` returned, the model as changed, and a writer of the document to a path
    /// ([`Document::write`]). Returns what `then` returns. Writes the same file as changing
    /// [`Document::model`] and calling [`Document::write`].
    ///
    /// ```
    /// let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mixamo.glb");
    /// let mut doc = skelnorm::gltf_io::read(&path).unwrap();
    /// let dir = tempfile::tempdir().unwrap();
    /// let out = dir.path().join("renamed.glb");
    /// let done = doc.change_then_write(
    ///     |model| model.clips[0].name = "Walk".into(),
    ///     |(), model, write| {
    ///         assert_eq!(model.clips[0].name, "Walk");
    ///         write(&out)
    ///     },
    /// );
    /// assert!(done.is_ok() && out.exists());
    /// ```
    pub fn change_then_write<C, T>(
        &mut self,
        change: impl FnOnce(&mut Model) -> C,
        then: impl FnOnce(C, &Model, &dyn Fn(&Path) -> Result<(), Error>) -> T,
    ) -> T {
        let changed = change(&mut self.model);
        self.let_go_of_read_keys();
        let this = &*self;
        then(changed, &this.model, &|out| this.write(out))
    }

    /// The key values of its model as read that can be read again from the bytes they were read
    /// from (see [`crate::model::RereadableKeys`]), when there are any: a copy of the model taken
    /// before any change can let go of them ([`crate::model::drop_rereadable`]) and take them back
    /// clip by clip ([`crate::model::reread_clip`]). The buffers are shared, not copied.
    pub fn rereadable_keys(&self) -> Option<std::sync::Arc<dyn crate::model::RereadableKeys>> {
        let read = self
            .original
            .as_ref()
            .filter(|_| !self.read_keys.is_empty())?;
        let rereading =
            read_keys::KeyRereader::new(self.read_keys.clone(), self.buffers.clone(), read);
        Some(std::sync::Arc::new(rereading))
    }

    /// Writes the document as it was read, in `out`'s container, as [`Document::write`] writes
    /// an unchanged document: the JSON and buffers as read, only the buffer layout redone.
    /// Changes to `model` are not written; it works on a document read only to be looked at
    /// ([`read_owned_for_viewing`]), which keeps no copy of its model. What `convert` does.
    pub fn write_as_read(&self, out: &Path) -> Result<(), Error> {
        self.write_to(out, true)
    }

    /// Writes the document (as read, when `as_read`).
    fn write_to(&self, out: &Path, as_read: bool) -> Result<(), Error> {
        let fail = |kind| Error {
            file: out.to_path_buf(),
            kind,
        };
        let format = Format::for_path(out).ok_or_else(|| {
            fail(ErrorKind::Write(
                "the output must end in .gltf, .glb, .vrm or .vrma".into(),
            ))
        })?;
        if same_file(&self.path, out) {
            return Err(fail(ErrorKind::Write(
                "the output is the input file; inputs are never overwritten".into(),
            )));
        }
        let dir = out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        match format {
            Format::Glb => self.with_parts(None, as_read, |json, bin| {
                // The JSON is written after room for the GLB's headers, which are then written
                // over it: the text is not copied (nor its buffer grown many times, when its
                // size is known).
                let mut text = Vec::with_capacity(container::HEAD_ROOM + json.size_hint());
                text.resize(container::HEAD_ROOM, 0);
                serde_json::to_writer(&mut text, &json)
                    .map_err(|e| fail(ErrorKind::Write(e.to_string())))?;
                drop(json);
                let bin_len = (bin.len > 0).then_some(bin.len);
                let head = container::glb_head_over(text, bin_len);
                let size = head.len() + bin.len + container::pad(bin.len);
                write_atomic(dir, out, size, &mut |w| {
                    w.write_all(&head)?;
                    bin.write_to(w)?;
                    // The BIN chunk's padding (none: the packed buffer's length is a multiple
                    // of 4).
                    w.write_all(&[0; 3][..container::pad(bin.len)])
                })
                .map_err(|e| fail(ErrorKind::Io(e)))
            })?,
            Format::Gltf => {
                let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("out");
                let bin_name = format!("{stem}.bin");
                let uri = percent_encoding::utf8_percent_encode(&bin_name, URI_CHARS).to_string();
                self.with_parts(Some(&uri), as_read, |json, bin| {
                    let mut text = Vec::with_capacity(json.size_hint());
                    serde_json::to_writer_pretty(&mut text, &json)
                        .map_err(|e| fail(ErrorKind::Write(e.to_string())))?;
                    drop(json);
                    if bin.len > 0 {
                        let bin_path = dir.join(&bin_name);
                        if same_file(&self.path, &bin_path) || self.is_input_resource(&bin_path) {
                            return Err(fail(ErrorKind::Write(format!(
                                "`{}` would overwrite an input file",
                                bin_path.display()
                            ))));
                        }
                        write_atomic(dir, &bin_path, bin.len, &mut |w| bin.write_to(w))
                            .map_err(|e| fail(ErrorKind::Io(e)))?;
                    }
                    write_atomic(dir, out, text.len(), &mut |w| w.write_all(&text))
                        .map_err(|e| fail(ErrorKind::Io(e)))
                })?
            }
        }
    }

    /// The raw bytes of buffer view `v` as stored (compressed, for meshopt views), or `None`
    /// if the view or its buffer's data does not exist.
    pub fn buffer_view_bytes(&self, v: usize) -> Option<&[u8]> {
        let view = self.json_member("bufferViews")?.get(v)?;
        let data = self
            .buffers
            .get(view.get("buffer")?.as_u64()? as usize)?
            .as_deref()?;
        let off = view.get("byteOffset").and_then(Value::as_u64).unwrap_or(0) as usize;
        let len = view.get("byteLength")?.as_u64()? as usize;
        data.get(off..off.checked_add(len)?)
    }

    /// Decodes accessor `index` as floats (any type and component type) and returns them with
    /// the number of components per element.
    pub fn accessor_floats(&self, index: usize) -> Result<(Vec<f32>, usize), Error> {
        use gltf::json::accessor::Type;
        let fail = |kind| Error {
            file: self.path.clone(),
            kind,
        };
        let (root, _) = read::typed(self.json()).map_err(fail)?;
        let all = [
            Type::Scalar,
            Type::Vec2,
            Type::Vec3,
            Type::Vec4,
            Type::Mat2,
            Type::Mat3,
            Type::Mat4,
        ];
        accessor::Data::new(&root, &self.buffers)
            .floats(index, &all)
            .map_err(fail)
    }

    fn is_input_resource(&self, candidate: &Path) -> bool {
        let Some(dir) = self.path.parent() else {
            return false;
        };
        self.json_member("buffers")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|b| b["uri"].as_str())
            .any(|uri| {
                !uri.starts_with("data:")
                    && percent_encoding::percent_decode_str(uri)
                        .decode_utf8()
                        .is_ok_and(|u| same_file(&dir.join(u.as_ref()), candidate))
            })
    }
}

/// Bytes on disk of a glTF file and of the buffers and images it refers to by relative URI
/// (a `.gltf`'s `.bin` and textures; nothing more for GLB, VRM and VRMA). Files that cannot be
/// read count 0.
pub fn stored_size(path: &Path) -> u64 {
    let own = std::fs::metadata(path).map_or(0, |m| m.len());
    if Format::for_path(path) != Some(Format::Gltf) {
        return own;
    }
    let Some(json) = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    else {
        return own;
    };
    let dir = path.parent().unwrap_or(Path::new(""));
    let uris = ["buffers", "images"]
        .iter()
        .flat_map(|k| json[*k].as_array().into_iter().flatten())
        .filter_map(|v| v["uri"].as_str())
        .filter(|u| !u.starts_with("data:"));
    own + uris
        .filter_map(|u| percent_encoding::percent_decode_str(u).decode_utf8().ok())
        .filter_map(|u| std::fs::metadata(dir.join(u.as_ref())).ok())
        .map(|m| m.len())
        .sum::<u64>()
}

/// Whether two paths name the same existing file, through links (the `same-file` crate: on Unix
/// the same device and inode). `false` when either does not exist.
pub fn same_file(a: &Path, b: &Path) -> bool {
    same_file::is_same_file(a, b).unwrap_or(false)
}

/// Writes `bytes` to `out` the way every output is written: a temporary file (mode 0644) in the
/// destination folder (created when missing), then renamed over any existing `out` (readers see
/// the old file or the new one, never none), so a failed write leaves no partial file. It is
/// not synced to the disk (as `cp` does not): a sync waits for the file system's journal, 6–8 ms
/// per file here and more while other programs write, which was most of the time of converting
/// a small file and of a batch's per-file cost (issue 19); outputs are made from inputs that are
/// never changed, so a crash of the machine costs at most a re-run. The error names neither
/// `out` nor the temporary file: the caller names `out`.
pub fn write_file(out: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    write_atomic(dir, out, bytes.len(), &mut |w| w.write_all(bytes))
}

/// Writes what `write` writes (`size` bytes) to `out` through a temporary file in `dir`
/// (created with its parents when missing), buffered, its room on the disk reserved first
/// ([`reserve`]). The errors name no temporary file: their text is the cause only, for the
/// caller to put after the user's path.
fn write_atomic(
    dir: &Path,
    out: &Path,
    size: usize,
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // tempfile's errors end in ` at path "…/.skelnorm-XXXX.tmp"`, which means nothing to the
    // user: cut it, keep the cause.
    let plain = |e: std::io::Error| {
        let text = e.to_string();
        match text.find(" at path ") {
            Some(i) => std::io::Error::new(e.kind(), text[..i].to_string()),
            None => e,
        }
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".skelnorm-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    // The folder is made only when the temporary file cannot be (usually it exists: no `mkdir`
    // and `stat` per output); then the errors are those of making the folder, and of the file.
    let mut tmp = match builder.tempfile_in(dir) {
        Ok(tmp) => tmp,
        Err(_) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("cannot create the folder {}: {e}", dir.display()),
                )
            })?;
            builder.tempfile_in(dir).map_err(plain)?
        }
    };
    reserve(tmp.as_file(), size);
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        write(&mut w).map_err(plain)?;
        w.flush().map_err(plain)?;
    }
    // The room reserved is the room used (blocks reserved beyond the end would stay so).
    debug_assert_eq!(
        tmp.as_file().metadata().ok().map(|m| m.len()),
        Some(size as u64),
        "{} bytes written where {size} were reserved",
        tmp.as_file().metadata().map_or(0, |m| m.len())
    );
    // The rename replaces an existing `out` in one step. Removing it first was measured faster
    // when the same output is replaced over and over (ext4 starts writing a file that replaces
    // another by a rename, and the next replacement waits for that: 3–4 ms per 3 MB), but it
    // leaves a moment with no output, which an editor or engine watching the file would see.
    tmp.persist(out).map_err(|e| plain(e.error))?;
    Ok(())
}

/// Reserves `size` bytes of disk for `file`, empty and about to be written, without changing
/// its length (`fallocate` with `FALLOC_FL_KEEP_SIZE`; Linux only, elsewhere nothing). Its
/// blocks are then placed at once rather than page by page as it is written back, and
/// renaming it over an existing output no longer makes ext4 start writing it back and wait
/// (its `auto_da_alloc`, for files whose blocks are not placed yet): 2.7 ms of 3.5 ms for a
/// 3 MB file here, 14 ms of 22 ms for 30 MB. The write goes on whatever this gives (a file
/// system without `fallocate` says so; a full disk fails the write itself), and the file is
/// still not synced: how soon it reaches the disk is the system's choice, as it is for `cp`.
fn reserve(file: &std::fs::File, size: usize) {
    #[cfg(target_os = "linux")]
    if size > 0 {
        use rustix::fs::{fallocate, FallocateFlags};
        let _ = fallocate(file, FallocateFlags::KEEP_SIZE, 0, size as u64);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, size);
}

//! Reading an input file into memory, whole. A multi-MB GLB's JSON chunk is checked and split
//! into its top-level members (`lazy.rs`) while a second thread reads the rest of the file (its
//! binary chunk): both take a few ms on such files, mostly in filling fresh memory, and the
//! machine has more than one core (issue 19). This thread types the document straight from the
//! JSON text meanwhile, and the split is made by whichever thread is done first. The bytes are
//! those `std::fs::read` gives, and parsing them later gives the same document, errors and
//! warnings: the early parse is used only for the JSON chunk the container check finds at the
//! same place.

use super::error::{Error, ErrorKind};
use super::read::{self, Early};
use super::MAX_INPUT_BYTES;
use std::io::Read;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The least JSON chunk parsed on the side, and the least rest of a file read on the side: below
/// these, starting a thread costs more than the overlap saves.
const MIN_JSON: usize = 8 << 10;
const MIN_REST: usize = 256 << 10;

/// An input file's bytes, with its JSON chunk already parsed when it is a multi-MB GLB (see
/// [`read_input_early`](super::read_input_early)); from plain bytes, nothing parsed yet.
#[derive(Debug)]
pub struct Input {
    pub(crate) bytes: Vec<u8>,
    pub(crate) early: Option<Early>,
}

impl Input {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The file's bytes, owned (what was parsed early is let go).
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

impl From<Vec<u8>> for Input {
    fn from(bytes: Vec<u8>) -> Input {
        Input { bytes, early: None }
    }
}

/// The file at `path`, opened after the checks every input gets (as
/// [`read_input`](super::read_input) checks): not a folder, not over the 2 GiB limit. Its length
/// as `stat` gave it.
fn open_checked(path: &Path) -> Result<(std::fs::File, u64), ErrorKind> {
    let meta = std::fs::metadata(path)?;
    if meta.is_dir() {
        return Err(ErrorKind::NotGltf("it is a folder".into()));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(ErrorKind::NotGltf(format!(
            "{} bytes is over the 2 GiB limit",
            meta.len()
        )));
    }
    Ok((std::fs::File::open(path)?, meta.len()))
}

/// The bytes of an input file, a GLB's JSON chunk split into its members on the way (see the
/// module's text and `lazy.rs`; a text that cannot be split is parsed into a `Value`).
pub(crate) fn read_early(path: &Path) -> Result<Input, Error> {
    let fail = |kind| Error {
        file: path.to_path_buf(),
        kind,
    };
    let (mut file, len) = open_checked(path).map_err(fail)?;
    let len = len as usize;
    // Zeroed by the system (a fresh mapping for any size that matters), not written here.
    let mut bytes = vec![0u8; len];
    let mut have = read_full(&mut file, &mut bytes[..len.min(20)]).map_err(|e| fail(e.into()))?;
    let mut early = None;
    if let Some(json) = json_chunk(&bytes[..have], len) {
        have += read_full(&mut file, &mut bytes[have..json.end]).map_err(|e| fail(e.into()))?;
        if have == json.end {
            let (head, rest) = bytes.split_at_mut(json.end);
            let text = &head[json.clone()];
            let (parsed, got) = split_beside_read(text, json.clone(), &mut file, rest);
            have += got.map_err(|e| fail(e.into()))?;
            early = Some(parsed);
        }
    }
    // What is left (all of it for a small file or another format), then anything the file
    // gained since `stat`, as `std::fs::read` reads to the end.
    have += read_full(&mut file, &mut bytes[have..]).map_err(|e| fail(e.into()))?;
    if have < len {
        bytes.truncate(have);
    } else {
        file.read_to_end(&mut bytes)
            .map_err(|e| fail(ErrorKind::Io(e)))?;
    }
    Ok(Input { bytes, early })
}

/// Splits `json` (bytes `range` of the file) into members (see `lazy.rs`) while another thread
/// reads the file on into `rest`; what it split and how many bytes it read (none when no thread
/// can be started). This thread types the document straight from the text, and the split
/// (a check of the whole text) is made by whichever is done first, so that on a multi-MB GLB
/// it runs beside the typing rather than before it.
fn split_beside_read(
    json: &[u8],
    range: Range<usize>,
    file: &mut std::fs::File,
    rest: &mut [u8],
) -> (Early, std::io::Result<usize>) {
    let splitting = AtomicBool::new(false);
    let claim = || !splitting.swap(true, Ordering::AcqRel);
    std::thread::scope(|s| {
        let reader = std::thread::Builder::new()
            .name("skelnorm-read".into())
            .spawn_scoped(s, || {
                let got = read_full(file, rest);
                let text = (got.is_ok() && claim()).then(|| read::parse_text(json));
                (got, text)
            });
        match reader {
            Ok(reader) => {
                let pretyped = read::typed_text(json);
                let here = claim().then(|| read::parse_text(json));
                let (got, there) = reader.join().unwrap_or_else(|_| {
                    let stopped = std::io::Error::other("the thread reading the file stopped");
                    (Err(stopped), None)
                });
                // Split here or there; here after all when the reader claimed it and stopped.
                let text = here.or(there).unwrap_or_else(|| read::parse_text(json));
                (read::early(text, json, pretyped, range), got)
            }
            // Nothing read: the caller reads the rest.
            Err(_) => (read::parse_early(json, range), Ok(0)),
        }
    })
}

/// The bytes of a GLB's JSON chunk in a file of `len` bytes whose first bytes are `head`, when
/// it is worth parsing while the rest is read: `None` for anything else (a file too small, not
/// a GLB, a damaged header: the container check that follows the read tells what).
fn json_chunk(head: &[u8], len: usize) -> Option<Range<usize>> {
    let u32_at = |at: usize| -> Option<usize> {
        let b = head.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    if head.get(..4)? != b"glTF" || u32_at(16)? != 0x4E4F_534A {
        return None;
    }
    let end = 20usize.checked_add(u32_at(12)?)?;
    (end - 20 >= MIN_JSON && end <= len && len - end >= MIN_REST).then_some(20..end)
}

/// Reads into `buf` until it is full or the file ends; the number of bytes read.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut at = 0;
    while at < buf.len() {
        match file.read(&mut buf[at..]) {
            Ok(0) => break,
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

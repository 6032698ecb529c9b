//! Errors of reading and writing glTF files: each names the file and, where it applies, the
//! JSON path of the culprit (`accessors[12]`).

use std::path::PathBuf;

/// What went wrong with a file.
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// The file could not be read or written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is neither GLB nor glTF JSON.
    #[error("not a glTF or GLB file ({0})")]
    NotGltf(String),
    /// The GLB container is damaged.
    #[error("invalid GLB container: {0}")]
    Glb(String),
    /// The JSON does not parse, or does not have the shape of a glTF document.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// A glTF object breaks a rule skelnorm depends on.
    #[error("{path}: {message}")]
    Invalid {
        /// JSON path of the object, e.g. `accessors[12]`.
        path: String,
        /// What is wrong with it, lowercase.
        message: String,
    },
    /// A buffer or image URI was refused (it leaves the file's folder or uses a network scheme).
    #[error("{path}: refused URI `{uri}`: {why}")]
    RefusedUri {
        /// JSON path of the object holding the URI.
        path: String,
        /// The URI, shortened if long.
        uri: String,
        /// Why it was refused.
        why: String,
    },
    /// The model handed to the writer cannot be written into this document.
    #[error("cannot write: {0}")]
    Write(String),
    /// A file of another format (FBX, BVH) that could not be converted; the message says what.
    #[error("{0}")]
    Convert(String),
}

/// An error about one file.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", file.display())]
pub struct Error {
    /// The file concerned.
    pub file: PathBuf,
    /// What went wrong.
    pub kind: ErrorKind,
}

/// Shorthand for an [`ErrorKind::Invalid`].
pub(crate) fn invalid(path: impl Into<String>, message: impl Into<String>) -> ErrorKind {
    ErrorKind::Invalid {
        path: path.into(),
        message: message.into(),
    }
}

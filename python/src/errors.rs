//! Library errors as Python exceptions: a file that cannot be read or written is an `OSError`
//! (`FileNotFoundError`, `PermissionError` where they apply); anything else is a `ValueError`.
//! The message is the library's own, naming the file.

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError};
use pyo3::PyErr;
use skelnorm::gltf_io::{Error, ErrorKind};

/// A file error of the library as a Python exception.
pub fn file_error(e: Error) -> PyErr {
    let message = e.to_string();
    match &e.kind {
        ErrorKind::Io(io) => match io.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
            _ => PyOSError::new_err(message),
        },
        _ => PyValueError::new_err(message),
    }
}

/// A `ValueError` with `message`.
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

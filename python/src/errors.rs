//! Library errors as Python exceptions: a file that cannot be read or written is an `OSError`
//! (`FileNotFoundError`, `PermissionError`, `IsADirectoryError` where they apply); anything else
//! is a `ValueError`.
//! The message is the library's own, naming the file.

use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError, PyValueError,
};
use pyo3::PyErr;
use skelnorm::gltf_io::{Error, ErrorKind};

/// A file error of the library as a Python exception.
pub fn file_error(e: Error) -> PyErr {
    let message = e.to_string();
    match &e.kind {
        ErrorKind::Io(io) => io_error(message, io),
        _ => PyValueError::new_err(message),
    }
}

/// `message` as the `OSError` subclass that fits `io`.
pub fn io_error(message: String, io: &std::io::Error) -> PyErr {
    match io.kind() {
        std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
        std::io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
        _ => PyOSError::new_err(message),
    }
}

/// `message` as an `IsADirectoryError`.
pub fn folder_error(message: String) -> PyErr {
    PyIsADirectoryError::new_err(message)
}

/// A `ValueError` with `message`.
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

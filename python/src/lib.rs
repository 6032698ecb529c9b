//! `skelnorm` for Python: a PyO3 extension that is a thin layer over the Rust library. It turns
//! files, settings and numpy arrays into the library's types and back, and library errors into
//! Python exceptions (`OSError` for files that cannot be read or written, `ValueError` for bad
//! content, settings or arrays) with the library's messages. It computes nothing of its own.
//!
//! Quaternions are (x, y, z, w), as glTF stores them, unless a call takes `order="wxyz"`.

mod arrays;
mod asset;
mod batch;
mod errors;
mod mapping;
mod motion;
mod retarget;
mod settings;

use pyo3::prelude::*;

/// The extension module `skelnorm._native`, whose names the package `skelnorm`
/// (`python/pysrc/skelnorm/__init__.py`) makes its own.
#[pymodule]
#[pyo3(name = "_native")]
fn skelnorm_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<asset::Asset>()?;
    m.add_class::<asset::Skeleton>()?;
    m.add_class::<asset::Clip>()?;
    m.add_class::<motion::Motion>()?;
    m.add_class::<retarget::Retargeter>()?;
    m.add_function(wrap_pyfunction!(asset::load, m)?)?;
    m.add_function(wrap_pyfunction!(mapping::map, m)?)?;
    m.add_function(wrap_pyfunction!(settings::normalize, m)?)?;
    m.add_function(wrap_pyfunction!(retarget::retarget, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch, m)?)?;
    m.add_function(wrap_pyfunction!(batch::batch_files, m)?)?;
    m.add_function(wrap_pyfunction!(batch::merge_reports, m)?)?;
    m.add_function(wrap_pyfunction!(batch::write_html, m)?)?;
    Ok(())
}

//! numpy arrays in and out: float32 arrays of the library's values, and the checks an input
//! array passes (dtype, shape, finite values) before anything else sees it. Quaternion order
//! is (x, y, z, w) as glTF, or (w, x, y, z) when a call says `order="wxyz"`.

use crate::errors::value_error;
use glam::{Quat, Vec3};
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{IntoPyArray, PyArrayDyn, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// The order of a quaternion's four numbers in an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// (x, y, z, w): glTF's and glam's order, the default.
    Xyzw,
    /// (w, x, y, z): scipy's `scalar_first`, Blender's, SMPL tools'.
    Wxyz,
}

impl Order {
    /// Parses `"xyzw"` or `"wxyz"`.
    pub fn parse(text: &str) -> PyResult<Order> {
        match text {
            "xyzw" => Ok(Order::Xyzw),
            "wxyz" => Ok(Order::Wxyz),
            _ => Err(value_error(format!(
                "order `{text}`: must be \"xyzw\" (glTF) or \"wxyz\""
            ))),
        }
    }

    /// The quaternion's four numbers in this order.
    pub fn put(self, q: Quat) -> [f32; 4] {
        match self {
            Order::Xyzw => [q.x, q.y, q.z, q.w],
            Order::Wxyz => [q.w, q.x, q.y, q.z],
        }
    }

    /// The quaternion of four numbers in this order.
    pub fn take(self, v: &[f32]) -> Quat {
        match self {
            Order::Xyzw => Quat::from_xyzw(v[0], v[1], v[2], v[3]),
            Order::Wxyz => Quat::from_xyzw(v[1], v[2], v[3], v[0]),
        }
    }
}

/// A float32 numpy array of `shape` holding `data` (row-major).
pub fn out<'py>(
    py: Python<'py>,
    shape: &[usize],
    data: Vec<f32>,
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let a = ArrayD::from_shape_vec(IxDyn(shape), data).map_err(|e| value_error(e.to_string()))?;
    Ok(a.into_pyarray(py))
}

/// Quaternions as a float32 array of `lead` + `[4]`.
pub fn quats<'py>(
    py: Python<'py>,
    lead: &[usize],
    q: &[Quat],
    order: Order,
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let shape: Vec<usize> = lead.iter().copied().chain([4]).collect();
    out(py, &shape, q.iter().flat_map(|q| order.put(*q)).collect())
}

/// Vectors as a float32 array of `lead` + `[3]`.
pub fn vecs<'py>(
    py: Python<'py>,
    lead: &[usize],
    v: &[Vec3],
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let shape: Vec<usize> = lead.iter().copied().chain([3]).collect();
    out(py, &shape, v.iter().flat_map(|v| v.to_array()).collect())
}

/// An input array: its shape and its values as f32 (row-major). Accepts float32 and float64
/// numpy arrays of any layout; refuses other dtypes, other objects, non-finite values and
/// shapes other than `lead + [width]` with `lead` of `ranks` dimensions, described to the user
/// as `expected` (each a `ValueError` naming `what`).
pub fn input(
    obj: &Bound<'_, PyAny>,
    what: &str,
    ranks: &[usize],
    width: usize,
    expected: &str,
) -> PyResult<(Vec<usize>, Vec<f32>)> {
    let (shape, data): (Vec<usize>, Vec<f32>) =
        if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f32>>() {
            (
                a.as_array().shape().to_vec(),
                a.as_array().iter().copied().collect(),
            )
        } else if let Ok(a) = obj.extract::<PyReadonlyArrayDyn<'_, f64>>() {
            (
                a.as_array().shape().to_vec(),
                a.as_array().iter().map(|&v| v as f32).collect(),
            )
        } else {
            let kind = match obj.cast::<PyUntypedArray>() {
                Ok(a) => format!("an array of dtype {}", a.dtype()),
                Err(_) => format!(
                    "a {}",
                    obj.get_type()
                        .name()
                        .map(|s| s.to_string())
                        .unwrap_or_default()
                ),
            };
            return Err(value_error(format!(
                "{what}: expected a float32 or float64 numpy array, got {kind}"
            )));
        };
    let rank_ok = !shape.is_empty() && ranks.contains(&(shape.len() - 1));
    if !rank_ok || shape.last() != Some(&width) {
        return Err(value_error(format!(
            "{what}: shape {shape:?} is not {expected}"
        )));
    }
    if let Some(i) = data.iter().position(|v| !v.is_finite()) {
        return Err(value_error(format!(
            "{what}: value {} at flat index {i} is not finite",
            data[i]
        )));
    }
    Ok((shape, data))
}

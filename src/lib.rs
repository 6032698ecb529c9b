//! skelnorm normalizes humanoid skeletons in glTF, GLB, VRM and VRMA files so that animation
//! clips can be shared across characters.
//!
//! The crate is a library with a thin command-line front end. Files are read by [`gltf_io`] into
//! the plain [`model`] (skeletons, skins and clips); stages work on the model; `gltf_io` writes
//! the result back by patching the original document, so everything a stage did not touch
//! (meshes, materials, extensions, extras) survives unchanged.
#![deny(missing_docs)]
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        reason = "unit tests: a panic is how a test fails"
    )
)]

pub mod batch;
pub mod bvh_io;
pub mod check;
#[cfg(feature = "fbx")]
pub mod fbx_io;
pub mod gltf_io;
pub mod inspect;
pub mod io;
pub mod jobs;
pub mod mapping;
pub mod mirror;
pub mod model;
pub mod pipeline;
pub mod profile;
pub mod rename;
pub mod report;
pub mod rest;
pub mod retarget;
pub mod settings;
pub mod tracks;

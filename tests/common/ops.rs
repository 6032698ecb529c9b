//! The retarget ops the op-stack tests switch on and off, each as `make(enabled, alpha)`.

use skelnorm::retarget::{
    FilterOp, FloorOp, Op, PassOp, PinOp, PinSpace, PlantOp, PoleOp, StrideOp,
};

/// Makes an op from `enabled` and `alpha`.
pub type MakeOp = fn(bool, f32) -> Op;

/// The op `make(enabled, alpha)`, with settings that make it act on the fixtures (a raised
/// floor; a filter that lags; a pole offset).
pub fn every() -> Vec<(&'static str, MakeOp)> {
    vec![
        ("root", |enabled, alpha| Op::Root(PassOp { enabled, alpha })),
        ("fk", |enabled, alpha| Op::Fk(PassOp { enabled, alpha })),
        ("ik", |enabled, alpha| Op::Ik(PassOp { enabled, alpha })),
        ("plant", |enabled, alpha| {
            Op::Plant(PlantOp {
                enabled,
                alpha,
                ..PlantOp::default()
            })
        }),
        ("floor", |enabled, alpha| {
            Op::Floor(FloorOp {
                enabled,
                alpha,
                height: 0.05,
                ..FloorOp::default()
            })
        }),
        ("filter", |enabled, alpha| {
            Op::Filter(FilterOp {
                enabled,
                alpha,
                ..FilterOp::default()
            })
        }),
        ("stride", |enabled, alpha| {
            Op::Stride(StrideOp {
                enabled,
                alpha,
                forward: 0.7,
                sideways: 1.0,
            })
        }),
        ("pin", |enabled, alpha| {
            Op::Pin(PinOp {
                enabled,
                alpha,
                bone: "LeftHand".into(),
                from: "RightHand".into(),
                space: PinSpace::RestRelative,
            })
        }),
        ("pole", |enabled, alpha| {
            Op::Pole(PoleOp {
                enabled,
                alpha,
                offset_deg: 20.0,
            })
        }),
    ]
}

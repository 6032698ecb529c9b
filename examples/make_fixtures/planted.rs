//! The `planted_walk` clip: a walk whose stance feet are truly planted (ground truth for foot
//! planting and the floor). The hips travel forward at a constant speed with a small bob and
//! sway and do not turn; each foot stands at one world place through its stance phase and swings
//! on an arc above the floor to the next; the legs are solved by analytic two-bone IK (knees
//! forward) and the feet keep their rest rotation, flat on the floor. Spine, arms and head move
//! as in `walk`.
//!
//! Offsets are in leg units: on legs `k` times as long (scaled about the hip joints) the hips'
//! and feet's offsets are `k` times as large, so the walk on those legs is the walk on the base
//! legs scaled by `k` about the hip joints (the same joint angles: the same motion in FK terms).

use glam::{Quat, Vec3};
use std::f32::consts::{PI, TAU};

/// Seconds per cycle (two steps).
const PERIOD: f32 = 1.0;
/// Forward speed, leg units per second.
const SPEED: f32 = 0.6;
/// The stance phase's share of a cycle.
const DUTY: f32 = 0.6;
/// Highest a swinging foot rises above the floor, leg units.
const LIFT: f32 = 0.12;
/// The clip's length (two cycles) and keys (30 per second, on the frames the retarget measures
/// sample).
pub const DURATION: f32 = 2.0;
pub const KEYS: usize = 61;

/// The hips' offset from their rest at `t` (world, leg units): forward at `SPEED`, lowered
/// 6–8 cm so that the legs reach both feet in double support (highest at mid-stance), swaying
/// 1.5 cm toward the standing foot.
pub fn hips(t: f32) -> Vec3 {
    let phase = t / PERIOD;
    Vec3::new(
        0.015 * (TAU * phase).sin(),
        -0.07 + 0.01 * (2.0 * TAU * (phase - DUTY / 2.0)).cos(),
        SPEED * t,
    )
}

/// A foot's offset from its rest at `t` (world, leg units); `shift` is the share of a cycle by
/// which its stance starts late (left 0, right 0.5). Stance `k` stands still where the hips are
/// at its middle; the swing goes from one stance's place to the next, its height `LIFT·sin(πs)`
/// and its forward progress `s − sin(2πs)/2π` (slow at both ends) over the swing's share `s`.
pub fn foot(t: f32, shift: f32) -> Vec3 {
    let cycles = t / PERIOD - shift;
    let k = cycles.floor();
    let phase = cycles - k;
    let plant = |k: f32| SPEED * PERIOD * (k + shift + DUTY / 2.0);
    if phase < DUTY {
        return Vec3::new(0.0, 0.0, plant(k));
    }
    let s = (phase - DUTY) / (1.0 - DUTY);
    let ahead = s - (TAU * s).sin() / TAU;
    Vec3::new(
        0.0,
        LIFT * (PI * s).sin(),
        plant(k) + (plant(k + 1.0) - plant(k)) * ahead,
    )
}

/// The world turns of a leg's thigh, shin and foot that put its foot joint at `foot_to` with
/// its hip joint at `hip_to`, from their rest joints `hip`, `knee`, `foot`: two-bone IK with
/// the knee forward (+Z), the foot keeping its rest world rotation. Each turn is what the bone
/// adds to its parent's (the clips' turns compose down the tree).
pub fn leg(hip: Vec3, knee: Vec3, foot: Vec3, hip_to: Vec3, foot_to: Vec3) -> [Quat; 3] {
    let (a, b) = (knee.distance(hip), foot.distance(knee));
    let d = foot_to.distance(hip_to).min(a + b - 1e-5);
    let dir = (foot_to - hip_to).normalize();
    let cos = ((a * a + d * d - b * b) / (2.0 * a * d)).clamp(-1.0, 1.0);
    let forward = (Vec3::Z - dir * dir.dot(Vec3::Z)).normalize();
    let knee_to = hip_to + a * (cos * dir + (1.0 - cos * cos).sqrt() * forward);
    let thigh = Quat::from_rotation_arc((knee - hip).normalize(), (knee_to - hip_to).normalize());
    let shin = Quat::from_rotation_arc(
        thigh * (foot - knee).normalize(),
        (foot_to - knee_to).normalize(),
    ) * thigh;
    [thigh, thigh.inverse() * shin, shin.inverse()]
}

//! The rest fix's key maps a block of keys at a time, laid out component by component: each key
//! goes through glam's own scalar `DQuat * DQuat` and `DQuat * DVec3` (see [`super::convert`]),
//! so it gets the same bits, while the compiler packs two keys into each SSE2 operation.

use glam::{DQuat, DVec3, Quat, Vec3};

/// How many keys go through the maps at a time.
const BLOCK: usize = 8;

/// How many keys at the start of `keys` [`turn_blocks`] and [`place_blocks`] convert: whole
/// blocks (the rest are the caller's, one at a time).
pub(super) fn in_blocks<T>(keys: &[T]) -> usize {
    keys.len() - keys.len() % BLOCK
}

/// [`turn`] over every whole block of `keys` (see [`in_blocks`]). With AVX (told at run time)
/// the compiler packs four keys into each operation instead of two: the same operations on each
/// key, so the same bits either way.
pub(super) fn turn_blocks(a: DQuat, f: DQuat, unit: bool, keys: &mut [Quat]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: this CPU runs AVX instructions, as just asked.
        unsafe { turn_blocks_avx(a, f, unit, keys) };
        return;
    }
    turn_blocks_here(a, f, unit, keys);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn turn_blocks_avx(a: DQuat, f: DQuat, unit: bool, keys: &mut [Quat]) {
    turn_blocks_here(a, f, unit, keys);
}

#[inline(always)]
fn turn_blocks_here(a: DQuat, f: DQuat, unit: bool, keys: &mut [Quat]) {
    for block in keys.chunks_exact_mut(BLOCK) {
        if let Ok(block) = block.try_into() {
            turn(a, f, unit, block);
        }
    }
}

/// [`place`] over every whole block of `keys` (see [`in_blocks`]), with AVX as
/// [`turn_blocks`].
pub(super) fn place_blocks(t: DVec3, r: DQuat, s: f64, keys: &mut [Vec3]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: this CPU runs AVX instructions, as just asked.
        unsafe { place_blocks_avx(t, r, s, keys) };
        return;
    }
    place_blocks_here(t, r, s, keys);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn place_blocks_avx(t: DVec3, r: DQuat, s: f64, keys: &mut [Vec3]) {
    place_blocks_here(t, r, s, keys);
}

#[inline(always)]
fn place_blocks_here(t: DVec3, r: DQuat, s: f64, keys: &mut [Vec3]) {
    for block in keys.chunks_exact_mut(BLOCK) {
        if let Ok(block) = block.try_into() {
            place(t, r, s, block);
        }
    }
}

/// [`super::convert::turned`]`(a, q, f, unit)` for each of `BLOCK` keys `q`, in place: the product of
/// [`super::convert`]'s `Turn`. The keys are laid out component by component first, so the
/// compiler computes two keys per instruction.
#[inline(always)]
fn turn(a: DQuat, f: DQuat, unit: bool, keys: &mut [Quat; BLOCK]) {
    let (mut x, mut y, mut z, mut w) = ([0.0f64; BLOCK], [0.0; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    for (i, q) in keys.iter().enumerate() {
        let q = q.as_dquat();
        (x[i], y[i], z[i], w[i]) = (q.x, q.y, q.z, q.w);
    }
    for i in 0..BLOCK {
        let r = a * DQuat::from_xyzw(x[i], y[i], z[i], w[i]) * f;
        let r = if unit { r.normalize() } else { r };
        (x[i], y[i], z[i], w[i]) = (r.x, r.y, r.z, r.w);
    }
    for (i, q) in keys.iter_mut().enumerate() {
        *q = DQuat::from_xyzw(x[i], y[i], z[i], w[i]).as_quat();
    }
}

/// `(t + r · (v.as_dvec3() · s)).as_vec3()` for each of `BLOCK` keys `v`, in place: the map of
/// a translation key ([`super::convert`]'s `Wide::vector` of a point), laid out as in [`turn`].
#[inline(always)]
fn place(t: DVec3, r: DQuat, s: f64, keys: &mut [Vec3; BLOCK]) {
    let (mut x, mut y, mut z) = ([0.0f64; BLOCK], [0.0; BLOCK], [0.0; BLOCK]);
    for (i, v) in keys.iter().enumerate() {
        let v = v.as_dvec3();
        (x[i], y[i], z[i]) = (v.x, v.y, v.z);
    }
    for i in 0..BLOCK {
        let v = t + r * (DVec3::new(x[i], y[i], z[i]) * s);
        (x[i], y[i], z[i]) = (v.x, v.y, v.z);
    }
    for (i, v) in keys.iter_mut().enumerate() {
        *v = DVec3::new(x[i], y[i], z[i]).as_vec3();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Components with signed zeros, tiny and huge ones, next to ordinary ones.
    fn samples() -> Vec<f32> {
        let mut x = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e-30,
            -3.5e-20,
            7.25e20,
            0.5,
            -std::f32::consts::FRAC_1_SQRT_2,
        ];
        let mut seed = 0x1234_5678u32;
        for _ in 0..200 {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x.push((seed >> 8) as f32 / (1 << 23) as f32 * 4.0 - 2.0);
        }
        x
    }

    #[test]
    fn blocks_give_the_bits_of_one_key_at_a_time() {
        let x = samples();
        let n = x.len();
        let maps = [
            (DQuat::IDENTITY, DQuat::IDENTITY),
            (
                DQuat::from_euler(glam::EulerRot::YXZ, 0.3, -1.1, 2.0),
                DQuat::from_euler(glam::EulerRot::XZY, -0.9, 0.4, 0.05),
            ),
            (
                DQuat::from_xyzw(0.0, -0.0, 0.6, 0.8),
                DQuat::from_rotation_z(1e-9),
            ),
        ];
        let q =
            |k: usize| Quat::from_xyzw(x[k % n], x[(k + 3) % n], x[(k + 7) % n], x[(k + 1) % n]);
        let v = |k: usize| Vec3::new(x[k % n], x[(k + 5) % n], x[(k + 2) % n]);
        let t = DVec3::new(0.25, -0.0, 1e-3);
        for (a, f) in maps {
            for i in 0..n {
                let read: [Quat; 2 * BLOCK] = std::array::from_fn(|j| q(i + 11 * j));
                let bits = |q: &Quat| q.to_array().map(f32::to_bits);
                for unit in [false, true] {
                    let (mut turned, mut here) = (read, read);
                    turn_blocks(a, f, unit, &mut turned);
                    turn_blocks_here(a, f, unit, &mut here);
                    assert_eq!(turned.map(|q| bits(&q)), here.map(|q| bits(&q)));
                    for (q, got) in read.iter().zip(turned) {
                        let one = super::super::convert::turned(a, *q, f, unit);
                        assert_eq!(bits(&one), bits(&got));
                    }
                }
                let read: [Vec3; 2 * BLOCK] = std::array::from_fn(|j| v(i + 13 * j));
                for s in [1.0, 0.01, 3.7] {
                    let (mut placed, mut here) = (read, read);
                    place_blocks(t, a, s, &mut placed);
                    place_blocks_here(t, a, s, &mut here);
                    assert_eq!(placed, here);
                    for (v, got) in read.iter().zip(placed) {
                        let one = (t + a * (v.as_dvec3() * s)).as_vec3();
                        assert_eq!(
                            one.to_array().map(f32::to_bits),
                            got.to_array().map(f32::to_bits)
                        );
                    }
                }
            }
        }
    }
}

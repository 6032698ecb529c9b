//! Whether translation keys leave their rest by more than the tolerance, a block of keys at a
//! time laid out component by component: every key takes the operations of
//! `(parent.transform_vector3(key - rest).length() / height) > tolerance` with glam's `Mat4` and
//! `Vec3`, in the same order, so it gets the same answer, while the compiler packs four keys
//! (eight with AVX, told at run time) into each operation.

use glam::{Mat4, Vec3};

/// How many keys are looked at a time.
const BLOCK: usize = 8;

/// What a key's move is measured against: the parent's rest world matrix (its columns), the
/// rest, the skeleton's height and the tolerance.
#[derive(Clone, Copy)]
pub(super) struct Measure {
    pub parent: Mat4,
    pub rest: Vec3,
    pub height: f32,
    pub tolerance: f32,
}

impl Measure {
    /// How far `key` moves from the rest, in the scene, over the height.
    #[inline(always)]
    pub(super) fn size(&self, key: Vec3) -> f32 {
        self.parent.transform_vector3(key - self.rest).length() / self.height
    }

    /// Whether any of `keys` moves by more than the tolerance ([`Measure::size`]).
    pub(super) fn any_over(&self, keys: &[Vec3]) -> bool {
        let (blocks, rest) = keys.split_at(keys.len() - keys.len() % BLOCK);
        self.any_block_over(blocks) || rest.iter().any(|k| self.size(*k) > self.tolerance)
    }

    fn any_block_over(&self, keys: &[Vec3]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: this CPU runs AVX instructions, as just asked.
            return unsafe { self.any_block_over_avx(keys) };
        }
        self.any_block_over_here(keys)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn any_block_over_avx(&self, keys: &[Vec3]) -> bool {
        self.any_block_over_here(keys)
    }

    #[inline(always)]
    fn any_block_over_here(&self, keys: &[Vec3]) -> bool {
        // Plain loops: iterator adapters would be compiled apart, without AVX.
        let r = self.rest;
        for block in keys.chunks_exact(BLOCK) {
            // Blocks of keys at the rest (most, on a bone that does not move) are told by
            // comparisons alone.
            let mut at_rest = true;
            for k in block {
                at_rest &= (k.x == r.x) & (k.y == r.y) & (k.z == r.z);
            }
            if at_rest {
                continue;
            }
            let mut any = false;
            for over in self.block(block) {
                any |= over;
            }
            if any {
                return true;
            }
        }
        false
    }

    /// [`Measure::size`] over the tolerance for each key of `block` (`BLOCK` of them).
    #[inline(always)]
    fn block(&self, block: &[Vec3]) -> [bool; BLOCK] {
        let (x, y, z) = (self.parent.x_axis, self.parent.y_axis, self.parent.z_axis);
        let mut d = [[0.0f32; BLOCK]; 3];
        for (i, k) in block.iter().enumerate().take(BLOCK) {
            let v = *k - self.rest;
            (d[0][i], d[1][i], d[2][i]) = (v.x, v.y, v.z);
        }
        let mut over = [false; BLOCK];
        for i in 0..BLOCK {
            let (vx, vy, vz) = (d[0][i], d[1][i], d[2][i]);
            // `Mat4::transform_vector3`: x_axis·vx, then y_axis·vy added, then z_axis·vz.
            let m = Vec3::new(
                z.x * vz + (y.x * vy + x.x * vx),
                z.y * vz + (y.y * vy + x.y * vx),
                z.z * vz + (y.z * vy + x.z * vx),
            );
            over[i] = m.length() / self.height > self.tolerance;
        }
        over
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_answer_as_one_key_at_a_time() {
        let parent = Mat4::from_scale_rotation_translation(
            Vec3::new(0.01, 0.02, 0.015),
            glam::Quat::from_euler(glam::EulerRot::YXZ, 0.4, -1.2, 2.1),
            Vec3::new(3.0, -1.0, 0.5),
        );
        let rest = Vec3::new(0.0, -0.25, 3.0);
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32 - 0.5
        };
        // Runs of five keys of each kind: at the rest, the rest with a zero's sign changed,
        // tiny, small and large moves.
        let keys: Vec<Vec3> = (0..4000)
            .map(|i| match (i / 5) % 7 {
                0..=2 => rest,
                3 => Vec3::new(-0.0, 0.0, rest.z),
                4 => rest + Vec3::splat(next() * 1e-6),
                5 => rest + Vec3::new(next(), next(), next()) * 1e-3,
                _ => rest + Vec3::new(next(), next(), next()),
            })
            .collect();
        let mut seen = [0; 2];
        for tolerance in [0.0, 1e-7, 1e-6, 1e-5, 1e-4] {
            let m = Measure {
                parent,
                rest,
                height: 1.7,
                tolerance,
            };
            for w in keys.windows(BLOCK) {
                let one = w.iter().map(|k| m.size(*k) > tolerance).collect::<Vec<_>>();
                assert_eq!(&m.block(w)[..], &one[..]);
                assert_eq!(m.any_over(w), one.iter().any(|o| *o));
                assert_eq!(m.any_block_over(w), m.any_block_over_here(w));
                seen[usize::from(m.any_over(w))] += 1;
            }
            for n in 0..40 {
                let one = keys[..n].iter().any(|k| m.size(*k) > tolerance);
                assert_eq!(m.any_over(&keys[..n]), one);
            }
        }
        assert!(seen[0] > 0 && seen[1] > 0);
    }
}

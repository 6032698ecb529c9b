//! The skin check's matrix arithmetic in four f64 lanes: products of affine matrices and the
//! error between two, written once over [`Lanes`], an array of four f64 ([`F4`], which the
//! compiler packs into SSE2 registers two at a time) or one AVX register ([`Wide`], used only
//! by code compiled for AVX2). Each lane is the IEEE operation a scalar would make, in the same
//! order whatever the lanes: no multiply and add is fused (Rust never fuses on its own, and FMA
//! is not enabled), so both give the same numbers. Imports nothing of ours.

use glam::{DAffine3, DMat4, DVec3, DVec4};

/// Four f64 lanes in memory.
pub(super) type F4 = [f64; 4];

/// Four f64 lanes, lane by lane each the IEEE operation of one scalar.
pub(super) trait Lanes: Copy {
    /// The lanes of `a`.
    fn load(a: &F4) -> Self;
    /// The lanes in memory.
    fn store(self) -> F4;
    /// `x` in every lane.
    fn splat(x: f64) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    /// `f64::abs` of each lane.
    fn abs(self) -> Self;
    /// `f64::sqrt` of each lane.
    fn sqrt(self) -> Self;
    /// Each lane `if x > y { x } else { y }`: the larger of two numbers that are not NaN.
    fn above(self, o: Self) -> Self;
    /// The lanes, the last one replaced by `x`.
    fn with_last(self, x: f64) -> Self;
}

impl Lanes for F4 {
    #[inline(always)]
    fn load(a: &F4) -> Self {
        *a
    }
    #[inline(always)]
    fn store(self) -> F4 {
        self
    }
    #[inline(always)]
    fn splat(x: f64) -> Self {
        [x; 4]
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        [
            self[0] + o[0],
            self[1] + o[1],
            self[2] + o[2],
            self[3] + o[3],
        ]
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        [
            self[0] - o[0],
            self[1] - o[1],
            self[2] - o[2],
            self[3] - o[3],
        ]
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        [
            self[0] * o[0],
            self[1] * o[1],
            self[2] * o[2],
            self[3] * o[3],
        ]
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        [
            self[0] / o[0],
            self[1] / o[1],
            self[2] / o[2],
            self[3] / o[3],
        ]
    }
    #[inline(always)]
    fn abs(self) -> Self {
        self.map(f64::abs)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        self.map(f64::sqrt)
    }
    #[inline(always)]
    fn above(self, o: Self) -> Self {
        [
            above(self[0], o[0]),
            above(self[1], o[1]),
            above(self[2], o[2]),
            above(self[3], o[3]),
        ]
    }
    #[inline(always)]
    fn with_last(mut self, x: f64) -> Self {
        self[3] = x;
        self
    }
}

/// The larger of two numbers that are not NaN.
#[inline(always)]
pub(super) fn above(x: f64, y: f64) -> f64 {
    if x > y {
        x
    } else {
        y
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use wide::check_run_wide;

#[cfg(target_arch = "x86_64")]
mod wide {
    use super::super::{check_run_lanes, Buffers, SkinPass, Worst};
    use super::{Lanes, F4};
    use crate::model::Clip;
    use std::arch::x86_64::*;

    /// [`check_run_lanes`] compiled for AVX2 (without FMA: no multiply and add is fused), over
    /// [`Wide`] lanes.
    ///
    /// # Safety
    /// The CPU must have AVX2 (`is_x86_feature_detected!("avx2")`).
    #[target_feature(enable = "avx2")]
    pub(in crate::check) fn check_run_wide(
        pass: &SkinPass<'_>,
        pairs: &[(&Clip, &Clip)],
        run: (usize, usize, usize),
        buffers: &mut Buffers,
    ) -> Worst {
        check_run_lanes::<Wide>(pass, pairs, run, buffers)
    }

    /// Four f64 lanes in one AVX register. Private to this module, whose only use of it is
    /// [`check_run_wide`], which runs only where the CPU has AVX2: so every `Wide` is made, and
    /// every AVX instruction below runs, on such a CPU.
    #[derive(Clone, Copy)]
    struct Wide(__m256d);

    impl Lanes for Wide {
        #[inline(always)]
        fn load(a: &F4) -> Self {
            // SAFETY: AVX (see `Wide`); `a` is four f64, read unaligned.
            unsafe { Wide(_mm256_loadu_pd(a.as_ptr())) }
        }
        #[inline(always)]
        fn store(self) -> F4 {
            let mut out = [0.0; 4];
            // SAFETY: AVX (see `Wide`); `out` holds four f64, written unaligned.
            unsafe { _mm256_storeu_pd(out.as_mut_ptr(), self.0) };
            out
        }
        #[inline(always)]
        fn splat(x: f64) -> Self {
            // SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_set1_pd(x)) }
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            // SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_add_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn sub(self, o: Self) -> Self {
            // SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_sub_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn mul(self, o: Self) -> Self {
            // SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_mul_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn div(self, o: Self) -> Self {
            // SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_div_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn abs(self) -> Self {
            // Clears the sign bit, as `f64::abs`. SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_andnot_pd(_mm256_set1_pd(-0.0), self.0)) }
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            // SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_sqrt_pd(self.0)) }
        }
        #[inline(always)]
        fn above(self, o: Self) -> Self {
            // `maxpd a, b` is `if a > b { a } else { b }` lane by lane. SAFETY: AVX.
            unsafe { Wide(_mm256_max_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn with_last(self, x: f64) -> Self {
            // SAFETY: AVX (see `Wide`).
            unsafe { Wide(_mm256_blend_pd::<0b1000>(self.0, _mm256_set1_pd(x))) }
        }
    }
}

/// An affine 4×4 matrix by its columns x, y, z and the translation, each the upper three rows
/// and a fourth lane of 0.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct Affine {
    c: [F4; 4],
}

impl Affine {
    pub(super) const IDENTITY: Affine = Affine {
        c: [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
        ],
    };

    /// `a`.
    pub(super) fn of(a: &DAffine3) -> Self {
        let col = |v: DVec3| [v.x, v.y, v.z, 0.0];
        Affine {
            c: [
                col(a.matrix3.x_axis),
                col(a.matrix3.y_axis),
                col(a.matrix3.z_axis),
                col(a.translation),
            ],
        }
    }

    /// The 4×4 matrix.
    pub(super) fn to_mat4(self) -> DMat4 {
        let col = |c: F4, w: f64| DVec4::new(c[0], c[1], c[2], w);
        DMat4::from_cols(
            col(self.c[0], 0.0),
            col(self.c[1], 0.0),
            col(self.c[2], 0.0),
            col(self.c[3], 1.0),
        )
    }

    /// The columns x, y, z and the translation.
    #[inline(always)]
    pub(super) fn columns(&self) -> [DVec3; 4] {
        self.c.map(|c| DVec3::new(c[0], c[1], c[2]))
    }
}

/// The upper three rows of a 4×4 matrix, each row's four elements (columns x, y, z and w, the
/// translation) in four lanes.
pub(super) struct Rows<L> {
    r: [L; 3],
}

impl<L: Lanes> Rows<L> {
    /// `a`'s upper three rows.
    #[inline(always)]
    pub(super) fn of(a: &Affine) -> Self {
        let [x, y, z, t] = a.c;
        Rows {
            r: [
                L::load(&[x[0], y[0], z[0], t[0]]),
                L::load(&[x[1], y[1], z[1], t[1]]),
                L::load(&[x[2], y[2], z[2], t[2]]),
            ],
        }
    }
}

/// A 4×4 matrix that [`affine_times`] multiplies by, by its rows: `rows[r]` holds row `r` of
/// the columns x, y, z and w.
#[repr(C, align(32))]
pub(super) struct Factor {
    rows: [F4; 4],
}

impl Factor {
    /// `m`.
    pub(super) fn of(m: &DMat4) -> Self {
        let cols = m.to_cols_array_2d();
        Factor {
            rows: std::array::from_fn(|r| [cols[0][r], cols[1][r], cols[2][r], cols[3][r]]),
        }
    }
}

/// How far `b` is from `a`, without units: the translation column's difference relative to the
/// character's height, and each axis column's difference relative to that column's length in
/// `a` (which is 1 unless the mesh and the skeleton use different units, as when a file scales
/// its armature by 100: then every axis element is about 100 and an f32 rounding of it alone
/// is 4e-6).
/// The matrices are given by their upper three rows (see [`affine_times`]), the columns side by
/// side, each column's length as `DVec3::length` gives it. Every number compared is at least
/// 0: unless one is NaN, the largest is the same whatever the order and however NaN would be
/// treated, so plain comparisons find it; with a NaN, [`matrix_error_in_order`] gives the
/// number.
#[inline(always)]
pub(super) fn matrix_error<L: Lanes>(a: &Rows<L>, b: &Rows<L>, height: f64) -> f64 {
    // No closures here nor in the other functions over `Lanes`: a closure is a function of
    // its own, compiled without AVX, which could not inline `Wide`'s instructions.
    let [a0, a1, a2] = a.r;
    let [b0, b1, b2] = b.r;
    let d = [a0.sub(b0).abs(), a1.sub(b1).abs(), a2.sub(b2).abs()];
    let largest = d[0].above(d[1].above(d[2]));
    let squares = a0.mul(a0).add(a1.mul(a1)).add(a2.mul(a2));
    // Each axis column's length (at least 1e-12), the translation's by the height.
    let lengths = squares.sqrt().above(L::splat(1e-12)).with_last(height);
    let parts = largest.div(lengths);
    // A sum of numbers at least 0 is NaN exactly when one of them is.
    let sums = d[0].add(d[1]).add(d[2].add(parts)).store();
    if ((sums[0] + sums[1]) + (sums[2] + sums[3])).is_nan() {
        return matrix_error_in_order(a, b, height);
    }
    let p = parts.store();
    above(above(p[0], p[2]), above(p[1], p[3]))
}

/// [`matrix_error`] column after column, as `DVec3::max_element` and `f64::max` take them.
#[cold]
fn matrix_error_in_order<L: Lanes>(a: &Rows<L>, b: &Rows<L>, height: f64) -> f64 {
    let column = |m: &Rows<L>, c: usize| {
        let r = m.r.map(|r| r.store()[c]);
        DVec3::new(r[0], r[1], r[2])
    };
    let mut e = (column(a, 3) - column(b, 3)).abs().max_element() / height;
    for c in 0..3 {
        let (ca, cb) = (column(a, c), column(b, c));
        e = e.max((ca - cb).abs().max_element() / ca.length().max(1e-12));
    }
    e
}

/// The upper three rows of the 4×4 product `a · m` (`a` affine), a row at a time: the same
/// operations in the same order as the full product (`x * c.x + y * c.y + z * c.z + t * c.w`
/// per column), so the same numbers, without the bottom row that [`matrix_error`] does not
/// look at.
#[inline(always)]
pub(super) fn affine_times<L: Lanes>(a: &Affine, m: &Factor) -> Rows<L> {
    let [x, y, z, t] = &a.c;
    let p = [
        L::load(&m.rows[0]),
        L::load(&m.rows[1]),
        L::load(&m.rows[2]),
        L::load(&m.rows[3]),
    ];
    Rows {
        r: [
            row(p, x[0], y[0], z[0], t[0]),
            row(p, x[1], y[1], z[1], t[1]),
            row(p, x[2], y[2], z[2], t[2]),
        ],
    }
}

/// `((x · p[0] + y · p[1]) + z · p[2]) + t · p[3]`: a row of [`affine_times`].
#[inline(always)]
fn row<L: Lanes>(p: [L; 4], x: f64, y: f64, z: f64, t: f64) -> L {
    L::splat(x)
        .mul(p[0])
        .add(L::splat(y).mul(p[1]))
        .add(L::splat(z).mul(p[2]))
        .add(L::splat(t).mul(p[3]))
}

/// `p * l` as glam multiplies affine matrices (each column `x * v.x + y * v.y + z * v.z`, the
/// translation's plus `p`'s), a column of four lanes at a time: the same numbers. `l` by its
/// columns x, y, z and the translation.
#[inline(always)]
pub(super) fn affine_mul<L: Lanes>(p: &Affine, l: [DVec3; 4]) -> Affine {
    let [x, y, z, t] = [
        L::load(&p.c[0]),
        L::load(&p.c[1]),
        L::load(&p.c[2]),
        L::load(&p.c[3]),
    ];
    let [lx, ly, lz, lt] = l;
    Affine {
        c: [
            column(x, y, z, lx).store(),
            column(x, y, z, ly).store(),
            column(x, y, z, lz).store(),
            column(x, y, z, lt).add(t).store(),
        ],
    }
}

/// `(x · v.x + y · v.y) + z · v.z`: a column of [`affine_mul`] (the translation's plus `p`'s).
#[inline(always)]
fn column<L: Lanes>(x: L, y: L, z: L, v: DVec3) -> L {
    x.mul(L::splat(v.x))
        .add(y.mul(L::splat(v.y)))
        .add(z.mul(L::splat(v.z)))
}

//! The skin check's matrix arithmetic in four f64 lanes, four frames side by side: local
//! matrices, their products and the error between two, over arrays of four f64 ([`F4`], which
//! the compiler packs into SSE2 registers two at a time). Each lane is the IEEE operation a
//! scalar would make for its frame, in the same order: no multiply and add is fused (Rust never
//! fuses on its own), so the numbers are those of a frame-by-frame pass. Imports nothing of
//! ours.

use glam::{DAffine3, DMat4, DVec3, DVec4};

/// Four f64 lanes in memory.
pub(super) type F4 = [f64; 4];

/// Operations on four f64 lanes, lane by lane each the IEEE operation of one scalar.
pub(super) trait Lanes: Copy {
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
}

impl Lanes for F4 {
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

/// An affine 4×4 matrix by its columns x, y, z and the translation, each the upper three rows
/// and a fourth lane of 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Affine {
    c: [F4; 4],
}

impl Affine {
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

    /// Element (row `r`, column `c`: x, y, z or the translation).
    #[inline(always)]
    fn at(&self, r: usize, c: usize) -> f64 {
        self.c[c][r]
    }
}

/// A 4×4 matrix that [`times`] multiplies by, by its rows: `rows[r]` holds row `r` of the
/// columns x, y, z and w.
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

/// The upper three rows of an affine matrix in four frames side by side: `e[4 * r + c]` holds
/// element (row `r`, column `c`: x, y, z, the translation) of each frame, one frame per lane.
/// Each lane's numbers are those the same operations give one frame at a time.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(super) struct Frames {
    pub(super) e: [F4; 12],
}

impl Frames {
    pub(super) const IDENTITY: Frames = Frames {
        e: [
            [1.0; 4], [0.0; 4], [0.0; 4], [0.0; 4], //
            [0.0; 4], [1.0; 4], [0.0; 4], [0.0; 4], //
            [0.0; 4], [0.0; 4], [1.0; 4], [0.0; 4],
        ],
    };

    /// `a` in every lane.
    pub(super) fn splat(a: &Affine) -> Self {
        Frames {
            e: std::array::from_fn(|i| [a.at(i / 4, i % 4); 4]),
        }
    }

    /// The matrix of lane `k`.
    pub(super) fn lane(&self, k: usize) -> Affine {
        Affine {
            c: std::array::from_fn(|c| [self.e[c][k], self.e[4 + c][k], self.e[8 + c][k], 0.0]),
        }
    }
}

/// The local matrices (upper three rows, as [`Frames`] orders them) of four frames' rotation
/// (`q`: x, y, z, w, each in lanes), scale (unless every lane's is exactly 1) and translation:
/// `DMat3::from_quat` of the rotation, its columns times the scale's elements, as
/// `DAffine3::from_scale_rotation_translation` makes them.
#[inline(always)]
pub(super) fn local(q: [F4; 4], scale: Option<[F4; 3]>, t: [F4; 3]) -> [F4; 12] {
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (x.add(x), y.add(y), z.add(z));
    let (xx, xy, xz) = (x.mul(x2), x.mul(y2), x.mul(z2));
    let (yy, yz, zz) = (y.mul(y2), y.mul(z2), z.mul(z2));
    let (wx, wy, wz) = (w.mul(x2), w.mul(y2), w.mul(z2));
    let one = F4::splat(1.0);
    // Columns x, y and z.
    let mut m = [
        [one.sub(yy.add(zz)), xy.add(wz), xz.sub(wy)],
        [xy.sub(wz), one.sub(xx.add(zz)), yz.add(wx)],
        [xz.add(wy), yz.sub(wx), one.sub(xx.add(yy))],
    ];
    if let Some(s) = scale {
        // Lanes whose scale is 1 keep their numbers: `x * 1.0` is `x`.
        let mut c = 0;
        while c < 3 {
            m[c] = [m[c][0].mul(s[c]), m[c][1].mul(s[c]), m[c][2].mul(s[c])];
            c += 1;
        }
    }
    [
        m[0][0], m[1][0], m[2][0], t[0], //
        m[0][1], m[1][1], m[2][1], t[1], //
        m[0][2], m[1][2], m[2][2], t[2],
    ]
}

/// `p · l` for each lane as glam multiplies affine matrices (each column
/// `(x * v.x + y * v.y) + z * v.z`, the translation's plus `p`'s): the same numbers.
#[inline(always)]
pub(super) fn compose(p: &Frames, l: &[F4; 12]) -> Frames {
    let p = p.e;
    let mut out = [F4::splat(0.0); 12];
    let mut r = 0;
    while r < 3 {
        let (a, b, c, t) = (p[4 * r], p[4 * r + 1], p[4 * r + 2], p[4 * r + 3]);
        let mut k = 0;
        while k < 4 {
            let e = a.mul(l[k]).add(b.mul(l[4 + k])).add(c.mul(l[8 + k]));
            out[4 * r + k] = if k == 3 { e.add(t) } else { e };
            k += 1;
        }
        r += 1;
    }
    Frames { e: out }
}

/// `t · w` for each lane, `t` the same in all (as [`compose`] multiplies).
#[inline(always)]
pub(super) fn turned(t: &Affine, w: &Frames) -> Frames {
    let w = w.e;
    let mut out = [F4::splat(0.0); 12];
    let mut r = 0;
    while r < 3 {
        let a = F4::splat(t.at(r, 0));
        let b = F4::splat(t.at(r, 1));
        let c = F4::splat(t.at(r, 2));
        let mut k = 0;
        while k < 4 {
            let e = a.mul(w[k]).add(b.mul(w[4 + k])).add(c.mul(w[8 + k]));
            out[4 * r + k] = if k == 3 {
                e.add(F4::splat(t.at(r, 3)))
            } else {
                e
            };
            k += 1;
        }
        r += 1;
    }
    Frames { e: out }
}

/// The upper three rows of the 4×4 product `w · m` for each lane (`w` affine), each element
/// `((x · m0 + y · m1) + z · m2) + t · m3` over `w`'s row and `m`'s column, as the full
/// product makes it: the same numbers, without the bottom row that [`error`] does not look at.
#[inline(always)]
pub(super) fn times(w: &Frames, m: &Factor) -> [F4; 12] {
    let w = w.e;
    let mut out = [F4::splat(0.0); 12];
    let mut r = 0;
    while r < 3 {
        let mut k = 0;
        while k < 4 {
            out[4 * r + k] = w[4 * r]
                .mul(F4::splat(m.rows[0][k]))
                .add(w[4 * r + 1].mul(F4::splat(m.rows[1][k])))
                .add(w[4 * r + 2].mul(F4::splat(m.rows[2][k])))
                .add(w[4 * r + 3].mul(F4::splat(m.rows[3][k])));
            k += 1;
        }
        r += 1;
    }
    out
}

/// How far `b` is from `a` in each lane, without units: the translation column's difference
/// relative to the character's height, and each axis column's difference relative to that
/// column's length in `a` (which is 1 unless the mesh and the skeleton use different units, as
/// when a file scales its armature by 100: then every axis element is about 100 and an f32
/// rounding of it alone is 4e-6). The matrices are given by their upper three rows (as
/// [`Frames`] orders them), each column's length as `DVec3::length` gives it. Every number
/// compared is at least 0: unless one is NaN, the largest is the same whatever the order and
/// however NaN would be treated, so plain comparisons find it; a lane with a NaN is measured
/// again column after column ([`error_in_order`]).
#[inline(always)]
pub(super) fn error(a: &[F4; 12], b: &[F4; 12], height: f64) -> F4 {
    let mut parts = [F4::splat(0.0); 4];
    let mut sums = F4::splat(0.0);
    let mut c = 0;
    while c < 4 {
        let d0 = a[c].sub(b[c]).abs();
        let d1 = a[4 + c].sub(b[4 + c]).abs();
        let d2 = a[8 + c].sub(b[8 + c]).abs();
        let largest = d0.above(d1.above(d2));
        let length = if c == 3 {
            F4::splat(height)
        } else {
            let squares = a[c]
                .mul(a[c])
                .add(a[4 + c].mul(a[4 + c]))
                .add(a[8 + c].mul(a[8 + c]));
            squares.sqrt().above(F4::splat(1e-12))
        };
        parts[c] = largest.div(length);
        // A sum of numbers at least 0 is NaN exactly when one of them is.
        sums = sums.add(d0.add(d1).add(d2.add(parts[c])));
        c += 1;
    }
    let e = parts[0].above(parts[2]).above(parts[1].above(parts[3]));
    if sums.iter().any(|s| s.is_nan()) {
        return error_in_order(a, b, height, e, sums);
    }
    e
}

/// [`error`] with each lane whose `sums` is NaN measured again column after column, as
/// `DVec3::max_element` and `f64::max` take them; `e` the lanes as [`error`] found them.
#[cold]
fn error_in_order(a: &[F4; 12], b: &[F4; 12], height: f64, mut e: F4, sums: F4) -> F4 {
    for k in (0..4).filter(|&k| sums[k].is_nan()) {
        let column = |m: &[F4; 12], c: usize| DVec3::new(m[c][k], m[4 + c][k], m[8 + c][k]);
        let mut x = (column(a, 3) - column(b, 3)).abs().max_element() / height;
        for c in 0..3 {
            let (ca, cb) = (column(a, c), column(b, c));
            x = x.max((ca - cb).abs().max_element() / ca.length().max(1e-12));
        }
        e[k] = x;
    }
    e
}

//! The statistics of simulation summaries: confidence intervals for rates, and the tests that
//! say whether two variants differ (two-proportion z-test for rates, Welch's t-test for
//! means, Holm's correction over the measures compared). Plain functions of numbers; nothing
//! here knows a game.

/// The z of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The family-wise level below which a difference is called clear.
pub const ALPHA: f64 = 0.05;

/// A rate `k / n` with its Wilson score interval at 95%.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Successes.
    pub k: u64,
    /// Trials.
    pub n: u64,
    /// `k / n` (0 when `n` is 0).
    pub rate: f64,
    /// The lower end of the interval.
    pub low: f64,
    /// The upper end of the interval.
    pub high: f64,
}

/// `k` successes out of `n` with the Wilson score interval at 95% (which, unlike the normal
/// approximation, stays within 0..1 and is sensible for rates near 0 or 1 and small `n`).
/// With no trials the interval is the whole of 0..1.
pub fn wilson(k: u64, n: u64) -> Rate {
    if n == 0 {
        return Rate {
            k,
            n,
            rate: 0.0,
            low: 0.0,
            high: 1.0,
        };
    }
    let nf = n as f64;
    let p = k as f64 / nf;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / nf;
    let center = (p + z2 / (2.0 * nf)) / denom;
    let half = Z95 * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt() / denom;
    Rate {
        k,
        n,
        rate: p,
        low: (center - half).max(0.0),
        high: (center + half).min(1.0),
    }
}

/// Count, mean and (sample) variance of a sample, from its moments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Moments {
    /// Observations.
    pub n: u64,
    /// Their mean (0 when there are none).
    pub mean: f64,
    /// Their sample variance (divided by `n - 1`; 0 below two observations).
    pub var: f64,
}

impl Moments {
    /// The moments of a histogram: `(value, count)` pairs.
    pub fn of(hist: impl Iterator<Item = (f64, u64)> + Clone) -> Moments {
        let n: u64 = hist.clone().map(|(_, c)| c).sum();
        if n == 0 {
            return Moments::default();
        }
        let mean = hist.clone().map(|(v, c)| v * c as f64).sum::<f64>() / n as f64;
        let ss: f64 = hist.map(|(v, c)| (v - mean) * (v - mean) * c as f64).sum();
        let var = if n > 1 { ss / (n - 1) as f64 } else { 0.0 };
        Moments { n, mean, var }
    }
}

/// The two-sided p-value of the two-proportion z-test (pooled) of `k1 / n1` against
/// `k2 / n2`; 1 when either sample is empty or both rates are 0 or both 1.
pub fn two_proportions(k1: u64, n1: u64, k2: u64, n2: u64) -> f64 {
    if n1 == 0 || n2 == 0 {
        return 1.0;
    }
    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let p = (k1 + k2) as f64 / (n1f + n2f);
    let se = (p * (1.0 - p) * (1.0 / n1f + 1.0 / n2f)).sqrt();
    if se == 0.0 || !se.is_finite() {
        return 1.0;
    }
    let z = (k1 as f64 / n1f - k2 as f64 / n2f) / se;
    erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// The two-sided p-value of Welch's t-test of two means (unequal variances, the
/// Welch–Satterthwaite degrees of freedom); 1 with fewer than two observations on a side, and
/// 0 or 1 when both samples are constant (different or equal means).
pub fn welch(a: Moments, b: Moments) -> f64 {
    if a.n < 2 || b.n < 2 {
        return 1.0;
    }
    let (va, vb) = (a.var / a.n as f64, b.var / b.n as f64);
    let se2 = va + vb;
    let diff = a.mean - b.mean;
    if se2 <= 0.0 {
        return if diff == 0.0 { 1.0 } else { 0.0 };
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64);
    // P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2)
    beta_inc(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// Holm's step-down adjustment of p-values (keeping their order): a difference is clear at
/// family-wise level `ALPHA` when its adjusted p-value is below it.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut out = vec![1.0; m];
    let mut run: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        run = run.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = run;
    }
    out
}

/// The complementary error function (W. J. Cody's rational approximations through
/// `erfc(x) = exp(-x^2) * poly`), to about 1e-7 relative: Numerical Recipes' `erfcc`.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // reflection
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function I_x(a, b) (continued fraction, modified Lentz).
fn beta_inc(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_cf(a, b, x) / a
    } else {
        1.0 - front * beta_cf(b, a, 1.0 - x) / b
    }
}

fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-14 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_published_values() {
        // 81 of 263: 0.25529 .. 0.36621 (R's prop.test without continuity correction)
        let r = wilson(81, 263);
        assert!(
            (r.low - 0.25529).abs() < 1e-5 && (r.high - 0.36621).abs() < 1e-5,
            "{r:?}"
        );
        let r = wilson(0, 10);
        assert!(r.low == 0.0 && (r.high - 0.27753).abs() < 1e-5, "{r:?}");
    }

    #[test]
    fn tests_match_reference_values() {
        // two proportions: 45/100 vs 60/100, z = -2.1240, p = 0.033672
        assert!((two_proportions(45, 100, 60, 100) - 0.033672).abs() < 1e-5);
        // Welch: means 10 and 12, sd 2 and 3, n 30 each: t = -3.0382, df = 50.53, p = 0.003761
        // (the tail of Student's t integrated numerically)
        let a = Moments {
            n: 30,
            mean: 10.0,
            var: 4.0,
        };
        let b = Moments {
            n: 30,
            mean: 12.0,
            var: 9.0,
        };
        assert!((welch(a, b) - 0.003761).abs() < 1e-5, "{}", welch(a, b));
        assert_eq!(welch(a, a), 1.0);
        // Holm: 0.01, 0.04, 0.03 -> 0.03, 0.06, 0.06
        let h = holm(&[0.01, 0.04, 0.03]);
        assert!(
            (h[0] - 0.03).abs() < 1e-12
                && (h[1] - 0.06).abs() < 1e-12
                && (h[2] - 0.06).abs() < 1e-12,
            "{h:?}"
        );
    }
}

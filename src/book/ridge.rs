//! Ridge least squares for the opening evaluators: minimizes
//! `Σ (y - x·w)² + Σ λ_j w_j²` through the normal equations, solved by
//! Cholesky (they are symmetric positive definite when every λ_j > 0).

/// Accumulates the normal equations of sparse rows.
pub struct NormalEquations {
    dim: usize,
    /// Lower triangle of XᵀX, row-major `dim × dim`.
    xtx: Vec<f64>,
    xty: Vec<f64>,
    rows: usize,
}

impl NormalEquations {
    pub fn new(dim: usize) -> NormalEquations {
        NormalEquations {
            dim,
            xtx: vec![0.0; dim * dim],
            xty: vec![0.0; dim],
            rows: 0,
        }
    }

    /// Adds a row given as (column, value) pairs (each column at most once).
    pub fn add(&mut self, row: &[(usize, f64)], y: f64) {
        for &(i, a) in row {
            self.xty[i] += a * y;
            for &(j, b) in row {
                if j <= i {
                    self.xtx[i * self.dim + j] += a * b;
                }
            }
        }
        self.rows += 1;
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The weights with penalty `lambda[j]` on weight `j`; `None` when the
    /// system is not positive definite (a zero penalty on an unused column).
    pub fn solve(&self, lambda: &[f64]) -> Option<Vec<f64>> {
        let n = self.dim;
        let mut l = self.xtx.clone();
        for (i, &p) in lambda.iter().enumerate().take(n) {
            l[i * n + i] += p;
        }
        // In-place Cholesky: A = L Lᵀ, L in the lower triangle.
        for j in 0..n {
            let mut d = l[j * n + j];
            for k in 0..j {
                d -= l[j * n + k] * l[j * n + k];
            }
            if d <= 1e-12 * (1.0 + l[j * n + j].abs()) {
                return None;
            }
            let d = d.sqrt();
            l[j * n + j] = d;
            for i in j + 1..n {
                let mut s = l[i * n + j];
                for k in 0..j {
                    s -= l[i * n + k] * l[j * n + k];
                }
                l[i * n + j] = s / d;
            }
        }
        // L z = b, then Lᵀ w = z.
        let mut z = self.xty.clone();
        for i in 0..n {
            for k in 0..i {
                z[i] -= l[i * n + k] * z[k];
            }
            z[i] /= l[i * n + i];
        }
        for i in (0..n).rev() {
            for k in i + 1..n {
                z[i] -= l[k * n + i] * z[k];
            }
            z[i] /= l[i * n + i];
        }
        Some(z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_known_weights_and_shrinks_with_the_penalty() {
        let truth = [2.0, -1.0, 0.5];
        let mut ne = NormalEquations::new(3);
        for i in 0..50 {
            let x = [1.0, (i % 7) as f64, ((i * 3) % 5) as f64];
            let y: f64 = x.iter().zip(truth).map(|(a, b)| a * b).sum();
            let row: Vec<(usize, f64)> = x.iter().copied().enumerate().collect();
            ne.add(&row, y);
        }
        let w = ne.solve(&[1e-9; 3]).unwrap();
        for (a, b) in w.iter().zip(truth) {
            assert!((a - b).abs() < 1e-6, "{w:?}");
        }
        let shrunk = ne.solve(&[1e6; 3]).unwrap();
        assert!(shrunk.iter().all(|w| w.abs() < 0.1), "{shrunk:?}");
        assert!(NormalEquations::new(2).solve(&[0.0, 1.0]).is_none());
    }
}

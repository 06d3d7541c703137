//! `sow tune`'s text: the fitted weights, and each evaluation's error
//! against the realized margins.

use crate::analysis::tune::{Comparison, Errors, TuneOutput, FEATURE_NAMES};

/// The lines of a fit: its positions, weights and errors, and the files
/// its data were read from (or written to) and its weights written to.
pub fn text(fitted: &TuneOutput) -> Vec<String> {
    let mut lines = vec![
        format!(
            "{} positions ({} train, {} validation) in {}",
            fitted.positions, fitted.train.positions, fitted.validation.positions, fitted.data
        ),
        "weights (warriors per unit):".to_string(),
    ];
    for name in FEATURE_NAMES {
        lines.push(format!("  {name:<15} {:+.4}", fitted.weights[name]));
    }
    lines.push("error vs realized margin   train rmse/mae    validation rmse/mae".to_string());
    // An empty set (the validation set of fewer than five games) has no
    // error: `n/a`, not the 0.000 of a perfect fit.
    let cell = |e: Option<Errors>| match e {
        Some(e) => format!("{:>7.3} {:>7.3}", e.rmse, e.mae),
        None => format!("{:>7} {:>7}", "n/a", "n/a"),
    };
    type Pick = fn(&Comparison) -> Option<Errors>;
    let rows: [(&str, Pick); 4] = [
        ("tuned", |c| c.tuned),
        ("current (compiled)", |c| c.current),
        ("hand-set", |c| c.hand),
        ("zero", |c| c.zero),
    ];
    for (name, pick) in rows {
        let (t, v) = (pick(&fitted.train), pick(&fitted.validation));
        lines.push(format!("  {name:<22} {}      {}", cell(t), cell(v)));
    }
    lines.push(format!("weights written to {}", fitted.out));
    lines
}

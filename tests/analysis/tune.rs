//! Evaluation tuning: the least-squares solver, the Kiothi feature vector on
//! hand-built positions, the compiled weights, and a tiny `sow tune` run
//! into a temporary directory.

use std::process::Command;

use serde_json::Value;
use sow::analysis::tune::{
    evaluate_with, features, from_csv, ridge_regression, solve_linear, to_csv, Feature, FEATURES,
    FEATURE_NAMES, WEIGHTS, WEIGHT_SCALE,
};
use sow::game::{Game, Side};
use sow::games::kiothi::{parse_position, KiothiMove, KiothiPosition, Phase, Setup};
use sow::search::{AgentSpec, Searchable};

#[test]
fn least_squares_recovers_known_weights() {
    let truth = [2.5, -1.25, 0.5, 3.0, -0.75];
    let mut rng = crate::common::Rng(7);
    let x: Vec<Vec<f64>> = (0..200)
        .map(|_| {
            let mut row = vec![1.0];
            row.extend((1..truth.len()).map(|_| rng.below(41) as f64 - 20.0));
            row
        })
        .collect();
    let y: Vec<f64> = x
        .iter()
        .map(|r| r.iter().zip(truth).map(|(a, w)| a * w).sum())
        .collect();
    let w = ridge_regression(&x, &y, &[0.0; 5]).unwrap();
    for (got, want) in w.iter().zip(truth) {
        assert!((got - want).abs() < 1e-9, "{w:?}");
    }
    // A ridge penalty shrinks the weights towards 0.
    let shrunk = ridge_regression(&x, &y, &[0.0, 1e6, 1e6, 1e6, 1e6]).unwrap();
    assert!(shrunk[1..]
        .iter()
        .zip(&w[1..])
        .all(|(s, w)| s.abs() < w.abs()));
}

#[test]
fn linear_solver_pivots_and_refuses_singular_systems() {
    // The first pivot is 0: needs a row swap.
    let x = solve_linear(
        vec![
            vec![0.0, 2.0, 1.0],
            vec![1.0, 1.0, 0.0],
            vec![2.0, 0.0, 3.0],
        ],
        vec![7.0, 3.0, 11.0],
    )
    .unwrap();
    let want = [1.0, 2.0, 3.0];
    for (got, want) in x.iter().zip(want) {
        assert!((got - want).abs() < 1e-12, "{x:?}");
    }
    assert_eq!(
        solve_linear(vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![1.0, 2.0]),
        None
    );
    assert_eq!(solve_linear(vec![vec![1.0, 2.0]], vec![1.0]), None);
}

fn feature(f: &[i32; FEATURES], which: Feature) -> i32 {
    f[which as usize]
}

/// Prisons gained by the mover of `pos` by `mv`.
fn gain_of(pos: &str, mv: &str) -> i32 {
    let p = parse_position(pos).unwrap();
    let child = p.play(mv).unwrap();
    KiothiPosition::capture_gain(&p, &child)
}

#[test]
fn features_of_a_hand_built_position() {
    // South: 0 3 0 2* 0 12 1 1 1 0; North: 0 4 2* 0 1 0 3 5 2 6.
    let text = "kiothi 0,3,0,2*,0,12,1,1,1,0,0,4,2*,0,1,0,3,5,2,6 S play 10 7";
    let f = features(&parse_position(text).unwrap());
    assert_eq!(feature(&f, Feature::Bias), 1);
    assert_eq!(feature(&f, Feature::Material), 20 - 23);
    assert_eq!(feature(&f, Feature::Mobility), 6 - 7);
    assert_eq!(feature(&f, Feature::Protected), 2 - 2);
    // South: 1x1 ends in empty pit 2 and takes pit 17 (5) and the ender.
    assert_eq!(feature(&f, Feature::CaptureNow), 6);
    assert_eq!(gain_of(text, "1x1"), 6);
    // North: 11x2 would end in pit 13 and take pit 6 (1) and the ender.
    assert_eq!(feature(&f, Feature::CaptureThreat), 2);
    // One capturing end pit each.
    assert_eq!(feature(&f, Feature::CaptureCount), 1);
    assert_eq!(feature(&f, Feature::ThreatCount), 1);
    // South 6, 7, 8 (1 each) and North 16, 17, 18 (3, 5, 2) lie open to a bonus.
    assert_eq!(feature(&f, Feature::BonusExposed), 3 - 10);
    // South targets 18 (2), 16 (3), 14 (1), 11 (4); North 8, 7 (1 each),
    // 5 (12), 1 (3); pit 12 and pit 3 are protected.
    assert_eq!(feature(&f, Feature::Targets), 10 - 17);
    let p = parse_position(text).unwrap();
    assert_eq!(p.evaluate_hand(), (-7 + -1) / 2);
}

#[test]
fn a_wrapping_move_into_the_leftmost_pit_takes_the_bonus() {
    // 9x11 sows round North's row (clearing 16's mark) and ends in empty
    // pit 0: pit 19 (4+1), the bonus pits 16-18 (3+2+4) and the ender.
    let text = "kiothi 0,0,0,0,0,0,0,0,0,11,5,0,0,0,0,0,2*,1,3,4 S play 20 14";
    let f = features(&parse_position(text).unwrap());
    assert_eq!(feature(&f, Feature::CaptureNow), 15);
    assert_eq!(gain_of(text, "9x11"), 15);
    assert_eq!(feature(&f, Feature::CaptureCount), 1);
    // North's moves into its empty pits 11-15 all face empty South pits.
    assert_eq!(feature(&f, Feature::CaptureThreat), 0);
    assert_eq!(feature(&f, Feature::ThreatCount), 0);
}

#[test]
fn the_compiled_weights_are_the_committed_file() {
    let text = include_str!("../../data/kiothi/weights.json");
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v["scale"], WEIGHT_SCALE);
    let names: Vec<&str> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names, FEATURE_NAMES);
    let weights: Vec<i32> = v["weights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_i64().unwrap() as i32)
        .collect();
    assert_eq!(weights, WEIGHTS);
    // The evaluation is their dot product with the features, rounded.
    let p =
        parse_position("kiothi 0,3,0,2*,0,12,1,1,1,0,0,4,2*,0,1,0,3,5,2,6 S play 10 7").unwrap();
    let dot: i32 = features(&p).iter().zip(WEIGHTS).map(|(f, w)| f * w).sum();
    assert_eq!(
        p.evaluate(),
        (dot as f64 / WEIGHT_SCALE as f64 + 0.5).floor() as i32
    );
}

#[test]
fn hand_eval_agents_parse_and_print() {
    let spec = AgentSpec::parse("ab:depth=2,eval=hand").unwrap();
    assert_eq!(spec.to_string(), "ab:depth=2,eval=hand");
    assert_eq!(
        AgentSpec::parse("ab:depth=2,eval=tuned")
            .unwrap()
            .to_string(),
        "ab:depth=2"
    );
    assert!(AgentSpec::parse("ab:depth=2,eval=best").is_err());
}

#[test]
fn tune_writes_data_and_weights_to_the_given_files() {
    let dir = std::env::temp_dir().join(format!("sow-tune-{}", std::process::id()));
    let data = dir.join("selfplay.csv");
    let weights = dir.join("weights.json");
    let out = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args([
            "--json", "tune", "kiothi", "--games", "10", "--depth", "1", "--data",
        ])
        .arg(&data)
        .arg("--out")
        .arg(&weights)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let samples = from_csv(&std::fs::read_to_string(&data).unwrap()).unwrap();
    assert_eq!(report["positions"], samples.len());
    assert!(samples.len() > 50, "{} positions", samples.len());
    assert!(report["validation"]["positions"].as_u64().unwrap() > 0);
    // Every sample's features are those of a position of a finished game.
    assert!(samples.iter().all(|s| s.features[0] == 1));
    assert_eq!(to_csv(&samples), std::fs::read_to_string(&data).unwrap());
    let w: Value = serde_json::from_str(&std::fs::read_to_string(&weights).unwrap()).unwrap();
    assert_eq!(w["scale"], WEIGHT_SCALE);
    assert_eq!(w["weights"].as_array().unwrap().len(), FEATURES);
    assert_eq!(w["features"].as_array().unwrap().len(), FEATURES);
    // Refitting the written data gives the same weights.
    let refit = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["--json", "tune", "kiothi", "--fit-only", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(dir.join("refit.json"))
        .output()
        .unwrap();
    let refit: Value = serde_json::from_slice(&refit.stdout).unwrap();
    assert_eq!(refit["weights_fixed"], report["weights_fixed"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tune_refuses_bad_requests() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_sow"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["error"]["field"].clone()
    };
    assert_eq!(run(&["--json", "tune", "kpe"]), "game");
    assert_eq!(run(&["--json", "tune", "kiothi", "--games", "0"]), "games");
    assert_eq!(run(&["--json", "tune", "kiothi", "--depth", "0"]), "depth");
    assert_eq!(
        run(&["--json", "tune", "kiothi", "--opening-plies", "4294967295"]),
        "opening-plies"
    );
    let missing = std::env::temp_dir().join("sow-tune-no-such-file.csv");
    assert_eq!(
        run(&[
            "--json",
            "tune",
            "kiothi",
            "--fit-only",
            "--data",
            missing.to_str().unwrap()
        ]),
        "data"
    );
    // Values no position has: refused by line, not cut to 32 bits, not
    // overflowing the evaluation (a panic), not fitted into NaN weights.
    let header = sow::analysis::tune::csv_header();
    let dir = std::env::temp_dir().join(format!("sow-tune-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (material, target)) in [("9000000", "1"), ("4294967297", "1"), ("1", "1e308")]
        .into_iter()
        .enumerate()
    {
        let rows: String = (0..30)
            .map(|g| {
                format!(
                    "{g},0,S,1,{material},{},0,0,0,0,0,0,{},0,{target}\n",
                    g % 3,
                    g % 7
                )
            })
            .collect();
        assert!(
            from_csv(&format!("{header}\n{rows}")).is_err(),
            "{material} {target}"
        );
        let data = dir.join(format!("bad{i}.csv"));
        std::fs::write(&data, format!("{header}\n{rows}")).unwrap();
        let field = run(&[
            "--json",
            "tune",
            "kiothi",
            "--fit-only",
            "--data",
            data.to_str().unwrap(),
            "--out",
            dir.join("w.json").to_str().unwrap(),
        ]);
        assert_eq!(field, "data", "{material} {target}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    let big = [i32::MAX; FEATURES];
    assert_eq!(evaluate_with(&big, &[10_000; FEATURES]), i32::MAX);
    assert_eq!(evaluate_with(&WEIGHTS, &[0; FEATURES]), 0);
}

/// The largest capture among the moves whose first lap ends in an empty own
/// pit, and the number of such pits where one captures, found by playing
/// every legal move.
fn direct_captures_by_play(p: &KiothiPosition) -> (i32, i32) {
    let own = |pit: usize| (pit < 10) == (p.side_to_move() == Side::South);
    let mut best = 0;
    let mut capturing_ends = std::collections::BTreeSet::new();
    for mv in p.legal_moves() {
        let KiothiMove::Play { pit, count } = mv else {
            continue;
        };
        let last = (pit as usize + count as usize) % 20;
        if count < 20 && own(last) && p.pits()[last] == 0 {
            let gain = KiothiPosition::capture_gain(p, &p.play_unchecked(&mv));
            best = best.max(gain);
            if gain > 0 {
                capturing_ends.insert(last);
            }
        }
    }
    (best, capturing_ends.len() as i32)
}

/// The masked-sum features, pit by pit.
fn sums_by_pits(p: &KiothiPosition) -> [i32; 4] {
    let (pits, prot) = (p.pits(), p.protected());
    let mine = |i: usize| (i < 10) == (p.side_to_move() == Side::South);
    let sign = |i: usize| if mine(i) { 1 } else { -1 };
    let open = |i: usize| pits[i] > 0 && prot & (1 << i) == 0;
    let (mut material, mut mobility, mut protected, mut targets) = (0, 0, 0, 0);
    for i in 0..20 {
        let n = pits[i] as i32;
        material += sign(i) * n;
        mobility += sign(i) * (n > 0) as i32;
        if prot & (1 << i) != 0 {
            protected += sign(i) * n;
        }
        // Pit i is a target of the owner of the opposite pit, if occupied.
        if open(i) && pits[19 - i] > 0 {
            targets -= sign(i) * n;
        }
    }
    [material, mobility, protected, targets]
}

#[test]
fn features_match_the_moves_and_pits_they_describe() {
    let mut rng = crate::common::Rng(11);
    let mut checked = 0;
    for _ in 0..40 {
        let mut p = KiothiPosition::start(Setup::SixPit);
        for _ in 0..200 {
            let moves = p.search_moves();
            if moves.is_empty() {
                break;
            }
            p = moves[rng.below(moves.len())].1;
            if p.phase() != Phase::Play || p.is_over() {
                continue;
            }
            let f = features(&p);
            let now = (
                f[Feature::CaptureNow as usize],
                f[Feature::CaptureCount as usize],
            );
            assert_eq!(now, direct_captures_by_play(&p), "{p}");
            let sums = [
                Feature::Material,
                Feature::Mobility,
                Feature::Protected,
                Feature::Targets,
            ];
            assert_eq!(sums.map(|s| f[s as usize]), sums_by_pits(&p), "{p}");
            let text = p.to_string();
            let flipped = match p.side_to_move() {
                Side::South => text.replacen(" S play", " N play", 1),
                Side::North => text.replacen(" N play", " S play", 1),
            };
            let q = parse_position(&flipped).unwrap();
            let threat = (
                f[Feature::CaptureThreat as usize],
                f[Feature::ThreatCount as usize],
            );
            assert_eq!(threat, direct_captures_by_play(&q), "{q}");
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked} positions");
}

#[test]
fn tune_refuses_a_ridge_that_swamps_the_data_and_one_file_for_two() {
    let dir = crate::common::temp_dir("tune", "ridge");
    let data = dir.join("selfplay.csv");
    let weights = dir.join("weights.json");
    let tune = |extra: &[&str], out: &std::path::Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_sow"))
            .args(["--json", "tune", "kiothi", "--games", "3", "--depth", "1"])
            .args(extra)
            .arg("--data")
            .arg(&data)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        (o.status.code(), v)
    };
    // The weights would have replaced the data.
    let (code, v) = tune(&[], &data);
    assert_eq!(code, Some(2));
    assert_eq!(v["error"]["field"], "out", "{v}");
    assert!(!data.exists());
    // Three games: games 0-2 all train, the validation set (one game in
    // five) is empty: its errors are null, not a perfect 0.
    let (code, v) = tune(&[], &weights);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["validation"]["positions"], 0);
    assert!(v["validation"]["tuned"].is_null(), "{v}");
    assert!(v["train"]["tuned"]["rmse"].as_f64().unwrap() > 0.0);
    // A ridge that swamps the data: blamed, with the right advice; the
    // self-play data are kept for --fit-only.
    std::fs::remove_file(&data).unwrap();
    for ridge in ["1e15", "1e100"] {
        let (code, v) = tune(&["--ridge", ridge], &dir.join("w2.json"));
        assert_eq!(code, Some(2));
        assert_eq!(v["error"]["field"], "ridge", "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("use a smaller --ridge"), "{message}");
        assert!(data.exists());
    }
    assert!(!dir.join("w2.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

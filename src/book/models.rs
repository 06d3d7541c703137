//! The fitted opening evaluations, compiled in from
//! `data/kiothi/opening_models.json` (written by `fit::write_models`, see
//! `scripts/book_refit.sh`).

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::enumerate::ScanEvaluator;
use super::model::{Model, Stage, TableEval};

/// The models file: both evaluations and how they were fitted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelsFile {
    pub after_first: Model,
    pub after_reply: Model,
    /// How the models were fitted (data, ridge, errors), for the record.
    pub fit: serde_json::Value,
}

static FILE: LazyLock<ModelsFile> = LazyLock::new(|| {
    let file: ModelsFile =
        serde_json::from_str(include_str!("../../data/kiothi/opening_models.json"))
            .expect("data/kiothi/opening_models.json is a models file");
    assert_eq!(file.after_first.stage, Stage::AfterFirst);
    assert_eq!(file.after_reply.stage, Stage::AfterReply);
    assert!(
        file.after_reply.tables().board_bound().is_some(),
        "the reply scan needs E2's whole-board term bounded"
    );
    file
});

static E1: LazyLock<TableEval> = LazyLock::new(|| FILE.after_first.tables());
static E2: LazyLock<TableEval> = LazyLock::new(|| FILE.after_reply.tables());

/// The compiled-in models file.
pub fn models() -> &'static ModelsFile {
    &FILE
}

/// E1: the board after South's first move, scored for South.
pub fn after_first() -> &'static TableEval {
    &E1
}

/// E2: the board after North's reply, scored for North (separable).
pub fn after_reply() -> &'static TableEval {
    &E2
}

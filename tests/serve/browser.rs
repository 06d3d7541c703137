//! The page of `sow serve` in a real browser: headless Chromium and its
//! chromedriver (Debian's `chromium` and `chromium-driver`, which `.ci/run`
//! installs) driven over WebDriver (fantoccini). Loads Kpé, plays a move by clicking a pit, checks
//! the board and every move value against `sow apply` and `sow eval`,
//! undoes, enters a position in the editor (and an impossible one, refused
//! with the CLI's message), plays a Kiothi move by clicking, places a
//! Kiothi opening by clicking (lifted pits, then each warrior), and writes
//! screenshots to `results/web/`.
//!
//! The browser and its driver are found on `PATH` (`$CHROME` and
//! `$CHROMEDRIVER` override). Without them the test writes one line saying
//! it was skipped and why, and passes, so that `cargo test --release` runs
//! on a machine with only a Rust toolchain; with `SOW_BROWSER_TEST=required`
//! (set by `.ci/run`) a missing browser fails it.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use sow::serve::{spawn, AppState, Limits};

/// The names the browser goes by on `PATH` (Debian's first).
const BROWSERS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];
/// The driver's name on `PATH`.
const DRIVERS: &[&str] = &["chromedriver"];
/// The Kpé variant of the test: three pits a row, four stones each (solved
/// on the fly in a quarter of a second, by the server and by `sow eval`).
const KPE: &str = "kpe:3x4";

fn sow(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_sow"))
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "sow {args:?}: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver on a free port, killed when dropped.
struct Driver(Child, u16);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The browser and its driver, as found by [`find_tools`].
struct Tools {
    browser: PathBuf,
    driver: PathBuf,
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The program `$var` names (when set and not empty), else the first of
/// `names` on `PATH`; when there is none, why.
fn find_tool(var: &str, names: &[&str]) -> Result<PathBuf, String> {
    if let Some(set) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        let path = PathBuf::from(&set);
        return if is_executable(&path) {
            Ok(path)
        } else {
            Err(format!(
                "${var}={} is not an executable file",
                path.display()
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| format!("no {} on PATH (nor ${var})", names.join(" or ")))
}

fn find_tools() -> Result<Tools, String> {
    Ok(Tools {
        browser: find_tool("CHROME", BROWSERS)?,
        driver: find_tool("CHROMEDRIVER", DRIVERS)?,
    })
}

/// Whether a missing browser fails the test (`SOW_BROWSER_TEST=required`)
/// rather than skipping it.
fn browser_required() -> bool {
    match std::env::var("SOW_BROWSER_TEST") {
        Ok(v) if v == "required" => true,
        Ok(v) if !v.is_empty() => panic!("SOW_BROWSER_TEST={v}: the one value is `required`"),
        _ => false,
    }
}

fn start_driver(tools: &Tools) -> Driver {
    let port = free_port();
    let child = Command::new(&tools.driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver(child, port);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    driver
}

async fn browser(driver: &Driver, browser: &Path, profile: &Path) -> Client {
    // As root, Chromium needs --no-sandbox; the networking flags keep it
    // from calling out of this closed machine (and failing, many at once).
    let caps = json!({
        "goog:chromeOptions": {
            "binary": browser,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1300,1100",
                format!("--user-data-dir={}", profile.display()),
            ]
        }
    });
    let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
    builder.capabilities(caps.as_object().unwrap().clone());
    builder
        .connect(&format!("http://127.0.0.1:{}", driver.1))
        .await
        .expect("a WebDriver session in headless chromium")
}

/// Evaluates `script` (a function body returning JSON) until it returns
/// something other than null/false, for at most 30 s.
async fn wait_for(c: &Client, what: &str, script: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = c.execute(script, vec![]).await.unwrap();
        if !(v.is_null() || v == Value::Bool(false)) {
            return v;
        }
        if Instant::now() > deadline {
            let err = c
                .execute(
                    "return document.getElementById('error').textContent",
                    vec![],
                )
                .await
                .unwrap();
            panic!("timed out waiting for {what} (page error: {err})");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The page's position once it is `expected` and its values are shown.
async fn wait_position(c: &Client, expected: &str) {
    let script = format!(
        "return document.getElementById('position').value === {} && document.getElementById('values-table') !== null",
        json!(expected)
    );
    wait_for(c, &format!("position {expected} with values"), &script).await;
}

/// The counts drawn in the pits, in pit order.
async fn board_counts(c: &Client) -> Value {
    c.execute(
        "return [...document.querySelectorAll('[data-count]')].map(e => parseInt(e.textContent, 10))",
        vec![],
    )
    .await
    .unwrap()
}

/// The values written next to the mover's pits: `{pit: value}`.
async fn pit_values(c: &Client) -> Value {
    c.execute(
        "const o = {}; document.querySelectorAll('[data-value]').forEach(e => o[e.dataset.value] = parseInt(e.textContent, 10)); return o;",
        vec![],
    )
    .await
    .unwrap()
}

/// `sow eval`'s move values as `{pit: value}`.
fn eval_values(position: &str, db: &Path) -> Value {
    let e = sow(&["eval", position, "--db", db.to_str().unwrap()]);
    let mut o = serde_json::Map::new();
    for m in e["moves"].as_array().unwrap() {
        o.insert(m["move"].as_str().unwrap().to_string(), m["value"].clone());
    }
    Value::Object(o)
}

/// Clicks the element `css` finds. The page redraws the board when an
/// answer arrives, which can replace the element between the find and the
/// click: a stale element is found again (a stale click does nothing).
async fn click(c: &Client, css: &str) {
    for attempt in 0.. {
        let element = c
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css}: {e}"));
        match element.click().await {
            Ok(()) => return,
            Err(e) if attempt < 50 && e.to_string().contains("stale element") => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(e) => panic!("click {css}: {e}"),
        }
    }
}

async fn screenshot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results/web");
    std::fs::create_dir_all(&dir).unwrap();
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, png).unwrap();
    std::fs::rename(&tmp, dir.join(name)).unwrap();
}

async fn set_field(c: &Client, name: &str, value: &str) {
    let f = c
        .find(Locator::Css(&format!("#editor [name='{name}']")))
        .await
        .unwrap();
    f.clear().await.unwrap();
    f.send_keys(value).await.unwrap();
}

async fn run(c: &Client, base: &str, db: &Path) {
    // Kpé: the start, its values next to the pits equal `sow eval`'s.
    let start = sow(&["show", KPE])["position"]
        .as_str()
        .unwrap()
        .to_string();
    c.goto(&format!("{base}?position={KPE}")).await.unwrap();
    wait_position(c, &start).await;
    assert_eq!(pit_values(c).await, eval_values(&start, db));
    // Play the first move by clicking its pit.
    let after = sow(&["apply", &start, "1"])["final"]
        .as_str()
        .unwrap()
        .to_string();
    click(c, "g[data-pit='1'] rect").await;
    wait_position(c, &after).await;
    assert_eq!(board_counts(c).await, sow(&["show", &after])["pits"]);
    assert_eq!(pit_values(c).await, eval_values(&after, db));
    let url = c.current_url().await.unwrap();
    assert!(url.as_str().contains("position=kpe%3A3x4"), "{url}");
    // A reply from the values table (North's worst move, to be marked),
    // then the game analysed: the marks are `sow analyze`'s.
    let worst = eval_values(&after, db)
        .as_object()
        .unwrap()
        .iter()
        .min_by_key(|(_, v)| v.as_i64())
        .map(|(m, _)| m.clone())
        .unwrap();
    let second = sow(&["apply", &after, &worst])["final"]
        .as_str()
        .unwrap()
        .to_string();
    click(c, &format!("#values-table tr[data-move='{worst}'] button")).await;
    wait_position(c, &second).await;
    click(c, "#analyze").await;
    wait_for(
        c,
        "the analysis",
        "return document.getElementById('analysis-summary').textContent.length > 0",
    )
    .await;
    let analysis = {
        let game = format!("{start}\n1 {worst}\n");
        let args = ["--json", "analyze", "-", "--db", db.to_str().unwrap()];
        let out = crate::common::sow_with_input(&args, game.as_bytes());
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let marks: Vec<String> = analysis["plies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["mark"]
                .as_str()
                .map_or(String::new(), |m| format!(" {m}"))
        })
        .collect();
    let shown = c
        .execute(
            "return [...document.querySelectorAll('#movelist li .mark')].length ? [...document.querySelectorAll('#movelist li')].map(li => (li.querySelector('.mark') || {textContent: ''}).textContent) : [...document.querySelectorAll('#movelist li')].map(() => '')",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(shown, json!(marks));
    screenshot(c, "kpe.png").await;
    // Undo, twice.
    click(c, "#undo").await;
    wait_position(c, &after).await;
    click(c, "#undo").await;
    wait_position(c, &start).await;
    // Redo, then undo again.
    click(c, "#redo").await;
    wait_position(c, &after).await;
    click(c, "#undo").await;
    wait_position(c, &start).await;

    // The editor: two stones moved from pit 0 to pit 2, North to move.
    click(c, "#editor-box summary").await;
    set_field(c, "pit0", "2").await;
    set_field(c, "pit2", "6").await;
    let side = c.find(Locator::Css("#editor [name='side']")).await.unwrap();
    side.select_by_value("N").await.unwrap();
    click(c, "#editor-set").await;
    let edited = "kpe:3x4 2,4,6,4,4,4 N ... ... 0 0";
    wait_position(c, edited).await;
    assert_eq!(pit_values(c).await, eval_values(edited, db));
    // An impossible position is refused with the CLI's message.
    click(c, "#editor-box summary").await;
    click(c, "#editor-box summary").await;
    set_field(c, "pit0", "9").await;
    click(c, "#editor-set").await;
    let bad = "kpe:3x4 9,4,6,4,4,4 N ... ... 0 0";
    let out = Command::new(env!("CARGO_BIN_EXE_sow"))
        .args(["show", bad])
        .output()
        .unwrap();
    let cli_message = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert!(cli_message.starts_with("error: "), "{cli_message}");
    let shown = wait_for(
        c,
        "the editor's refusal",
        "const t = document.getElementById('error').textContent; return t.length ? t : null",
    )
    .await;
    assert_eq!(shown.as_str().unwrap(), cli_message);
    // The page still shows the edited position: the oracle, set to play
    // North at `perfect`, answers with a best move.
    assert_eq!(
        c.find(Locator::Css("#position"))
            .await
            .unwrap()
            .prop("value")
            .await
            .unwrap()
            .as_deref(),
        Some(edited)
    );
    let eval = sow(&["eval", edited, "--db", db.to_str().unwrap()]);
    let best_value = &eval["moves"][0]["value"];
    let best: Vec<String> = eval["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| &m["value"] == best_value)
        .map(|m| {
            sow(&["apply", edited, m["move"].as_str().unwrap()])["final"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let oracle = c.find(Locator::Css("#oracle-side")).await.unwrap();
    oracle.select_by_value("N").await.unwrap();
    let script = format!(
        "const p = document.getElementById('position').value; return {} .includes(p) ? p : null",
        json!(best)
    );
    let reached = wait_for(c, "the oracle's move", &script).await;
    wait_position(c, reached.as_str().unwrap()).await;
    oracle.select_by_value("").await.unwrap();

    // Kiothi: a position in play; click a pit, then a count.
    let kiothi = "kiothi 0,0,3,0,5,5,5,5,5,5,0,0,0,0,5,5,5,5,5,2 S play 0 0";
    c.goto(&format!("{base}?position={}", urlencode(kiothi)))
        .await
        .unwrap();
    let think = c.find(Locator::Css("#think")).await.unwrap();
    think.clear().await.unwrap();
    think.send_keys("1").await.unwrap();
    wait_position(c, kiothi).await;
    wait_for(
        c,
        "Kiothi values, searched to the think time",
        "return document.querySelectorAll('[data-value]').length > 0 && !document.body.dataset.searching",
    )
    .await;
    // The values shown are those of a search: every legal move has one.
    let listed = sow(&["moves", kiothi])["count"].as_u64().unwrap();
    let rows = c
        .execute(
            "return document.querySelectorAll('#values-table tr[data-move]').length",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(rows.as_u64(), Some(listed));
    click(c, "g[data-pit='2'] rect").await;
    screenshot(c, "kiothi.png").await;
    click(c, "#chooser button[data-move='2x1']").await;
    let after = sow(&["apply", kiothi, "2x1"])["final"]
        .as_str()
        .unwrap()
        .to_string();
    wait_position(c, &after).await;
    assert_eq!(board_counts(c).await, sow(&["show", &after])["pits"]);

    // A Kiothi opening placed by clicking: lift pits 4 and 5 (ten
    // warriors), place them one click each (pit 9 six times, North's 12
    // four times), play it: the board is `sow apply`'s.
    let opening = sow(&["show", "kiothi"])["position"]
        .as_str()
        .unwrap()
        .to_string();
    c.goto(&format!("{base}?position={}", urlencode(&opening)))
        .await
        .unwrap();
    wait_position(c, &opening).await;
    click(c, "g[data-pit='4'] rect").await;
    click(c, "g[data-pit='5'] rect").await;
    for target in [9, 9, 9, 9, 9, 9, 12, 12, 12, 12] {
        click(c, &format!("g[data-pit='{target}'] rect")).await;
    }
    // Read in the page, once the last click has been drawn: the element
    // is drawn anew on every click, so a handle found before a redraw
    // goes stale (seen under load).
    let shown = wait_for(
        c,
        "the placed opening",
        "const e = document.getElementById('opening-move'); \
         return e !== null && e.textContent.includes('(10 of 10 placed)') && e.textContent",
    )
    .await;
    let shown = shown.as_str().unwrap();
    assert!(shown.starts_with("4+5>9,9,9,9,9,9,12,12,12,12"), "{shown}");
    click(c, "#opening-play").await;
    let placed = sow(&["apply", &opening, "4+5>9,9,9,9,9,9,12,12,12,12"])["final"]
        .as_str()
        .unwrap()
        .to_string();
    wait_position(c, &placed).await;
    assert_eq!(board_counts(c).await, sow(&["show", &placed])["pits"]);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn the_page_in_headless_chromium() {
    let required = browser_required();
    let tools = match find_tools() {
        Ok(tools) => tools,
        Err(why) => {
            let help =
                "apt-get install -y chromium chromium-driver, or set $CHROME and $CHROMEDRIVER";
            assert!(!required, "SOW_BROWSER_TEST=required, but {why} ({help})");
            // Straight to stderr: libtest keeps a passing test's eprintln!.
            let _ = writeln!(
                std::io::stderr(),
                "tests/serve/browser.rs: SKIPPED the browser test: {why} ({help}; \
                 SOW_BROWSER_TEST=required makes this a failure)"
            );
            return;
        }
    };
    let tmp = std::env::temp_dir().join(format!("sow-serve-browser-{}", std::process::id()));
    let db = tmp.join("db");
    let profile = tmp.join("profile");
    std::fs::create_dir_all(&db).unwrap();
    std::fs::create_dir_all(&profile).unwrap();
    let server = spawn(
        SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        AppState::new(db.clone(), Limits::new(2, 10.0)),
    )
    .unwrap();
    let base = format!("http://{}/", server.addr);
    let driver = start_driver(&tools);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = browser(&driver, &tools.browser, &profile).await;
        let outcome = tokio::time::timeout(Duration::from_secs(240), run(&c, &base, &db)).await;
        let _ = c.close().await;
        outcome.expect("the browser test finished in 240 s");
    });
    drop(driver);
    server.shutdown();
    let _ = std::fs::remove_dir_all(&tmp);
}

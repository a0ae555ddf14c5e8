use super::feeds::*;
use super::*;

/// The visible cells of a line (ASCII and colour codes only).
fn cells(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn wrap_splits_the_needle() {
    let line = cells(&wrapped_line());
    assert!(line.is_ascii());
    let at = line.find(WRAPPED).unwrap();
    assert_eq!(at + WRAPPED_SPLIT, WIDTH, "{line}");
    assert!(line.len() < 2 * WIDTH);
}

#[test]
fn needles_are_once() {
    let mut rng = Rng::with_seed(1);
    let feeds = [
        build_log(&mut rng, 3000),
        test_log(&mut rng, 3000),
        service_log(&mut rng, 3000),
        access_log(&mut rng, 3000),
    ];
    let count = |n: &str| -> Vec<usize> {
        feeds
            .iter()
            .map(|f| cells(&f.text).matches(n).count())
            .collect()
    };
    assert_eq!(count(NEEDLE), [0, 0, 1, 0]);
    assert_eq!(count(WRAPPED), [1, 0, 0, 0]);
    assert_eq!(count(UNWRAPPED), [1, 0, 0, 0]);
    assert_eq!(count(DEPLOY_NEEDLE), [0, 0, 0, 0]);
    assert_eq!(count(TRIGGERED), [0, 0, 0, 0]);
    for f in &feeds {
        assert!(f.text.ends_with(&format!("{}\n", end_marker(f.file))));
    }
    // The wrapped line is on the build pane's screen (half a window).
    let tail: Vec<&str> = feeds[0].text.lines().rev().take(6).collect();
    assert!(tail.iter().any(|l| l.contains(WRAPPED)));
}

#[test]
fn figures() {
    assert_eq!(ms(Duration::from_micros(1234)), "1.23 ms");
    assert_eq!(ms(Duration::from_micros(12_345)), "12.3 ms");
    assert_eq!(ms(Duration::from_millis(1234)), "1,234 ms");
    assert_eq!(
        ratio(Duration::from_millis(5), Duration::from_millis(1000)),
        "200× faster"
    );
    assert_eq!(
        ratio(Duration::from_millis(500), Duration::from_millis(1000)),
        "2.0× faster"
    );
    assert_eq!(
        ratio(Duration::from_millis(1500), Duration::from_millis(1000)),
        "1.5× slower"
    );
}

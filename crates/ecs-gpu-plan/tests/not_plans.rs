//! Input that is not a readable Terraform plan: each says what it is.

use std::path::PathBuf;

use ecs_gpu_plan::{read, read_slice, Error};

fn error(name: &str) -> Error {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let bytes = std::fs::read(path).unwrap();
    let streamed = read(bytes.as_slice()).unwrap_err().to_string();
    let sliced = read_slice(&bytes).unwrap_err();
    assert_eq!(
        streamed,
        sliced.to_string(),
        "{name}: both readers say the same"
    );
    sliced
}

#[test]
fn a_state_file_from_terraform_show_is_named() {
    let e = error("state.json");
    assert!(matches!(e, Error::StateFile { .. }), "{e:?}");
    assert!(e.to_string().contains("Terraform state file"), "{e}");
}

#[test]
fn a_raw_tfstate_is_named() {
    let e = error("tfstate.json");
    assert!(e.to_string().contains("a raw terraform.tfstate"), "{e}");
}

#[test]
fn other_json_lists_its_keys() {
    let e = error("other.json");
    assert_eq!(
        e.to_string(),
        "this is a JSON object with keys `name`, `version`, `dependencies`, not a Terraform plan: expected the JSON of `terraform show -json PLANFILE`"
    );
    assert!(error("array.json")
        .to_string()
        .starts_with("this is a JSON array"));
    let e = read_slice(b"42").unwrap_err();
    assert!(e.to_string().starts_with("this is a JSON number"), "{e}");
}

#[test]
fn invalid_json_gives_line_and_column() {
    let e = error("invalid.json");
    assert!(
        matches!(
            e,
            Error::InvalidJson {
                line: 4,
                column: 39,
                ..
            }
        ),
        "{e:?}"
    );
    let e = error("truncated.json");
    assert!(matches!(e, Error::InvalidJson { line: 4, .. }), "{e:?}");
}

#[test]
fn trailing_garbage_is_invalid_json() {
    let e = read_slice(br#"{"format_version":"1.2","planned_values":{}} x"#).unwrap_err();
    assert!(matches!(e, Error::InvalidJson { .. }), "{e:?}");
}

#[test]
fn an_empty_file_is_empty() {
    assert!(matches!(error("empty.json"), Error::Empty));
    for blank in ["\n", " \r\n\t\n", "\u{feff}\n"] {
        assert!(
            matches!(read_slice(blank.as_bytes()), Err(Error::Empty)),
            "{blank:?}"
        );
        // A small buffer makes the blank run span several fills; the BOM must fit in the first.
        let capacity = if blank.starts_with('\u{feff}') { 16 } else { 2 };
        let reader = std::io::BufReader::with_capacity(capacity, blank.as_bytes());
        assert!(matches!(read(reader), Err(Error::Empty)), "{blank:?}");
    }
}

#[test]
fn a_binary_plan_is_recognised() {
    assert!(matches!(error("binary.tfplan"), Error::BinaryPlan));
}

#[test]
fn plan_format_0_x_is_refused() {
    let e = error("format_0_2.json");
    assert!(matches!(e, Error::UnsupportedFormat { .. }), "{e:?}");
    assert!(e.to_string().contains("`0.2`"));
}

#[test]
fn a_wrong_structure_is_malformed_not_invalid_json() {
    let e = error("wrong_type.json");
    assert!(matches!(e, Error::Malformed { line: 1, .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("expected a list of resource objects"),
        "{e}"
    );
}

#[test]
fn a_utf8_bom_is_skipped_and_utf16_is_named() {
    let json = br#"{"format_version":"1.2","planned_values":{"root_module":{}}}"#;
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), json].concat();
    assert!(read_slice(&with_bom).is_ok());
    assert!(read(with_bom.as_slice()).is_ok());
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(json.iter().flat_map(|&b| [b, 0]))
        .collect();
    let e = read_slice(&utf16).unwrap_err();
    assert!(matches!(e, Error::Utf16), "{e:?}");
    assert!(e.to_string().contains("PowerShell"));
}

fn error_of(json: &str) -> Error {
    // The reader and the slice parser may place the column one byte apart; the text is the same.
    let streamed = read(json.as_bytes()).unwrap_err();
    let head = |e: &Error| e.to_string().split(" (at line").next().unwrap().to_string();
    assert_eq!(
        head(&streamed),
        head(&read_slice(json.as_bytes()).unwrap_err())
    );
    streamed
}

/// A resource change without the plan format's shape is an error naming its entry and
/// the path inside it, never a resource silently dropped.
#[test]
fn a_wrong_shape_resource_change_is_an_error_with_its_place() {
    let e = error_of(
        r#"{"format_version":"1.2","resource_changes":[
        {"address":"aws_s3_bucket.b","type":"aws_s3_bucket","change":{"actions":"update"}},
        {"address":"aws_ecs_service.app","type":"aws_ecs_service","change":{"actions":"update"}}]}"#,
    );
    assert!(matches!(e, Error::WrongShape { line: 3, .. }), "{e:?}");
    assert_eq!(
        e.to_string().split(" (at line").next().unwrap(),
        "not a readable plan: `resource_changes[1]` (`aws_ecs_service.app`): `change.actions` must be a list of strings"
    );
    let e = error_of(
        r#"{"resource_changes":[{"address":"aws_ecs_service.app","type":"aws_ecs_service","type":"aws_s3_bucket","change":{"actions":["update"]}}]}"#,
    );
    assert!(
        e.to_string()
            .contains("`resource_changes[0]` (`aws_ecs_service.app`): a second `type` key"),
        "{e}"
    );
    let e = error_of(
        r#"{"resource_drift":[{"address":"aws_ecs_service.app\u001b[31m","type":"aws_ecs_service","change":7}]}"#,
    );
    let text = e.to_string();
    assert!(text.contains("`change` must be an object"), "{text}");
    assert!(!text.chars().any(char::is_control), "{text}");
}

/// A `format_version` that is not a version is named, never quoted.
#[test]
fn a_bad_format_version_is_not_quoted() {
    let e = error_of(r#"{"format_version":"hunter2\u001b","resource_changes":[]}"#);
    assert!(matches!(e, Error::BadFormatVersion), "{e:?}");
    assert!(!e.to_string().contains("hunter2"));
}

//! Hash functions: a digest of a known string is known, as Terraform computes it at plan time
//! (names are often made unique with `substr(sha1(...), 0, 6)`).

use sha1::Digest as _;

use super::*;

/// Lowercase hexadecimal, as Terraform prints a digest.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `sha1(text)`: the SHA-1 digest of the text's UTF-8 bytes, in hexadecimal.
pub(super) fn sha1(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    new_string(hex(&sha1::Sha1::digest(to_str(arg)?.as_bytes())))
}

/// `sha256(text)`: the SHA-256 digest of the text's UTF-8 bytes, in hexadecimal.
pub(super) fn sha256(args: &[Node]) -> Outcome {
    let [arg] = exactly(args)?;
    new_string(hex(&sha2::Sha256::digest(to_str(arg)?.as_bytes())))
}

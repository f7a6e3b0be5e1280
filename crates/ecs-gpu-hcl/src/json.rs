//! A span-keeping JSON parser: task-definition files and `.tf.json` need line numbers for every
//! diagnostic, and duplicate keys must be kept (the last one wins when read, as in Terraform).

use crate::ast::Span;

/// A JSON value with the span of its source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Json {
    pub value: JsonValue,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JsonValue {
    Null,
    Bool(bool),
    /// The number as written.
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members in source order, duplicates kept.
    Object(Vec<JsonMember>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct JsonMember {
    pub key: String,
    pub key_span: Span,
    pub value: Json,
}

/// Parses JSON text.
pub fn parse(_text: &str) -> Result<Json, crate::ParseError> {
    unimplemented!("json parser: being written")
}

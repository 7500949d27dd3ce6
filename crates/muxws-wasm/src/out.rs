//! What the module says: the output record ([`Out`], its numbers and its text) and the records of
//! socket actions and stream events, as the driver reads them (`abi.rs` declares their layouts).

use alloc::string::String;

use muxws_proto::{Action, Payload, StreamError, StreamEvent};

use crate::abi::{self, OUT_FIELDS};

/// The output record and its text.
pub struct Out {
    /// `[kind, a, b, c, d, e, text pointer, text length]`.
    pub fields: [f64; OUT_FIELDS],
    /// The record's text.
    pub text: String,
}

impl Default for Out {
    fn default() -> Self {
        Out::new()
    }
}

impl Out {
    /// An empty record.
    pub const fn new() -> Out {
        Out {
            fields: [0.0; OUT_FIELDS],
            text: String::new(),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.fields = [0.0; OUT_FIELDS];
        self.text.clear();
    }

    pub(crate) fn set(&mut self, kind: u32, values: &[f64]) -> u32 {
        self.fields[0] = f64::from(kind);
        for (field, value) in self.fields[1..6].iter_mut().zip(values) {
            *field = *value;
        }
        self.fields[6] = self.text.as_ptr() as usize as f64;
        self.fields[7] = self.text.len() as f64;
        kind
    }

    /// [`Out::set`] with `text` as the record's text.
    // Out of line: smaller wasm.
    #[inline(never)]
    pub(crate) fn put(&mut self, kind: u32, values: &[f64], text: String) -> u32 {
        self.text = text;
        self.set(kind, values)
    }

    /// An error record of `class`, its message already in the text: returns 0.
    pub(crate) fn failed(&mut self, class: u32) -> u32 {
        self.set(0, &[f64::from(class)])
    }

    pub(crate) fn error(&mut self, class: u32, message: String) -> u32 {
        self.put(0, &[f64::from(class)], message)
    }
}

/// The record of one socket action; a dial's text is `offer`.
pub(crate) fn action_record(out: &mut Out, action: Action, offer: &str) -> u32 {
    match action {
        Action::Dial { socket } => {
            out.text.push_str(offer);
            out.set(abi::dial::KIND, &[socket as f64])
        }
        Action::Send { socket, text } => out.put(abi::send::KIND, &[socket as f64], text),
        Action::Close {
            socket,
            code,
            reason,
        } => out.put(abi::close::KIND, &[socket as f64, f64::from(code)], reason),
    }
}

// Out of line: smaller wasm.
#[inline(never)]
pub(crate) fn stream_record(out: &mut Out, tag: f64, event: StreamEvent) -> u32 {
    match event {
        StreamEvent::ReplyHeaders(headers) => {
            headers.write_json(&mut out.text);
            out.set(abi::reply_headers::KIND, &[tag])
        }
        StreamEvent::Payload(raw) => out.put(abi::payload::KIND, &[tag], raw.into_string()),
        StreamEvent::Fragment { text, more } => {
            out.put(abi::fragment::KIND, &[tag, f64::from(u8::from(more))], text)
        }
        StreamEvent::End { .. } => out.set(abi::end::KIND, &[tag]),
        StreamEvent::Closed => out.set(abi::stream_closed::KIND, &[tag]),
        StreamEvent::Failed(error) => {
            error.write_message(&mut out.text);
            let (reason_at, payload_at) = write_details(&mut out.text, &error);
            out.set(
                abi::stream_failed::KIND,
                &[
                    tag,
                    f64::from(error.class() as u32),
                    error.code() as f64,
                    reason_at,
                    payload_at,
                ],
            )
        }
    }
}

/// Appends `error`'s reason and its `APPLICATION_ERROR` payload's JSON to `text` (after its
/// message); returns where each starts (-1: none), the record's fields of a failed stream.
pub(crate) fn write_details(text: &mut String, error: &StreamError) -> (f64, f64) {
    let mut reason_at = -1.0;
    if let Some(reason) = error.reason() {
        reason_at = text.len() as f64;
        text.push_str(reason);
    }
    let mut payload_at = -1.0;
    if let StreamError::RemoteReset {
        payload: Payload::Json(raw),
        ..
    } = error
    {
        payload_at = text.len() as f64;
        text.push_str(raw.as_str());
    }
    (reason_at, payload_at)
}

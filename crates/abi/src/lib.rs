//! The boundary between the package's wasm modules and its TypeScript facade, described once.
//!
//! The two sides speak numbers: exports taking and returning numbers, codes (how an attempt ended,
//! a record's kind, an error class) and records of `f64` fields read by offset. Each table is
//! declared here once with [`exports!`], [`codes!`] or [`records!`], which define what the module
//! exports or writes *and* a description of the table; [`typescript`] renders the descriptions as
//! the TypeScript the facade imports (the interface of the instance's exports, const enums, which
//! the compiler inlines, and one decoder per record table, which names every field).
//! Each module keeps the rendered file in `pkg-template/src/abi/` and a test that fails when it
//! differs from what the tables render now (`ABI_WRITE=1` rewrites it), so a code changed on one
//! side cannot compile on both and fail only end to end.

#![no_std]
#![warn(missing_docs)]

extern crate alloc;

mod one_thread;
pub mod typescript;

/// Milliseconds from JavaScript (an `f64` of the runtime's clock) as the `u64` the engines count:
/// negative and NaN are 0, fractions dropped, anything beyond `u64`'s range saturates (what Rust's
/// `as` does: one instruction, nothing that can panic). Both modules' exports take times so.
#[inline]
pub fn ms(value: f64) -> u64 {
    value as u64
}

#[cfg(test)]
mod tests {
    #[test]
    fn ms_never_panics() {
        assert_eq!(super::ms(f64::NAN), 0);
        assert_eq!(super::ms(-5.0), 0);
        assert_eq!(super::ms(1.9), 1);
        assert_eq!(super::ms(f64::INFINITY), u64::MAX);
    }
}

/// A table of named codes: a TypeScript `const enum`.
#[derive(Clone, Copy, Debug)]
pub struct CodeTable {
    /// The enum's name in TypeScript.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// The codes: name in TypeScript, value, doc comment.
    pub codes: &'static [Code],
}

/// One code of a [`CodeTable`].
#[derive(Clone, Copy, Debug)]
pub struct Code {
    /// Its name in TypeScript (PascalCase).
    pub name: &'static str,
    /// Its value.
    pub value: u32,
    /// Its doc comment.
    pub doc: &'static str,
}

/// A list of names by code (a code indexes it): a TypeScript array of string literals.
#[derive(Clone, Debug)]
pub struct Labels {
    /// The constant's name in TypeScript.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// The names, in the order of their codes (the first is code 0).
    pub labels: alloc::vec::Vec<&'static str>,
}

/// How a record field is read in TypeScript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A number as written.
    Num,
    /// A number holding a code of the named TypeScript `const enum`.
    Enum(&'static str),
    /// 1 is true, anything else false.
    Bool,
    /// A number, NaN read as `null`.
    OptNum,
    /// The bits of `mask` in a number: true when any is set.
    Bit(u32),
    /// The record's text from its start to where the first [`Ty::TextFrom`] field's part starts (or
    /// the text's end): a string. The field's offset is not read.
    TextHead,
    /// The record's text from where the field says (a byte offset; negative: the part is empty) to
    /// where the next text field starts, or the text's end: the field is a string.
    TextFrom,
    /// The record's whole text: a string.
    Text,
}

/// One field of a [`RecordLayout`].
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// Its name in TypeScript (camelCase).
    pub name: &'static str,
    /// Its offset in the record (0 is the kind).
    pub at: usize,
    /// How it is read.
    pub ty: Ty,
    /// Its doc comment.
    pub doc: &'static str,
}

/// One kind of record: its kind code (field 0) and named fields.
#[derive(Clone, Copy, Debug)]
pub struct RecordLayout {
    /// The record's name in TypeScript (PascalCase): its interface, and its code in the kind enum.
    pub name: &'static str,
    /// Its kind code, field 0.
    pub kind: u32,
    /// Its doc comment.
    pub doc: &'static str,
    /// Its fields.
    pub fields: &'static [Field],
}

/// A table of records: a kind enum, an interface per record, their union and a decoder.
#[derive(Clone, Copy, Debug)]
pub struct RecordTable {
    /// The union's name in TypeScript; the kind enum is `<name>Kind`, the decoder `read<name>`.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// How many `f64` fields every record has.
    pub fields: usize,
    /// Where, if anywhere, the record's text is (its pointer and byte length in the module's
    /// memory): the decoder then takes a function reading bytes `from`..`to` of it.
    pub text: Option<(usize, usize)>,
    /// The records.
    pub records: &'static [RecordLayout],
}

/// A named number: a TypeScript `const enum` member of a table of constants.
#[derive(Clone, Copy, Debug)]
pub struct Constant {
    /// Its name in TypeScript.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
    /// Its doc comment.
    pub doc: &'static str,
}

/// Defines a module of `u32` constants and, beside it, the [`CodeTable`] describing them:
///
/// ```
/// wasm_abi::codes! {
///     /// Why an attempt is abandoned.
///     pub mod abandon: Abandon as ABANDON {
///         /// Its own timeout.
///         TIMEOUT Timeout = 0,
///         /// A repeat supersedes it.
///         SUPERSEDED Superseded = 1,
///     }
/// }
/// assert_eq!(abandon::SUPERSEDED, 1);
/// assert_eq!(ABANDON.codes[1].name, "Superseded");
/// ```
#[macro_export]
macro_rules! codes {
    ($(#[doc = $doc:literal])* pub mod $module:ident: $ts:ident as $table:ident {
        $($(#[doc = $cdoc:literal])* $konst:ident $name:ident = $value:expr),* $(,)?
    }) => {
        $(#[doc = $doc])*
        pub mod $module {
            $($(#[doc = $cdoc])* pub const $konst: u32 = $value;)*
        }
        #[doc = concat!("The table of [`", stringify!($module), "`], for the TypeScript side.")]
        pub const $table: $crate::CodeTable = $crate::CodeTable {
            name: stringify!($ts),
            doc: concat!($($doc, "\n"),*),
            codes: &[$($crate::Code { name: stringify!($name), value: $module::$konst, doc: concat!($($cdoc, "\n"),*) }),*],
        };
    };
}

/// Defines, for each record of a table, a module holding its `KIND` and the offset of each field,
/// and, beside them, the [`RecordLayout`]s describing them (`$layouts`, for a [`RecordTable`]):
///
/// ```
/// wasm_abi::records! {
///     layouts LAYOUTS;
///     /// Send an attempt.
///     pub mod send: SendAttempt = 1 {
///         /// The call.
///         CALL call: 1 => Num,
///         /// Carry the first attempt's headers.
///         CARRY carry: 3 => Bool,
///     }
/// }
/// assert_eq!((send::KIND, send::CARRY), (1, 3));
/// assert_eq!(LAYOUTS[0].fields[1].name, "carry");
/// ```
#[macro_export]
macro_rules! records {
    (layouts $layouts:ident; $($(#[doc = $doc:literal])* pub mod $module:ident: $ts:ident = $kind:literal {
        $($(#[doc = $fdoc:literal])* $konst:ident $field:ident: $at:literal => $ty:ident $(($arg:expr))?),* $(,)?
    })*) => {
        $(
            $(#[doc = $doc])*
            pub mod $module {
                /// The record's kind, its field 0.
                pub const KIND: u32 = $kind;
                $($(#[doc = $fdoc])* pub const $konst: usize = $at;)*
            }
        )*
        /// The layouts of the records above, for the TypeScript side.
        pub const $layouts: &[$crate::RecordLayout] = &[$(
            $crate::RecordLayout {
                name: stringify!($ts),
                kind: $module::KIND,
                doc: concat!($($doc, "\n"),*),
                fields: &[$($crate::Field { name: stringify!($field), at: $at, ty: $crate::Ty::$ty $(($arg))?, doc: concat!($($fdoc, "\n"),*) }),*],
            }
        ),*];
    };
}

/// How an export of an [`ExportTable`] is made and called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A plain `extern "C"` function of numbers, called on the instance.
    Plain,
    /// A plain `extern "C"` function whose arguments TypeScript passes by name: the renderer adds
    /// an interface of its parameters and a function calling the export with them in order, so
    /// that no caller writes a positional list whose numbers could be swapped unseen.
    Named,
    /// Made by `#[wasm_bindgen]` (the one item wasm-pack's wasm-bindgen needs).
    Bindgen,
}

/// One parameter of an [`Export`].
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// Its name in Rust (snake_case; camelCase in TypeScript).
    pub name: &'static str,
    /// Its Rust type (`u32`, `i32`, `f64`: a `number` in TypeScript).
    pub ty: &'static str,
}

/// One export of an [`ExportTable`].
#[derive(Clone, Copy, Debug)]
pub struct Export {
    /// Its name, in Rust and on the instance.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// How it is made and called.
    pub form: Form,
    /// Its parameters, in order.
    pub params: &'static [Param],
    /// Its result's Rust type; empty for none.
    pub result: &'static str,
}

/// The exports of a module: the interface of its instance in TypeScript.
#[derive(Clone, Copy, Debug)]
pub struct ExportTable {
    /// The interface's name in TypeScript.
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// The exports, in the order declared.
    pub exports: &'static [Export],
}

/// Defines a module's exports and, beside them, the [`Export`]s describing them (`$table`, for an
/// [`ExportTable`]): each `fn` becomes a `#[no_mangle] pub extern "C" fn` (a `@named` one too, its
/// arguments passed by name in TypeScript; a `@bindgen` one a `#[wasm_bindgen]` function), compiled
/// where `cfg` holds. The table exists on every target, so that a native test renders it.
///
/// ```
/// wasm_abi::exports! {
///     table EXPORTS; cfg(all());
///     /// The sum.
///     fn add(a: u32, b: u32) -> u32 { a + b }
///     /// A peer from named options.
///     @named fn make(within_ms: f64, delay_ms: f64) -> u32 { (within_ms + delay_ms) as u32 }
/// }
/// assert_eq!(add(1, 2), 3);
/// assert_eq!((EXPORTS[0].params[1].name, EXPORTS[0].result), ("b", "u32"));
/// assert_eq!(EXPORTS[1].form, wasm_abi::Form::Named);
/// ```
#[macro_export]
macro_rules! exports {
    (table $table:ident; cfg($cfg:meta); $($(#[doc = $doc:literal])* $(@$form:ident)? fn $name:ident($($param:ident: $pty:ty),* $(,)?) $(-> $ret:ty)? $body:block)*) => {
        $(
            $crate::export_fn! {
                [$($form)?] [$cfg] $(#[doc = $doc])* fn $name($($param: $pty),*) $(-> $ret)? $body
            }
        )*
        /// The exports above, for the TypeScript side.
        pub const $table: &[$crate::Export] = &[$(
            $crate::Export {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),*),
                form: $crate::export_form!($($form)?),
                params: &[$($crate::Param { name: stringify!($param), ty: stringify!($pty) }),*],
                result: concat!("" $(, stringify!($ret))?),
            }
        ),*];
    };
}

/// One function of [`exports!`], made as its form says (not for direct use).
#[doc(hidden)]
#[macro_export]
macro_rules! export_fn {
    ([bindgen] [$cfg:meta] $(#[doc = $doc:literal])* fn $($rest:tt)*) => {
        $(#[doc = $doc])*
        #[cfg($cfg)]
        #[wasm_bindgen::prelude::wasm_bindgen]
        pub fn $($rest)*
    };
    ([$($form:ident)?] [$cfg:meta] $(#[doc = $doc:literal])* fn $($rest:tt)*) => {
        $(#[doc = $doc])*
        #[cfg($cfg)]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn $($rest)*
    };
}

/// The [`Form`] of an export of [`exports!`] (not for direct use).
#[doc(hidden)]
#[macro_export]
macro_rules! export_form {
    () => {
        $crate::Form::Plain
    };
    (named) => {
        $crate::Form::Named
    };
    (bindgen) => {
        $crate::Form::Bindgen
    };
}

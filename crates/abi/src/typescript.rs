//! Renders the boundary tables as TypeScript: the interface of a module's exports (with an encoder
//! of named arguments for each export that takes them so), const enums for codes and constants,
//! arrays of string literals for labels, and for each record table a kind enum, an interface per
//! record, their union and a decoder that reads a record into it. The output is deterministic (what
//! a test compares).

use alloc::format;
use alloc::string::String;

use crate::{CodeTable, Constant, Export, ExportTable, Form, Labels, RecordLayout, RecordTable, Ty};

/// The first lines of a rendered file: where it comes from and how it is made again.
pub fn header(source: &str, command: &str) -> String {
    format!(
        "// Generated from {source} by `{command}`: do not edit.\n\
         // Change the Rust table, then run that command with ABI_WRITE=1 to write this file again.\n"
    )
}

/// A doc comment at `indent`, from a `concat!` of `///` lines (each ends with a newline); nothing for none.
fn doc(out: &mut String, text: &str, indent: &str) {
    let lines: alloc::vec::Vec<&str> = text.lines().map(str::trim).collect();
    match lines.as_slice() {
        [] => {}
        [one] => out.push_str(&format!("{indent}/** {one} */\n")),
        many => {
            out.push_str(&format!("{indent}/**\n"));
            for line in many {
                if line.is_empty() {
                    out.push_str(&format!("{indent} *\n"));
                } else {
                    out.push_str(&format!("{indent} * {line}\n"));
                }
            }
            out.push_str(&format!("{indent} */\n"));
        }
    }
}

/// A code table as a `const enum` (the compiler inlines its members: no code is shipped for it).
pub fn code_table(out: &mut String, table: &CodeTable) {
    out.push('\n');
    doc(out, table.doc, "");
    out.push_str(&format!("export const enum {} {{\n", table.name));
    for code in table.codes {
        doc(out, code.doc, "  ");
        out.push_str(&format!("  {} = {},\n", code.name, hex_if_flag(code.value)));
    }
    out.push_str("}\n");
}

/// Flags (a single bit above the low byte) read better in hexadecimal.
fn hex_if_flag(value: u32) -> String {
    if value >= 0x100 && value.is_power_of_two() {
        format!("0x{value:x}")
    } else {
        format!("{value}")
    }
}

/// Named numbers as a `const enum`.
pub fn constants(out: &mut String, name: &str, table_doc: &str, constants: &[Constant]) {
    out.push('\n');
    doc(out, table_doc, "");
    out.push_str(&format!("export const enum {name} {{\n"));
    for constant in constants {
        doc(out, constant.doc, "  ");
        out.push_str(&format!("  {} = {},\n", constant.name, constant.value));
    }
    out.push_str("}\n");
}

/// Labels as a read-only array of string literals, indexed by code.
pub fn labels(out: &mut String, labels: &Labels) {
    out.push('\n');
    doc(out, labels.doc, "");
    let list: alloc::vec::Vec<String> = labels.labels.iter().map(|label| format!("'{label}'")).collect();
    out.push_str(&format!("export const {} = [{}] as const;\n", labels.name, list.join(", ")));
}

/// The TypeScript type of a field read as `ty`.
fn ts_type(ty: Ty) -> &'static str {
    match ty {
        Ty::Num => "number",
        Ty::Enum(name) => name,
        Ty::OptNum => "number | null",
        Ty::Bool | Ty::Bit(_) => "boolean",
        Ty::TextHead | Ty::TextFrom | Ty::Text => "string",
    }
}

/// A record table: `<name>Kind`, the interface `<name>Handler` with one method per record (its
/// fields as parameters, in the order declared) and `handle<name>()`, which calls the method of the
/// record at hand. Nothing is allocated per record, and no caller reads an offset.
pub fn record_table(out: &mut String, table: &RecordTable) {
    out.push('\n');
    out.push_str(&format!("/** The kinds of {} records (field 0). */\n", table.name));
    out.push_str(&format!("export const enum {}Kind {{\n", table.name));
    for record in table.records {
        doc(out, record.doc, "  ");
        out.push_str(&format!("  {} = {},\n", record.name, record.kind));
    }
    out.push_str("}\n\n");
    doc(out, table.doc, "");
    out.push_str(&format!("export interface {}Handler {{\n", table.name));
    for record in table.records {
        doc(out, &handler_doc(record), "  ");
        let params: alloc::vec::Vec<String> = record.fields.iter().map(|f| format!("{}: {}", f.name, ts_type(f.ty))).collect();
        out.push_str(&format!("  {}({}): void;\n", method(record.name), params.join(", ")));
    }
    out.push_str("}\n\n");
    let text_param = if table.text.is_some() { ", text: (from: number, to: number) => string" } else { "" };
    out.push_str(&format!(
        "/** Calls the method of `h` for the {} record at `at` of `r` (its kind at `r[at]`); nothing for a kind the table does not have. */\n",
        table.name
    ));
    out.push_str(&format!(
        "export function handle{}(r: ArrayLike<number>, at: number, h: {}Handler{text_param}): void {{\n  switch (r[at]) {{\n",
        table.name, table.name
    ));
    for record in table.records {
        handler_case(out, table, record);
    }
    out.push_str("  }\n}\n");
}

/** A record's method name: its name in camelCase. */
fn method(name: &str) -> String {
    let mut chars = name.chars();
    let mut out = String::new();
    if let Some(first) = chars.next() {
        out.push(first.to_ascii_lowercase());
        out.push_str(chars.as_str());
    }
    out
}

/** A handler method's doc: the record's, then one line per field. */
fn handler_doc(record: &RecordLayout) -> String {
    let mut text = String::from(record.doc);
    for field in record.fields {
        let first = field.doc.lines().map(str::trim).collect::<alloc::vec::Vec<_>>().join(" ");
        text.push_str(&format!("@param {} {}\n", field.name, first));
    }
    text
}

/** One `case` of a handler dispatch. */
fn handler_case(out: &mut String, table: &RecordTable, record: &RecordLayout) {
    let field = |at: usize| format!("r[at + {at}]");
    let mut lines = String::new();
    let (_, length) = table.text.unwrap_or((0, 0));
    let parts: alloc::vec::Vec<(usize, &str, Option<usize>)> = record
        .fields
        .iter()
        .enumerate()
        .filter_map(|(index, f)| match f.ty {
            Ty::TextHead => Some((index, f.name, None)),
            Ty::TextFrom => Some((index, f.name, Some(f.at))),
            _ => None,
        })
        .collect();
    let mut values: alloc::vec::Vec<String> = record
        .fields
        .iter()
        .map(|f| match f.ty {
            Ty::Text => format!("text(0, {})", field(length)),
            Ty::TextHead | Ty::TextFrom => String::new(),
            ty => read(ty, f.at),
        })
        .collect();
    if !parts.is_empty() {
        // Each part runs from its start (the head from 0; a negative start: the part is empty) to
        // the next part's start that is not negative, or the text's end.
        lines.push_str(&format!("      const end = {};\n", field(length)));
        let mut next = String::from("end");
        for (index, _, at) in parts.iter().rev() {
            match at {
                Some(at) => {
                    lines.push_str(&format!("      const s{index} = {};\n", field(*at)));
                    values[*index] = format!("s{index} < 0 ? '' : text(s{index}, {next})");
                    lines.push_str(&format!("      const b{index} = s{index} < 0 ? {next} : s{index};\n"));
                    next = format!("b{index}");
                }
                None => values[*index] = format!("text(0, {next})"),
            }
        }
    }
    let call = format!("h.{}({})", method(record.name), values.join(", "));
    if lines.is_empty() {
        out.push_str(&format!("    case {}:\n      return {call};\n", record.kind));
    } else {
        out.push_str(&format!("    case {}: {{\n{lines}      return {call};\n    }}\n", record.kind));
    }
}

/// A record without a kind (its fields from offset 0, such as a pending call): the type of a
/// function taking its fields, in the order declared, and `read<name>(r, at, f)`, which calls `f`
/// with the fields of the record at `at` (nothing is allocated for the record itself).
pub fn plain_record(out: &mut String, record: &RecordLayout) {
    out.push('\n');
    doc(out, &handler_doc(record), "");
    let params: alloc::vec::Vec<String> = record.fields.iter().map(|f| format!("{}: {}", f.name, ts_type(f.ty))).collect();
    out.push_str(&format!("export type {}Reader<T> = ({}) => T;\n\n", record.name, params.join(", ")));
    out.push_str(&format!("/** Calls `f` with the fields of the {} record at `at` of `r`, and returns what it returns. */\n", record.name));
    let values: alloc::vec::Vec<String> = record.fields.iter().map(|f| read(f.ty, f.at)).collect();
    out.push_str(&format!(
        "export function read{}<T>(r: ArrayLike<number>, at: number, f: {}Reader<T>): T {{\n  return f({});\n}}\n",
        record.name,
        record.name,
        values.join(", ")
    ));
}

/// The expression reading a number field at offset `at` as `ty`.
fn read(ty: Ty, at: usize) -> String {
    let field = format!("r[at + {at}]");
    match ty {
        Ty::Bool => format!("{field} === 1"),
        Ty::OptNum => format!("{field} === {field} ? {field} : null"),
        Ty::Bit(mask) => format!("({field} & {mask}) !== 0"),
        Ty::Num | Ty::Enum(_) | Ty::TextHead | Ty::TextFrom | Ty::Text => field,
    }
}

/// `snake_case` as `camelCase`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for ch in name.chars() {
        match (ch, upper) {
            ('_', _) => upper = true,
            (ch, true) => {
                out.push(ch.to_ascii_uppercase());
                upper = false;
            }
            (ch, false) => out.push(ch),
        }
    }
    out
}

/// An export's Rust signature, as its doc comment shows it.
fn signature(export: &Export) -> String {
    let params: alloc::vec::Vec<String> = export.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect();
    let result = if export.result.is_empty() { String::new() } else { format!(" -> {}", export.result) };
    format!("`fn {}({}){result}`", export.name, params.join(", "))
}

/// The TypeScript result type of an export.
fn result_type(export: &Export) -> &'static str {
    if export.result.is_empty() {
        "void"
    } else {
        "number"
    }
}

/// The exports of a module as the interface of its instance (`memory`, then each export with its
/// parameters named, every number a `number`); for each [`Form::Named`] export, the interface of
/// its arguments (`<Name>Args`) and the function calling it with them in the declared order, the
/// only way to call it (the instance's member is `unknown`: a positional call does not compile).
pub fn export_table(out: &mut String, table: &ExportTable) {
    out.push('\n');
    doc(out, table.doc, "");
    out.push_str(&format!("export interface {} {{\n", table.name));
    out.push_str("  /** The module's memory, where its windows and records are. */\n");
    out.push_str("  readonly memory: WebAssembly.Memory;\n");
    for export in table.exports {
        if export.form == Form::Named {
            // No positional call compiles: only the function below calls it, by name.
            let via = format!("Called only through `{}()`, which takes its arguments by name.", camel(export.name));
            doc(out, &format!("{}\n{}\n\n{via}\n", export.doc, signature(export)), "  ");
            out.push_str(&format!("  readonly {}: unknown;\n", export.name));
            continue;
        }
        doc(out, &format!("{}\n{}\n", export.doc, signature(export)), "  ");
        let params: alloc::vec::Vec<String> = export.params.iter().map(|p| format!("{}: number", camel(p.name))).collect();
        out.push_str(&format!("  {}({}): {};\n", export.name, params.join(", "), result_type(export)));
    }
    out.push_str("}\n");
    for export in table.exports.iter().filter(|export| export.form == Form::Named) {
        let args = format!("{}Args", pascal(export.name));
        out.push('\n');
        out.push_str(&format!("/** The arguments of `{}`, by name. */\n", export.name));
        out.push_str(&format!("export interface {args} {{\n"));
        for param in export.params {
            out.push_str(&format!("  /** `{}`. */\n  {}: number;\n", param.ty, camel(param.name)));
        }
        out.push_str("}\n\n");
        let values: alloc::vec::Vec<String> = export.params.iter().map(|p| format!("a.{}", camel(p.name))).collect();
        out.push_str(&format!("/** Calls `{}` of `e` with the arguments `a` names, in the order it takes them. */\n", export.name));
        let result = result_type(export);
        out.push_str(&format!(
            "export function {}(e: {}, a: {args}): {result} {{\n  return (e.{} as (...args: number[]) => {result})({});\n}}\n",
            camel(export.name),
            table.name,
            export.name,
            values.join(", ")
        ));
    }
}

/// `snake_case` as `PascalCase`.
fn pascal(name: &str) -> String {
    let camel = camel(name);
    let mut chars = camel.chars();
    match chars.next() {
        Some(first) => format!("{}{}", first.to_ascii_uppercase(), chars.as_str()),
        None => camel,
    }
}

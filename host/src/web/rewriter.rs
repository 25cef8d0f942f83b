//! `HTMLRewriter` (`calls::HTML_REWRITER`): Workers' streaming HTML
//! rewriter, on `lol_html`, the crate Cloudflare built it on and `workerd`
//! runs. The prelude (`wit/prelude/25_html_rewriter.js`) feeds a response's
//! body through it piece by piece and runs the tenant's handlers.
//!
//! A handler runs in the guest, while `lol_html` calls its handlers in the
//! middle of a piece and wants each one's changes before it goes on. So
//! each piece goes through two rewriters of the same handlers: `scan`
//! records every token a handler is wanted for (as JSON), the guest runs
//! its handlers on them in order (awaiting those that return a promise)
//! and sends back the changes each made, and `apply` runs the piece
//! through the second rewriter, whose handlers make those changes, in the
//! same order. Both see the same bytes in the same pieces, and a handler's
//! changes do not change which handlers `lol_html` calls next (removed
//! content still goes to its handlers), so the two agree token by token;
//! where they would not, the rewrite stops with an error rather than apply
//! a change to the wrong token. For end tags, `scan` reports the end of
//! every element a handler saw, and the guest runs the end-tag handlers
//! registered on it, if any. Two calls a piece, none a token: a handler
//! costs the guest's own time, with no thread or turn between.
//!
//! Invariants:
//! - Bounded: at most [`MAX_OPEN`] rewriters per instance, each within
//!   `workerd`'s 3 MiB of parser memory per pass, a piece at most what the
//!   prelude hands over at once; all are dropped when the render ends
//!   (`super::open`).
//! - Nothing here panics on input: a selector that does not parse, or a
//!   document `lol_html` cannot rewrite safely, is an error the prelude
//!   throws as a `TypeError`, in `workerd`'s words (`Parser error: ...`).
//!   Names a handler sets are checked by the prelude, in `lol_html`'s
//!   words, before they reach here.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use contract::Reply;
use lol_html::html_content::{
    Comment, ContentType, Doctype, DocumentEnd, Element, EndTag, TextChunk,
};
use lol_html::send::SendHandlerTypes;
use lol_html::{
    AsciiCompatibleEncoding, DocumentContentHandlers, ElementContentHandlers, HandlerResult,
    HtmlRewriter, MemorySettings, Selector, Settings,
};
use serde::Deserialize;
use serde_json::{Value, json};

use super::open::Open;

/// The most rewriters one instance keeps open at once.
pub const MAX_OPEN: usize = 16;

/// `lol_html`'s memory limit for one pass, as `workerd` sets it: what it
/// may buffer of a tag or comment split across pieces.
const MAX_MEMORY: usize = 3 << 20;

/// One call, as the prelude sends it.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Args {
    /// Whether `selector` parses (`HTMLRewriter.prototype.on`, also at a
    /// module's top level).
    Selector { selector: String },
    /// A new rewriter with these handlers, for a body in `encoding`.
    Open {
        element: Vec<ElementSpec>,
        document: Vec<DocumentSpec>,
        encoding: String,
    },
    /// The call's bytes (or, with `end`, the end of the input) go through
    /// the first pass: the tokens the handlers are wanted for.
    Scan {
        id: u32,
        #[serde(default)]
        end: bool,
    },
    /// The same input goes through the second pass, with the changes each
    /// handler made, one list per handler call in the order of the scan.
    Apply {
        id: u32,
        plan: Vec<Vec<Do>>,
        #[serde(default)]
        end: bool,
    },
    /// A handler threw: the rewriter is dropped.
    Abort { id: u32 },
}

/// The handlers of one `on(selector, handlers)`.
#[derive(Deserialize)]
struct ElementSpec {
    selector: String,
    #[serde(default)]
    element: bool,
    #[serde(default)]
    comments: bool,
    #[serde(default)]
    text: bool,
}

/// The handlers of one `onDocument(handlers)`.
#[derive(Deserialize, Clone, Copy)]
struct DocumentSpec {
    #[serde(default)]
    doctype: bool,
    #[serde(default)]
    comments: bool,
    #[serde(default)]
    text: bool,
    #[serde(default)]
    end: bool,
}

/// A change a handler made to its token.
#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
enum Do {
    SetAttribute {
        name: String,
        value: String,
    },
    RemoveAttribute {
        name: String,
    },
    /// An element's `tagName` or an end tag's `name` is set.
    Name {
        value: String,
    },
    /// A comment's `text` is set.
    Text {
        value: String,
    },
    Before(Content),
    After(Content),
    Prepend(Content),
    Append(Content),
    Replace(Content),
    SetInnerContent(Content),
    Remove,
    RemoveAndKeepContent,
    /// An end-tag handler is registered: its changes are the plan's entry
    /// when the element's end tag comes.
    OnEndTag,
}

#[derive(Deserialize)]
struct Content {
    content: String,
    #[serde(default)]
    html: bool,
}

impl Content {
    fn kind(&self) -> ContentType {
        if self.html {
            ContentType::Html
        } else {
            ContentType::Text
        }
    }
}

/// What the two passes' handlers share with the calls.
#[derive(Default)]
struct Passes {
    /// The tokens the scan found since the last call.
    events: Vec<Value>,
    /// How many element-handler calls the scan made (an element's
    /// number, for its end tag).
    elements: u64,
    /// The changes still to make, one list per handler call of the
    /// second pass.
    plan: VecDeque<Vec<Do>>,
    /// What the second pass wrote since the last call.
    out: Vec<u8>,
}

type Shared = Arc<Mutex<Passes>>;
type Sink = Box<dyn FnMut(&[u8]) + Send>;
type Pass = HtmlRewriter<'static, Sink, SendHandlerTypes>;

fn lock(shared: &Shared) -> MutexGuard<'_, Passes> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// One open rewriter: its two passes, and the input scanned but not yet
/// applied.
struct Rewriter {
    scan: Option<Pass>,
    apply: Option<Pass>,
    shared: Shared,
    pending: Vec<u8>,
}

/// The rewriters of one instance.
pub struct Rewriters(Open<Rewriter>);

impl Default for Rewriters {
    fn default() -> Rewriters {
        Rewriters(Open::with_limit("html-rewriter", MAX_OPEN))
    }
}

/// Answers a call that needs no open rewriter (a selector's check), the
/// same at build time.
pub fn pure(args: &str, _: &[u8]) -> Result<Reply, String> {
    match parse(args)? {
        Args::Selector { selector } => check_selector(&selector),
        _ => Err("html-rewriter: a rewriter runs only while a request is served".into()),
    }
}

impl Rewriters {
    /// Answers one call: `{id}` for `open`, `{events}` for `scan`, the
    /// rewritten bytes for `apply`.
    pub fn call(&mut self, args: &str, data: &[u8]) -> Result<Reply, String> {
        match parse(args)? {
            Args::Selector { selector } => check_selector(&selector),
            Args::Open {
                element,
                document,
                encoding,
            } => {
                let rewriter = open(&element, &document, &encoding)?;
                let id = self.0.keep(rewriter)?;
                reply(json!({ "id": id }), Vec::new())
            }
            Args::Scan { id, end } => {
                let mut rewriter = self.0.take(id)?;
                let scan = rewriter.scan.take().ok_or(OUT_OF_TURN)?;
                let scanned = if end {
                    scan.end()
                } else {
                    let mut scan = scan;
                    let written = scan.write(data);
                    rewriter.scan = Some(scan);
                    rewriter.pending.extend_from_slice(data);
                    written
                };
                scanned.map_err(parser_error)?;
                let events = std::mem::take(&mut lock(&rewriter.shared).events);
                self.0.put_back(id, rewriter);
                reply(json!({ "events": events }), Vec::new())
            }
            Args::Apply { id, plan, end } => {
                let mut rewriter = self.0.take(id)?;
                lock(&rewriter.shared).plan.extend(plan);
                let mut apply = rewriter.apply.take().ok_or(OUT_OF_TURN)?;
                let applied = if end {
                    apply.end()
                } else {
                    let written = apply.write(&std::mem::take(&mut rewriter.pending));
                    rewriter.apply = Some(apply);
                    written
                };
                applied.map_err(parser_error)?;
                let mut passes = lock(&rewriter.shared);
                if !passes.plan.is_empty() {
                    return Err(DISAGREE.into());
                }
                let out = std::mem::take(&mut passes.out);
                drop(passes);
                if !end {
                    self.0.put_back(id, rewriter);
                }
                reply(Value::Null, out)
            }
            Args::Abort { id } => {
                self.0.take(id)?;
                reply(Value::Null, Vec::new())
            }
        }
    }

    /// Drops every open rewriter (the render ended).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

const OUT_OF_TURN: &str =
    "html-rewriter: a scan and its apply come in turn, and nothing after the end";
const DISAGREE: &str =
    "html-rewriter: the rewrite did not follow its scan (a handler's changes reached no token)";

fn parse(args: &str) -> Result<Args, String> {
    serde_json::from_str(args)
        .map_err(|e| format!("html-rewriter: the arguments do not parse: {e}"))
}

fn reply(value: Value, data: Vec<u8>) -> Result<Reply, String> {
    Ok(Reply {
        value: value.to_string(),
        data,
    })
}

/// What `lol_html` refused, in `workerd`'s words.
fn parser_error(e: impl std::fmt::Display) -> String {
    format!("Parser error: {e}")
}

fn selector_of(selector: &str) -> Result<Selector, String> {
    selector.parse().map_err(parser_error)
}

/// `{op: "selector"}`: whether it parses, the same at build time and in an
/// instance.
fn check_selector(selector: &str) -> Result<Reply, String> {
    selector_of(selector)?;
    reply(Value::Null, Vec::new())
}

/// A rewriter's two passes.
fn open(
    element: &[ElementSpec],
    document: &[DocumentSpec],
    encoding: &str,
) -> Result<Rewriter, String> {
    let selectors = element
        .iter()
        .map(|spec| selector_of(&spec.selector))
        .collect::<Result<Vec<_>, _>>()?;
    let encoding = encoding_rs::Encoding::for_label(encoding.trim().as_bytes())
        .and_then(AsciiCompatibleEncoding::new)
        .ok_or_else(|| {
            parser_error(format_args!("the body's charset \"{encoding}\" is not an ASCII-compatible encoding HTMLRewriter can read"))
        })?;
    let shared = Shared::default();
    let settings = |scan: bool| {
        let mut settings = Settings::new_send()
            .with_encoding(encoding)
            .with_strict(true)
            .with_memory_settings(MemorySettings::new().with_max_allowed_memory_usage(MAX_MEMORY));
        for (h, (spec, selector)) in element.iter().zip(&selectors).enumerate() {
            let handlers = element_handlers(&shared, scan, h, spec);
            settings =
                settings.append_element_content_handler((Cow::Owned(selector.clone()), handlers));
        }
        for (h, spec) in document.iter().enumerate() {
            settings = settings
                .append_document_content_handler(document_handlers(&shared, scan, h, *spec));
        }
        settings
    };
    let out = shared.clone();
    let sink: Sink = Box::new(move |c: &[u8]| lock(&out).out.extend_from_slice(c));
    let discard: Sink = Box::new(|_: &[u8]| {});
    Ok(Rewriter {
        scan: Some(HtmlRewriter::new(settings(true), discard)),
        apply: Some(HtmlRewriter::new(settings(false), sink)),
        shared,
        pending: Vec::new(),
    })
}

/// The next handler call's changes, in the second pass.
fn planned(shared: &Shared) -> Result<Vec<Do>, String> {
    lock(shared)
        .plan
        .pop_front()
        .ok_or_else(|| DISAGREE.to_string())
}

fn element_handlers(
    shared: &Shared,
    scan: bool,
    h: usize,
    spec: &ElementSpec,
) -> ElementContentHandlers<'static, SendHandlerTypes> {
    let mut handlers = ElementContentHandlers::default();
    if spec.element {
        let shared = shared.clone();
        handlers = handlers.element(
            move |el: &mut Element<'_, '_, SendHandlerTypes>| -> HandlerResult {
                if scan {
                    let number = {
                        let mut passes = lock(&shared);
                        let number = passes.elements;
                        passes.elements += 1;
                        passes.events.push(element_event(h, number, el));
                        number
                    };
                    if el.can_have_content() {
                        let shared = shared.clone();
                        el.on_end_tag(Box::new(move |end: &mut EndTag| {
                            let event =
                                json!({ "kind": "endTag", "of": number, "name": end.name() });
                            lock(&shared).events.push(event);
                            Ok(())
                        }))?;
                    }
                    return Ok(());
                }
                for change in planned(&shared)? {
                    element_do(&shared, el, change)?;
                }
                Ok(())
            },
        );
    }
    if spec.comments {
        handlers = handlers.comments(comments_handler(shared, scan, h, false));
    }
    if spec.text {
        handlers = handlers.text(text_handler(shared, scan, h, false));
    }
    handlers
}

fn document_handlers(
    shared: &Shared,
    scan: bool,
    h: usize,
    spec: DocumentSpec,
) -> DocumentContentHandlers<'static, SendHandlerTypes> {
    let mut handlers = DocumentContentHandlers::default();
    if spec.doctype {
        let shared = shared.clone();
        handlers = handlers.doctype(move |d: &mut Doctype| -> HandlerResult {
            if scan {
                lock(&shared).events.push(doctype_event(h, d));
            } else if !planned(&shared)?.is_empty() {
                return Err(not_here("a doctype").into());
            }
            Ok(())
        });
    }
    if spec.comments {
        handlers = handlers.comments(comments_handler(shared, scan, h, true));
    }
    if spec.text {
        handlers = handlers.text(text_handler(shared, scan, h, true));
    }
    if spec.end {
        let shared = shared.clone();
        handlers = handlers.end(move |e: &mut DocumentEnd| -> HandlerResult {
            if scan {
                lock(&shared).events.push(json!({ "kind": "end", "h": h }));
                return Ok(());
            }
            planned(&shared)?
                .into_iter()
                .try_for_each(|change| end_do(e, change))?;
            Ok(())
        });
    }
    handlers
}

/// A comments handler of either kind: `doc` for `onDocument`'s.
fn comments_handler(
    shared: &Shared,
    scan: bool,
    h: usize,
    doc: bool,
) -> impl FnMut(&mut Comment) -> HandlerResult + Send + 'static {
    let shared = shared.clone();
    move |c: &mut Comment| -> HandlerResult {
        if scan {
            lock(&shared).events.push(comment_event(h, doc, c));
            return Ok(());
        }
        planned(&shared)?
            .into_iter()
            .try_for_each(|change| comment_do(c, change))?;
        Ok(())
    }
}

/// A text handler of either kind: `doc` for `onDocument`'s.
fn text_handler(
    shared: &Shared,
    scan: bool,
    h: usize,
    doc: bool,
) -> impl FnMut(&mut TextChunk) -> HandlerResult + Send + 'static {
    let shared = shared.clone();
    move |t: &mut TextChunk| -> HandlerResult {
        if scan {
            lock(&shared).events.push(text_event(h, doc, t));
            return Ok(());
        }
        planned(&shared)?
            .into_iter()
            .try_for_each(|change| text_do(t, change))?;
        Ok(())
    }
}

fn not_here(what: &str) -> String {
    format!("html-rewriter: {what} has no such change")
}

fn element_event(h: usize, number: u64, el: &Element<'_, '_, SendHandlerTypes>) -> Value {
    let attrs: Vec<(String, String)> = el
        .attributes()
        .iter()
        .map(|a| (a.name(), a.value()))
        .collect();
    json!({
        "kind": "element",
        "h": h,
        "n": number,
        "tag": el.tag_name(),
        "attrs": attrs,
        "ns": el.namespace_uri(),
        "open": el.can_have_content(),
        "removed": el.removed(),
    })
}

fn element_do(
    shared: &Shared,
    el: &mut Element<'_, '_, SendHandlerTypes>,
    change: Do,
) -> Result<(), String> {
    match change {
        Do::SetAttribute { name, value } => {
            el.set_attribute(&name, &value).map_err(parser_error)?
        }
        Do::RemoveAttribute { name } => el.remove_attribute(&name),
        Do::Name { value } => el.set_tag_name(&value).map_err(parser_error)?,
        Do::Before(c) => el.before(&c.content, c.kind()),
        Do::After(c) => el.after(&c.content, c.kind()),
        Do::Prepend(c) => el.prepend(&c.content, c.kind()),
        Do::Append(c) => el.append(&c.content, c.kind()),
        Do::Replace(c) => el.replace(&c.content, c.kind()),
        Do::SetInnerContent(c) => el.set_inner_content(&c.content, c.kind()),
        Do::Remove => el.remove(),
        Do::RemoveAndKeepContent => el.remove_and_keep_content(),
        Do::OnEndTag => {
            let shared = shared.clone();
            el.on_end_tag(Box::new(move |end: &mut EndTag| {
                planned(&shared)?
                    .into_iter()
                    .try_for_each(|change| end_tag_do(end, change))?;
                Ok(())
            }))
            .map_err(parser_error)?
        }
        Do::Text { .. } => return Err(not_here("an element")),
    }
    Ok(())
}

fn end_tag_do(end: &mut EndTag, change: Do) -> Result<(), String> {
    match change {
        Do::Name { value } => end.set_name(value),
        Do::Before(c) => end.before(&c.content, c.kind()),
        Do::After(c) => end.after(&c.content, c.kind()),
        Do::Remove => end.remove(),
        _ => return Err(not_here("an end tag")),
    }
    Ok(())
}

fn comment_event(h: usize, doc: bool, c: &Comment) -> Value {
    json!({ "kind": "comments", "h": h, "doc": doc, "text": c.text(), "removed": c.removed() })
}

fn comment_do(c: &mut Comment, change: Do) -> Result<(), String> {
    match change {
        Do::Text { value } => c.set_text(&value).map_err(parser_error)?,
        Do::Before(x) => c.before(&x.content, x.kind()),
        Do::After(x) => c.after(&x.content, x.kind()),
        Do::Replace(x) => c.replace(&x.content, x.kind()),
        Do::Remove => c.remove(),
        _ => return Err(not_here("a comment")),
    }
    Ok(())
}

fn text_event(h: usize, doc: bool, t: &TextChunk) -> Value {
    json!({
        "kind": "text",
        "h": h,
        "doc": doc,
        "text": t.as_str(),
        "last": t.last_in_text_node(),
        "removed": t.removed(),
    })
}

fn text_do(t: &mut TextChunk, change: Do) -> Result<(), String> {
    match change {
        Do::Before(x) => t.before(&x.content, x.kind()),
        Do::After(x) => t.after(&x.content, x.kind()),
        Do::Replace(x) => t.replace(&x.content, x.kind()),
        Do::Remove => t.remove(),
        _ => return Err(not_here("a text chunk")),
    }
    Ok(())
}

fn doctype_event(h: usize, d: &Doctype) -> Value {
    json!({
        "kind": "doctype",
        "h": h,
        "name": d.name(),
        "publicId": d.public_id(),
        "systemId": d.system_id(),
    })
}

fn end_do(e: &mut DocumentEnd, change: Do) -> Result<(), String> {
    match change {
        Do::Append(c) => e.append(&c.content, c.kind()),
        _ => return Err(not_here("the document's end")),
    }
    Ok(())
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::{MAX_OPEN, Rewriters, pure};
    use serde_json::Value;

    fn call(r: &mut Rewriters, args: &str, data: &[u8]) -> Result<(Value, String), String> {
        r.call(args, data).map(|reply| {
            (
                serde_json::from_str(&reply.value).unwrap(),
                String::from_utf8(reply.data).unwrap(),
            )
        })
    }

    fn open(r: &mut Rewriters) -> u64 {
        let open = r#"{"op":"open","element":[{"selector":"a","element":true}],"document":[],"encoding":"utf-8"}"#;
        call(r, open, &[]).unwrap().0["id"].as_u64().unwrap()
    }

    fn a_scan_finds_the_tokens_and_its_apply_makes_each_handlers_changes() {
        let mut r = Rewriters::default();
        let id = open(&mut r);
        let scan = format!(r#"{{"op":"scan","id":{id}}}"#);
        let (v, _) = call(&mut r, &scan, b"<p>x<a href=1>y</a><a>").unwrap();
        let events = v["events"].as_array().unwrap();
        assert_eq!(events.len(), 3, "{v}");
        assert_eq!(events[0]["attrs"], serde_json::json!([["href", "1"]]));
        assert_eq!(
            (&events[1]["kind"], &events[1]["of"]),
            (&"endTag".into(), &0.into())
        );
        // The first a gets an attribute and an end-tag handler, which puts
        // text before its end tag; the second, nothing.
        let apply = format!(
            r#"{{"op":"apply","id":{id},"plan":[[{{"op":"setAttribute","name":"rel","value":"n"}},{{"op":"onEndTag"}}],[{{"op":"before","content":"<z>"}}],[]]}}"#
        );
        let (_, out) = call(&mut r, &apply, &[]).unwrap();
        assert_eq!(out, r#"<p>x<a href=1 rel="n">y&lt;z&gt;</a><a>"#);
        // A plan that does not fit the scan is refused, not applied elsewhere.
        call(&mut r, &scan, b"<a>").unwrap();
        let wrong = format!(r#"{{"op":"apply","id":{id},"plan":[]}}"#);
        assert!(
            call(&mut r, &wrong, &[])
                .unwrap_err()
                .contains("did not follow its scan")
        );
    }

    fn rewriters_are_bounded_end_with_the_render_and_check_selectors_in_workerds_words() {
        let mut r = Rewriters::default();
        for _ in 0..MAX_OPEN {
            open(&mut r);
        }
        let refused = r.call(
            r#"{"op":"open","element":[],"document":[],"encoding":"utf-8"}"#,
            &[],
        );
        assert!(refused.unwrap_err().contains("16 streams are open already"));
        r.clear();
        assert!(
            r.call(r#"{"op":"scan","id":1}"#, b"<a>")
                .unwrap_err()
                .contains("not open")
        );
        let check = |s: &str| pure(&format!(r#"{{"op":"selector","selector":"{s}"}}"#), &[]);
        assert!(check("div > p.a[href^=x]:not(.b)").is_ok());
        assert_eq!(
            check("a:hover").unwrap_err(),
            "Parser error: Unsupported pseudo-class or pseudo-element in selector."
        );
        let open_at_build = pure(
            r#"{"op":"open","element":[],"document":[],"encoding":"utf-8"}"#,
            &[],
        );
        assert!(open_at_build.is_err());
        let wide = r#"{"op":"open","element":[],"document":[],"encoding":"utf-16"}"#;
        assert!(
            r.call(wide, &[])
                .unwrap_err()
                .contains("not an ASCII-compatible encoding")
        );
    }

    crate::unit_tests!(
        a_scan_finds_the_tokens_and_its_apply_makes_each_handlers_changes,
        rewriters_are_bounded_end_with_the_render_and_check_selectors_in_workerds_words
    );
}

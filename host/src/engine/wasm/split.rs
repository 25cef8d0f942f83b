//! Splitting a plugin component into the code every plugin built by the
//! same `ssr` shares, and the state that is its tenant's own.
//!
//! A plugin is the component `ssr build` makes: the JavaScript runtime's
//! core module, which Wizer pre-initialized (its code, plus the heap
//! snapshot as data segments and global initial values), the WASI adapter,
//! and wit-component's small glue modules. Wizer rewrites data and globals,
//! never code, so every plugin carries byte-identical code. [`split`] makes
//! of one plugin:
//! - its **shared modules**: every core module with no data, as it is, and
//!   the runtime module with its memory turned into an import from
//!   [`STATE_MODULE`] and its data segments removed;
//! - its **glue**: the plugin's component with each of those modules, and
//!   the state module, turned into core-module imports, and its custom
//!   sections left out. It is the same for every plugin built by one `ssr`;
//! - its **state module**: the runtime's memory (its type as built) with the
//!   snapshot's data segments, and no code: all that is the tenant's own.
//!   Wasmtime makes the tenant's copy-on-write memory image from it.
//!
//! The engine compiles each distinct shared module and glue once, by
//! SHA-256 (`shared.rs`), and per tenant only its state module.
//!
//! Invariants:
//! - The glue does what the plugin does: the same modules, instantiated
//!   with the same arguments in the same order, the runtime's memory
//!   created (by the state module) just before the runtime.
//! - Shared code holds no state: a module with data is never shared, the
//!   runtime module shared only without its memory and data. Its globals
//!   stay defined in it, their initial values part of the bytes (and so of
//!   the hash): two plugins share a module only if it is the same bytes, and
//!   each instance of it has its own globals, tables and (imported) memory.
//! - The state module names its glue (an export [`GLUE_EXPORT`] + digest),
//!   and the glue names its shared modules (import names with digests), so
//!   a compiled state module is all a tenant needs stored.
//! - [`split`] answers `Ok(None)` for a component of any other shape (not
//!   made by `ssr build`, or by a version laid out otherwise): the host then
//!   compiles it whole, as before. It refuses ([`ArtifactError`]) only a plugin
//!   that is broken either way, such as one whose snapshot does not fit its
//!   memory.

use std::ops::Range;

use crate::artifact::{self, ArtifactError};
use wasm_encoder::reencode::{Reencode, ReencodeComponent, RoundtripReencoder};
use wasm_encoder::{
    Component, ComponentImportSection, ComponentTypeRef, CoreTypeSection, EntityType,
    InstanceSection, ModuleArg, ModuleType, RawSection,
};
use wasmparser::{
    ComponentAliasSectionReader, ExternalKind, InstanceSectionReader, Parser, Payload, TypeRef,
};

/// The core module name the shared runtime imports its memory from.
pub const STATE_MODULE: &str = "ssr:state";

/// How the glue's imports of shared modules begin. The name goes on with a
/// letter for the module's place and `-h` with its SHA-256, so the compiled
/// glue says which modules it links ([`shared_digest`]).
pub const IMPORT_PREFIX: &str = "ssr-code-";

/// Wasm page size (the plugin's memory has the default page size).
const PAGE: u64 = 1 << 16;

/// The glue's import of the state module.
pub const STATE_IMPORT: &str = "ssr-state";

/// How the state module's export naming its glue begins (then the glue's
/// SHA-256).
pub const GLUE_EXPORT: &str = "ssr-glue:";

/// A plugin split by [`split`].
pub struct Split {
    /// The modules the glue imports besides the state, in import order.
    pub shared: Vec<SharedModule>,
    /// The component, every module in it imported.
    pub glue: Vec<u8>,
    /// SHA-256 of `glue`.
    pub glue_digest: String,
    /// The tenant's state module.
    pub state: Vec<u8>,
}

/// A core module the tenant component imports.
pub struct SharedModule {
    /// The component's import name.
    pub name: String,
    /// SHA-256 of `bytes` ([`artifact::digest`]): two plugins share the
    /// compiled module when this is equal.
    pub digest: String,
    pub bytes: Vec<u8>,
}

/// One section at the top level of the plugin component.
enum Top<'a> {
    Module(&'a [u8]),
    Instances(InstanceSectionReader<'a>),
    Aliases(ComponentAliasSectionReader<'a>),
    /// A custom section: the bundle, the assets, `component-name` (which
    /// names core instances by index, and the state module's instance shifts
    /// them) and the like. No engine runs them, and they differ between
    /// plugins, so the glue goes without.
    Custom,
    Raw(u8, Range<usize>),
    /// A section [`split`] does not expect at the top of a plugin.
    Unexpected,
}

fn top_sections(plugin: &[u8]) -> Result<Vec<Top<'_>>, ArtifactError> {
    let mut out = Vec::new();
    let mut parser = Parser::new(0);
    let mut rest = plugin;
    while !rest.is_empty() {
        let (consumed, payload) = match parser.parse(rest, true)? {
            wasmparser::Chunk::Parsed { consumed, payload } => (consumed, payload),
            wasmparser::Chunk::NeedMoreData(_) => {
                return Err(ArtifactError::Malformed(
                    "the component is truncated".into(),
                ));
            }
        };
        let mut skip = 0;
        let section = match payload {
            Payload::Version { encoding, .. } => match encoding {
                wasmparser::Encoding::Component => None,
                wasmparser::Encoding::Module => Some(Top::Unexpected),
            },
            Payload::ModuleSection {
                unchecked_range, ..
            } => {
                skip = unchecked_range.len();
                Some(Top::Module(&plugin[unchecked_range]))
            }
            Payload::ComponentSection {
                unchecked_range, ..
            } => {
                skip = unchecked_range.len();
                Some(Top::Raw(
                    wasm_encoder::ComponentSectionId::Component as u8,
                    unchecked_range,
                ))
            }
            Payload::InstanceSection(r) => Some(Top::Instances(r)),
            Payload::ComponentAliasSection(r) => Some(Top::Aliases(r)),
            // Core types would shift with the module types added here.
            Payload::CoreTypeSection(_) => Some(Top::Unexpected),
            Payload::CustomSection(_) => Some(Top::Custom),
            Payload::End(_) => None,
            other => match other.as_section() {
                Some((id, range)) => Some(Top::Raw(id, range)),
                None => Some(Top::Unexpected),
            },
        };
        out.extend(section);
        rest = &rest[consumed + skip..];
    }
    Ok(out)
}

/// Splits `plugin` (see the module's documentation); `Ok(None)`: it is not
/// of the shape this knows, compile it whole.
pub fn split(plugin: &[u8]) -> Result<Option<Split>, ArtifactError> {
    let sections = top_sections(plugin)?;
    if sections.iter().any(|s| matches!(s, Top::Unexpected)) {
        return Ok(None);
    }
    // The state module is imported after the last module and instantiated
    // first of all: every module must come before any instance.
    let last_module = sections.iter().rposition(|s| matches!(s, Top::Module(_)));
    let first_instance = sections.iter().position(|s| matches!(s, Top::Instances(_)));
    if let (Some(m), Some(i)) = (last_module, first_instance)
        && i < m
    {
        return Ok(None);
    }
    // Each module: shared as it is, or the runtime split in two.
    let mut modules = Vec::new();
    let mut runtime = None;
    for section in &sections {
        if let Top::Module(bytes) = section {
            let index = modules.len() as u32;
            let module = match classify(bytes)? {
                Kind::Code => (*bytes).to_vec(),
                Kind::Runtime if runtime.is_none() => match split_runtime(bytes)? {
                    Some(split) => {
                        let code = split.code.clone();
                        runtime = Some((index, bytes, split));
                        code
                    }
                    None => return Ok(None),
                },
                Kind::Runtime | Kind::Other => return Ok(None),
            };
            let Some(ty) = module_type(&module)? else {
                return Ok(None);
            };
            modules.push((module, ty));
        }
    }
    let Some((runtime, runtime_bytes, state)) = runtime else {
        return Ok(None);
    };
    if modules.len() > 26 {
        return Ok(None);
    }
    // The state module's type as the glue declares it: any memory.
    let state_type = {
        let mut ty = ModuleType::new();
        ty.export("memory", EntityType::Memory(ANY_MEMORY));
        ty
    };

    let mut glue = Component::new();
    let mut shared = Vec::new();
    let mut seen_modules = 0;
    let mut state_instantiated = false;
    let mut shift = Shift;
    let import = |glue: &mut Component, name: &str, ty: &ModuleType, index: usize| {
        let mut types = CoreTypeSection::new();
        types.ty().module(ty);
        glue.section(&types);
        let mut import = ComponentImportSection::new();
        import.import(name, ComponentTypeRef::Module(index as u32));
        glue.section(&import);
    };
    for section in &sections {
        match section {
            Top::Module(_) => {
                let (bytes, ty) = &modules[seen_modules];
                let digest = artifact::digest(bytes);
                let place = char::from(b'a' + seen_modules as u8);
                let name = format!("{IMPORT_PREFIX}{place}-h{digest}");
                import(&mut glue, &name, ty, seen_modules);
                shared.push(SharedModule {
                    name,
                    digest,
                    bytes: bytes.clone(),
                });
                seen_modules += 1;
                if seen_modules == modules.len() {
                    import(&mut glue, STATE_IMPORT, &state_type, seen_modules);
                }
            }
            Top::Instances(reader) => {
                let mut out = InstanceSection::new();
                if !state_instantiated {
                    out.instantiate(modules.len() as u32, Vec::<(&str, ModuleArg)>::new());
                    state_instantiated = true;
                }
                for instance in reader.clone() {
                    match instance? {
                        wasmparser::Instance::Instantiate { module_index, args } => {
                            let mut with: Vec<(&str, ModuleArg)> = Vec::new();
                            for arg in args.iter() {
                                with.push((arg.name, ModuleArg::Instance(arg.index + 1)));
                            }
                            if module_index == runtime {
                                with.push((STATE_MODULE, ModuleArg::Instance(0)));
                            }
                            out.instantiate(module_index, with);
                        }
                        wasmparser::Instance::FromExports(exports) => {
                            let mut items = Vec::new();
                            for e in exports.iter() {
                                let kind = shift
                                    .export_kind(e.kind)
                                    .map_err(|e| ArtifactError::Malformed(e.to_string()))?;
                                items.push((e.name, kind, e.index));
                            }
                            out.export_items(items);
                        }
                    }
                }
                glue.section(&out);
            }
            Top::Aliases(reader) => {
                let mut out = wasm_encoder::ComponentAliasSection::new();
                shift
                    .parse_component_alias_section(&mut out, reader.clone())
                    .map_err(|e| ArtifactError::Malformed(e.to_string()))?;
                glue.section(&out);
            }
            Top::Custom => {}
            Top::Raw(id, range) => {
                glue.section(&RawSection {
                    id: *id,
                    data: &plugin[range.clone()],
                });
            }
            Top::Unexpected => unreachable!("refused above"),
        }
    }
    let glue = glue.finish();
    let glue_digest = artifact::digest(&glue);
    Ok(Some(Split {
        shared,
        state: state.module(runtime_bytes, &glue_digest),
        glue,
        glue_digest,
    }))
}

/// The glue a state module names, by SHA-256; `None` for a module that
/// names none.
pub fn glue_digest(state: &wasmtime::Module) -> Option<String> {
    state
        .exports()
        .find_map(|e| e.name().strip_prefix(GLUE_EXPORT).map(str::to_string))
}

/// Any 32-bit memory: the type the shared runtime imports, and the glue
/// declares of the state module.
const ANY_MEMORY: wasm_encoder::MemoryType = wasm_encoder::MemoryType {
    minimum: 0,
    maximum: None,
    memory64: false,
    shared: false,
    page_size_log2: None,
};

/// The SHA-256 of the shared module the glue imports as `name`;
/// `None` for any other import.
pub fn shared_digest(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(IMPORT_PREFIX)?;
    let (_place, digest) = rest.split_once("-h")?;
    Some(digest)
}

/// Shifts core instance indices by one: the state module's instance comes
/// first.
struct Shift;

impl Reencode for Shift {
    type Error = std::convert::Infallible;
}

impl ReencodeComponent for Shift {
    fn instance_index(&mut self, index: u32) -> u32 {
        index + 1
    }
}

enum Kind {
    /// No data and no memory of its own: shared as it is.
    Code,
    /// Defines one memory with data: the runtime, split.
    Runtime,
    Other,
}

fn classify(module: &[u8]) -> Result<Kind, ArtifactError> {
    let (mut data, mut memories, mut imported_memories) = (false, 0, 0);
    for payload in Parser::new(0).parse_all(module) {
        match payload? {
            Payload::DataSection(r) => data |= r.count() > 0,
            Payload::MemorySection(r) => memories += r.count(),
            Payload::ImportSection(r) => {
                for import in r.into_imports() {
                    imported_memories += u32::from(matches!(import?.ty, TypeRef::Memory(_)));
                }
            }
            _ => {}
        }
    }
    Ok(match (data, memories, imported_memories) {
        (false, 0, _) => Kind::Code,
        (true, 1, 0) => Kind::Runtime,
        _ => Kind::Other,
    })
}

/// The runtime module split: its code (memory imported from
/// [`STATE_MODULE`], no data), and what makes its state module.
struct Runtime {
    code: Vec<u8>,
    memory: wasmparser::MemoryType,
    /// Its data section, within the module.
    data: Range<usize>,
}

impl Runtime {
    /// The state module: the memory, exported as `memory` and as
    /// [`GLUE_EXPORT`] + `glue`, with the data.
    fn module(&self, runtime: &[u8], glue: &str) -> Vec<u8> {
        let mut state = wasm_encoder::Module::new();
        let mut memories = wasm_encoder::MemorySection::new();
        memories.memory(wasm_encoder::MemoryType {
            minimum: self.memory.initial,
            maximum: self.memory.maximum,
            ..ANY_MEMORY
        });
        state.section(&memories);
        let mut exports = wasm_encoder::ExportSection::new();
        exports.export("memory", wasm_encoder::ExportKind::Memory, 0);
        exports.export(
            &format!("{GLUE_EXPORT}{glue}"),
            wasm_encoder::ExportKind::Memory,
            0,
        );
        state.section(&exports);
        state.section(&RawSection {
            id: wasm_encoder::SectionId::Data as u8,
            data: &runtime[self.data.clone()],
        });
        state.finish()
    }
}

/// The runtime module split (see [`Runtime`]); `None` if it has a shape
/// this does not split.
fn split_runtime(module: &[u8]) -> Result<Option<Runtime>, ArtifactError> {
    let mut code = wasm_encoder::Module::new();
    let mut memory = None;
    let mut data = None;
    let mut re = RoundtripReencoder;
    let mut imported = false;
    for payload in Parser::new(0).parse_all(module) {
        match payload? {
            Payload::Version { .. } | Payload::End(_) | Payload::CodeSectionEntry(_) => {}
            Payload::ImportSection(reader) => {
                let mut imports = wasm_encoder::ImportSection::new();
                for import in reader.into_imports() {
                    let import = import?;
                    if import.module == STATE_MODULE {
                        return Ok(None);
                    }
                    let ty = re
                        .entity_type(import.ty)
                        .map_err(|e| ArtifactError::Malformed(e.to_string()))?;
                    imports.import(import.module, import.name, ty);
                }
                imports.import(STATE_MODULE, "memory", EntityType::Memory(ANY_MEMORY));
                code.section(&imports);
                imported = true;
            }
            Payload::MemorySection(reader) => {
                let ty = reader.into_iter().next().transpose()?;
                match ty {
                    Some(ty) if !ty.memory64 && !ty.shared && ty.page_size_log2.is_none() => {
                        memory = Some(ty)
                    }
                    _ => return Ok(None),
                }
            }
            // Code may use `memory.init` or `data.drop` only with a data
            // count, and would then name segments that go to the state.
            Payload::DataCountSection { .. } => return Ok(None),
            Payload::DataSection(reader) => data = Some(reader),
            other => {
                let Some((id, range)) = other.as_section() else {
                    return Ok(None);
                };
                if !imported && id != wasm_encoder::SectionId::Type as u8 && id != 0 {
                    // A runtime that imports nothing: not one `ssr build` made.
                    return Ok(None);
                }
                code.section(&RawSection {
                    id,
                    data: &module[range],
                });
            }
        }
    }
    let (Some(memory), Some(data)) = (memory, data) else {
        return Ok(None);
    };
    // The data section goes as it is, once every segment is known to be
    // active in memory 0 at a constant offset, inside the memory's initial
    // size.
    let limit = memory.initial * PAGE;
    for segment in data.clone() {
        let segment = segment?;
        let offset_expr = match segment.kind {
            // Not reachable from code without a data count (checked above).
            wasmparser::DataKind::Passive => continue,
            wasmparser::DataKind::Active {
                memory_index: 0,
                offset_expr,
            } => offset_expr,
            wasmparser::DataKind::Active { .. } => return Ok(None),
        };
        let mut ops = offset_expr.get_operators_reader();
        let (Ok(wasmparser::Operator::I32Const { value }), Ok(wasmparser::Operator::End)) =
            (ops.read(), ops.read())
        else {
            return Ok(None);
        };
        let end = u64::from(value as u32) + segment.data.len() as u64;
        if end > limit {
            return Err(ArtifactError::DataOutOfBounds {
                end,
                pages: memory.initial,
            });
        }
    }
    Ok(Some(Runtime {
        code: code.finish(),
        memory,
        data: data.range(),
    }))
}

/// The type of a core module, as a component declares it for an import:
/// its imports and exports. `None` for a module with types other than
/// plain functions (none that `ssr build` makes).
fn module_type(module: &[u8]) -> Result<Option<ModuleType>, ArtifactError> {
    let mut re = RoundtripReencoder;
    let mut ty = ModuleType::new();
    let malformed = |e: wasm_encoder::reencode::Error| ArtifactError::Malformed(e.to_string());
    // The type of each function, table, memory and global, by index space.
    let mut funcs = Vec::new();
    let mut tables = Vec::new();
    let mut memories = Vec::new();
    let mut globals = Vec::new();
    let mut exports = Vec::new();
    for payload in Parser::new(0).parse_all(module) {
        match payload? {
            Payload::TypeSection(reader) => {
                for group in reader {
                    let group = group?;
                    if group.is_explicit_rec_group() {
                        return Ok(None);
                    }
                    for sub in group.into_types() {
                        let wasmparser::CompositeInnerType::Func(f) = &sub.composite_type.inner
                        else {
                            return Ok(None);
                        };
                        if !sub.is_final || sub.supertype_idx.is_some() || sub.composite_type.shared
                        {
                            return Ok(None);
                        }
                        let f = re.func_type(f.clone()).map_err(malformed)?;
                        ty.ty().func_type(&f);
                    }
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    let import = import?;
                    let entity = re.entity_type(import.ty).map_err(malformed)?;
                    match entity {
                        EntityType::Function(_) => funcs.push(entity),
                        EntityType::Table(_) => tables.push(entity),
                        EntityType::Memory(_) => memories.push(entity),
                        EntityType::Global(_) => globals.push(entity),
                        _ => return Ok(None),
                    }
                    ty.import(import.module, import.name, entity);
                }
            }
            Payload::FunctionSection(reader) => {
                for f in reader {
                    funcs.push(EntityType::Function(f?));
                }
            }
            Payload::TableSection(reader) => {
                for t in reader {
                    tables.push(EntityType::Table(re.table_type(t?.ty).map_err(malformed)?));
                }
            }
            Payload::MemorySection(reader) => {
                for m in reader {
                    memories.push(EntityType::Memory(re.memory_type(m?).map_err(malformed)?));
                }
            }
            Payload::GlobalSection(reader) => {
                for g in reader {
                    globals.push(EntityType::Global(
                        re.global_type(g?.ty).map_err(malformed)?,
                    ));
                }
            }
            Payload::TagSection(_) => return Ok(None),
            Payload::ExportSection(reader) => {
                for e in reader {
                    let e = e?;
                    exports.push((e.name.to_string(), e.kind, e.index));
                }
            }
            _ => {}
        }
    }
    for (name, kind, index) in exports {
        let space = match kind {
            ExternalKind::Func | ExternalKind::FuncExact => &funcs,
            ExternalKind::Table => &tables,
            ExternalKind::Memory => &memories,
            ExternalKind::Global => &globals,
            ExternalKind::Tag => return Ok(None),
        };
        let Some(entity) = space.get(index as usize) else {
            return Err(ArtifactError::Malformed(format!(
                "export `{name}` names a missing item"
            )));
        };
        ty.export(&name, *entity);
    }
    Ok(Some(ty))
}

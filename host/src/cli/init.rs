//! `ssr init DIR [--template hello|react|hono]`: writes a working site, its
//! `package.json`, `ssr.toml` and a short README, from the templates in
//! `host/templates/` (embedded: the binary needs no other file). After
//! `npm install` there, `ssr deploy` builds and registers it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The directory to write the site into: new, or empty.
    dir: PathBuf,
    /// What the site starts as.
    #[arg(long, value_enum, default_value_t = Template::Hello)]
    template: Template,
    /// The site's name, its tenant id [default: the directory's name].
    #[arg(long)]
    name: Option<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Template {
    /// A Workers handler, no packages.
    Hello,
    /// React, streamed by the server and hydrated in the browser.
    React,
    /// A Hono app with JSX pages and a JSON API.
    Hono,
}

/// Each template's files: path in the site, text.
macro_rules! files {
    ($dir:literal: $($path:literal),+ $(,)?) => {
        &[$(($path, include_str!(concat!("../../templates/", $dir, "/", $path)))),+]
    };
}

impl Template {
    fn files(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Template::Hello => {
                files!("hello": "package.json", "ssr.toml", "README.md", "src/index.js")
            }
            Template::React => files!(
                "react": "package.json",
                "ssr.toml",
                "README.md",
                "src/App.jsx",
                "src/server.jsx",
                "src/client.jsx",
            ),
            Template::Hono => {
                files!("hono": "package.json", "ssr.toml", "README.md", "src/index.jsx")
            }
        }
    }
}

pub fn run(args: InitArgs) -> anyhow::Result<ExitCode> {
    let dir = &args.dir;
    if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
        bail!(
            "{} is not empty; name a new directory (ssr init never overwrites a file)",
            dir.display()
        );
    }
    let name = match &args.name {
        Some(name) => name.clone(),
        None => ssr::site::name_of_dir(dir),
    };
    ssr::tenant::validate_id(&name)
        .map_err(|e| anyhow::anyhow!("{e}; pass --name with a tenant id for the site"))?;
    for (path, text) in args.template.files() {
        let to = dir.join(path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot make {}", parent.display()))?;
        }
        std::fs::write(&to, text.replace("{{name}}", &name))
            .with_context(|| format!("cannot write {}", to.display()))?;
    }
    let install = match args.template {
        Template::Hello => "",
        Template::React | Template::Hono => " && npm install",
    };
    println!(
        "wrote the {:?} site `{name}` in {}; then:\n  cd {}{install}\n  ssr deploy --dry-run\n  ssr deploy",
        args.template,
        dir.display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

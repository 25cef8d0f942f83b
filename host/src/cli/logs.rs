//! `ssr tenant logs ID --follow`: prints a tenant's console lines and
//! render errors as the server sends them (`GET .../tenants/{id}/logs`,
//! server-sent events), one line each: time, level, request, message.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::Context;

use super::client::{Client, enc, finish};

/// The fields of a line event (`ssr::logs::Line`).
#[derive(serde::Deserialize)]
struct Line {
    time: String,
    level: String,
    method: String,
    path: String,
    message: String,
}

pub fn follow(client: &Client, id: &str) -> anyhow::Result<ExitCode> {
    let response = client.send_with(
        "GET",
        &format!("/_ssr/admin/tenants/{}/logs", enc(id)),
        &[("Accept", "text/event-stream")],
        &[],
    )?;
    if !response.status().is_success() {
        return finish(response);
    }
    let reader = std::io::BufReader::new(response.into_body().into_reader());
    let mut event = String::new();
    let mut out = std::io::stdout().lock();
    for line in reader.lines() {
        let line = line.context("the server's event stream broke off")?;
        if let Some(name) = line.strip_prefix("event:") {
            event = name.trim().to_string();
        } else if let Some(data) = line.strip_prefix("data:") {
            let data = data.trim_start();
            match event.as_str() {
                "ready" => eprintln!(
                    "following tenant `{id}` on {} (Ctrl-C to stop)",
                    client.base
                ),
                "line" => match serde_json::from_str::<Line>(data) {
                    Ok(l) => {
                        // The server escaped each line of the message; an
                        // error's stack comes on lines of its own, indented.
                        let message = l.message.replace('\n', "\n    ");
                        writeln!(
                            out,
                            "{} {:<5} {} {}  {message}",
                            l.time, l.level, l.method, l.path
                        )?;
                        out.flush()?;
                    }
                    Err(e) => eprintln!("(a line the server sent could not be read: {e})"),
                },
                "dropped" => {
                    eprintln!("(lines dropped: this reader fell behind the server: {data})")
                }
                _ => {}
            }
        }
    }
    eprintln!("the server ended the stream");
    Ok(ExitCode::FAILURE)
}

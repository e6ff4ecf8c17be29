//! `loadgen`: the second load generator of `bench/http-load.sh`, so that no
//! figure rests on wrk alone. It speaks HTTP/1.1 itself over raw TCP on one
//! tokio thread (pin it with `taskset`), one request in flight per
//! connection, like wrk, but with none of wrk's code: no Lua, no
//! `http_parser`, its own request writing and response reading.
//!
//! ```sh
//! loadgen URL PATH [options]
//!   --mode fresh|replay|get   fresh: POST a new requestId every request (default)
//!                             replay: POST one constant requestId (--request-id)
//!                             get: GET PATH
//!   --connections N           concurrent connections (32)
//!   --seconds S               how long to run (10)
//!   --prefix P                requestId prefix for fresh (fresh)
//!   --request-id ID           the requestId of replay (replay-1)
//!   --name NAME               the tool called (time.now)
//!   --content-type VALUE      Content-Type of POSTs (application/json)
//!   --header 'Name: value'    one more request header (repeatable)
//!   --pad N                   N bytes of JSON whitespace inside the body
//!   --close                   Connection: close, a new TCP connection per request
//!   --requests N              stop after N requests in all (for instruction
//!                             counts under callgrind), or at --seconds
//! ```
//!
//! It prints one line, the same as `bench/wrk/common.lua` does:
//! `RESULT requests=N seconds=S rps=R p50_us=A p99_us=B errors=E status_errors=F`
//! (errors: connection failures, broken or unparsable answers; status_errors:
//! answers with a status above 399).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Fresh,
    Replay,
    Get,
}

struct Config {
    addr: SocketAddr,
    host: String,
    path: String,
    mode: Mode,
    connections: usize,
    seconds: f64,
    prefix: String,
    request_id: String,
    name: String,
    content_type: String,
    headers: Vec<String>,
    pad: usize,
    close: bool,
    /// Requests left to send in all (`--requests`), shared by the connections.
    budget: AtomicU64,
}

fn usage(message: &str) -> ExitCode {
    eprintln!("loadgen: {message}");
    eprintln!(
        "usage: loadgen http://HOST:PORT PATH [--mode fresh|replay|get] [--connections N] \
         [--seconds S] [--prefix P] [--request-id ID] [--name NAME] [--content-type V] \
         [--header 'Name: value']... [--pad N] [--close]"
    );
    ExitCode::from(2)
}

fn parse_args() -> Result<Config, String> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or("no URL")?;
    let path = args.next().ok_or("no PATH")?;
    let host = url
        .strip_prefix("http://")
        .ok_or("the URL must start with http://")?
        .trim_end_matches('/')
        .to_owned();
    let addr: SocketAddr = host
        .parse()
        .map_err(|error| format!("the URL's host must be IP:PORT ({error})"))?;
    let mut config = Config {
        addr,
        host,
        path,
        mode: Mode::Fresh,
        connections: 32,
        seconds: 10.0,
        prefix: "fresh".to_owned(),
        request_id: "replay-1".to_owned(),
        name: "time.now".to_owned(),
        content_type: "application/json".to_owned(),
        headers: Vec::new(),
        pad: 0,
        close: false,
        budget: AtomicU64::new(u64::MAX),
    };
    while let Some(flag) = args.next() {
        if flag == "--close" {
            config.close = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |value: &str| {
            value
                .parse::<usize>()
                .map_err(|error| format!("{flag}: {error}"))
        };
        match flag.as_str() {
            "--mode" => {
                config.mode = match value.as_str() {
                    "fresh" => Mode::Fresh,
                    "replay" => Mode::Replay,
                    "get" => Mode::Get,
                    other => return Err(format!("unknown mode {other}")),
                }
            }
            "--connections" => config.connections = number(&value)?.max(1),
            "--seconds" => {
                config.seconds = value
                    .parse()
                    .map_err(|error| format!("--seconds: {error}"))?
            }
            "--prefix" => config.prefix = value,
            "--request-id" => config.request_id = value,
            "--name" => config.name = value,
            "--content-type" => config.content_type = value,
            "--header" => config.headers.push(value),
            "--pad" => config.pad = number(&value)?,
            "--requests" => config.budget = AtomicU64::new(number(&value)? as u64),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(config)
}

fn main() -> ExitCode {
    let config = match parse_args() {
        Ok(config) => Arc::new(config),
        Err(message) => return usage(&message),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("loadgen: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(config.seconds);
    let totals = runtime.block_on(async {
        let tasks: Vec<_> = (0..config.connections)
            .map(|index| tokio::spawn(connection(config.clone(), index, deadline)))
            .collect();
        let mut totals = Stats::default();
        for task in tasks {
            match task.await {
                Ok(stats) => totals.merge(stats),
                Err(_) => totals.errors += 1,
            }
        }
        totals
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut latencies = totals.latencies_us;
    latencies.sort_unstable();
    let percentile = |p: f64| -> u32 {
        if latencies.is_empty() {
            return 0;
        }
        let rank = ((p / 100.0) * latencies.len() as f64).ceil() as usize;
        latencies[rank.clamp(1, latencies.len()) - 1]
    };
    println!(
        "RESULT requests={} seconds={seconds:.3} rps={:.1} p50_us={} p99_us={} errors={} status_errors={}",
        latencies.len(),
        latencies.len() as f64 / seconds,
        percentile(50.0),
        percentile(99.0),
        totals.errors,
        totals.status_errors
    );
    if let Some(message) = totals.first_error {
        eprintln!("loadgen: first error: {message}");
    }
    ExitCode::SUCCESS
}

#[derive(Default)]
struct Stats {
    latencies_us: Vec<u32>,
    errors: u64,
    status_errors: u64,
    first_error: Option<String>,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        self.latencies_us.extend(other.latencies_us);
        self.errors += other.errors;
        self.status_errors += other.status_errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    fn error(&mut self, message: String) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(message);
        }
    }
}

/// The parts of every request that do not change: the head up to the
/// `Content-Length` value (POST) or the whole request (GET).
fn fixed_head(config: &Config) -> String {
    let method = if config.mode == Mode::Get {
        "GET"
    } else {
        "POST"
    };
    let mut head = format!(
        "{method} {} HTTP/1.1\r\nHost: {}\r\n",
        config.path, config.host
    );
    for header in &config.headers {
        head.push_str(header);
        head.push_str("\r\n");
    }
    if config.close {
        head.push_str("Connection: close\r\n");
    }
    if config.mode == Mode::Get {
        head.push_str("\r\n");
    } else {
        head.push_str("Content-Type: ");
        head.push_str(&config.content_type);
        head.push_str("\r\nContent-Length: ");
    }
    head
}

/// One connection's loop: a request, its whole answer, the next request.
async fn connection(config: Arc<Config>, index: usize, deadline: Instant) -> Stats {
    let mut stats = Stats {
        latencies_us: Vec::with_capacity(1 << 16),
        ..Stats::default()
    };
    let head = fixed_head(&config);
    let padding = " ".repeat(config.pad);
    let mut request = Vec::with_capacity(512 + config.pad);
    let mut buffer = Vec::with_capacity(16 * 1024);
    let mut stream: Option<TcpStream> = None;
    let mut sent: u64 = 0;
    while Instant::now() < deadline {
        let taken = config
            .budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(1)
            });
        if taken.is_err() {
            break;
        }
        sent += 1;
        request.clear();
        request.extend_from_slice(head.as_bytes());
        if config.mode != Mode::Get {
            let body = match config.mode {
                Mode::Fresh => format!(
                    "{{\"requestId\":\"{}-{index}-{sent}\",\"name\":\"{}\"{padding}}}",
                    config.prefix, config.name
                ),
                _ => format!(
                    "{{\"requestId\":\"{}\",\"name\":\"{}\"{padding}}}",
                    config.request_id, config.name
                ),
            };
            request.extend_from_slice(body.len().to_string().as_bytes());
            request.extend_from_slice(b"\r\n\r\n");
            request.extend_from_slice(body.as_bytes());
        }
        let began = Instant::now();
        let mut current = match stream.take() {
            Some(stream) => stream,
            None => match TcpStream::connect(config.addr).await {
                Ok(stream) => {
                    let _ = stream.set_nodelay(true);
                    stream
                }
                Err(error) => {
                    stats.error(format!("connect: {error}"));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        if let Err(error) = current.write_all(&request).await {
            stats.error(format!("write: {error}"));
            continue;
        }
        buffer.clear();
        match read_response(&mut current, &mut buffer).await {
            Ok(answer) => {
                let micros = began.elapsed().as_micros();
                stats
                    .latencies_us
                    .push(u32::try_from(micros).unwrap_or(u32::MAX));
                if answer.status > 399 {
                    stats.status_errors += 1;
                    if stats.first_error.is_none() {
                        stats.first_error = Some(format!(
                            "status {}: {}",
                            answer.status,
                            String::from_utf8_lossy(&buffer)
                        ));
                    }
                }
                if !config.close && !answer.close {
                    stream = Some(current);
                }
            }
            Err(message) => stats.error(message),
        }
    }
    stats
}

struct Answer {
    status: u16,
    /// The server said it closes the connection.
    close: bool,
}

/// Reads one whole response (head and body) into `buffer`.
async fn read_response(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Result<Answer, String> {
    let head_end = loop {
        if let Some(end) = find(buffer, b"\r\n\r\n") {
            break end + 4;
        }
        fill(stream, buffer).await?;
    };
    let head = std::str::from_utf8(&buffer[..head_end]).map_err(|_| "head is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let mut length = None;
    let mut chunked = false;
    let mut close = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse::<usize>().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close");
        }
    }
    if status == 304 || status == 204 || (100..200).contains(&status) {
        return Ok(Answer { status, close });
    }
    if chunked {
        let mut at = head_end;
        loop {
            let line_end = loop {
                if let Some(end) = find(&buffer[at..], b"\r\n") {
                    break at + end;
                }
                fill(stream, buffer).await?;
            };
            let size_text = std::str::from_utf8(&buffer[at..line_end]).unwrap_or("");
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| format!("bad chunk size {size_text:?}"))?;
            let next = line_end + 2 + size + 2;
            while buffer.len() < next {
                fill(stream, buffer).await?;
            }
            at = next;
            if size == 0 {
                return Ok(Answer { status, close });
            }
        }
    }
    let Some(length) = length else {
        return Err(format!("status {status} without a length"));
    };
    while buffer.len() < head_end + length {
        fill(stream, buffer).await?;
    }
    Ok(Answer { status, close })
}

async fn fill(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Result<(), String> {
    if buffer.capacity() - buffer.len() < 4096 {
        buffer.reserve(16 * 1024);
    }
    match stream.read_buf(buffer).await {
        Ok(0) => Err("connection closed mid-answer".to_owned()),
        Ok(_) => Ok(()),
        Err(error) => Err(format!("read: {error}")),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

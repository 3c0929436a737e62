//! Jepsen's operations, as Elle reads them, from EDN or JSON: the op maps'
//! `:type`, `:process`, `:index`, `:time`, `:f` and the transaction in
//! `:value` (micro-ops `[f k v]`), and txlab's own details under `:txlab`.

use super::{FormatError, Pos};
use crate::{Interval, ReadKind};
use clojure_reader::edn::Edn;
use std::fmt;
use txlab_plugin_api::ir::IsolationLevel;

/// An operation's `:type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpType {
    /// `:invoke`: the transaction was sent.
    Invoke,
    /// `:ok`: it committed.
    Ok,
    /// `:fail`: it certainly did not take effect.
    Fail,
    /// `:info`: its outcome is unknown.
    Info,
}

/// A key or a value: an integer, or anything else by how it is written
/// (`:x`, `"x"`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// An integer.
    Int(i64),
    /// A keyword (`:x`), string or symbol, as written (strings unquoted).
    Name(String),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Name(n) => f.write_str(n),
        }
    }
}

/// A micro-op's function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MopKind {
    /// `:r`.
    Read,
    /// `:append`.
    Append,
    /// `:w`.
    Write,
}

/// A micro-op's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MopValue {
    /// `nil`: the initial value (an empty list, an unwritten register), or
    /// not yet known (an invocation's read).
    Nil,
    /// A register's value, or the element an append appends.
    Scalar(Scalar),
    /// What a list-append read returned.
    List(Vec<Scalar>),
}

/// A micro-op `[f k v]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mop {
    /// `:r`, `:append` or `:w`.
    pub f: MopKind,
    /// The key.
    pub key: Scalar,
    /// The value.
    pub value: MopValue,
}

/// txlab's details of one micro-op, as its export writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MopMeta {
    /// One row a read returned.
    Read {
        /// The statement's index in its transaction.
        index: u32,
        /// Its own label, empty for the default.
        label: String,
        /// The kind of read.
        kind: ReadKind,
        /// The row's table.
        table: String,
        /// The row's values, for reports.
        values: String,
        /// When the statement ran.
        at: Option<Interval>,
        /// Whether the version list starts with T0 (else with the row's
        /// inserter: Elle's lists have no place for "no row").
        from_t0: bool,
    },
    /// A write recorded apart from the reads.
    Write {
        /// The statement's index.
        index: u32,
        /// Its own label, empty for the default.
        label: String,
        /// The row's table.
        table: String,
    },
    /// An append written only because a version list shows it: no write
    /// record.
    Derived,
}

/// txlab's details of a transaction (`:txlab` in an exported op): what
/// Elle's format has no place for, so that importing an export gives the
/// same history back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnMeta {
    /// The transaction's id.
    pub id: u64,
    /// Its label.
    pub label: String,
    /// Its session.
    pub session: Option<u64>,
    /// Its isolation level.
    pub level: Option<IsolationLevel>,
    /// When it took its start point.
    pub started: Option<Interval>,
    /// When it ended.
    pub ended: Option<Interval>,
    /// Its place in the history's order of transactions.
    pub seq: u64,
    /// Per micro-op of the completion.
    pub mops: Vec<MopMeta>,
    /// The outcome, where the format cannot say it (dbcop has no unknown
    /// outcome).
    pub outcome: Option<crate::TxnOutcome>,
    /// Per micro-op, a read's whole version list, where the format cannot
    /// hold it (dbcop's registers).
    pub versions: Vec<Option<Vec<crate::TxnId>>>,
}

/// One operation of a history file.
#[derive(Clone, Debug)]
pub struct Op {
    /// `:index`.
    pub index: Option<i64>,
    /// `:type`.
    pub kind: OpType,
    /// `:process`, when an integer (other processes, like `:nemesis`, are
    /// no clients and their ops are skipped).
    pub process: Option<i64>,
    /// `:time` (nanoseconds).
    pub time: Option<i64>,
    /// The micro-ops.
    pub mops: Vec<Mop>,
    /// txlab's details, when txlab wrote the file.
    pub meta: Option<TxnMeta>,
    /// Where the op starts.
    pub pos: Pos,
}

/// What the EDN and JSON readers have in common.
pub(crate) trait Node: Sized {
    fn get(&self, key: &str) -> Option<&Self>;
    fn int(&self) -> Option<i64>;
    /// A keyword's name (without `:`), a string, a symbol.
    fn name(&self) -> Option<&str>;
    fn items(&self) -> Option<&[Self]>;
    fn is_nil(&self) -> bool;
    fn is_map(&self) -> bool;
    fn boolean(&self) -> Option<bool>;
    fn scalar(&self) -> Option<Scalar>;
    fn show(&self) -> String;
}

impl Node for Edn<'_> {
    fn get(&self, key: &str) -> Option<&Self> {
        match self {
            Edn::Map(m) => m
                .iter()
                .find(|(k, _)| matches!(k, Edn::Key(k) if k == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }
    fn int(&self) -> Option<i64> {
        match self {
            Edn::Int(i) => Some(*i),
            _ => None,
        }
    }
    fn name(&self) -> Option<&str> {
        match self {
            Edn::Key(k) | Edn::Str(k) | Edn::Symbol(k) => Some(k),
            _ => None,
        }
    }
    fn items(&self) -> Option<&[Self]> {
        match self {
            Edn::Vector(v) | Edn::List(v) => Some(v),
            _ => None,
        }
    }
    fn is_nil(&self) -> bool {
        matches!(self, Edn::Nil)
    }
    fn is_map(&self) -> bool {
        matches!(self, Edn::Map(_))
    }
    fn boolean(&self) -> Option<bool> {
        match self {
            Edn::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn scalar(&self) -> Option<Scalar> {
        match self {
            Edn::Int(i) => Some(Scalar::Int(*i)),
            Edn::Key(k) => Some(Scalar::Name(format!(":{k}"))),
            Edn::Str(s) | Edn::Symbol(s) => Some(Scalar::Name(s.to_string())),
            _ => None,
        }
    }
    fn show(&self) -> String {
        short(&self.to_string())
    }
}

impl Node for serde_json::Value {
    fn get(&self, key: &str) -> Option<&Self> {
        self.as_object().and_then(|m| m.get(key))
    }
    fn int(&self) -> Option<i64> {
        self.as_i64()
    }
    fn name(&self) -> Option<&str> {
        self.as_str()
    }
    fn items(&self) -> Option<&[Self]> {
        self.as_array().map(Vec::as_slice)
    }
    fn is_nil(&self) -> bool {
        self.is_null()
    }
    fn is_map(&self) -> bool {
        self.is_object()
    }
    fn boolean(&self) -> Option<bool> {
        self.as_bool()
    }
    fn scalar(&self) -> Option<Scalar> {
        match self {
            serde_json::Value::Number(n) => n.as_i64().map(Scalar::Int),
            serde_json::Value::String(s) => Some(Scalar::Name(s.clone())),
            _ => None,
        }
    }
    fn show(&self) -> String {
        short(&self.to_string())
    }
}

fn short(s: &str) -> String {
    if s.chars().count() > 120 {
        let cut: String = s.chars().take(117).collect();
        format!("{cut}...")
    } else {
        s.to_string()
    }
}

/// Reads one op map; `None` for an op of no client (a nemesis's).
pub(crate) fn op<N: Node>(n: &N, pos: Pos) -> Result<Option<Op>, FormatError> {
    let err = |m: String| Err(FormatError::at(pos, m));
    if !n.is_map() {
        return err(format!("expected an op map, found {}", n.show()));
    }
    let process = match n.get("process") {
        None => None,
        Some(p) if p.is_nil() => None,
        Some(p) => match p.int() {
            Some(i) => Some(i),
            None => return Ok(None),
        },
    };
    let kind = match n.get("type").and_then(Node::name) {
        Some("invoke") => OpType::Invoke,
        Some("ok") => OpType::Ok,
        Some("fail") => OpType::Fail,
        Some("info") => OpType::Info,
        Some(t) => return err(format!("unknown :type :{t}")),
        None => return err("an op without :type (:invoke, :ok, :fail or :info)".into()),
    };
    match n.get("f") {
        None => {}
        Some(f) if f.is_nil() || f.name() == Some("txn") => {}
        Some(f) => {
            return err(format!(
                "op :f {} is not a transaction (:f :txn): not an Elle list-append or rw-register history",
                f.show()
            ))
        }
    }
    let index = n.get("index").and_then(Node::int);
    let time = n.get("time").and_then(Node::int);
    let value = match n.get("value") {
        Some(v) if v.is_nil() => &[][..],
        Some(v) => match v.items() {
            Some(items) => items,
            None => {
                return err(format!(
                    "op :value {} is not a transaction (a vector of micro-ops)",
                    v.show()
                ))
            }
        },
        None => &[][..],
    };
    let mut mops = Vec::with_capacity(value.len());
    for (i, m) in value.iter().enumerate() {
        mops.push(mop(m).map_err(|e| {
            FormatError::at(
                pos,
                format!("micro-op {i} of op {}: {e}", index_text(index)),
            )
        })?);
    }
    let meta = match n.get("txlab") {
        None => None,
        Some(m) => {
            Some(meta(m).map_err(|e| FormatError::at(pos, format!("its :txlab details: {e}")))?)
        }
    };
    Ok(Some(Op {
        index,
        kind,
        process,
        time,
        mops,
        meta,
        pos,
    }))
}

fn index_text(index: Option<i64>) -> String {
    index.map_or("without :index".into(), |i| format!(":index {i}"))
}

fn mop<N: Node>(m: &N) -> Result<Mop, String> {
    let items = m
        .items()
        .filter(|i| i.len() == 3)
        .ok_or_else(|| format!("{} is not [f k v]", m.show()))?;
    let f = match items[0].name() {
        Some("r") => MopKind::Read,
        Some("append") => MopKind::Append,
        Some("w") => MopKind::Write,
        _ => {
            return Err(format!(
                "{}: only :r, :append and :w micro-ops are Elle's list-append and rw-register",
                m.show()
            ))
        }
    };
    let key = items[1].scalar().ok_or_else(|| {
        format!(
            "{}: the key must be an integer, keyword or string",
            m.show()
        )
    })?;
    let v = &items[2];
    let value = if v.is_nil() {
        MopValue::Nil
    } else if let Some(list) = v.items() {
        let mut out = Vec::with_capacity(list.len());
        for e in list {
            out.push(e.scalar().ok_or_else(|| {
                format!(
                    "{}: list elements must be integers, keywords or strings",
                    m.show()
                )
            })?);
        }
        MopValue::List(out)
    } else {
        MopValue::Scalar(v.scalar().ok_or_else(|| {
            format!(
                "{}: the value must be an integer, keyword, string or list",
                m.show()
            )
        })?)
    };
    Ok(Mop { f, key, value })
}

fn interval<N: Node>(n: Option<&N>) -> Result<Option<Interval>, String> {
    match n {
        None => Ok(None),
        Some(n) if n.is_nil() => Ok(None),
        Some(n) => match n.items() {
            Some([a, b]) => match (a.int(), b.int()) {
                (Some(a), Some(b)) if a >= 0 && b >= 0 => {
                    Ok(Some(Interval::new(a as u64, b as u64)))
                }
                _ => Err(format!("{} is not an interval [from to]", n.show())),
            },
            _ => Err(format!("{} is not an interval [from to]", n.show())),
        },
    }
}

fn uint<N: Node>(n: Option<&N>, what: &str) -> Result<u64, String> {
    n.and_then(Node::int)
        .and_then(|i| u64::try_from(i).ok())
        .ok_or_else(|| format!("no {what}"))
}

fn text<N: Node>(n: Option<&N>) -> String {
    n.and_then(Node::name).unwrap_or_default().to_string()
}

fn meta<N: Node>(m: &N) -> Result<TxnMeta, String> {
    let level = match m.get("level") {
        None => None,
        Some(l) if l.is_nil() => None,
        Some(l) => Some(
            IsolationLevel::ALL
                .into_iter()
                .find(|x| Some(x.name()) == l.name())
                .ok_or_else(|| format!("unknown level {}", l.show()))?,
        ),
    };
    let session = match m.get("session") {
        Some(s) if !s.is_nil() => Some(uint(Some(s), "session")?),
        _ => None,
    };
    let mut mops = Vec::new();
    for x in m.get("mops").and_then(Node::items).unwrap_or(&[]) {
        if x.is_nil() {
            mops.push(MopMeta::Derived);
            continue;
        }
        let items = x
            .items()
            .ok_or_else(|| format!("{} is not a micro-op's details", x.show()))?;
        let get = |i: usize| items.get(i);
        let index = uint(get(1), "statement index")? as u32;
        let label = text(get(2));
        match get(0).and_then(Node::name) {
            Some("r") => {
                let kind = match get(3).and_then(Node::name) {
                    Some("plain") => ReadKind::Plain,
                    Some("locking") => ReadKind::Locking,
                    Some("before-delete") => ReadKind::BeforeDelete,
                    _ => return Err(format!("{}: unknown read kind", x.show())),
                };
                mops.push(MopMeta::Read {
                    index,
                    label,
                    kind,
                    table: text(get(4)),
                    values: text(get(5)),
                    at: interval(get(6))?,
                    from_t0: get(7).and_then(Node::boolean).unwrap_or(true),
                });
            }
            Some("w") => mops.push(MopMeta::Write {
                index,
                label,
                table: text(get(3)),
            }),
            _ => return Err(format!("{}: unknown micro-op details", x.show())),
        }
    }
    Ok(TxnMeta {
        id: uint(m.get("id"), "id")?,
        label: text(m.get("label")),
        session,
        level,
        started: interval(m.get("started"))?,
        ended: interval(m.get("ended"))?,
        seq: uint(m.get("seq"), "seq")?,
        mops,
        outcome: None,
        versions: Vec::new(),
    })
}

/// Writes ops as Elle reads them, one op map per line: what a recorded
/// workload history (list-append or registers) is, micro-op by micro-op,
/// with txlab's transaction details under `:txlab` where an op has them
/// (without per-micro-op details: importing the text infers the versions
/// again, as for any Elle file).
pub fn to_edn(ops: &[Op]) -> String {
    use super::edn::string;
    use super::export::meta_head;
    let scalar = |s: &Scalar| match s {
        Scalar::Int(i) => i.to_string(),
        Scalar::Name(n) => string(n),
    };
    let mut out = String::new();
    for op in ops {
        out.push('{');
        if let Some(i) = op.index {
            out.push_str(&format!(":index {i}, "));
        }
        out.push_str(match op.kind {
            OpType::Invoke => ":type :invoke",
            OpType::Ok => ":type :ok",
            OpType::Fail => ":type :fail",
            OpType::Info => ":type :info",
        });
        if let Some(p) = op.process {
            out.push_str(&format!(", :process {p}"));
        }
        out.push_str(", :f :txn");
        if let Some(t) = op.time {
            out.push_str(&format!(", :time {t}"));
        }
        out.push_str(", :value [");
        for (n, m) in op.mops.iter().enumerate() {
            if n > 0 {
                out.push(' ');
            }
            let f = match m.f {
                MopKind::Read => ":r",
                MopKind::Append => ":append",
                MopKind::Write => ":w",
            };
            let value = match &m.value {
                MopValue::Nil => "nil".to_string(),
                MopValue::Scalar(v) => scalar(v),
                MopValue::List(l) => {
                    format!("[{}]", l.iter().map(scalar).collect::<Vec<_>>().join(" "))
                }
            };
            out.push_str(&format!("[{f} {} {value}]", scalar(&m.key)));
        }
        out.push(']');
        if let Some(m) = &op.meta {
            let head = meta_head(
                m.id,
                &m.label,
                m.session,
                m.level,
                (m.started, m.ended),
                m.seq,
            );
            out.push_str(&format!(", :txlab {head}]}}"));
        }
        out.push_str("}\n");
    }
    out
}

/// Reads every op of an EDN document (one op map after another, or one
/// vector of them).
pub(crate) fn read_edn(input: impl std::io::BufRead) -> Result<Vec<Op>, FormatError> {
    let mut reader = super::edn::FormReader::new(input);
    let mut out = Vec::new();
    while let Some(op) = reader.next_form(|e, pos| op(e, pos)) {
        if let Some(op) = op? {
            out.push(op);
        }
    }
    Ok(out)
}

/// Reads every op of a JSON document: an array of op objects (elle-cli's
/// form), or one object per line.
pub(crate) fn read_json(text: &str) -> Result<Vec<Op>, FormatError> {
    let pos_of = |offset: usize| super::edn::advance(Pos { line: 1, column: 1 }, &text[..offset]);
    let json_err = |offset: usize, e: serde_json::Error| {
        let base = pos_of(offset);
        let pos = if e.line() <= 1 {
            Pos {
                line: base.line,
                column: base.column + e.column().saturating_sub(1),
            }
        } else {
            Pos {
                line: base.line + e.line() - 1,
                column: e.column(),
            }
        };
        FormatError::at(pos, format!("not JSON: {e}"))
    };
    let skip = |mut i: usize| {
        while i < text.len() && text.as_bytes()[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut out = Vec::new();
    let mut i = skip(0);
    let array = text[i..].starts_with('[');
    if array {
        i = skip(i + 1);
    }
    loop {
        if i >= text.len() {
            if array {
                return Err(FormatError::at(
                    pos_of(i),
                    "the array of ops is never closed",
                ));
            }
            return Ok(out);
        }
        if array && text.as_bytes()[i] == b']' {
            let end = skip(i + 1);
            if end < text.len() {
                return Err(FormatError::at(
                    pos_of(end),
                    "something follows the array of ops",
                ));
            }
            return Ok(out);
        }
        let mut stream =
            serde_json::Deserializer::from_str(&text[i..]).into_iter::<serde_json::Value>();
        let value = match stream.next() {
            Some(Ok(v)) => v,
            Some(Err(e)) => return Err(json_err(i, e)),
            None => return Ok(out),
        };
        let used = stream.byte_offset();
        if let Some(op) = op(&value, pos_of(i))? {
            out.push(op);
        }
        i = skip(i + used);
        if array {
            match text.as_bytes().get(i) {
                Some(b',') => i = skip(i + 1),
                Some(b']') => {}
                _ => {
                    return Err(FormatError::at(
                        pos_of(i),
                        "expected `,` or `]` after an op",
                    ))
                }
            }
        }
    }
}

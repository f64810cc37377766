//! nginx from Debian, started by a test on loopback with a configuration the
//! test writes, and stopped (workers too) when the value is dropped.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Nginx {
    child: Child,
    pub dir: PathBuf,
}

/// The nginx executable; a test that needs it fails loudly without it (CI
/// installs it).
pub fn executable() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect("nginx is not installed (apt-get install nginx-light)")
}

/// A free TCP port on `ip`, for a server that cannot take port 0.
pub fn free_port(ip: &str) -> u16 {
    std::net::TcpListener::bind((ip, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

impl Nginx {
    /// Starts nginx with the `http { ... }` block `http`, its files under
    /// `dir`, and waits until `ip:port` accepts connections.
    pub fn start(dir: &Path, http: &str, ip: &str, port: u16) -> Nginx {
        let d = dir.display();
        let conf = format!(
            "daemon off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  client_body_temp_path {d}/tmp; proxy_temp_path {d}/tmp;\n  \
             fastcgi_temp_path {d}/tmp; uwsgi_temp_path {d}/tmp; scgi_temp_path {d}/tmp;\n{http}\n}}\n"
        );
        std::fs::create_dir_all(dir.join("tmp")).expect("nginx directories");
        let path = dir.join("nginx.conf");
        std::fs::write(&path, conf).expect("nginx.conf");
        let child = Command::new(executable())
            .arg("-c")
            .arg(&path)
            .arg("-e")
            .arg(dir.join("error.log"))
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        let start = Instant::now();
        while std::net::TcpStream::connect((ip, port)).is_err() {
            let log = std::fs::read_to_string(dir.join("error.log")).unwrap_or_default();
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "nginx did not start: {log}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        Nginx {
            child,
            dir: dir.to_path_buf(),
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM lets the master stop its workers; SIGKILL would orphan them.
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let _ = self.child.wait();
    }
}

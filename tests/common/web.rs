//! A small multi-host test web for whole-crawl tests: HTTP servers on
//! several 127.0.0.x addresses (some with several virtual hosts), a DNS
//! server on a loopback port that knows their names, Latvian pages that
//! link mostly to Latvian pages, and a few traps; plus the ground truth of
//! what a correct crawl verifies and must never request.
#![allow(dead_code)]

use super::dns::DnsServer;
use super::http::{Reply, Server};

const LV: &[&str] = &[
    "Rīga ir Latvijas galvaspilsēta un lielākā pilsēta Baltijas valstīs, kas atrodas pie Daugavas ietekas Rīgas jūras līcī.",
    "Vecrīgā ir saglabājušās daudzas viduslaiku ēkas, baznīcas un šauras ieliņas, kuras katru gadu apmeklē tūkstošiem ceļotāju.",
    "Latvijā ir vairāk nekā divi tūkstoši ezeru, un lielākā daļa no tiem atrodas Latgalē, kur ainava ir pauguraina un zaļa.",
    "Mežs aizņem gandrīz pusi no valsts teritorijas, tāpēc kokrūpniecība ir viena no svarīgākajām tautsaimniecības nozarēm.",
    "Dziesmu un deju svētki notiek reizi piecos gados, un tajos piedalās desmitiem tūkstošu dziedātāju un dejotāju no visas valsts.",
    "Latviešu valoda pieder baltu valodu grupai, un tai ir daudz kopīga ar lietuviešu valodu, kas ir tās tuvākā radiniece.",
    "Vasarā daudzi cilvēki dodas uz jūrmalu, kur gar krastu stiepjas garas smilšu pludmales un priežu meži.",
    "Ziemā dienas ir īsas un aukstas, bet Ziemassvētku laikā pilsētas rotā gaismas un tirdziņi ar karstiem dzērieniem.",
];

const EN: &[&str] = &[
    "The library opens at nine in the morning and closes at six in the evening on every weekday.",
    "Visitors may borrow up to ten books at a time and keep them for three weeks before returning them.",
    "The reading room on the second floor is quiet and has comfortable chairs next to large windows.",
    "Children can join the summer reading club and receive a small prize for every five books they finish.",
];

fn text(pool: &[&str], seed: usize) -> String {
    (0..4)
        .map(|i| pool[(seed * 3 + i) % pool.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

fn page(title: &str, body: &str, links: &[String]) -> String {
    let mut s = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p><ul>"
    );
    for l in links {
        s.push_str(&format!("<li><a href=\"{l}\">{l}</a></li>"));
    }
    s.push_str("</ul></body></html>");
    s
}

/// The test web and what a correct crawl of it gives.
pub struct Web {
    pub dns: DnsServer,
    pub servers: Vec<Server>,
    /// The seed URL.
    pub seed: String,
    /// URLs a correct crawl verifies (and then scans), sorted.
    pub verified: Vec<String>,
    /// Paths (with host) a correct crawl must never request.
    pub forbidden: Vec<(String, String)>,
}

/// Pages per Latvian host.
pub const PAGES: usize = 8;

impl Web {
    /// Builds the web on addresses 127.0.0.`base` to `base`+3.
    pub fn start(base: u8) -> Web {
        let ip = |i: u8| format!("127.0.0.{}", base + i);
        let lv_ab = Server::start(&ip(0));
        let lv_c = Server::start(&ip(1));
        let en = Server::start(&ip(2));
        let ru = Server::start(&ip(3));
        let dns = DnsServer::start();
        for (name, srv) in [
            ("lv-a.test", &lv_ab),
            ("lv-b.test", &lv_ab),
            ("lv-c.test", &lv_c),
            ("en.test", &en),
            ("ru.test", &ru),
        ] {
            dns.a(name, &[&srv.ip()], 300);
        }
        // gone.test is not in the zone: NXDOMAIN.
        let lv_hosts = [
            ("lv-a.test", &lv_ab),
            ("lv-b.test", &lv_ab),
            ("lv-c.test", &lv_c),
        ];
        let mut verified = Vec::new();
        for (h, (host, srv)) in lv_hosts.iter().enumerate() {
            for i in 0..PAGES {
                let mut links = vec![format!("/p{}.html", (i + 1) % PAGES)];
                // Across to the next Latvian host.
                let (next, nsrv) = lv_hosts[(h + 1) % lv_hosts.len()];
                links.push(nsrv.url(next, &format!("/p{i}.html")));
                if i == 0 {
                    links.push(en.url("en.test", "/index.html"));
                    links.push(ru.url("ru.test", "/index.html"));
                    links.push("http://gone.test/".into());
                    links.push(lv_c.url("lv-c.test", "/private/secret.html"));
                    links.push("/pic.html".into());
                    links.push("/old.html".into());
                    links.push("/missing.html".into());
                }
                let body = page(&format!("{host} {i}"), &text(LV, h * PAGES + i), &links);
                srv.route_host(host, &format!("/p{i}.html"), Reply::html(body));
                verified.push(srv.url(host, &format!("/p{i}.html")));
            }
            srv.route_host(
                host,
                "/pic.html",
                Reply::new(200, "image/png", vec![0x89; 5000]),
            );
            srv.route_host(
                host,
                "/old.html",
                Reply::redirect(301, &srv.url(host, "/p3.html")),
            );
        }
        lv_c.route(
            "/robots.txt",
            Reply::new(200, "text/plain", "User-agent: *\nDisallow: /private/\n"),
        );
        lv_c.route(
            "/private/secret.html",
            Reply::html(page("secret", &text(LV, 1), &[])),
        );
        for i in 0..3 {
            let links = vec![format!("/e{}.html", i + 1)];
            let body = page("Library", &text(EN, i), &links);
            en.route(
                if i == 0 { "/index.html" } else { "/e1.html" },
                Reply::html(body.clone()),
            );
            en.route(&format!("/e{i}.html"), Reply::html(body));
        }
        ru.route(
            "/index.html",
            Reply::new(200, "text/html; charset=koi8-r", "\u{0}".repeat(100)),
        );
        verified.sort();
        let seed = lv_ab.url("lv-a.test", "/p0.html");
        let forbidden = vec![
            ("lv-c.test".to_string(), "/private/secret.html".to_string()),
            ("en.test".to_string(), "/e1.html".to_string()),
        ];
        Web {
            dns,
            servers: vec![lv_ab, lv_c, en, ru],
            seed,
            verified,
            forbidden,
        }
    }

    /// The nlpcd options that crawl this web: its DNS server, private
    /// addresses allowed, no politeness rest (loopback), the Latvian filters.
    pub fn nlpcd_args(&self) -> Vec<String> {
        [
            "--nameserver",
            &self.dns.arg(),
            "--allow-private",
            "--fetch-polite",
            "0",
            "--filter-lang",
            "lv",
            "--filter-charset",
            "utf-8 windows-1257 iso-8859-4 iso-8859-13",
            "--with",
            "resolve:--dns-pause=0.1s",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    }

    /// Every request any server saw, as (host, path).
    pub fn requests(&self) -> Vec<(String, String)> {
        self.servers
            .iter()
            .flat_map(|s| s.hits().into_iter().map(|h| (h.host, h.path)))
            .collect()
    }
}

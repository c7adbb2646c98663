import Foundation

/// `pathwatch run` with an `http` sink on an unused loopback port, and curl as its client.
/// Everything here blocks: for suites with the `.onItsOwnThread` trait.
public final class LiveAgent: @unchecked Sendable {
    public let port: Int
    public let process: BackgroundProcess
    /// The token the sink was configured with (what `.token` requests send), if any.
    public let token: String?
    public let config: URL
    /// curl's TLS options (`--cacert`, `--cert`, `--key`) for an agent serving https; nil for http.
    public let curlTLS: [String]?
    public var base: String { "\(curlTLS == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// Writes the configuration `configuration(port)` returns into `directory`, starts the agent
    /// and waits until `/healthz` answers 200. The agent runs as an ordinary user (it owns
    /// `directory`), as the packaged service does, unless `asRoot`.
    public init(
        in directory: URL, token: String? = nil, environment: [String: String]? = nil, logLevel: String? = nil,
        asRoot: Bool = false, curlTLS: [String]? = nil, configuration: (Int) -> String
    ) throws {
        port = try unusedLoopbackPort()
        self.token = token
        self.curlTLS = curlTLS
        config = try writeConfig(configuration(port), in: directory)
        var argv = ["run", "--config", config.path]
        if let logLevel { argv += ["--log-level", logLevel] }
        if asRoot {
            argv = [TestEnvironment.pathwatchBinary.path] + argv
        } else {
            try Unprivileged.own(directory)
            argv = Unprivileged.pathwatch(argv)
        }
        process = try BackgroundProcess(argv, environment: environment)
        let healthy = waitUntil(timeout: 30) { [self] in
            !process.isRunning || (try? request("/healthz", auth: .none, maxTime: 2))?.status == 200
        }
        guard healthy, process.isRunning else {
            let stderr = process.errorOutput
            process.stop()
            throw TestFailure("the agent's http sink did not answer /healthz on \(base): \(stderr)")
        }
    }

    public enum Auth {
        case token, none
        case bearer(String)
        case basic(String, String)
    }

    public struct Reply: Sendable {
        /// The HTTP status, or 0 when curl got no response (its exit status and error say why).
        public var status: Int
        public var head: String
        public var body: String
        public var curlStatus: Int32
        public var curlError: String
        /// Everything the client received.
        public var text: String { head + "\r\n\r\n" + body }

        public func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    /// One request with curl. `maxTime` bounds it (for `/events`, a stream, the reply is what
    /// arrived by then).
    public func request(
        _ path: String, auth: Auth = .token, method: String = "GET", headers: [String] = [],
        body: String? = nil, maxTime: Double = 10
    ) throws -> Reply {
        let argv = curlArguments(path, auth: auth, method: method, headers: headers, body: body, maxTime: maxTime)
        let result = try run(argv, timeout: maxTime + 10)
        return Self.parse(result)
    }

    /// The curl command line `request` runs: the head (`-D -`), then the body, unbuffered (`-N`),
    /// so a stream can also be read line by line as it comes (`BackgroundProcess`).
    public func curlArguments(
        _ path: String, auth: Auth = .token, method: String = "GET", headers: [String] = [],
        body: String? = nil, maxTime: Double = 10
    ) -> [String] {
        var argv = ["curl", "-sS", "-N", "--noproxy", "*", "-D", "-", "--max-time", String(maxTime), "-X", method]
        switch auth {
        case .token: if let token { argv += ["-H", "Authorization: Bearer \(token)"] }
        case .none: break
        case .bearer(let other): argv += ["-H", "Authorization: Bearer \(other)"]
        case .basic(let user, let password): argv += ["-u", "\(user):\(password)"]
        }
        argv += curlTLS ?? []
        for header in headers { argv += ["-H", header] }
        if let body { argv += ["--data-binary", body] }
        argv.append(base + path)
        return argv
    }

    public static func parse(_ result: ProcessResult) -> Reply {
        var head = ""
        var body = ""
        if let end = result.stdout.range(of: "\r\n\r\n") {
            head = String(result.stdout[..<end.lowerBound])
            body = String(result.stdout[end.upperBound...])
        } else {
            head = result.stdout
        }
        let status = head.hasPrefix("HTTP/") ? Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0 : 0
        return Reply(status: status, head: head, body: body, curlStatus: result.status, curlError: result.stderr)
    }

    /// The change events the agent printed on a `json` stdout sink, in order.
    public var changeEvents: [[String: Any]] { PathwatchTestSupport.changeEvents(process.outputLines) }

    public func stop() { process.stop() }

    deinit { process.stop() }
}

/// A real Prometheus server (Debian's `prometheus`) on 127.0.0.1 with a throwaway storage folder,
/// started from the configuration text given (and any rule files written beside it).
public final class PrometheusServer: @unchecked Sendable {
    public static let binary = "/usr/bin/prometheus"

    /// Why a test that needs the server cannot run (it is not installed), or nil.
    public static func unavailable() -> String? {
        FileManager.default.isExecutableFile(atPath: binary) ? nil : "needs prometheus (make test-deps)"
    }
    public let port: Int
    public let process: BackgroundProcess
    public var base: String { "http://127.0.0.1:\(port)" }
    /// `ip netns exec NS` when the server runs in a test's network namespace; its clients too.
    private let inside: [String]

    public init(
        in directory: URL, configuration: String, files: [String: String] = [:], arguments: [String] = [],
        netns: String? = nil, port chosen: Int? = nil
    ) throws {
        inside = netns.map { ["ip", "netns", "exec", $0] } ?? []
        let home = directory.appendingPathComponent("prometheus")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: home.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let config = home.appendingPathComponent("prometheus.yml")
        try configuration.write(to: config, atomically: true, encoding: .utf8)
        port = try chosen ?? unusedLoopbackPort()
        process = try BackgroundProcess(
            inside + [
                Self.binary, "--config.file=\(config.path)",
                "--storage.tsdb.path=\(home.appendingPathComponent("data").path)",
                "--web.listen-address=127.0.0.1:\(port)",
            ] + arguments, currentDirectory: home)
        let ready = waitUntil(timeout: 60) { [self] in
            (try? run(inside + ["curl", "-sf", "--noproxy", "*", "\(base)/-/ready"], timeout: 5))?.status == 0
        }
        guard ready else {
            process.stop()
            throw TestFailure("prometheus did not become ready: \(process.errorOutput.suffix(2000))")
        }
    }

    /// A server scraping a live agent's `/metrics` on 127.0.0.1:`port` every 500 ms, with the
    /// bearer `token`, as job `pathwatch`.
    public convenience init(in directory: URL, scrapingAgentOn port: Int, token: String) throws {
        try self.init(
            in: directory,
            configuration: """
                global: {scrape_interval: 500ms, scrape_timeout: 400ms}
                scrape_configs:
                  - job_name: pathwatch
                    authorization: {credentials: \(token)}
                    static_configs: [{targets: ["127.0.0.1:\(port)"]}]
                """)
    }

    /// `GET /api/v1/query`: the instant vector's samples as (labels, value).
    public func query(_ expression: String) -> [(labels: [String: String], value: String)] {
        guard
            let result = try? run(
                inside + [
                    "curl", "-sfG", "--noproxy", "*", "--data-urlencode", "query=\(expression)", "\(base)/api/v1/query",
                ], timeout: 10),
            result.status == 0, let object = try? parseJSONObject(result.stdout),
            let samples = (object["data"] as? [String: Any])?["result"] as? [[String: Any]]
        else { return [] }
        return samples.map { sample in
            ((sample["metric"] as? [String: String]) ?? [:], ((sample["value"] as? [Any])?.last as? String) ?? "")
        }
    }

    /// `GET PATH` of the HTTP API, parsed; nil when it did not answer with JSON.
    public func api(_ path: String, query: [String: String] = [:]) -> [String: Any]? {
        let arguments = query.flatMap { ["--data-urlencode", "\($0.key)=\($0.value)"] }
        guard
            let result = try? run(
                inside + ["curl", "-sfG", "--noproxy", "*"] + arguments + ["\(base)\(path)"], timeout: 10),
            result.status == 0
        else { return nil }
        return try? parseJSONObject(result.stdout)
    }

    /// `GET /api/v1/targets`: each active target's job, health and last error.
    public func targets() -> [(job: String, health: String, lastError: String)] {
        guard let result = try? run(inside + ["curl", "-sf", "--noproxy", "*", "\(base)/api/v1/targets"], timeout: 10),
            result.status == 0,
            let object = try? parseJSONObject(result.stdout),
            let active = (object["data"] as? [String: Any])?["activeTargets"] as? [[String: Any]]
        else { return [] }
        return active.map {
            (
                (($0["labels"] as? [String: String]) ?? [:])["job"] ?? "", $0["health"] as? String ?? "",
                $0["lastError"] as? String ?? ""
            )
        }
    }

    deinit { process.stop() }
}

/// A real Alertmanager (Debian's `prometheus-alertmanager`) on 127.0.0.1, no clustering, with a
/// throwaway storage folder and the configuration given.
public final class Alertmanager: @unchecked Sendable {
    public static let binary = "/usr/bin/prometheus-alertmanager"
    public let port: Int
    public let process: BackgroundProcess
    public var api: String { "http://127.0.0.1:\(port)/api/v2" }
    public var address: String { "127.0.0.1:\(port)" }

    /// One that routes everything to a receiver that sends nothing, resolving alerts that are
    /// not re-sent after `resolveTimeout`.
    public convenience init(in dir: URL, resolveTimeout: String) throws {
        try self.init(
            in: dir,
            configuration: """
                global:
                  resolve_timeout: \(resolveTimeout)
                route:
                  receiver: nowhere
                receivers:
                  - name: nowhere
                """)
    }

    public init(in dir: URL, configuration: String) throws {
        port = try unusedLoopbackPort()
        let config = dir.appendingPathComponent("alertmanager.yml")
        try configuration.write(to: config, atomically: true, encoding: .utf8)
        process = try BackgroundProcess([
            Self.binary, "--config.file=\(config.path)",
            "--storage.path=\(dir.appendingPathComponent("alertmanager-data").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--cluster.listen-address=",
        ])
        let ready = waitUntil(timeout: 30) { [port] in
            (try? run(["curl", "-sf", "--noproxy", "*", "http://127.0.0.1:\(port)/-/ready"]))?.status == 0
        }
        guard ready else {
            process.stop()
            throw TestFailure("alertmanager did not become ready: \(process.errorOutput)")
        }
    }

    /// Installs the package when it is missing and this process may (root with apt-get).
    public static func unavailable() -> String? {
        if FileManager.default.isExecutableFile(atPath: binary) { return nil }
        return "prometheus-alertmanager is not installed (make test-deps installs it)"
    }

    /// `GET /api/v2/alerts`: the alerts it holds that have not ended.
    public func alerts() -> [[String: Any]] {
        guard let result = try? run(["curl", "-sf", "--noproxy", "*", "\(api)/alerts"]), result.status == 0,
            let list = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        else { return [] }
        return list
    }

    public func alert(check: String) -> [String: Any]? {
        alerts().first { ($0["labels"] as? [String: String])?["check"] == check }
    }

    deinit { process.stop() }
}

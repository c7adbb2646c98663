import Foundation
import Testing

/// The Python receiver in `Tests/Fixtures/webhook/receiver.py`, run on 127.0.0.1 (or an address
/// inside a test's namespace) on a port the test chose, so it can be stopped and started again
/// on the same URL. Its log file outlives it.
public final class WebhookReceiver: @unchecked Sendable {
    public static var script: URL {
        TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/webhook/receiver.py")
    }

    public let host: String
    public let port: Int
    public let log: URL
    public private(set) var process: BackgroundProcess?

    public var url: String { "\(base)/hook" }
    public var base: String { "\(tlsArguments.isEmpty ? "http" : "https")://\(host):\(port)" }

    /// Starts at once unless `start` is false (a receiver that is "down" until `start()`).
    public init(
        log: URL, host: String = "127.0.0.1", port: Int? = nil, mode: String = "ok", secret: String? = nil,
        delayMilliseconds: Int = 0, netns: String? = nil, tlsArguments: [String] = [], start: Bool = true
    ) throws {
        self.host = host
        self.tlsArguments = tlsArguments
        self.port = try port ?? unusedLoopbackPort()
        self.log = log
        self.mode = mode
        self.secret = secret
        self.delayMilliseconds = delayMilliseconds
        self.netns = netns
        if start { try self.start() }
    }

    private let mode: String
    private let secret: String?
    private let delayMilliseconds: Int
    private let netns: String?
    /// `--tls-cert`, `--tls-key`, `--tls-client-ca` for an HTTPS receiver.
    private let tlsArguments: [String]

    public func start(mode: String? = nil) throws {
        var argv = [
            "python3", Self.script.path, "--host", host, "--port", String(port), "--log", log.path,
            "--mode", mode ?? self.mode, "--delay-ms", String(delayMilliseconds),
        ]
        if let secret { argv += ["--secret", secret] }
        argv += tlsArguments
        if let netns { argv = ["ip", "netns", "exec", netns] + argv }
        let p = try BackgroundProcess(argv)
        guard p.waitForLine(timeout: 20, { $0.hasPrefix("listening") }) != nil else {
            p.stop()
            throw TestFailure(
                "the webhook receiver did not start: \(p.outputLines.joined(separator: "\n")) \(p.errorOutput)")
        }
        process = p
    }

    public func stop() {
        process?.stop(grace: 2)
        process = nil
    }

    /// Every request so far, from the log file (complete lines only).
    public func records() -> [[String: Any]] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? parseJSONObject(String($0)) }
    }

    /// Bodies of the requests answered 2xx, parsed.
    public func accepted() -> [[String: Any]] {
        records().filter { (($0["status"] as? Int) ?? 0) / 100 == 2 }
    }

    public func acceptedBodies() -> [[String: Any]] {
        accepted().compactMap { ($0["body"] as? String).flatMap { try? parseJSONObject($0) } }
    }

    /// Changes the mode (and more, see receiver.py) of the running receiver.
    public func control(_ json: String) throws {
        var argv = ["curl", "-sS", "--noproxy", "*", "-X", "POST", "--data-binary", json, "\(base)/_control"]
        if let netns { argv = ["ip", "netns", "exec", netns] + argv }
        let result = try run(argv, timeout: 10)
        guard result.status == 0 else { throw TestFailure("receiver control failed: \(result.stderr)") }
    }

    deinit { stop() }
}

/// Makes sure the `standardwebhooks` package is importable, installing it with pip if it is
/// missing (on a Debian Python that refuses pip installs, PEP 668, with
/// `--break-system-packages`); returns why it cannot be had, or nil.
public func standardWebhooksUnavailable() -> String? {
    func importable() -> Bool { (try? run(["python3", "-c", "import standardwebhooks"]))?.status == 0 }
    if importable() { return nil }
    var why = "pip did not run"
    for extra in [[], ["--break-system-packages"]] {
        let install = try? run(
            ["python3", "-m", "pip", "install", "--quiet"] + extra + ["standardwebhooks"], timeout: 300)
        if importable() { return nil }
        why = install?.stderr ?? why
    }
    return "the standardwebhooks Python package is missing and pip could not install it: \(why)"
}

/// A fresh Standard Webhooks secret: `whsec_` and 32 random bytes in base64.
public func makeWebhookSecret() -> String {
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
    return "whsec_" + Data(bytes).base64EncodedString()
}

/// Lines for a test probe's `state_file`: `count` checks, all in `state`.
public func stateLines(_ count: Int, _ state: String, message: String = "fixture") -> String {
    String(repeating: "\(state) \(message)\n", count: count)
}

/// The change events an agent printed on a `json` stdout sink, in order.
public func changeEvents(_ lines: [String]) -> [[String: Any]] {
    lines.compactMap { try? parseJSONObject($0) }.filter { ($0["type"] as? String) == "change" }
}

/// The `sinks` entry of the given type in a status document file, once it can be read.
public func sinkEntry(inStatusFile url: URL, type: String = "webhook") -> [String: Any]? {
    guard let text = try? String(contentsOf: url, encoding: .utf8), let doc = try? parseJSONObject(text) else {
        return nil
    }
    return (doc["sinks"] as? [[String: Any]])?.first { ($0["type"] as? String) == type }
}

/// Nil when `got` is `expected`; otherwise a short account of the first difference (the whole
/// arrays would bury it).
public func sequenceProblem(got: [String], expected: [String]) -> String? {
    if got == expected { return nil }
    if let i = zip(got, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
        return
            "first difference at \(i): got \(got[i]), expected \(expected[i]) (\(got.count) got, \(expected.count) expected)"
    }
    return "\(got.count) got, \(expected.count) expected; one is a prefix of the other"
}

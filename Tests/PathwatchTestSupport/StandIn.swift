import Foundation

/// A provider's stand-in from `Tests/Fixtures` (a Python script that checks each request as the
/// provider documents it and answers as the provider does), on a port of its own on 127.0.0.1,
/// recording each request as one JSON line.
public final class StandIn: @unchecked Sendable {
    public let process: BackgroundProcess
    public let port: Int
    public let log: URL

    /// `script`: its path under `Tests/Fixtures`; `arguments` besides `--port` and `--log`.
    public init(_ script: String, in dir: URL, arguments: [String] = []) throws {
        port = try unusedLoopbackPort()
        log = dir.appendingPathComponent(
            URL(fileURLWithPath: script).deletingPathExtension().lastPathComponent + ".jsonl")
        let path = TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/\(script)").path
        process = try BackgroundProcess(["python3", path, "--port", "\(port)", "--log", log.path] + arguments)
        guard waitUntil(timeout: 60, { process.outputLines.contains("listening") }) else {
            process.stop()
            throw TestFailure("\(script) did not start: \(process.errorOutput.suffix(2000))")
        }
    }

    public var base: String { "http://127.0.0.1:\(port)" }

    /// Every request recorded so far.
    public var records: [[String: Any]] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? parseJSONObject(String($0))
        }
    }

    deinit { process.stop() }
}

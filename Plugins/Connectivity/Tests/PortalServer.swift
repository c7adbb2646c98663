import Foundation
import PathwatchTestSupport

/// The fixture server (Fixtures/portal_server.py): a check URL, an endpoint and a webhook
/// receiver that answer as the internet or as a captive portal, switched by `mode`.
final class PortalServer: @unchecked Sendable {
    enum Mode: String { case full, redirect, html, hang }

    let process: BackgroundProcess
    let host: String
    let port: Int
    let modeFile: URL
    let hookLog: URL

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/portal_server.py")

    /// Starts on `host` (inside `netns` when given); port 0 lets the kernel pick one.
    init(in directory: URL, host: String = "127.0.0.1", port: Int = 0, netns: String? = nil) throws {
        self.host = host
        modeFile = directory.appendingPathComponent("portal-mode")
        hookLog = directory.appendingPathComponent("hook.jsonl")
        try "full".write(to: modeFile, atomically: true, encoding: .utf8)
        var argv = [
            "python3", Self.script.path, "--host", host, "--port", String(port), "--mode-file", modeFile.path,
            "--hook-log", hookLog.path,
        ]
        if let netns { argv = ["ip", "netns", "exec", netns] + argv }
        process = try BackgroundProcess(argv)
        guard let line = process.waitForLine(timeout: 20, { $0.hasPrefix("PORT ") })?.line,
            let port = Int(line.dropFirst("PORT ".count))
        else {
            process.stop()
            throw TestFailure("portal server did not start: \(process.errorOutput)")
        }
        self.port = port
    }

    var mode: Mode {
        get { Mode(rawValue: (try? String(contentsOf: modeFile, encoding: .utf8)) ?? "") ?? .full }
        set { try? newValue.rawValue.write(to: modeFile, atomically: true, encoding: .utf8) }
    }

    func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// The webhook bodies received so far, with their arrival times (Unix seconds).
    func hooks() -> [(at: Double, body: [String: Any])] {
        guard let text = try? String(contentsOf: hookLog, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let record = try? parseJSONObject(String(line)), let at = record["at"] as? Double,
                let body = (record["body"] as? String).flatMap({ try? parseJSONObject($0) })
            else { return nil }
            return (at, body)
        }
    }

    func stop() { process.stop(grace: 2) }

    deinit { process.stop(grace: 1) }
}

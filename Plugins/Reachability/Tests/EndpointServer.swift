import Foundation
import PathwatchTestSupport

/// The fixture HTTP(S) server (Fixtures/endpoint_server.py) on a loopback address and a port of
/// its own.
final class EndpointServer {
    let process: BackgroundProcess
    let port: Int
    let scheme: String
    let host: String

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Starts the server; with `certificate` and `key` it speaks HTTPS.
    init(
        certificate: URL? = nil, key: URL? = nil, clientCA: URL? = nil, host: String = "127.0.0.1",
        environment: [String: String]? = nil
    ) throws {
        var argv = ["python3", Self.fixtures.appendingPathComponent("endpoint_server.py").path, "--host", host]
        self.host = host
        if let certificate, let key { argv += ["--cert", certificate.path, "--key", key.path] }
        if let clientCA { argv += ["--client-ca", clientCA.path] }
        scheme = certificate == nil ? "http" : "https"
        process = try BackgroundProcess(argv, environment: environment)
        guard let line = process.waitForLine(timeout: 20, { $0.hasPrefix("PORT ") })?.line,
            let port = Int(line.dropFirst("PORT ".count))
        else {
            process.stop()
            throw TestFailure("endpoint server did not start: \(process.errorOutput)")
        }
        self.port = port
    }

    func url(_ path: String) -> String { "\(scheme)://\(host):\(port)\(path)" }

    /// The most /slow requests the server ever had in progress at once (plain HTTP servers only).
    func peakConcurrency() throws -> Int {
        let answer = try run(["curl", "-s", url("/peak")])
        guard let peak = Int(answer.stdout.dropFirst("peak ".count)) else {
            throw TestFailure("bad /peak answer \(answer.stdout)")
        }
        return peak
    }

    deinit { process.stop() }
}

/// The certificates of Tests/Fixtures/tls/make_certificates.sh (shared with the webhook tests), made once per test run in a folder that is
/// removed when the test process ends normally.
final class TestCertificates: Sendable {
    let directory: URL

    static let shared: Result<TestCertificates, TestFailure> = {
        do {
            let directory = try TestEnvironment.makeTemporaryDirectory("pathwatch-reach-certs")
            let made = try run([
                TestEnvironment.packageRoot.appendingPathComponent("Tests/Fixtures/tls/make_certificates.sh").path,
                directory.path,
            ])
            guard made.status == 0 else { return .failure(TestFailure("make_certificates.sh failed: \(made.stderr)")) }
            atexit {
                if case .success(let certs) = TestCertificates.shared {
                    TestEnvironment.removeTemporaryDirectory(certs.directory)
                }
            }
            return .success(TestCertificates(directory: directory))
        } catch {
            return .failure(TestFailure("cannot make certificates: \(error)"))
        }
    }()

    init(directory: URL) { self.directory = directory }

    static func get() throws -> TestCertificates { try shared.get() }

    var ca: URL { directory.appendingPathComponent("ca.pem") }
    var key: URL { directory.appendingPathComponent("server.key") }
    func certificate(_ name: String) -> URL { directory.appendingPathComponent("\(name).pem") }
}

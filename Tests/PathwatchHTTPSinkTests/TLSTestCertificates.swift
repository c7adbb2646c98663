import Foundation
import PathwatchTestSupport

/// Test certificates made with the openssl command line in a folder of the test's: a CA, server
/// certificates for 127.0.0.1 (two, with different serials, for the renewal test), a client
/// certificate, and the bad ones the configuration must refuse (expired, wrong purpose, a key of
/// another certificate). EC P-256 keys: quick to make.
struct TLSTestCertificates {
    let dir: URL

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    var caCert: String { path("ca.pem") }
    var serverCert: String { path("server.pem") }
    var serverKey: String { path("server.key") }
    var clientCert: String { path("client.pem") }
    var clientKey: String { path("client.key") }

    init(in dir: URL) throws {
        self.dir = dir
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"),
            "-out", path("ca.pem"), "-subj", "/CN=pathwatch test CA", "-days", "2",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try issue(
            "server",
            extensions: "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature")
        try issue(
            "server2",
            extensions: "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature")
        try issue("client", extensions: "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature")
        try issue("clientpurpose", extensions: "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=clientAuth")
        try issue("signonly", extensions: "subjectAltName=IP:127.0.0.1\nkeyUsage=critical,keyCertSign")
        try issueExpired()
    }

    /// A key and a certificate signed by the CA (or by the CA named `ca`: `<ca>.pem`, `<ca>.key`),
    /// with `extensions` (openssl's x509v3 syntax).
    private func issue(_ name: String, extensions: String, ca: String = "ca") throws {
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("\(name).key"),
            "-out", path("\(name).csr"), "-subj", "/CN=\(name)",
        ])
        try extensions.write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(ca).pem"), "-CAkey", path("\(ca).key"),
            "-set_serial", serial(),
            "-days", "2", "-extfile", path("\(name).ext"), "-out", path("\(name).pem"),
        ])
    }

    /// A client certificate (`foreign-client.pem`, `.key`) for TLS clients, valid now, signed by a
    /// CA of its own (`foreign-ca.pem`) that is not `ca.pem`: one the agent's client CA never issued.
    func issueForeignClient() throws {
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            path("foreign-ca.key"),
            "-out", path("foreign-ca.pem"), "-subj", "/CN=another test CA", "-days", "2",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try issue(
            "foreign-client", extensions: "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature",
            ca: "foreign-ca")
    }

    /// A server certificate whose validity ended in 2020: `openssl ca` takes explicit dates.
    private func issueExpired() throws {
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("expired.key"),
            "-out", path("expired.csr"), "-subj", "/CN=expired",
        ])
        try "".write(toFile: path("index.txt"), atomically: true, encoding: .utf8)
        try "\(serial().dropFirst(2))\n".write(toFile: path("ca.serial"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: path("issued"), withIntermediateDirectories: true)
        try """
        [ca]
        default_ca = test
        [test]
        database = \(path("index.txt"))
        new_certs_dir = \(path("issued"))
        certificate = \(caCert)
        private_key = \(path("ca.key"))
        serial = \(path("ca.serial"))
        default_md = sha256
        policy = anything
        x509_extensions = server
        [anything]
        commonName = supplied
        [server]
        subjectAltName = IP:127.0.0.1
        extendedKeyUsage = serverAuth
        """.write(toFile: path("ca.cnf"), atomically: true, encoding: .utf8)
        try openssl([
            "ca", "-batch", "-config", path("ca.cnf"), "-in", path("expired.csr"), "-out", path("expired.pem"),
            "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-notext",
        ])
    }

    private func serial() -> String {
        "0x" + (0..<8).map { _ in String(format: "%02X", UInt8.random(in: 1...255)) }.joined()
    }

    private func openssl(_ arguments: [String]) throws {
        let result = try run(["openssl"] + arguments)
        guard result.status == 0 else {
            throw TestFailure("openssl \(arguments.prefix(2).joined(separator: " ")): \(result.stderr)")
        }
    }

    /// The serial of the certificate a handshake with 127.0.0.1:`port` presents, as openssl
    /// prints it (`serial=…`), or nil when the handshake fails.
    static func servedSerial(port: Int, extra: [String] = []) throws -> String? {
        let script =
            "openssl s_client -connect 127.0.0.1:\(port) \(extra.joined(separator: " ")) </dev/null 2>/dev/null | openssl x509 -noout -serial"
        let result = try run(["sh", "-c", script], timeout: 20)
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.hasPrefix("serial=") ? String(line.dropFirst("serial=".count)) : nil
    }

    static func serial(ofFile file: String) throws -> String {
        let result = try run(["openssl", "x509", "-noout", "-serial", "-in", file])
        return String(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("serial=".count))
    }

    /// Whether a handshake with these `openssl s_client` options completes.
    static func handshakes(port: Int, _ options: [String]) throws -> Bool {
        let result = try run(
            ["sh", "-c", "openssl s_client -connect 127.0.0.1:\(port) \(options.joined(separator: " ")) </dev/null"],
            timeout: 20)
        return result.status == 0 && result.stdout.contains("Cipher is ") && !result.stdout.contains("Cipher is (NONE)")
    }
}

import Glibc
import NIOSSL
import PathwatchBase
import PathwatchHTTPSinkSettings
import PathwatchSinkKit

/// The http sink's TLS files, read and checked, and the server context made of them. Loaded when
/// the configuration is read (to refuse bad files there) and again by `TLSContextWatcher` when a
/// file changes on disk; both on threads that may block, never on the event loop.
struct TLSMaterial {
    var context: NIOSSLContext
    /// What the context was made of (certificates and key in memory): a fresh context is made of
    /// it again without touching the files (`TLSContextWatcher` bounds the session cache so).
    var configuration: TLSConfiguration
    /// The leaf certificate's serial number, in hex: what a renewal changes.
    var serial: String

    /// TLS 1.2 suites with forward secrecy and AEAD only (no RSA key exchange, no CBC); BoringSSL
    /// has no anonymous, export or NULL suites at all. TLS 1.3's suites are all of this kind.
    static let cipherSuites =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    static func load(_ settings: HTTPTLSSettings, now: time_t = time(nil)) throws(TLSMaterialError) -> TLSMaterial {
        let chain = try certificates(settings.certFile, field: .certFile)
        let leaf = chain[0]
        try checkValidity(leaf, file: settings.certFile, now: now)
        if let why = CertificatePurpose.serverProblem(leaf) {
            throw TLSMaterialError(field: .certFile, file: settings.certFile, problem: why)
        }
        var keyBytes = try contents(settings.keyFile, field: .keyFile)
        // What of the key sits in this buffer is wiped once BoringSSL has its own copy.
        defer { keyBytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            // NIOSSL's error is not repeated: nothing of a key file's content is ever echoed.
            throw TLSMaterialError(
                field: .keyFile, file: settings.keyFile, problem: "not an unencrypted PEM private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = settings.minVersion == .tls13 ? .tlsv13 : .tlsv12
        // How long a connection the sink closes waits for the client's close_notify.
        // swift-nio-ssl's 5 s timer keeps the connection's handler and SSL object alive until
        // it fires, even once the socket is gone: a flood of handshakes that hang up at once
        // kept some 7,500 of them (80 MiB) alive at a time, and glibc kept the high-water mark
        // resident. Half a second is plenty for a client on a network that can carry a
        // scrape. (A connection that breaks is no longer closed through this path at all:
        // HTTPConnectionHandler's `closeUnlessClosing`.)
        configuration.shutdownTimeout = .milliseconds(500)
        configuration.maximumTLSVersion = .tlsv13
        configuration.cipherSuites = cipherSuites
        if let caFile = settings.clientCAFile {
            let roots = try certificates(caFile, field: .clientCAFile)
            // With `client_auth: none` the file is checked but no certificate is asked for.
            guard settings.clientAuth != .none else { return try context(configuration, settings, leaf) }
            configuration.trustRoots = .certificates(roots)
            configuration.certificateVerification =
                settings.clientAuth == .require ? .noHostnameVerification : .optionalVerification
            // Only the listed CAs' certificates are accepted, and they are what a client offers.
            configuration.sendCANameList = true
        }
        return try context(configuration, settings, leaf)
    }

    /// The context; BoringSSL refuses a key that does not match the leaf certificate here.
    private static func context(
        _ configuration: TLSConfiguration, _ settings: HTTPTLSSettings, _ leaf: NIOSSLCertificate
    ) throws(TLSMaterialError) -> TLSMaterial {
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSMaterialError(
                field: .keyFile, file: settings.keyFile,
                problem: "does not match the certificate in \"\(settings.certFile)\"")
        }
        return TLSMaterial(
            context: context, configuration: configuration, serial: leaf.serialNumber.map { hexByte($0) }.joined())
    }

    /// A PEM file of any size an operator would write (a CA bundle of every public root is some
    /// 200 KiB): a larger one is no certificate or key of ours.
    static let maxFileBytes = 4 << 20

    /// The file's bytes, read once and checked by what was read: a regular file, opened without
    /// blocking, so a FIFO or a device named here is refused at once rather than waited on
    /// (`BoundedFile`, as for every file the configuration names).
    private static func contents(_ file: String, field: HTTPTLSSettings.CodingKeys) throws(TLSMaterialError)
        -> [UInt8]
    {
        do {
            return try BoundedFile.read(file, limit: maxFileBytes)
        } catch {
            let problem = error.unreadable ? "cannot be read: \(error.description)" : error.description
            throw TLSMaterialError(field: field, file: file, problem: problem)
        }
    }

    private static func certificates(_ file: String, field: HTTPTLSSettings.CodingKeys) throws(TLSMaterialError)
        -> [NIOSSLCertificate]
    {
        let bytes = try contents(file, field: field)
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(bytes), !chain.isEmpty else {
            throw TLSMaterialError(field: field, file: file, problem: "holds no PEM certificate")
        }
        return chain
    }

    private static func checkValidity(_ leaf: NIOSSLCertificate, file: String, now: time_t) throws(TLSMaterialError) {
        if leaf.notValidAfter < now {
            throw TLSMaterialError(
                field: .certFile, file: file, problem: "the certificate expired on \(utcDate(leaf.notValidAfter))")
        }
        if leaf.notValidBefore > now {
            throw TLSMaterialError(
                field: .certFile, file: file,
                problem: "the certificate is not valid before \(utcDate(leaf.notValidBefore))")
        }
    }

    private static func utcDate(_ t: time_t) -> String {
        var seconds = t
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(Int(parts.tm_year) + 1900) + "-" + twoDigits(Int(parts.tm_mon) + 1) + "-"
            + twoDigits(Int(parts.tm_mday))
            + " " + twoDigits(Int(parts.tm_hour)) + ":" + twoDigits(Int(parts.tm_min)) + " UTC"
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    private static func hexByte(_ b: UInt8) -> String { (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }
}
